"""What a conversation names that a tool's arguments can take: currencies, places, dates and times, quantities,
emails, URLs, paths, ids, quoted strings and people, each in the order the user wrote them.

Read from the user's own messages (the latest first, observations of tools left out), with a gazetteer of
currencies, countries, cities and units kept as data files beside this module (`gazetteer/*.tsv`, read once).
Relative dates ("tomorrow at 9", "next Friday", "in 3 days") are counted from a date the conversation itself
gives ("Today's date is 2026-03-02", Claude Code's `Today's date:`, Codex's `<current_date>`), else from the
fixed `REFERENCE`, so the same conversation gets the same arguments on every day it is sent. "next Friday" is
the first Friday after the reference day; "this Friday" is that day or the first after it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from datetime import date, timedelta
from importlib import resources

from emulator.core.conversation import Prompt, frozen
from emulator.default_model.question import STOP, VERBS

REFERENCE = date(2026, 1, 5)  # a Monday: "today" when the conversation gives no date of its own
OBSERVATION = re.compile(r"\s*(?:observation|tool (?:result|output|response)|function (?:result|output))\s*:", re.I)


@frozen
class Mentions:
    """The values a conversation names, each kind in the order written (the latest user message first)."""

    currencies: tuple[str, ...] = ()  # ISO 4217 codes
    countries: tuple[str, ...] = ()  # names as the gazetteer writes them
    cities: tuple[str, ...] = ()
    dates: tuple[str, ...] = ()  # ISO 8601 dates
    times: tuple[str, ...] = ()  # HH:MM (24 h)
    quantities: tuple[tuple[float, str], ...] = ()  # (amount, unit as `units.tsv` names it; "" for none)
    emails: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()  # file names and paths as written
    patterns: tuple[str, ...] = ()  # globs (`*.py`, `src/**/*.ts`)
    ids: tuple[str, ...] = ()  # ticket, order and issue ids, UUIDs
    quoted: tuple[str, ...] = ()  # strings the user put in quotes or backticks
    people: tuple[str, ...] = ()  # proper names that are no place, currency or month
    targets: tuple[str, ...] = ()  # places and currencies written after "to", "into", "in": a pair's second
    words: tuple[str, ...] = ()  # every word, lower-cased: whether a parameter's own noun was written
    today: str = REFERENCE.isoformat()  # the reference day relative dates count from

    @property
    def numbers(self) -> tuple[float, ...]:
        return tuple(amount for amount, _ in self.quantities)


NONE = Mentions()


@functools.cache
def gazetteer(name: str) -> tuple[tuple[str, ...], ...]:
    """A gazetteer file's rows: tab-separated fields, comments and blank lines left out."""
    text = resources.files("emulator.default_model").joinpath(f"gazetteer/{name}.tsv").read_text(encoding="utf-8")
    return tuple(tuple(line.split("\t")) for line in text.splitlines() if line.strip() and not line.startswith("#"))


@functools.cache
def _aliases() -> dict[str, tuple[str, str]]:
    """Every lower-case way of naming a currency, country or city → (kind, canonical value)."""
    found: dict[str, tuple[str, str]] = {}
    for code, *names in gazetteer("currencies"):
        found.update(dict.fromkeys(names, ("currency", code)))
    for _, name, *others in gazetteer("countries"):
        found.update(dict.fromkeys([name.lower(), *others], ("country", name)))
    for name, _, *others in gazetteer("cities"):
        found.update(dict.fromkeys([name.lower(), *others], ("city", name)))
    return found


@functools.cache
def _units() -> dict[str, str]:
    return {alias: unit for unit, *aliases in gazetteer("units") for alias in aliases}


@functools.cache
def currency_codes() -> frozenset[str]:
    return frozenset(row[0] for row in gazetteer("currencies"))


@functools.cache
def country_of_city() -> dict[str, str]:
    countries = {code: name for code, name, *_ in gazetteer("countries")}
    return {name: countries.get(code, "") for name, code, *_ in gazetteer("cities")}


