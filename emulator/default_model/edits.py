"""The default model's edits of the user's own text: a summary, a clearer or a formal rewrite, and a translation
it declines to invent."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence

from emulator.default_model import corrections
from emulator.default_model.grammar import capital
from emulator.default_model.page import FRAMES, Page

_SENTENCE = re.compile(r"(?<=[.!?])\s+")

# What asks for an edit of the text after a colon (or after a question, for a summary), and which edit.
_FORMAL = r"(?:please )?(?:make|rewrite|turn) (?:this|it)\b[^:\n]*\b(?:formal|professional|polite)[^:\n]*:\s*(?P<s>.+)"
_REWRITE = (
    r"(?:please )?(?:rewrite|rephrase|reword|proofread|correct|fix|improve|edit|polish"
    r"|check (?:the |my |this )?(?:grammar|spelling))\b[^:\n]*:\s*(?P<s>.+)"
)
_SIMPLER = (
    r"(?:please )?(?:simplify|make (?:this|it)(?: \w+)? (?:simpler|plainer|easier)|(?:say|put|write) (?:this|it) "
    r"(?:more simply|simply|in plain|in simpler))\b[^:\n]*:\s*(?P<s>.+)"
)
_SUMMARY_OF = (
    r"(?:please |can you |could you )?(?:give me |write |make )?(?:an? )?(?:short |brief |quick |one-line )?"
    r"summary of (?:this|the following|the text below)\b[^:\n]*[:?]\s*(?P<s>.+)"
)
_CORRECTING = re.compile(r"\b(?:grammar|proofread|correct|spelling|typos?|mistakes?|errors?)\b", re.I)
_EDITS = (
    ("summarize", re.compile(r"(?:please )?(?:summari[sz]e|sum up|tl;?dr)\b[^:\n]*:\s*(?P<s>.+)", re.I | re.S)),
    ("summarize", re.compile(_SUMMARY_OF, re.I | re.S)),
    ("formal", re.compile(_FORMAL, re.I | re.S)),
    ("formal", re.compile(r"(?:please )?formali[sz]e\b[^:\n]*:\s*(?P<s>.+)", re.I | re.S)),
    ("rewrite", re.compile(_SIMPLER, re.I | re.S)),
    ("rewrite", re.compile(_REWRITE, re.I | re.S)),
)


def asked(text: str) -> tuple[str, str, str] | None:
    """The edit `text` asks for, as (form, the text to edit, how: "simpler", "correct" or ""); None for none."""
    for form, pattern in _EDITS if ":" in text or "?" in text else ():
        m = pattern.match(text)
        if m:
            source, said = m["s"].strip(), text[: m.start("s")]
            how = "simpler" if pattern.pattern == _SIMPLER else "correct" if _CORRECTING.search(said) else ""
            return form, source, how
    return None


_FACTUAL = re.compile(r"\d|\b(?:percent|agreed|decided|will|must|grew|fell|rose)\b", re.I)  # what a summary keeps


def summarize(page: Page, places: Sequence[str]) -> str:
    """The text's first sentence and those that hold its facts, half of them at most, in plainer words; a text of
    one sentence loses its asides and trailing clauses, so a summary is never a copy."""
    said = [s.strip() for s in _SENTENCE.split(page.ask.source) if s.strip()]
    keep = max(1, (len(said) + 1) // 2)
    ranked = sorted(range(len(said)), key=lambda i: (i != 0, not _FACTUAL.search(said[i]), i))
    chosen = corrections.simpler(" ".join(said[i] for i in sorted(ranked[:keep])))
    if len(chosen.split()) >= len(page.ask.source.split()):
        chosen = _ASIDE.sub("", _TRAILING.sub(".", chosen)).strip()
    return "In short: " + chosen


_ASIDE = re.compile(r"\s*\([^)]*\)|\s*,\s*(?:which|who)\s[^,.]*,")  # "(…)", ", which …,"
_TRAILING = re.compile(r",\s+(?:which|because|although|though|while|since|as|so that|and)\s[^.!?]*[.!?]$")


@functools.cache
def _table(name: str) -> tuple[re.Pattern[str], Mapping[str, str]]:
    """The replacements of frames' section `name`, as one pattern and its table."""
    return corrections.phrases(FRAMES[name])


def _replaced(text: str, name: str) -> str:
    """`text` with section `name`'s replacements made, and the plain grammar fixes (`corrections`)."""
    pattern, table = _table(name)
    fixed = corrections.swapped(" ".join(text.split()), "fixes")
    return pattern.sub(lambda m: table[m.group().lower()], fixed)


