"""English agreement for the default model's frames: articles, plurals, verb agreement, number words (inflect).

inflect is the one home of English morphology here. It was chosen over lemminflect by what the frames need:
articles by sound ("an hour", "a user", "an SQL query"), plurals and singulars of the question's own nouns,
a verb's -s form made to agree with a plural subject (is/are, needs/need), and number words; lemminflect has
no articles and no number words. Every answer asks the caches below, which a bounded vocabulary fills within
the first few requests.

inflect decorates its engine's methods with typeguard's `@typechecked`, which rewrites each one from its source
at import: importing it cost seconds of CPU in every process (every `emulator` command, every worker), and each
call then checked its arguments' types, which made each call slow. It is imported here with that decorator made a no-op:
the arguments are the emulator's own strings, and a wrong type would be this module's bug, which mypy checks.
"""

from __future__ import annotations

import functools
import re
import string
import types
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
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


# The longest word inflect is given. Its patterns take time in the square of a word's length (a 16,000-letter
# "word", a gene sequence pasted whole, took a second of CPU; 64,000 letters, sixteen), and no English word is
# this long: a longer one is no word, and is left as it is (a plural adds an "s").
LONGEST = 48


def _word(text: str) -> bool:
    """Whether `text` is short enough to be a word inflect may read."""
    return len(text) <= LONGEST


@functools.lru_cache(maxsize=4096)
def plural(noun: str) -> str:
    """`noun`'s plural: "query" → "queries", "child" → "children"."""
    if not _word(noun.rpartition(" ")[2]):
        return noun + "s"
    return _ENGINE.plural_noun(noun) or noun


@functools.lru_cache(maxsize=1024)
def singular(noun: str) -> str:
    """`noun`'s singular: "panels" → "panel", a singular as it is."""
    return _ENGINE.singular_noun(noun) or noun if is_plural(noun) else noun


_PREPOSITIONS = frozenset(("of", "for", "to", "in", "on", "with", "about", "from", "at", "by", "without", "like"))


@functools.lru_cache(maxsize=4096)
def is_plural(phrase: str) -> bool:
    """Whether the noun phrase `phrase` (its last word, or the last before a preposition) is plural: "Docker
    builds" and "tips for runners" are, "analysis", "DNS" and "a recipe for pancakes" not."""
    words = phrase.split()
    if not words:
        return False
    cut = next((i for i, w in enumerate(words) if i and w in _PREPOSITIONS), 0)
    if cut:  # "a recipe for pancakes", "tips for new runners": the noun before the preposition says
        words = words[:cut]
    head = words[-1].strip("`'\".,")
    if phrase.lower() in ("you", "we", "they"):
        return True
    if len(words) > 2 and words[-2] in ("who", "that", "which"):
        return False
    if " and " in f" {phrase} " and words[0].lower() not in ("a", "an", "the"):
        return False  # "Pride and Prejudice": a title
    if not head.isalpha() or head.isupper() or head.lower().endswith(_SINGULAR_ENDINGS) or not _word(head):
        return False
    return bool(_ENGINE.singular_noun(head))


@functools.lru_cache(maxsize=4096)
def article(phrase: str) -> str:
    """`phrase` with "a" or "an" before it, by how its first word sounds."""
    if not _word(phrase.partition(" ")[0]):
        return f"a {phrase}"
    return _ENGINE.a(phrase)


@functools.lru_cache(maxsize=1024)
def agree(verb: str, many: bool) -> str:
    """A verb written in its -s form ("needs", "is", "has"), agreeing with a plural subject when `many`."""
    return _ENGINE.plural_verb(verb) if many and _word(verb) else verb


_PRESENT = {"be": "is", "have": "has"}


@functools.lru_cache(maxsize=1024)
def participle(verb: str) -> str:
    """A verb's -ing form, to name an action as a noun: "cycle" → "cycling"."""
    return str(_ENGINE.present_participle(verb)) if _word(verb) else verb


def present(verb: str) -> str:
    """A base-form verb said of one thing: "float" → "floats", "go" → "goes", "fly" → "flies", "have" → "has"
    (inflect writes the -s form as it writes a plural; "be" and "have" are its exceptions)."""
    return _PRESENT.get(verb) or (_ENGINE.plural_noun(verb) if _word(verb) else verb + "s") or verb


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


