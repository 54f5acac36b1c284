"""English agreement for the default model's frames: articles, plurals, verb agreement, number words (inflect).

inflect is the one home of English morphology here. It was chosen over lemminflect by what the frames need:
articles by sound ("an hour", "a user", "an SQL query"), plurals and singulars of the question's own nouns,
a verb's -s form made to agree with a plural subject (is/are, needs/need), and number words; lemminflect has
no articles and no number words. Every answer asks the caches below, which a bounded vocabulary fills within
the first few requests.

inflect decorates its engine's methods with typeguard's `@typechecked`, which rewrites each one from its source
at import: importing it cost about 5 s of CPU in every process (every `emulator` command, every worker), and each
call then checked its arguments' types (50 to 70 µs a call). It is imported here with that decorator made a no-op:
the arguments are the emulator's own strings, and a wrong type would be this module's bug, which mypy checks.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import typeguard


def _unchecked(target: Any = None, **_: Any) -> Any:
    """`@typechecked` and `@typechecked(...)`, doing nothing: the function as it is."""
    return target if target is not None else (lambda function: function)


_checked: Callable[..., Any] = typeguard.typechecked
typeguard.typechecked = _unchecked
try:
    import inflect
finally:
    typeguard.typechecked = _checked

_ENGINE = inflect.engine()
# Nouns inflect reads as plurals though they are not: -sis and -ss words, and acronyms ("analysis", "DNS").
_SINGULAR_ENDINGS = ("sis", "ss", "us", "ics")
KEPT = frozenset(("aspect", "field", "kind", "people"))  # lists whose one value an answer keeps
PRONOUNS = {
    False: {"it": "it", "its": "its", "them": "it", "itself": "itself"},
    True: {"it": "they", "its": "their", "them": "them", "itself": "themselves"},
}
_AGREEING = {False: {"is": "is", "has": "has", "was": "was"}, True: {"is": "are", "has": "have", "was": "were"}}
_FIXED = {many: {**PRONOUNS[many], **_AGREEING[many]} for many in (False, True)}  # what every Slots says first


@functools.lru_cache(maxsize=4096)
def plural(noun: str) -> str:
    """`noun`'s plural: "query" → "queries", "child" → "children"."""
    return _ENGINE.plural_noun(noun) or noun


@functools.lru_cache(maxsize=1024)
def singular(noun: str) -> str:
    """`noun`'s singular: "panels" → "panel", a singular as it is."""
    return _ENGINE.singular_noun(noun) or noun if is_plural(noun) else noun


@functools.lru_cache(maxsize=4096)
def is_plural(phrase: str) -> bool:
    """Whether the noun phrase `phrase` (its last word) is plural: "Docker builds" is, "analysis" and "DNS" not."""
    words = phrase.split()
    if not words:
        return False
    head = words[-1].strip("`'\".,")
    if phrase.lower() in ("you", "we", "they"):
        return True
    if len(words) > 2 and words[-2] in ("who", "that", "which"):
        return False
    if " and " in f" {phrase} " and words[0].lower() not in ("a", "an", "the"):
        return False  # "Pride and Prejudice": a title
    if not head.isalpha() or head.isupper() or head.lower().endswith(_SINGULAR_ENDINGS):
        return False
    return bool(_ENGINE.singular_noun(head))


@functools.lru_cache(maxsize=4096)
def article(phrase: str) -> str:
    """`phrase` with "a" or "an" before it, by how its first word sounds."""
    return _ENGINE.a(phrase)


@functools.lru_cache(maxsize=1024)
def agree(verb: str, many: bool) -> str:
    """A verb written in its -s form ("needs", "is", "has"), agreeing with a plural subject when `many`."""
    return _ENGINE.plural_verb(verb) if many else verb


_PRESENT = {"be": "is", "have": "has"}


@functools.lru_cache(maxsize=1024)
def participle(verb: str) -> str:
    """A verb's -ing form, to name an action as a noun: "cycle" → "cycling"."""
    return str(_ENGINE.present_participle(verb))


def present(verb: str) -> str:
    """A base-form verb said of one thing: "float" → "floats", "go" → "goes", "fly" → "flies", "have" → "has"
    (inflect writes the -s form as it writes a plural; "be" and "have" are its exceptions)."""
    return _PRESENT.get(verb) or _ENGINE.plural_noun(verb) or verb


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