def rewrite(page: Page, places: Sequence[str]) -> str:
    """The user's text corrected by rule, and said in plainer words where it asks for that or for a clearer
    version; a correction says what it changed, and says so where it found nothing to change."""
    fixed, changed = corrections.corrected(page.ask.source.strip("\"'\u201c\u201d"))
    if page.ask.other == "correct":
        if not changed:
            return f"I found nothing to correct; the text reads well as it is:\n\n{fixed}"
        listed = "\n".join(
            f"- \u201c{was}\u201d \u2192 \u201c{now}\u201d" if was else f"- added \u201c{now}\u201d"
            for was, now in changed
        )
        return f"Here is the corrected text:\n\n{fixed}\n\nWhat I changed:\n\n{listed}"
    plain = corrections.simpler(fixed)
    if page.ask.other == "simpler":
        if plain == fixed:
            return f"It is already fairly plain; here it is with small fixes:\n\n{plain}"
        return f"Here it is in simpler words:\n\n{plain}"
    return f"Here is a clearer version:\n\n{plain}"


_CLAUSE = re.compile(r"[^,.!?;]+[,.!?;]*")
_SUBJECTLESS = re.compile(r"^(?:cannot|can|will|would|need|want|have to|must|should|could|hope|think|am)\b|^going to\b")
_POLITE = re.compile(r"^(?:can|could|will|would) (?=you\b|we\b|I\b)", re.I)
_ASKING = re.compile(r"^(?:do|does|did|is|are|was|were|could|would|should|may|might|have|has|shall) ", re.I)
# Chat drops the object before a time: "can we do tomorrow" means "can we do it tomorrow".
_ELIDED = re.compile(
    r"\b(do|make|move|push|finish|send|schedule) (today|tomorrow|tonight|later|next week|this week|"
    r"Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b"
)
_GREETINGS = frozenset(("hello", "good morning", "good afternoon", "good evening"))


def _formal_clause(clause: str) -> str:
    """One clause of a chat message as a formal sentence with its subject and its mark: "can u send it?" →
    "Could you send it?", "feeling sick" → "I am feeling sick.", "will check email though" → "I will check
    email, though."."""
    asking = clause.endswith("?")
    clause = clause.rstrip(",.!?; ").strip()
    clause = clause[:1].lower() + clause[1:] if not clause.startswith("I ") else clause
    clause = _ELIDED.sub(r"\1 it \2", clause)
    if _POLITE.match(clause):
        asking = True
        clause = "could " + clause.split(" ", 1)[1]
    elif asking and not _ASKING.match(clause):
        asking = False  # "tomorrow?": a statement of the time meant, not a question
    elif clause.startswith("going to"):
        clause = f"I am {clause}"
    elif _SUBJECTLESS.match(clause):
        clause = f"I {clause}"
    elif re.match(r"^\w+ing\b", clause) and not clause.startswith(("thing", "nothing", "something", "morning")):
        clause = f"I am {clause}"
    clause = re.sub(r"\s+though$", ", though", clause)
    return capital(clause) + ("?" if asking else ".")


def formal(page: Page, places: Sequence[str]) -> str:
    """The user's message in a formal register: slang, abbreviations and contractions expanded, each clause a
    sentence with its subject, a question kept a (polite) question, no exclamation marks."""
    text = re.sub(r"^(Hello|Good \w+)\s+(?=\w)", r"\1, ", _replaced(page.ask.source, "formal"))
    text = re.sub(r"\bI apologize\s+(?=\w)", "I apologize, ", text)  # "sorry can't come": two sentences
    clauses = [c.strip() for c in _CLAUSE.findall(text) if c.strip(" ,.!?;")]
    said = [_formal_clause(c) for c in clauses]
    if len(said) > 1 and said[0][:-1].lower() in _GREETINGS:  # "Hello, I cannot make it.": one sentence
        said[:2] = [f"{said[0][:-1]}, {said[1][:1].lower() + said[1][1:] if not said[1].startswith('I ') else said[1]}"]
    return "Here is a more formal version:\n\n" + " ".join(said)


def translate(page: Page, places: Sequence[str]) -> str:
    phrase, language = page.ask.source, page.ask.language
    return (
        f'You asked for "{phrase}" in {language}. This emulator answers offline without a language model, so it '
        f"does not translate text, and it will not invent {language} words that might be wrong. A dictionary or a "
        f"translation service will give you the exact {language} wording."
    )