class Slots(Mapping[str, str]):
    """What a frame's slots say (see lexicon/frames.txt): the subject and its agreement, fixed words, and the
    domain's word lists, each list drawn from by the dice without repeating within one answer."""

    __slots__ = ("_dice", "_fixed", "_lists", "_many", "_said")
    _fixed: dict[str, str]
    _said: set[str]
    _many: bool

    def __init__(
        self,
        fixed: Mapping[str, str],
        lists: Mapping[str, Sequence[str]],
        dice: Iterator[int],
        many: bool | None = None,
        said: set[str] | None = None,
    ) -> None:
        """Slots that say `fixed` (and the agreement with its subject) and draw from `lists` with `dice`. Given
        `many` (whether the subject is plural), `fixed` is a dict made for these slots alone (`adding`), and kept,
        as `said` is (what has been said, when not every value `fixed` holds)."""
        self._lists, self._dice = lists, dice
        if many is not None and isinstance(fixed, dict):
            self._fixed, self._many = fixed, many
            # what a list has given: the next draw of that list is another
            self._said = set(fixed.values()) if said is None else said
            return
        last = _MADE[0]
        if last is None or last[0] is not fixed:  # the reasoning and the answer of a request start from one dict
            plural = is_plural(fixed.get("subject", ""))
            made = _FIXED[plural].copy()
            made.update(fixed)
            last = _MADE[0] = (fixed, made, frozenset(fixed.values()), plural)
        self._fixed = last[1].copy()
        self._said = set(last[2])
        self._many = last[3]

    @staticmethod
    def agreeing(verbs: Iterable[str]) -> None:
        """Have every `Slots` say `verbs` ("{v:works}") in agreement with its subject from the start, as it says
        its pronouns: the lexicon's frames use a few dozen, and a frame says one or two (a lookup rather than a
        call of `__getitem__` each)."""
        for many, said in _FIXED.items():
            said.update({f"v·{verb}": agree(verb, many) for verb in verbs})
        _MADE[0] = None

    def __getitem__(self, key: str) -> str:
        fixed = self._fixed
        value = fixed.get(key)
        if value is not None:
            return value
        kind, name = _KEYS.get(key) or _key(key)
        if kind is _LIST:
            options = self._lists.get(name)
            if options is None:
                raise KeyError(key)
            said = self._said  # a value a list has given, or the slots say: the next draw of that list is another
            if not said.isdisjoint(options):
                options = [o for o in options if o not in said] or options
            value = options[next(self._dice) % len(options)]
            said.add(value)
            if name not in KEPT:
                return value  # a "{check}" or "{risk}" is said once; the next one is another
        elif kind is _CAPITAL:
            low = fixed.get(name) or self[name]
            value = low[:1].upper() + low[1:]
        else:
            value = agree(name, self._many)
        fixed[key] = value  # "{aspect}" names the same thing in every sentence of an answer
        return value

    def adding(self, more: Mapping[str, str], lists: Mapping[str, Sequence[str]] | None = None) -> Slots:
        """Slots that say what these say so far and `more` (over them), drawing from `lists` (these slots' own by
        default) with the same dice: `Slots({**self.known(), **more}, lists, dice)`, made without its copies."""
        fixed = self._fixed.copy()
        fixed.update(more)
        many = is_plural(fixed["subject"]) if "subject" in more else self._many
        return Slots(fixed, self._lists if lists is None else lists, self._dice, many, self._said.union(more.values()))

    def add(self, more: Mapping[str, str]) -> None:
        """Say `more` too, over what these slots say: `self.adding(more)` in place, for the one holder of these
        slots (a page), without a copy and a new `Slots`; what the slots have said is still said (the set of every
        value anew was dear, the two dozen pronouns and verbs included)."""
        fixed = self._fixed
        fixed.update(more)
        self._said.update(more.values())
        if "subject" in more:
            self._many = is_plural(fixed["subject"])

    def known(self) -> dict[str, str]:
        """What the slots say so far (a copy): `{**slots}` without a call of `__getitem__` a key, to build a `Slots`
        that says more."""
        return dict(self._fixed)

    def renew(self, name: str, value: str) -> None:
        """Say `value` for the list `name` (a lower-case name) from now on, and for its capitalized slot what it
        makes of that ("{Aspect}" named the old one too), in place."""
        fixed = self._fixed
        fixed.pop(name, None)
        fixed.pop(name[:1].upper() + name[1:], None)
        fixed[name] = value
        self._said.add(value)

    def __iter__(self) -> Iterator[str]:
        return iter(self._fixed)

    def __len__(self) -> int:
        return len(self._fixed)


# The last `fixed` a `Slots` was made from, and what it made of it: the slots, the values said, whether plural.
# `fixed` is kept, so another dict never takes its place at its address, and a caller never changes one it gave.
_MADE: list[tuple[Mapping[str, str], dict[str, str], frozenset[str], bool] | None] = [None]
_CAPITAL, _VERB, _LIST = "capital", "verb", "list"


def _key(key: str) -> tuple[str, str]:
    """What the key `key` asks for, kept in `_KEYS`: "{Aspect}" the capitalized "aspect", "{v·needs}" the verb
    "needs" in agreement, "{aspect2}" a draw of the list "aspect"."""
    low = key[:1].lower() + key[1:]
    if low != key:
        read = (_CAPITAL, low)
    elif low.startswith(("v·", "v:")):
        read = (_VERB, low[2:])
    else:
        read = (_LIST, low.rstrip("2"))
    if len(_KEYS) < 4096:  # the frames' keys, a few hundred
        _KEYS[key] = read
    return read