_LONGEST_ALIAS = 4  # words in the longest alias ("united states of america")
_WORD = re.compile(r"[^\W\d_][\w'.-]*|[$€£¥₹₽₩₪₦₱₫₴]|\d+(?:[.,]\d+)*", re.UNICODE)
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_URL = re.compile(r"\bhttps?://[^\s<>\"'`)\]]+", re.I)
_QUOTED = re.compile(r"\"([^\"\n]{1,200})\"|“([^”\n]{1,200})”|`([^`\n]{1,200})`|(?<![\w])'([^'\n]{1,200})'(?![\w])")
_PATH = re.compile(
    r"(?<![\w/@.:-])((?:~|\.{1,2})?/?(?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,7}"
    r"|(?:~|\.{1,2})?/(?:[\w.-]+/)*[\w.-]+/?|(?:[\w.-]+/)+)(?![\w/@-])"
)
_GLOB = re.compile(r"(?<![\w/])((?:[\w.-]+/)*(?:\*\*/)?[\w.-]*\*[\w.*-]*(?:/[\w.*-]+)*)")
_ID = re.compile(
    r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"
    r"|#(\d{1,12})\b|\b[A-Z][A-Z0-9]{1,9}-\d{1,9}\b"
    r"|\b(?:id|order|ticket|issue|invoice|account|case|booking|user|customer|number|no\.?)\s*#?:?\s*([A-Za-z0-9_-]*\d[A-Za-z0-9_-]*)\b",
    re.I,
)
_AMOUNT = r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
_QUANTITY = re.compile(
    rf"([$€£¥₹₽₩₪₦₱₫₴])\s?{_AMOUNT}|{_AMOUNT}\s?(%|°[cf]|[a-z][a-z/-]*(?:\s(?:celsius|fahrenheit|sterling|dollars?))?)?",
    re.I,
)
_TODAY_IS = re.compile(
    r"(?:today(?:'s date)? is|today's date:|current date(?: is)?:?|<current_date>|date:)\s*(\d{4}-\d{2}-\d{2})", re.I
)
_MONTH_NAMES = """january february march april may june july august september october november december"""
_MONTHS = _MONTH_NAMES.split()
_MONTH = {m: i + 1 for i, m in enumerate(_MONTHS)} | {m[:3]: i + 1 for i, m in enumerate(_MONTHS)} | {"sept": 9}
_DAY_NAMES = """monday tuesday wednesday thursday friday saturday sunday"""
_DAYS = _DAY_NAMES.split()
_WEEKDAY = {d: i for i, d in enumerate(_DAYS)} | {d[:3]: i for i, d in enumerate(_DAYS)}
_MONTH_WORDS = "|".join(sorted(_MONTH, key=len, reverse=True))
_DAY_WORDS = "|".join(sorted(_WEEKDAY, key=len, reverse=True))
_DATE = re.compile(
    r"\b(\d{4})-(\d{2})-(\d{2})\b"
    rf"|\b({_MONTH_WORDS})\.? (\d{{1,2}})(?:st|nd|rd|th)?(?:,? (\d{{4}}))?\b"
    rf"|\b(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?({_MONTH_WORDS})\.?(?:,? (\d{{4}}))?\b"
    r"|\b(today|tonight|tomorrow|yesterday|day after tomorrow)\b"
    rf"|\b(next|this|on|last|coming) ({_DAY_WORDS})\b"
    r"|\bin (\d{1,3}|a|one|two|three|four|five|six|seven) (days?|weeks?)\b"
    r"|\b(next week)\b",
    re.I,
)
_TIME = re.compile(
    r"\b(\d{1,2}):(\d{2})\s*(am|pm|a\.m\.|p\.m\.)?|\b(\d{1,2})\s*(am|pm|a\.m\.|p\.m\.)|\bat (\d{1,2})(?![\d:.,])\b"
    r"|\b(noon|midday|midnight)\b",
    re.I,
)
_TOWARDS = frozenset(("to", "into", "in", "towards"))
_PLURAL = {"currency": "currencies", "country": "countries", "city": "cities"}
_SMALL = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
_NOT_PEOPLE = frozenset(_MONTH) | frozenset(_WEEKDAY) | {"i", "today", "tomorrow", "please", "what", "how", "the"}


# What an agent harness adds to the user's turn: not the user's words. Claude Code's `<system-reminder>` blocks;
# Codex's `<environment_context>` (its working directory, shell, date: a path the user never named) and the
# AGENTS.md instructions it sends as a user message.
REMINDER = re.compile(
    r"<(system-reminder|environment_context|user_instructions|INSTRUCTIONS)>.*?</\1>"
    r"|^# AGENTS\.md instructions for [^\n]*$",
    re.S | re.M,
)
_HARNESS = ("<system-reminder>", "<environment_context>", "<user_instructions>", "<INSTRUCTIONS>")


# A whole turn in one pair of double quotes: how `opencode run "…"` sends a prompt given as one argument.
WRAPPED = re.compile(r'\s*"([^"]+)"\s*')


