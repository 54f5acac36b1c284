"""The code the default model writes when a request asks for some: a function, query, script, class or component
that does what the request names, in the language it names, with a sentence or two saying how to use it.

No model runs here. The request is read for its language (a language's name, a file's extension, a framework
such as React; Python when it names none), its task (the first row of `templates/tasks.txt` whose words it
holds and that the language has a template for) and the words to name things by: a function is named by its
verb and objects ("reverses a linked list" → `reverse_linked_list`, `reverseLinkedList`), a class or component
by its nouns (`BankAccount`), a predicate by what it tests (`is_palindrome`). The task's template in that
language (`templates/<language>.txt`, idiomatic code written for this project) is filled in with those names; a
request no template fits gets a well-formed skeleton with a docstring. Every choice (which variant of a
template, which summary) is a face of the caller's dice, so the same request and dice give the same code.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from importlib import resources

from emulator.default_model.code_request import (
    ASKS,
    CASE,
    EACH,
    NAMED,
    asks,
    each,
    identifier,
    language,
    methods,
    names,
    names_a_language,
    plain,
    singular,
    spell,
    vocabulary,
    words_of,
)


@dataclass(frozen=True, slots=True)
class Code:
    """A block of code, ready to fence."""

    language: str  # the fence's tag: python, javascript, typescript, sql, bash, go, html, css, jsx, tsx, …
    source: str  # the block's text, ending in a newline
    name: str  # the main function, class, table or component it defines
    summary: str  # one or two plain-English sentences saying what the code does and how to use it


# How each fence tag is said in a sentence ("Here is a React component…").
SPOKEN = {"python": "Python", "javascript": "JavaScript", "typescript": "TypeScript", "sql": "SQL", "bash": "Bash"}
SPOKEN |= {"go": "Go", "html": "HTML", "css": "CSS", "jsx": "React", "tsx": "React and TypeScript"}


@dataclass(frozen=True, slots=True)
class Template:
    """One task in one language: its variants of source, its summaries, and what it falls back on when the
    request names nothing (`defaults`: `name`, `n`, `file`, `table`, … ; `main`, which placeholder is its name)."""

    variants: tuple[str, ...]
    summaries: tuple[str, ...]
    defaults: Mapping[str, str]


def _templates(text: str) -> dict[str, Template]:
    """A language's file, read: `=== task` opens a template, `key: value` lines give its summaries and defaults,
    and each `@@@` line opens a variant of its source."""
    found: dict[str, Template] = {}
    for chunk in text.split("\n=== ")[1:]:
        head, *variants = chunk.split("\n@@@\n")
        task, *meta = head.split("\n")
        summaries, defaults = [], {}
        for line in meta:
            key, _, value = line.partition(": ")
            if key == "summary":
                summaries.append(value)
            elif value:
                defaults[key] = value
        sources = tuple(v.strip("\n") + "\n" for v in variants)
        found[task.strip()] = Template(sources, tuple(summaries), defaults)
    return found


def _tasks(text: str) -> tuple[tuple[str, tuple[tuple[str, ...], ...]], ...]:
    """`templates/tasks.txt`, read: each task with its groups of words, one word of each group to be present."""
    rows = []
    for line in text.splitlines():
        if line and not line.startswith("#"):
            task, _, groups = line.partition(":")
            rows.append((task.strip(), tuple(tuple(g.split("|")) for g in groups.split())))
    return tuple(rows)


_TYPES = re.compile(r"^[ \t]*«[^«»\n]*»[ \t]*\n|«[^«»\n]*»", re.M)  # a typed-only line, or a type in a line
# A file whose templates are typed serves two languages: the untyped (types dropped) and the typed (kept).
_TYPED = {"javascript": ("javascript", "typescript"), "react": ("jsx", "tsx")}


def _load() -> dict[str, dict[str, Template]]:
    """Every language's templates, from the package's `templates/` folder (read once, at import)."""
    loaded: dict[str, dict[str, Template]] = {}
    for path in _FOLDER.iterdir():
        stem = path.name.removesuffix(".txt")
        if not path.name.endswith(".txt") or stem == "tasks":
            continue
        text = path.read_text("utf-8")
        if stem in _TYPED:
            untyped, typed = _TYPED[stem]
            loaded.setdefault(untyped, {}).update(_templates(_TYPES.sub("", text).replace("{\n\n", "{\n")))
            loaded.setdefault(typed, {}).update(_templates(text.replace("«", "").replace("»", "")))
        else:
            loaded.setdefault(stem, {}).update(_templates(text))
    return loaded


_FOLDER = resources.files(__package__).joinpath("templates")
TASKS = _tasks(_FOLDER.joinpath("tasks.txt").read_text("utf-8"))
TEMPLATES = _load()

# --- the task -------------------------------------------------------------------------------------------------


def _index() -> tuple[dict[str, list[tuple[int, int]]], tuple[int, ...]]:
    """Where each word of the table satisfies a row: word (or a stem, for `word*`) → (row, group) pairs, and
    the lengths of the stems, so a request is matched with a few lookups per word, not a scan of the table
    (this is on the hot path: the scan was two thirds of a call)."""
    index: dict[str, list[tuple[int, int]]] = {}
    for row, (_, groups) in enumerate(TASKS):
        for number, group in enumerate(groups):
            for option in group:
                index.setdefault(option, []).append((row, number))
    stems = tuple(sorted({len(option) for option in index if option.endswith("*")}))
    return index, stems


_INDEX, _STEMS = _index()
_hits: dict[str, tuple[tuple[int, int], ...]] = {}  # a word's (row, group) pairs, learned once per word
LEARNED = 1 << 13  # words remembered at most; past that the memory starts afresh


def _hit(word: str) -> tuple[tuple[int, int], ...]:
    found = list(_INDEX.get(word, ()))
    for length in _STEMS:
        if len(word) >= length - 1:
            found += _INDEX.get(word[: length - 1] + "*", ())
    if len(_hits) >= LEARNED:
        _hits.clear()
    _hits[word] = tuple(found)
    return _hits[word]


_VERBS_OF_ASKING = vocabulary("write create make build generate code implement give show draft produce")


def task(request: str, tag: str, said: list[str] | None = None) -> str | None:
    """The first task of `templates/tasks.txt` that `request` names and language `tag` has a template for."""
    said = words_of(request) if said is None else said
    # The verb that asks ("Write a function that writes a file") is not the task's: the first one in the
    # request's opening words is left out.
    ask = next((i for i, w in enumerate(said[:6]) if w in _VERBS_OF_ASKING), -1)
    words = set(said[:ask] + said[ask + 1 :]) if ask >= 0 else set(said)
    met: dict[int, set[int]] = {}
    for word in words:
        hits = _hits.get(word)
        for row, group in _hit(word) if hits is None else hits:
            met.setdefault(row, set()).add(group)
    have = TEMPLATES.get(tag, {})
    for row in sorted(met):
        name, groups = TASKS[row]
        if len(met[row]) == len(groups) and name in have:
            return name
    return None


# --- the placeholders -------------------------------------------------------------------------------------------

PLACEHOLDER = re.compile(r"@(name|convert|Type|r|kebab|snake|doc|n|table|other|row|orow|file|url|dir)@")
_FILE = re.compile(r"(?<![\w/.])((?:[\w-]+/)*[\w-]+\.(?:txt|csv|json|log|md|yaml|yml|xml|tsv|ini|conf|cfg|dat))\b")
_URL = re.compile(r"https?://[\w.~:/?#@!&+,;=%-]+")  # the characters a string of any language holds as they are
_DIR = re.compile(r"(?<![\w.])((?:~|\.{1,2})?/[\w./~-]*[\w~])")
_PARENTS = vocabulary(
    "customers users employees departments authors students categories products regions teams stores cities"
    " countries accounts members courses suppliers clients artists"
)
_CHILDREN = vocabulary(
    "orders sales purchases payments posts books comments enrollments reviews transactions invoices items"
    " tickets tasks songs albums logins visits messages shipments bookings"
)


_DIGITS = re.compile(r"(?<![\w.])(\d{1,6})(?![\w.])")
_NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_NUMBER_WORDS |= {"twenty": 20, "fifty": 50, "hundred": 100}
_SPELLED = re.compile(rf"\b({'|'.join(_NUMBER_WORDS)})\b", re.I)


def _number(request: str) -> str | None:
    """The first number the request gives, in digits or in words ("top 5", "groups of three")."""
    digits = _DIGITS.search(request)
    if digits:
        return digits.group(1)
    spelled = _SPELLED.search(request)
    return str(_NUMBER_WORDS[spelled.group(1).lower()]) if spelled else None


def _tables(request: str, defaults: Mapping[str, str]) -> tuple[str, str]:
    """The tables a query is over: the parent (who or what rows group by) and the child (what they have),
    from the request's nouns where it names known ones, else the template's."""
    words = words_of(request)
    parents = [p for w in words for p in (w, w + "s", w[:-1] + "ies") if p in _PARENTS]
    children = [w for w in words if w in _CHILDREN] + [w + "s" for w in words if w + "s" in _CHILDREN]
    table = parents[0] if parents else defaults.get("table", "customers")
    other = children[0] if children else defaults.get("other", "orders")
    if other == table:
        other = defaults.get("other", "orders") if table != defaults.get("other") else "items"
    return table, other


_CLAUSE = re.compile(r"\b(?:that|which|to|for)\s+(.+)")
_IN_LANGUAGE = re.compile(r"\s+(?:in|using|with)\s+(?:python|javascript|typescript|go|golang|bash|sql|react)\b.*", re.I)


def _direction(request: str) -> list[str]:
    """Which way a temperature converts, by the order the request names the scales ("Celsius to Fahrenheit")."""
    said = request.lower()
    celsius, fahrenheit = said.find("celsius"), said.find("fahrenheit")
    if fahrenheit >= 0 and (celsius < 0 or fahrenheit < celsius):
        return ["fahrenheit", "to", "celsius"]
    return ["celsius", "to", "fahrenheit"]


_MY_FOLDER = re.compile(r"\bmy (\w+) (?:folder|directory|dir)\b", re.I)


def _folder(request: str, defaults: Mapping[str, str]) -> str:
    """The folder a request names as "my photos folder" (the template's default, with `photos` for its last
    part), "my home folder" (the home itself), or the template's default."""
    default = defaults.get("dir", "./data")
    named = _MY_FOLDER.search(request)
    if not named or "/" not in default:
        return default
    home, _, last = default.rpartition("/")
    quote = last[len(last.rstrip('"')) :]  # the closing quote a shell default carries ("$HOME/Documents")
    word = named.group(1)
    return home + quote if word.lower() == "home" else f"{home}/{word}{quote}"