class Slots(Mapping[str, str]):
    """What a frame's slots say (see lexicon/frames.txt): the subject and its agreement, fixed words, and the
    domain's word lists, each list drawn from by the dice without repeating within one answer."""

    __slots__ = ("_dice", "_fixed", "_lists", "_many", "_said")

    def __init__(self, fixed: Mapping[str, str], lists: Mapping[str, Sequence[str]], dice: Iterator[int]) -> None:
        many = is_plural(fixed.get("subject", ""))
        self._fixed = _FIXED[many].copy()
        self._fixed.update(fixed)
        self._lists, self._dice, self._many = lists, dice, many
        self._said = set(fixed.values())  # what a list has given: the next draw of that list is another

    def __getitem__(self, key: str) -> str:
        value = self._fixed.get(key)
        if value is not None:
            return value
        low = key[:1].lower() + key[1:]
        if low != key:
            value = capital(self[low])
            self._fixed[key] = value
            return value
        if low.startswith(("v·", "v:")):
            value = agree(low[2:], self._many)
        else:
            name = low.rstrip("2")
            if name not in self._lists:
                raise KeyError(key)
            value = self._draw(name)
            self._said.add(value)
            if name not in KEPT:
                return value  # a "{check}" or "{risk}" is said once; the next one is another
        self._fixed[low] = value  # "{aspect}" names the same thing in every sentence of an answer
        return value

    def _draw(self, name: str) -> str:
        options = self._lists[name]
        said = self._said
        fresh = options if said.isdisjoint(options) else [o for o in options if o not in said] or options
        return fresh[next(self._dice) % len(fresh)]

    def known(self) -> dict[str, str]:
        """What the slots say so far (a copy): `{**slots}` without a call of `__getitem__` a key, to build a `Slots`
        that says more."""
        return dict(self._fixed)

    def without(self, name: str) -> dict[str, str]:
        """What the slots say so far but `name` in any case ("{Aspect}" names the same thing as "{aspect}"): a
        `Slots` that says something new for it is made from this."""
        if name.isascii():  # a key that lowers to an ASCII name is as long as it (only "İ" lowers to two)
            n = len(name)
            return {k: v for k, v in self._fixed.items() if len(k) != n or k.lower() != name}
        return {k: v for k, v in self._fixed.items() if k.lower() != name}

    def __iter__(self) -> Iterator[str]:
        return iter(self._fixed)

    def __len__(self) -> int:
        return len(self._fixed)


def fill(frame: str, slots: Mapping[str, str], sentence: bool = True) -> str:
    """`frame` with its slots filled; a `sentence` opening on a slot opens with a capital. The frame is read once
    (`_frame`: its "{v:needs}" read as the key "v·needs"). When the slots' plain dict already says every key it
    names, its pieces are joined from that dict (no Python call a slot, and 40% fewer instructions than
    `str.format_map`); else `str.format_map` asks `Slots.__getitem__`, which draws, agrees or capitalizes what is
    not said yet."""
    made = _frame(frame)
    known = slots._fixed if type(slots) is Slots else slots if type(slots) is dict else None
    if known is None or not known.keys() >= made.keys:
        filled = made.form.format_map(slots)
    elif made.pieces is None:
        filled = made.form.format_map(known)
    else:
        said = []
        for literal, key in made.pieces:
            said.append(literal)
            said.append(known[key])
        said.append(made.tail)
        filled = "".join(said)
    return capital(filled) if sentence and made.lower else filled


@dataclass(frozen=True, slots=True)
class _Frame:
    """A frame as `fill` uses it: its format string, the keys it looks up, its pieces (each literal and the key
    after it, then the `tail`) when every field is a plain key, and whether it may open in lower case."""

    form: str
    keys: frozenset[str]
    pieces: tuple[tuple[str, str], ...] | None
    tail: str
    lower: bool


_VERB_SLOT = re.compile(r"\{v:([^{}]+)\}")
_FORMATTER = string.Formatter()


@functools.lru_cache(maxsize=4096)
def _frame(frame: str) -> _Frame:
    """`frame` read for `fill`: "{It} {v:works}." → "{It} {v·works}." (a colon would open a format spec), keys
    {"It", "v·works"}, pieces ("", "It"), (" ", "v·works"), tail "."."""
    form = _VERB_SLOT.sub(r"{v·\1}", frame) if "{v:" in frame else frame
    parsed = list(_FORMATTER.parse(form))
    keys = frozenset(re.split(r"[.\[]", field, maxsplit=1)[0] for _, field, _, _ in parsed if field)
    ends_on_text = bool(parsed) and parsed[-1][1] is None
    body = parsed[:-1] if ends_on_text else parsed
    plain = all(field and field in keys and not spec and not conversion for _, field, spec, conversion in body)
    pieces = tuple((literal, field or "") for literal, field, _, _ in body) if plain else None
    tail = parsed[-1][0] if ends_on_text else ""
    opening = form[:1]
    lower = not (opening and opening not in "{}" and opening.upper() == opening)
    return _Frame(form, keys, pieces, tail, lower)
