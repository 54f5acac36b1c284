"""A text the user gives, corrected by rule or said in plainer words (the tables are `lexicon/plain.txt`).

`corrected` fixes what rules can see: a verb's tense against "yesterday" or "last week", a verb that does not agree
with its subject, a pronoun's case in a compound subject ("me and him went" → "He and I went"), past forms made
regular by mistake ("buyed"), a noun after a number ("three apple"), "a"/"an", a contraction without its
apostrophe, a doubled word, capitals and the closing mark. It returns the changes too, so that an answer can say
what it changed. `simpler` swaps wordy phrases for plain ones and splits a long sentence at a clause. Pure.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Mapping, Sequence

from emulator.default_model import grammar
from emulator.default_model.grammar import article, capital, plural
from emulator.default_model.lexicon import sections

_TABLES = sections("plain")


def phrases(lines: Sequence[str]) -> tuple[re.Pattern[str], Mapping[str, str]]:
    """ "wrong -> right" lines as one pattern of whole phrases in any case, longest first, and their table (the
    first line of a phrase wins)."""
    table: dict[str, str] = {}
    for line in lines:
        wrong, _, right = line.partition(" -> ")
        table.setdefault(wrong.strip().lower(), right.strip())
    words = sorted(table, key=len, reverse=True)
    return re.compile(r"(?<![\w'])(?:" + "|".join(map(re.escape, words)) + r")(?![\w'])", re.I), table


@functools.cache
def _pattern(name: str) -> tuple[re.Pattern[str], Mapping[str, str]]:
    return phrases(_TABLES[name])


def swapped(text: str, name: str) -> str:
    """`text` with table `name`'s phrases swapped, a capital kept where the phrase had one."""
    pattern, table = _pattern(name)

    def swap(m: re.Match[str]) -> str:
        right = table[m.group().lower()]
        return capital(right) if m.group()[0].isupper() and m.start() == 0 else right

    return pattern.sub(swap, text)