def own_words(text: str) -> str:
    """`text` without the blocks a harness adds to the user's turn, or the quotes it wraps the whole turn in."""
    if "<" in text and any(tag in text for tag in _HARNESS):
        text = REMINDER.sub(" ", text)
    wrapped = WRAPPED.fullmatch(text) if text[:1] == '"' or text[:1].isspace() else None
    return wrapped.group(1) if wrapped else text


def conversation(prompt: Prompt) -> Mentions:
    """What the user's messages name, the latest first (a follow-up's values before the first question's)."""
    users = [m.text for m in reversed(prompt.messages) if m.role == "user" and not OBSERVATION.match(m.text)]
    texts = [own_words(t) for t in users]
    context = " ".join(m.text[:4000] for m in prompt.messages if m.role in ("system", "developer"))
    return read(texts, today=_today(context + " " + " ".join(users)))  # the harness's date too (Codex's)


def _today(text: str) -> date:
    found = _TODAY_IS.search(text)
    if found:
        try:
            return date.fromisoformat(found.group(1))
        except ValueError:
            pass
    return REFERENCE


def read(texts: Iterable[str], today: date = REFERENCE) -> Mentions:
    """The `Mentions` of `texts`, each kind's values in order of appearance, first text first, without repeats."""
    kinds: dict[str, list[object]] = {k: [] for k in Mentions.__slots__ if k != "today"}  # type: ignore[attr-defined]
    for text in texts:
        text = text[:20_000]
        _read_one(text, today, kinds)
    made = {k: tuple(dict.fromkeys(v)) for k, v in kinds.items()}
    return Mentions(**made, today=today.isoformat())  # type: ignore[arg-type]


def _read_one(text: str, today: date, kinds: dict[str, list[object]]) -> None:
    urls = _URL.findall(text)
    kinds["urls"] += [u.rstrip(".,;:!?") for u in urls]
    emails = _EMAIL.findall(text)
    kinds["emails"] += emails
    bare = _URL.sub(" ", _EMAIL.sub(" ", text))
    kinds["quoted"] += [next(g for g in m.groups() if g) for m in _QUOTED.finditer(bare)]
    kinds["patterns"] += [p for p in _GLOB.findall(bare) if "*" in p]
    kinds["paths"] += [p for p in _PATH.findall(_GLOB.sub(" ", bare)) if _pathlike(p)]
    kinds["ids"] += [next((g for g in m.groups() if g), m.group()) for m in _ID.finditer(bare)]
    kinds["dates"] += _dates(bare, today)
    kinds["times"] += _times(bare)
    kinds["quantities"] += _quantities(_ID.sub(" ", _TIME.sub(" ", _DATE.sub(" ", bare))))
    words = _WORD.findall(bare)
    lower = [w.lower().rstrip(".") for w in words]
    taken: set[int] = set()
    named: list[tuple[int, str, str]] = []
    for size in range(_LONGEST_ALIAS, 0, -1):
        for i in range(len(lower) - size + 1):
            if taken.intersection(range(i, i + size)):
                continue
            found = _aliases().get(" ".join(lower[i : i + size]))
            if found and (size > 1 or words[i][0].isupper() or found[0] == "currency" or not words[i].isalpha()):
                named.append((i, *found))
                taken.update(range(i, i + size))
    codes = currency_codes()
    named += [(i, "currency", w) for i, w in enumerate(words) if w in codes]
    for i, kind, value in sorted(named):
        kinds[_PLURAL[kind]].append(value)
        if i > 0 and lower[i - 1] in _TOWARDS:
            kinds["targets"].append(value)
    kinds["people"] += _people(bare)
    kinds["words"] += lower


def _people(text: str) -> list[str]:
    """Proper names: runs of capitalized words that are no place, currency, month or day ("Maria Lopez"); at a
    sentence's start, a lone one only before a verb a name is followed by ("Jason is 25")."""
    found = []
    aliases = _aliases()
    for run in _NAME_RUN.finditer(text):
        start = run.start()
        names: list[str] = []
        for w in run.group().split(" "):
            low = w.lower()
            if low in _NOT_PEOPLE or low in aliases or w.isupper() or low in STOP or low in VERBS or low[:-1] in VERBS:
                if names:
                    found.append(" ".join(names))
                names = []
                start = -1
                continue
            names.append(w)
        if not names:
            continue
        opening = start >= 0 and _opens(text, start)
        if opening and len(names) == 1 and not _AFTER_NAME.intersection(text[run.end() :].split()[:1]):
            continue
        found.append(" ".join(names))
    return found


