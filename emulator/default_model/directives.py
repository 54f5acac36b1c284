"""What a question fixes about its answer, kept as a hard constraint: a computation, a fact, a choice, a length.

`answer` gives the whole answer where the question fixes it: arithmetic and percentages computed from the
question's own numbers by a small evaluator (no `eval`), a rate problem (distance, speed, time; a price less a
discount), a short fact from `lexicon/facts.txt`, one of the options the question lists ("Pick one: cat, dog or
fish"), a yes or a no, one word. `shaped` holds a written answer to the length the question sets ("in under 30
words", "in two sentences", "briefly"). Both are pure and cheap: a question is read for them only when one of
a few words is in it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from emulator.core.conversation import Message
from emulator.default_model import members, worked
from emulator.default_model.grammar import singular
from emulator.default_model.lexicon import sections
from emulator.default_model.worked import computed, converted, rate

# --- the facts ------------------------------------------------------------------------------------------------------

Fact = tuple[frozenset[str], str, str]  # the stems a question must hold, the answer, its one-word form


def _facts() -> tuple[Fact, ...]:
    found = []
    for line in sections("facts")["facts"]:
        words, answer, short = (part.strip() for part in line.split("|"))
        found.append((frozenset(words.split()), answer, short))
    return tuple(found)


FACTS = _facts()
_WORD = re.compile(r"[a-z0-9]+")


def stems(text: str) -> frozenset[str]:
    """A text's words as the fact table writes them: lower case, a plural's ending taken off."""
    out = set()
    for word in _WORD.findall(text.lower()):
        if len(word) > 4 and word.endswith("ies"):
            word = word[:-3] + "y"
        elif len(word) > 3 and word.endswith(("ches", "shes", "xes")):
            word = word[:-2]
        elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
            word = word[:-1]
        out.add("colour" if word == "color" else word)
        if word.startswith("freez"):  # freezes, freezing, freezes: one stem
            out.add("freez")
    return frozenset(out)


def fact(text: str) -> Fact | None:
    """The fact whose words the question holds, most of them first."""
    held = stems(text)
    best: Fact | None = None
    for known in FACTS:
        if known[0] <= held and (best is None or len(known[0]) > len(best[0])):
            best = known
    return best


# --- what the answer must be: one word, yes or no, a choice ---------------------------------------------------------

_ONE_WORD = re.compile(
    r"\b(in|with|using) (one|a single) word\b|\bone[- ]word answer\b|\banswer in one word\b"
    r"|(?:^|[.?!]\s+)one word[.!]?$|^one word\b"
)
_YES_NO = re.compile(
    r"\b(answer|reply|respond|say)(?: with| only)?(?: just)? (?:a )?(?:yes or no|yes/no)\b|\byes or no\??$"
    r"|^yes or no\b"
)
_NUMBER_ONLY = re.compile(r"\b(just|only) (the|a) number\b|\bnumber only\b")
_OPTIONS = (
    re.compile(
        r"\b(?:pick|choose|select) (?:one|the next \w+|a \w+)?\s*(?:from|of|between|among)?\s*[:\-]?\s*\[([^\]]+)\]",
        re.IGNORECASE,
    ),
    re.compile(r"\b(?:pick|choose|select) one\s*[:\-]\s*([^.?!\n]+)", re.IGNORECASE),
    re.compile(r"\b(?:pick|choose|select) between\s+([^.?!\n]+)", re.IGNORECASE),
    re.compile(r"\bfrom (?:the list |these |the options )?\[([^\]]+)\]", re.IGNORECASE),
    re.compile(r"\bwhich (?:one )?(?:of these )?(?:is|are) (?:an? )?[a-z ]{2,30}?\s*[:,]\s*([^?.\n]+)", re.IGNORECASE),
    re.compile(r"\b(?:pick|choose|select) one of\s+(.+?)(?:\s+(?:for|to|as|that)\b|[.?!:\n]|$)", re.IGNORECASE),
    re.compile(r"\b(?:classify|label|categori[sz]e|tag)\b[^:.?\n]{0,60}?\bas (?:either )?([^:.?\n]+)", re.IGNORECASE),
)
_KIND_ASKED = re.compile(r"\bwhich (?:one )?(?:of these )?(?:is|are) (?:an? )?([a-z][a-z ]{1,30}?)\s*[:,]", re.I)
_ONLY_RETURN = re.compile(
    r"\b(?:only|just) (?:return|give|say|answer with|reply with|output|the (?:name|choice|option|role|word))\b"
    r"|\breply with (?:only|just) the\b"
)


def options(text: str) -> tuple[tuple[str, ...], str]:
    """The options a question lists to choose from, as written, and the text that lists them."""
    for pattern in _OPTIONS:
        found = pattern.search(text)
        if found is None:
            continue
        listed = found[1].strip()
        parts = re.split(r"\s*,\s*(?:or\s+|and\s+)?|\s+or\s+|\s+and\s+", listed)
        chosen = tuple(p.strip(" '\"`.") for p in parts if p.strip(" '\"`."))
        if len(chosen) >= 2:
            return chosen, found[0]
    return (), ""


def _chosen(text: str, listed: Sequence[str], dice: Iterator[int], question: str = "") -> str:
    """The option that is of the kind asked ("Which is a mammal: shark, dolphin or trout?", by the members
    table); else the option the rest of the conversation names; the dice's where it names none, or several alike."""
    kind = _KIND_ASKED.search(question)
    found = members.members(kind[1]) or members.members(f"a {kind[1]}") if kind is not None else None
    if found is not None:
        known = {singular(m.lower()) for m in found[1]}
        fitting = [o for o in listed if singular(o.lower()) in known]
        if len(fitting) == 1:
            return fitting[0]
    if {"positive", "negative"} <= {o.lower() for o in listed}:  # a sentiment label: the words decide
        mood = sentiment(text)
        return next((o for o in listed if o.lower() == mood), listed[-1] if mood == "neutral" else listed[0])
    rest = stems(text)
    scored = sorted(((len(stems(o) & rest), i) for i, o in enumerate(listed)), reverse=True)
    if scored[0][0] > 0 and (len(scored) == 1 or scored[0][0] > scored[1][0]):
        return listed[scored[0][1]]
    return listed[next(dice) % len(listed)]