def _doc(request: str) -> str:
    """The request as the docstring's sentence: what the code is for, without "Write a Python function that"."""
    text = plain(request).rstrip(".?!")
    clause = _CLAUSE.search(text)
    said = _IN_LANGUAGE.sub("", clause.group(1) if clause else text)
    return (said[:1].upper() + said[1:]).rstrip(" ,;:") + "."


READ = 4000  # characters of a request read: what is asked is said early, and a pasted file would cost its length
_KEPT = 2000  # characters of a request whose reading is kept: a question asked again, not a pasted file
Reading = tuple[str, "Template", list[str], list[str]]


def _reading(request: str) -> Reading | None:
    """What `request` asks to be written, before any die is rolled: the language's tag, the template, and the
    words that name the function and its type; None when it asks for no code."""
    words = words_of(request)
    # Asked for by a verb, or by naming the language first: "CSS for a responsive grid", "SQL query to…".
    verb = ASKS.search(request) is not None or bool(words) and (words[0] in NAMED or request[:3] == "Go ")
    asked = asks(request, words, verb)
    if not asked and not (verb and names_a_language(request)):  # the common case, cheaply: no code asked for
        return None
    tag = language(request)
    found = task(request, tag, words)
    if not asked and not found:  # a language named and a task, asked for: "How do I sort a list in Python?"
        return None
    template = TEMPLATES.get(tag, {}).get(found or "skeleton") if tag in TEMPLATES else None
    if template is None:
        return None
    function_words, type_words = names(_URL.sub(" ", request) if "://" in request else request)
    return tag, template, function_words, type_words