_FORMS = tuple(tuple(line.split()) for line in _TABLES["verbs"])
_PAST = {form: past for base, third, past in _FORMS for form in (base, third)} | {"am": "was", "are": "were"}
_THIRD = {base: third for base, third, _ in _FORMS if base != "be"}
_BASE = {third: base for base, third, _ in _FORMS if base != "be"} | {"is": "are", "was": "were"}
_AGO = re.compile(
    r"\b(?:yesterday|last (?:night|week|month|year|summer|winter|spring|autumn|weekend|monday|tuesday|wednesday"
    r"|thursday|friday|saturday|sunday)|\w+ ago)\b",
    re.I,
)
_NOT_FINITE = frozenset(
    (
        "for",
        "with",
        "at",
        "in",
        "on",
        "from",
        "of",
        "by",
        "to",
        "will",
        "would",
        "can",
        "could",
        "should",
        "must",
        "may",
        "might",
        "did",
        "didn't",
    )
)
_OBJECT = {"me": "I", "him": "he", "her": "she", "them": "they", "us": "we"}
_COMPOUND = re.compile(
    r"^(?P<when>(?:yesterday|today|tonight|then|later|last \w+|this \w+),?\s+)?"
    r"((?:my|our|your|his|her|their|the) \w+|me|him|her|them|us|[A-Z][a-z]+) and (me|him|her|them|us|I|[A-Z][a-z]+)\b",
    re.I,
)
# One person or thing named at a sentence's start, and a verb of many after it: "Tom don't", "Anna have".
_NAMED_ONE = re.compile(r"^([A-Z][a-z]+) (don't|have|are|were|do)\b")
_PRONOUNS = frozenset(("I", "We", "You", "They", "These", "Those", "People", "Some", "Many", "Both", "All", "Most"))
_ONE = re.compile(r"\b(he|she|it)\s+([a-z]+)\b", re.I)
_MANY = re.compile(
    r"\b(two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|many|several|few|[2-9]|\d\d+) ([a-z]+)\b", re.I
)
_UNCOUNTED = frozenset(("of", "more", "times", "hundred", "thousand", "million", "percent", "and", "or", "to", "per"))
_ARTICLE = re.compile(r"\b(a|an) ([A-Za-z][\w-]*)")
_DOUBLED = re.compile(r"\b(\w+) \1\b", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def corrected(text: str) -> tuple[str, list[tuple[str, str]]]:
    """`text` with the mistakes rules can see fixed, and each change as (before, after)."""
    fixed = " ".join(_sentence(s) for s in _SENTENCE.split(" ".join(text.split())) if s.strip())
    return fixed, changes(text, fixed)


def _sentence(sentence: str) -> str:
    s = swapped(swapped(sentence, "overdone"), "fixes")
    s = _subject(s)
    words = s.split(" ")
    past = _AGO.search(s) is not None
    for i, word in enumerate(words):
        bare = word.lower().strip(",;:.!?")
        before = words[i - 1].lower() if i else ""
        if past and bare in _PAST and before not in _NOT_FINITE and not (bare == "have" and i + 1 < len(words)):
            words[i] = word.lower().replace(bare, _PAST[bare]) if word != "I" else word
    s = " ".join(words)
    if (both := _COMPOUND.match(s)) is not None:  # "He and I goes": a verb of two agrees with both
        verb = re.match(r" (\w+)", s[both.end() :])
        if verb is not None:
            s = s[: both.end()] + f" {_BASE.get(verb[1].lower(), verb[1])}" + s[both.end() + verb.end() :]
    s = _NOUN_VERB.sub(_agreed, s)
    if not past:
        s = _ONE.sub(lambda m: f"{m[1]} {_THIRD.get(m[2].lower(), m[2])}", s)
    s = _MANY.sub(_counted, s)
    s = _ARTICLE.sub(lambda m: _an(m[1], m[2]), s)
    s = _DOUBLED.sub(r"\1", s)
    s = capital(s.strip())
    return s if s[-1:] in ".!?" else s + "."


def _subject(s: str) -> str:
    """A compound subject in the subject's case, the speaker last: "me and him" → "He and I"."""
    m = _COMPOUND.match(s)
    if m is None:
        one = _NAMED_ONE.match(s)
        if one is None or one[1] in _PRONOUNS or grammar.is_plural(one[1]):
            return s
        return f"{one[1]} {_SINGLE[one[2]]}" + s[one.end() :]
    first, second = (_OBJECT.get(w.lower(), w) if w.lower() in _OBJECT or w == "I" else w for w in (m[2], m[3]))
    if first == "I":
        first, second = second, first
    when = capital(m["when"]) if m["when"] else ""
    return f"{when}{first if when else capital(first)} and {second}" + s[m.end() :]


_SINGLE = {"don't": "doesn't", "have": "has", "are": "is", "were": "was", "do": "does"}


_NOUN_VERB = re.compile(
    r"\b((?:the|this|that|these|those|my|our|your|his|her|their) ([a-z]+)) (is|are|was|were|has|have)\b", re.I
)
_TO_MANY = {"is": "are", "was": "were", "has": "have"}
_TO_ONE = {many: one for one, many in _TO_MANY.items()}


def _agreed(m: re.Match[str]) -> str:
    """A verb after "the report", "these files" in the noun's number; "this" and "these" too."""
    if m[2].lower() in _EITHER:
        return m.group()
    many = grammar.is_plural(m[2]) and m[2].lower() not in ("news", "series", "species")
    word = m[1].split()[0]
    pointed = _POINTING[many].get(word.lower())
    said = (capital(pointed) if word[0].isupper() else pointed) + m[1][len(word) :] if pointed else m[1]
    verb = (_TO_MANY if many else _TO_ONE).get(m[3].lower(), m[3])
    return f"{said} {verb}"


_EITHER = frozenset(
    ("data", "media", "staff", "team", "family", "government", "committee", "crew", "audience", "police")
)
_POINTING = {True: {"this": "these", "that": "those"}, False: {"these": "this", "those": "that"}}


def _counted(m: re.Match[str]) -> str:
    count, noun = m[1], m[2]
    if count.lower() in ("1", "one") or noun.lower() in _UNCOUNTED or noun.endswith("s") or len(noun) < 3:
        return m.group()
    if noun.lower() in _PAST or noun.lower() in _THIRD:  # a verb ("the two met"), not a noun
        return m.group()
    return f"{count} {plural(noun)}"


def _an(said: str, word: str) -> str:
    right = article(word).split(" ", 1)[0]
    return (capital(right) if said[0].isupper() else right) + f" {word}"


def changes(before: str, after: str) -> list[tuple[str, str]]:
    """What changed from `before` to `after`, word by word: each changed run as (before, after), case changes at a
    sentence's start and added closing marks left out."""
    old, new = before.split(), after.split()
    runs: list[list[int]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=_plain(old), b=_plain(new), autojunk=False).get_opcodes():
        if op == "equal" or " ".join(old[i1:i2]).lower() == " ".join(new[j1:j2]).lower():
            continue  # a capital at a sentence's start is no change to report
        if i1 == i2 or j1 == j2:  # a word added or taken out: said with the word before it
            i1, j1 = max(i1 - 1, 0), max(j1 - 1, 0)
        if runs and (i1 == runs[-1][1] or i1 - runs[-1][1] == 1 and old[i1 - 1] == "and"):  # "me and him goes"
            runs[-1][1], runs[-1][3] = i2, j2
        else:
            runs.append([i1, i2, j1, j2])
    found = []
    for i1, i2, j1, j2 in runs:
        was, now = " ".join(old[i1:i2]).strip(".!?,"), " ".join(new[j1:j2]).strip(".!?,")
        if was.lower() != now.lower():
            found.append((was, now))
    return found


def _plain(words: list[str]) -> list[str]:
    """Words as a change is judged: a capital or a closing mark added is none."""
    return [w.lower().strip(".,!?;:") for w in words]


_CLAUSE = re.compile(r",\s+(?:which|and|but|so|because|while|whereas)\s+")


def simpler(text: str) -> str:
    """`text` in plainer words: wordy phrases swapped for plain ones, a sentence of over 20 words split at a clause."""
    out = []
    for sentence in _SENTENCE.split(" ".join(swapped(text, "simpler").split())):
        if len(sentence.split()) > 20 and (m := _CLAUSE.search(sentence)) is not None:
            head, tail = sentence[: m.start()], sentence[m.end() :]
            joiner = m.group().strip(", ")
            tail = f"{'This' if joiner == 'which' else capital(joiner)} {tail}" if joiner != "and" else capital(tail)
            out += [f"{head}.", tail]
        else:
            out.append(sentence)
    return " ".join(capital(s) for s in out)