READ = 4000  # characters of a question read for what it fixes (its first and last halves)
_MOODS = {name: frozenset(" ".join(lines).split()) for name, lines in sections("sentiment").items()}


def sentiment(text: str) -> str:
    """A text's sentiment by its words: positive, negative or neutral."""
    words = set(re.findall(r"[a-z']+", text.lower()))
    good, bad = len(words & _MOODS["positive"]), len(words & _MOODS["negative"])
    return "positive" if good > bad else "negative" if bad > good else "neutral"


def answer(text: str, dice: Iterator[int], context: str = "") -> str | None:
    """The whole answer, where the question fixes it; None where it leaves the answer to the writer. `context` is
    the conversation around the question (what a choice is judged by). A long text (a pasted document) is read
    for its first and last `READ // 2` characters, where an instruction stands: its cost stays a short question's."""
    if len(text) > READ:
        text = f"{text[: READ // 2]} {text[-READ // 2 :]}"
    low = text.lower()
    one_word = _ONE_WORD.search(low) is not None
    number_only = _NUMBER_ONLY.search(low) is not None
    listed, where = options(text)
    # Only a choice a bare answer fits: in one word, only the choice, from a bracketed list (a framework's
    # selector), or "pick one:". "Choose between React and Vue" wants reasons: the writer's.
    bare = one_word or _ONLY_RETURN.search(low) or where.endswith("]") or "one" in where.lower()[:16]
    bare = bare or where.lower().startswith(("classify", "label", "categori", "tag"))  # a label is its own answer
    if listed and bare:
        return _chosen(f"{context}\n{text.replace(where, ' ')}", listed, dice, text)
    decided = worked.polar(text)
    if decided is not None:
        said = "Yes." if decided[0] else "No."
        return said if _YES_NO.search(low) or one_word else f"{said} {decided[1]}"
    result = computed(text) or rate(text) or converted(text)
    if result is not None:
        if one_word or number_only:
            numbers = re.findall(r"[-$€£]?\d[\d,]*(?:\.\d+)?", result)
            return numbers[-1] if numbers else result
        return result
    polar = _POLAR.match(low) is not None  # "Does a spider have six legs?" asks a count too
    known = (fact(text) or (fact(f"{text} many") if polar else None)) if _asks(low) else None
    yes_no = _YES_NO.search(low) is not None
    if known is not None and (yes_no or polar):  # "Is Mars the largest planet?": the fact decides
        short = known[2].lower().rstrip(".")
        said = short.capitalize() + "." if short in ("yes", "no") else "Yes." if short in low else "No."
        return said if yes_no else known[1] if known[1].startswith(("Yes", "No")) else f"{said} {known[1]}"
    if known is not None:
        return f"{known[2]}." if one_word or number_only else known[1]
    if yes_no:
        return "Yes." if next(dice) % 2 == 0 else "No."
    return None