# A short request's reading, kept (it is pure: what it keeps is what it would read): the reasoning and the answer
# of one request both read it, and a question is asked again. The lists it holds are only read.
_read = functools.lru_cache(maxsize=256)(_reading)


def write(request: str, dice: Iterator[int]) -> Code | None:
    """The code a capable assistant writes for `request` (the user's text), or None when it asks for no code."""
    request = request[:READ]
    read = _read(request) if len(request) <= _KEPT else _reading(request)
    if read is None:
        return None
    tag, template, function_words, type_words = read
    defaults = template.defaults
    fallback = defaults.get("name", "solve")
    case = CASE.get(tag, "camel")
    main, default_type = defaults.get("main", "name"), defaults.get("type", fallback).split()
    table_pair: list[str] = []

    def tables() -> list[str]:
        if not table_pair:
            table_pair.extend(_tables(request, defaults))
        return table_pair

    def found_or(pattern: re.Pattern[str], key: str, fallback: str) -> str:
        match = pattern.search(request)
        return match.group(match.lastindex or 0).rstrip(".,;:") if match else defaults.get(key, fallback)

    # Each value is worked out only when the chosen variant or summary uses it: most use two or three.
    make: dict[str, Callable[[], str]] = {
        "name": lambda: identifier(function_words, tag, fallback, case),
        "Type": lambda: spell(type_words or default_type, "pascal"),
        "r": lambda: (type_words or default_type)[0][:1],
        "kebab": lambda: spell((type_words if main == "Type" else function_words) or default_type, "kebab"),
        "snake": lambda: spell(function_words or fallback.split(), "snake"),
        "doc": lambda: _doc(request),
        "n": lambda: _number(request) or defaults.get("n", "10"),
        "table": lambda: tables()[0],
        "other": lambda: tables()[1],
        "row": lambda: singular(tables()[0]),
        "orow": lambda: singular(tables()[1]),
        "file": lambda: found_or(_FILE, "file", "data.txt"),
        "url": lambda: found_or(_URL, "url", "https://example.com/api/items"),
        "convert": lambda: spell(_direction(request), case),
        "dir": lambda: found_or(_DIR, "dir", "./data") if _DIR.search(request) else _folder(request, defaults),
    }
    values: dict[str, str] = {}

    def value(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in values:
            values[key] = make[key]()
        return values[key]

    variant = next(dice) % len(template.variants)
    source = template.variants[variant]
    if "@each\n" in source:  # a block written once per method the request names ("with deposit and withdraw")
        noun = (type_words or default_type)[-1]
        source = EACH.sub(lambda m: each(m.group(1), methods(request), case, noun), source)
    source = PLACEHOLDER.sub(value, source)
    # A template of several variants has a summary for each, in their order (the first says how the first works:
    # "passes the array through a `Set`"), so the summary goes with the variant; one variant's summaries are all its.
    said = next(dice)
    chosen = variant if len(template.variants) > 1 and len(template.summaries) == len(template.variants) else said
    summary = PLACEHOLDER.sub(value, template.summaries[chosen % len(template.summaries)])
    if main not in values:
        values[main] = make[main]()
    return Code(tag, source, values[main], summary)