_NAME_RUN = re.compile(r"(?<![\w@./-])[A-Z][a-z\u00e0-\u024f'-]+(?: [A-Z][a-z\u00e0-\u024f'-]+)*(?![\w@/])")


def _opens(text: str, at: int) -> bool:
    before = text[:at].rstrip()
    return not before or before[-1] in ".!?:\n"


_VERBS_AFTER_NAME = """is was has had and will wants lives works said from who needs earns owes"""
_AFTER_NAME = frozenset(_VERBS_AFTER_NAME.split())


def _pathlike(path: str) -> bool:
    """A file name or a path, not a version, a decimal, an abbreviation ("e.g.") or a domain."""
    if "/" in path:
        return len(path) > 1
    stem, _, ext = path.rpartition(".")
    return bool(stem) and not stem.replace(".", "").isdigit() and ext.lower() not in _NOT_EXTENSIONS and len(stem) > 0


_NOT_EXTENSIONS = frozenset(["g", "e", "com", "org", "net", "io", "ai", "dev", "co", "uk", "de", "fr", "m", "i"])


def _dates(text: str, today: date) -> list[str]:
    found = []
    for m in _DATE.finditer(text):
        g = m.groups()
        try:
            if g[0]:
                day = date(int(g[0]), int(g[1]), int(g[2]))
            elif g[3]:
                day = _on(today, _MONTH[g[3].lower()], int(g[4]), g[5])
            elif g[6]:
                day = _on(today, _MONTH[g[7].lower()], int(g[6]), g[8])
            elif g[9]:
                word = g[9].lower()
                shift = {"yesterday": -1, "tomorrow": 1, "day after tomorrow": 2}.get(word, 0)
                day = today + timedelta(days=shift)
            elif g[10]:
                which, weekday = g[10].lower(), _WEEKDAY[g[11].lower()]
                ahead = (weekday - today.weekday()) % 7
                if which == "last":
                    day = today - timedelta(days=(today.weekday() - weekday) % 7 or 7)
                else:
                    day = today + timedelta(days=ahead or (0 if which == "this" else 7))
            elif g[12]:
                n = _SMALL.get(g[12].lower()) or int(g[12])
                day = today + timedelta(days=n * (7 if g[13].lower().startswith("week") else 1))
            else:
                day = today + timedelta(days=7)
        except ValueError:  # February 30th
            continue
        found.append(day.isoformat())
    return found


def _on(today: date, month: int, day: int, year: str | None) -> date:
    """A day of a month: in the year given, else the next one on or after the reference day."""
    if year:
        return date(int(year), month, day)
    made = date(today.year, month, day)
    return made if made >= today else date(today.year + 1, month, day)


def _times(text: str) -> list[str]:
    found = []
    for m in _TIME.finditer(text):
        g = m.groups()
        if g[6]:
            found.append("00:00" if g[6].lower() == "midnight" else "12:00")
            continue
        hour, minute, half = (int(g[0]), int(g[1]), g[2]) if g[0] else (int(g[3] or g[5]), 0, g[4])
        if half and half[0].lower() == "p" and hour < 12:
            hour += 12
        elif half and half[0].lower() == "a" and hour == 12:
            hour = 0
        elif not half and g[5] and 1 <= hour <= 7:  # "at 3": the afternoon, as people mean it
            hour += 12
        if hour < 24 and minute < 60:
            found.append(f"{hour:02}:{minute:02}")
    return found


def _quantities(text: str) -> list[tuple[float, str]]:
    found: list[tuple[float, str]] = []
    units, aliases = _units(), _aliases()
    for m in _QUANTITY.finditer(text):
        symbol, before, amount, after = m.group(1), m.group(2), m.group(3), m.group(4)
        if m.start() > 0 and (text[m.start() - 1].isalnum() or text[m.start() - 1] in "-:/.#"):
            continue  # part of a word, a date, a time or an id
        number = float((before or amount).replace(",", ""))
        if symbol:
            found.append((number, aliases[symbol][1]))
            continue
        word = (after or "").lower()
        if word in units:
            found.append((number, units[word]))
        elif word in aliases and aliases[word][0] == "currency":
            found.append((number, aliases[word][1]))
        elif word.upper() in currency_codes() and after and after.isupper():
            found.append((number, word.upper()))
        elif not (text[m.end() : m.end() + 1] in ":-/" and m.end() < len(text)):
            found.append((number, ""))
    return found