_POLAR = re.compile(r"^(?:is|are|was|were|does|do|did|has|have|can)\b")


def _asks(low: str) -> bool:
    """Whether a text asks something a fact answers (a question, not an instruction to write)."""
    return "?" in low or low.startswith(("what", "how many", "which", "who", "name the", "tell me"))


AROUND = 4000  # characters of the conversation around the question a choice is judged by


def instructions(messages: Sequence[Message]) -> str:
    """The system and developer prompts, the last `AROUND` characters: where a standing limit is set."""
    return "\n".join(m.text for m in messages if m.role in ("system", "developer"))[-AROUND:]


def around(messages: Sequence[Message]) -> str:
    """The conversation before the question (system prompt and earlier turns), its last `AROUND` characters."""
    return "\n".join(m.text for m in messages[:-1])[-AROUND:]


# --- how long the answer may be --------------------------------------------------------------------------------------

_WORD_LIMIT = re.compile(
    r"\b(?:(?P<below>under|fewer than|less than)|(?:no|not|never) more than|at most|max(?:imum)?(?: of)?|up to|within"
    r"|(?:in )?exactly|in)"
    r" (?P<count>\d+|[a-z]+) words\b|\b(?P<limit>\d+|[a-z]+)[- ]word (?:limit|max)"
)
_SENTENCE_LIMIT = re.compile(
    r"\b(?:in|with|using|at most|no more than|not more than|never more than|up to|max(?:imum)?(?: of)?)(?: exactly)?"
    r" (one|a single|two|three|four|five|\d+) sentences?\b|\bone sentence\b"
)
_BRIEF = re.compile(r"\b(briefly|brief answer|keep it short|short answer|be brief|be concise|concisely|tl;?dr)\b")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(*])")
_MARKDOWN = re.compile(r"^\s*(?:[-*]|\d+\.|#+)\s*")
_EMPHASIS = re.compile(r"(?<=\S)\*+|\*+(?=\S)")  # bold and italic marks; "2 * 3" keeps its star
_COUNTS = {"one": 1, "a single": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
_COUNTS |= {"nine": 9, "ten": 10, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100}


def _number(said: str) -> int:
    return int(said) if said.isdigit() else _COUNTS.get(said, 0)


def shaped(text: str, written: str) -> str:
    """`written` held to the length `text` sets: at most its words (whole sentences where they fit, else cut at
    a word and closed), at most its sentences, or its first paragraph for "briefly". Unchanged where it sets none."""
    low = text.lower()
    if "word" in low and (found := _WORD_LIMIT.search(low)) is not None:
        limit = _number(found["count"] or found["limit"])
        if found["below"] and limit > 1:  # "under 30 words": 29 at most
            limit -= 1
        return _words(written, limit) if limit else written
    if "sentence" in low and (found := _SENTENCE_LIMIT.search(low)) is not None:
        count = _number(found[1]) if found[1] else 1
        return " ".join(sentences(written)[: max(count, 1)])
    if _BRIEF.search(low):
        return " ".join(sentences(written)[:2])
    return written


def sentences(text: str) -> list[str]:
    """The prose sentences of an answer: markdown lists and headings flattened, code blocks left out."""
    kept, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if not fenced and line.strip():
            kept.append(_EMPHASIS.sub("", _MARKDOWN.sub("", line)).strip())
    flat = " ".join(k if k.endswith((".", "!", "?", ":")) else f"{k}." for k in kept)
    return [s.strip() for s in _SENTENCE.split(flat) if s.strip() and not s.strip().endswith(":")]


def _words(written: str, limit: int) -> str:
    kept: list[str] = []
    for sentence in sentences(written):
        if len(" ".join([*kept, sentence]).split()) > limit:
            break
        kept.append(sentence)
    if kept:
        return " ".join(kept)
    cut = " ".join(sentences(written)[0].split()[:limit]) if written.strip() else ""
    return cut.rstrip(",;:—-") + ("" if cut.endswith((".", "!", "?")) else ".")