_KEYS: dict[str, tuple[str, str]] = {}


def fill(frame: str, slots: Mapping[str, str], sentence: bool = True) -> str:
    """`frame` with its slots filled; a `sentence` opening on a slot opens with a capital. The frame is read once
    (`_frame`: its "{v:needs}" read as the key "v·needs"). Its pieces are joined from what the slots say, asking
    `Slots.__getitem__` for what is not said yet (it draws, agrees or capitalizes); a plain dict must say every
    key. Interpreted, by the frame's own function (`_joining`); compiled, by the loop below, which mypyc makes C.
    Else, and for a frame with a format spec, `str.format_map`."""
    made = _READ.get(frame) or _frame(frame)
    join, pieces = made.join, made.pieces
    if join is not None and type(slots) is Slots:  # the common case first: an answer's page
        filled = join(slots._fixed, slots)
    elif pieces is None or not (type(slots) is dict or type(slots) is Slots):
        filled = made.form.format_map(slots)
    else:
        fixed: Mapping[str, str] = slots if type(slots) is dict else slots._fixed  # type: ignore[union-attr]
        if join is not None:
            filled = join(fixed, slots)
        else:
            said = []
            for literal, key in pieces:
                said.append(literal)
                said.append(fixed.get(key) or slots[key])
            said.append(made.tail)
            filled = "".join(said)
    return capital(filled) if sentence and made.lower and not filled[:1].isupper() else filled


Join = Callable[[Mapping[str, str], Mapping[str, str]], str]


@dataclass(frozen=True, slots=True)
class _Frame:
    """A frame as `fill` uses it: its format string, its pieces (each literal and the key after it, then the
    `tail`) when every field is a plain key, the function that joins them (interpreted only), and whether it may
    open in lower case."""

    form: str
    pieces: tuple[tuple[str, str], ...] | None
    tail: str
    join: Join | None
    lower: bool


def _joining(pieces: tuple[tuple[str, str], ...], tail: str) -> Join:
    """A function that joins a frame's pieces as `fill`'s loop does, in one f-string: "{Subject} {is} set." →
    `lambda fixed, slots, _0="Subject", _1="is": f"{fixed[_0] if _0 in fixed else slots[_0]} {…} set."`.
    Interpreted, the loop's largest cost: no list, no call to append, no loop (a dozen frames an
    answer). The frame is the lexicon's own text; its literals go in escaped and its keys as default values."""
    names = [f"_{i}" for i in range(len(pieces))]
    keys = ", ".join(f"{name}={key!r}" for name, (_, key) in zip(names, pieces, strict=True))
    body = "".join(
        f"{_braced(literal)}{{fixed[{name}] if {name} in fixed else slots[{name}]}}"
        for name, (literal, _) in zip(names, pieces, strict=True)
    )
    made: Join = eval(f"lambda fixed, slots{', ' if keys else ''}{keys}: f{body + _braced(tail)!r}")
    return made


def _braced(literal: str) -> str:
    return literal.replace("{", "{{").replace("}", "}}")


_VERB_SLOT = re.compile(r"\{v:([^{}]+)\}")
_FORMATTER = string.Formatter()


def _frame(frame: str) -> _Frame:
    """`frame` read for `fill`: "{It} {v:works}." → "{It} {v·works}." (a colon would open a format spec), pieces
    ("", "It"), (" ", "v·works"), tail "."."""
    form = _VERB_SLOT.sub(r"{v·\1}", frame) if "{v:" in frame else frame
    parsed = list(_FORMATTER.parse(form))
    ends_on_text = bool(parsed) and parsed[-1][1] is None
    body = parsed[:-1] if ends_on_text else parsed
    plain = all(field and _NAME.fullmatch(field) and not spec and not conversion for _, field, spec, conversion in body)
    pieces = tuple((literal, field or "") for literal, field, _, _ in body) if plain else None
    tail = parsed[-1][0] if ends_on_text else ""
    opening = form[:1]
    lower = not (opening and opening not in "{}" and opening.upper() == opening)
    kept = len(_READ) < 4096  # the lexicon's frames: a few hundred
    join = _joining(pieces, tail) if pieces is not None and _INTERPRETED and kept else None
    made = _Frame(form, pieces, tail, join, lower)
    if kept:
        _READ[frame] = made
    return made


# Each frame read, kept (with its generated function, made only for a frame kept): `fill` looks here first, as
# a dict lookup rather than a call.
_READ: dict[str, _Frame] = {}


_NAME = re.compile(r"[^.\[\]]+")  # a field that is a plain key, not an attribute or an index of one
# Whether this module runs interpreted (a pure build): mypyc makes its functions built-ins, and its loop in `fill`
# C, which a generated function would only slow down.
_INTERPRETED = isinstance(capital, types.FunctionType)
