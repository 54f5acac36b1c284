"""A tool's arguments from what the conversation names (`mentions`), each matched to a parameter by its name,
its description, its type, its `enum` and its `format`: a currency code to `base`/`quote`, a city to
`location`, a date to `departure_date`, a path to `filePath`, a quoted string to `query`.

`fill` works on an instance the schema generator already made (`instances.instance`): it replaces a value
only with one the conversation gives that the property's schema accepts, so what the conversation does not
give keeps its generated (faker) value, and the arguments stay valid against the schema.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping
from typing import Any

from emulator.default_model.mentions import Mentions, country_of_city, currency_codes

# What a parameter holds, by the words of its name and of its description: the first rule that matches wins.
# (kind, words of the name, words of the description)
_RULES: tuple[tuple[str, frozenset[str], frozenset[str]], ...] = tuple(
    (kind, frozenset(names.split()), frozenset(described.split()))
    for kind, names, described in (
        ("email", "email mail emails recipient recipients", "email e-mail"),
        ("url", "url uri link href website homepage endpoint", "url uri"),
        ("pattern", "pattern glob regex include exclude", "glob regex pattern"),
        ("path", "path filepath filename file dir directory folder notebook", "path file directory folder"),
        ("currency", "currency currencies base quote symbol ticker", "currency iso 4217"),
        ("date", "date day birthday deadline due dob", "date yyyy-mm-dd"),
        ("time", "time hour", "time hh:mm"),
        ("datetime", "datetime timestamp when start end at", "datetime timestamp iso 8601"),
        ("city", "city town destination origin location place where", "city location town place"),
        ("country", "country nation countrycode", "country"),
        ("unit", "unit units", "unit units"),
        ("id", "id identifier uuid key number no ref reference", "id identifier uuid"),
        ("person", "name person recipient assignee author owner who attendee attendees contact user", "person name"),
        ("text", "query q search keyword keywords term terms text message title subject content prompt", ""),
    )
)
_VAGUE = frozenset(("person", "text", "id"))  # kinds a name gives that a description can make exact
_EXACT = frozenset(("email", "url", "date", "datetime", "time", "currency", "path"))
_SPLIT = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_FROM = frozenset(["from", "base", "source", "src", "origin", "sell", "have"])  # the first of a pair
_TO = frozenset(["to", "quote", "target", "dst", "destination", "buy", "want", "into"])  # the second


def fill(schema: Any, value: Any, found: Mentions, cwd: str = "") -> tuple[Any, frozenset[str]]:
    """`value` (an instance of `schema`) with each top-level property, and those of nested objects, replaced by
    what `found` names for it where the property's schema accepts it, and the names of the top-level ones so
    given. Pairs (`from`/`to`, `base`/`quote`) take the value written first and the one written after "to"; a
    path whose description asks for an absolute one is joined to `cwd` (the working directory the system
    prompt gives)."""
    return _fill(schema, value, found, cwd, schema, 0)


def _fill(schema: Any, value: Any, found: Mentions, cwd: str, root: Any, depth: int) -> tuple[Any, frozenset[str]]:
    schema = _resolved(schema, root)
    if not isinstance(value, dict) or not isinstance(schema, Mapping) or depth > _DEEPEST:
        return value, frozenset()
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return value, frozenset()
    used: dict[str, int] = {_PAIRED: 1} if _paired(properties) else {}
    filled, named = dict(value), set()
    for name, given_schema in properties.items():
        sub = _resolved(given_schema, root)
        if name not in filled or not isinstance(sub, Mapping):
            continue
        if isinstance(filled[name], dict):
            filled[name], inner = _fill(sub, filled[name], found, cwd, root, depth + 1)
            named.update([name] if inner else [])
            continue
        if isinstance(filled[name], list) and filled[name] and isinstance(filled[name][0], dict):
            first, inner = _fill(sub.get("items"), filled[name][0], found, cwd, root, depth + 1)
            filled[name] = [first, *filled[name][1:]]
            named.update([name] if inner else [])
            continue
        made = _value(str(name), sub, found, used, cwd)
        if made is not None:
            filled[name] = made
            named.add(name)
    return filled, frozenset(named)


_DEEPEST = 8  # levels of nested objects filled at most
_PAIRED = " paired"  # in `used`: the properties hold a pair (`origin`/`destination`), so "to" means the second


def _paired(properties: Mapping[str, Any]) -> bool:
    """Whether the properties hold a pair, a from-side and a to-side: an email's lone `to` is no pair's second."""
    words = [{w.lower() for w in _SPLIT.findall(str(n))} for n in properties]
    return any(not w.isdisjoint(_FROM) for w in words) and any(not w.isdisjoint(_TO) for w in words)


def _resolved(schema: Any, root: Any) -> Any:
    """`schema` with a local `$ref` (`#/$defs/Person`) followed, once; anything else as it is."""
    ref = schema.get("$ref") if isinstance(schema, Mapping) else None
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return schema
    target = root
    for part in ref[2:].split("/"):
        if not isinstance(target, Mapping) or part not in target:
            return schema
        target = target[part]
    return target


def kind_of(name: str, schema: Mapping[str, Any]) -> str:
    """What a parameter holds ("currency", "date", "path", …; "" when nothing says), by its format, its enum,
    its name and its description."""
    form = schema.get("format")
    if form in ("date", "time", "email", "uri", "url", "uuid"):
        return {"uri": "url", "uuid": "id"}.get(str(form), str(form))
    if form == "date-time":
        return "datetime"
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(e, str) and e in currency_codes() for e in enum):
        return "currency"
    words = {w.lower() for w in _SPLIT.findall(name)} | {name.lower()}
    described = str(schema.get("description") or schema.get("title") or "")[:200].lower()
    told = set(re.findall(r"[a-z0-9:-]+", described))
    described_as = next((k for k, _, d in _RULES if d and not d.isdisjoint(told)), "")
    for kind, names, _ in _RULES:
        if not names.isdisjoint(words):
            if kind == "path" and told & {"url", "uri"}:
                return "url"
            return described_as if kind in _VAGUE and described_as in _EXACT else kind
    return described_as


# Kinds of value specific enough that a question naming one, for a tool taking one, asks for that tool.
SPECIFIC = frozenset(("currency", "city", "country", "date", "datetime", "email", "id", "unit"))
# Kinds no tool should get a made-up value of: a tool needing one is called only when the conversation gives it.
GIVEN_ONLY = frozenset(("path", "pattern", "url", "email", "id"))


# Tools and parameters that take one kind of file only (Codex's `view_image`: "a local image file"), by the words
# that say so, and the extensions of that kind.
_FILE_KINDS = {
    "image": ("image images picture pictures photo photos screenshot screenshots img", "png jpg jpeg gif webp bmp"),
    "notebook": ("notebook notebooks ipynb", "ipynb"),
    "pdf": ("pdf pdfs", "pdf"),
}
_FILE_WORDS = {w: kind for kind, (words, _) in _FILE_KINDS.items() for w in words.split()}
_EXTENSIONS = {
    kind: frozenset(f"{ext} svg tif tiff heic ico".split() if kind == "image" else ext.split())
    for kind, (_, ext) in _FILE_KINDS.items()
}


def file_kind(*texts: str) -> str:
    """The one kind of file `texts` (a tool's name and description, a parameter's) say it takes ("image"), or ""."""
    words = {w.lower() for text in texts for w in _SPLIT.findall(text[:300])}
    return next((_FILE_WORDS[w] for w in sorted(words) if w in _FILE_WORDS), "")


def of_file_kind(paths: tuple[str, ...], kind: str) -> tuple[str, ...]:
    """The `paths` of that kind of file (by extension); all of them when `kind` is ""."""
    if not kind:
        return paths
    return tuple(p for p in paths if p.rpartition(".")[2].lower() in _EXTENSIONS[kind])


def given(kind: str, found: Mentions) -> bool:
    """Whether the conversation names a value of `kind`."""
    if kind == "datetime":
        return bool(found.dates)
    return kind in _POOLS and bool(_POOLS[kind](found))


def _value(name: str, schema: Mapping[str, Any], found: Mentions, used: dict[str, int], cwd: str) -> Any:
    types = _types(schema)
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return _from_enum(enum, found)
    kind = kind_of(name, schema)
    if "number" in types or "integer" in types:
        return _number(name, schema, types, found, used)
    if "string" not in types:
        return None
    if kind == "datetime" and found.dates:
        day, clock = found.dates[0], found.times[0] if found.times else "09:00"
        return f"{day}T{clock}:00"
    pool = _POOLS[kind](found) if kind in _POOLS else ()
    if kind == "city" and not pool:
        pool = found.countries
    if kind == "person" and _has(name, "user") and not found.people:
        return None
    if not kind and not pool and found.people and _written(name, found):
        pool = found.people  # a thing of the parameter's own kind, named: "the Rijksmuseum museum", "ship Aurora"
    if kind == "path":
        pool = of_file_kind(pool, file_kind(name, str(schema.get("description") or ""))) or pool
    if not pool:
        return None
    chosen = pool[_index(name, kind, used, pool, _targets(kind, pool, found))]
    if kind == "path":
        chosen = _absolute(chosen, schema, cwd)
    return chosen if _fits(chosen, schema) else None


def _types(schema: Mapping[str, Any]) -> set[str]:
    kind = schema.get("type")
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    if isinstance(kind, str):
        return {kind}
    options = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(options, list):
        return {t for o in options if isinstance(o, Mapping) for t in _types(o)}
    return {"string"} if not schema else set()


_POOLS: dict[str, Callable[[Mentions], tuple[str, ...]]] = {
    "email": lambda f: f.emails,
    "url": lambda f: f.urls,
    "pattern": lambda f: f.patterns or f.quoted,
    "path": lambda f: f.paths,
    "currency": lambda f: f.currencies,
    "date": lambda f: f.dates,
    "time": lambda f: f.times,
    "city": lambda f: f.cities,
    "country": lambda f: f.countries or tuple(dict.fromkeys(country_of_city()[c] for c in f.cities)),
    "unit": lambda f: tuple(dict.fromkeys(u for _, u in f.quantities if u and u not in currency_codes())),
    "id": lambda f: f.ids,
    "person": lambda f: f.people,
    "text": lambda f: f.quoted,
}


def _targets(kind: str, pool: tuple[str, ...], found: Mentions) -> tuple[str, ...]:
    """Which of a pair's values go second: those written after "to", "into" or "in"; for currencies with none so
    written, the one with no amount ("How many kroner for 100 euros?": euros are what one has)."""
    if found.targets or kind != "currency":
        return found.targets
    counted = {unit for _, unit in found.quantities}
    uncounted = tuple(v for v in pool if v not in counted)
    return uncounted if len(uncounted) < len(pool) else ()


def _index(name: str, kind: str, used: dict[str, int], pool: tuple[str, ...], targets: tuple[str, ...]) -> int:
    """Which of a kind's values a parameter takes: for a pair (`from`/`to`, `base`/`quote`) the one written
    after "to" or "in" goes to the second, the other to the first; else the next one not yet used."""
    words = {w.lower() for w in _SPLIT.findall(name)}
    towards = [i for i, v in enumerate(pool) if v in targets]
    away = [i for i, v in enumerate(pool) if v not in targets]
    paired = _PAIRED in used
    if paired and not words.isdisjoint(_TO) and len(pool) > 1:
        index = towards[0] if towards and away else 1
    elif paired and not words.isdisjoint(_FROM):
        index = away[0] if away else 0
    else:
        index = used.get(kind, 0) % len(pool)
    used[kind] = index + 1
    return index


def _written(name: str, found: Mentions) -> bool:
    """Whether a word of the parameter's name (`museum`, `hotel_name`'s `hotel`) is written in the conversation."""
    words = {w.lower() for w in _SPLIT.findall(name)} - {"name", "the", "of"}
    return any(w in found.words or f"{w}s" in found.words for w in words if len(w) > 2)


def _has(name: str, word: str) -> bool:
    return word in {w.lower() for w in _SPLIT.findall(name)}


def _absolute(path: str, schema: Mapping[str, Any], cwd: str) -> str:
    described = str(schema.get("description") or "").lower()
    if cwd and "absolute" in described and not path.startswith(("/", "~")):
        return posixpath.normpath(posixpath.join(cwd, path))
    return path


def _from_enum(enum: list[Any], found: Mentions) -> Any:
    """The enum value the conversation names: a currency, a unit, a place, a quoted string, or an option written
    as words ("in business class" → `business`, "premium economy" → `premium_economy`; the longest written)."""
    named = [*found.currencies, *found.cities, *found.countries, *(u for _, u in found.quantities if u)]
    named += [*found.quoted, *found.people]
    lowered = {str(n).lower() for n in named}
    for option in enum:
        if isinstance(option, str) and option.lower() in lowered:
            return option
    written = " " + " ".join(found.words[:_WORDS_READ]) + " "
    options = [o for o in enum[:_OPTIONS_READ] if isinstance(o, str) and len(o) > 2 and o.lower() not in _NO_CHOICE]
    spelled = ((o, " ".join(w.lower() for w in _SPLIT.findall(o))) for o in options)
    matched = [(len(words), o) for o, words in spelled if words and f" {words} " in written]
    return max(matched, key=lambda m: m[0])[1] if matched else None


# Options that say no choice was made: "any" in "Any flights…?" picks nothing.
_NO_CHOICE = frozenset(("any", "all", "none", "other", "default", "auto", "some", "each", "every", "unknown"))
_WORDS_READ, _OPTIONS_READ = 2000, 64  # words of the conversation an enum's options are looked for in, options


def _number(name: str, schema: Mapping[str, Any], types: set[str], found: Mentions, used: dict[str, int]) -> Any:
    """A number the conversation gives, in order, skipping the ones already used and those out of bounds."""
    numbers = found.numbers
    start = used.get("number", 0)
    for i in range(start, len(numbers)):
        n = numbers[i]
        if "integer" in types and "number" not in types and not float(n).is_integer():
            continue
        if not _in_bounds(n, schema):
            continue
        used["number"] = i + 1
        return int(n) if float(n).is_integer() else n
    return None


def _in_bounds(n: float, schema: Mapping[str, Any]) -> bool:
    checks: tuple[tuple[str, Callable[[float], bool]], ...] = (
        ("minimum", lambda b: n >= b),
        ("maximum", lambda b: n <= b),
        ("exclusiveMinimum", lambda b: n > b),
        ("exclusiveMaximum", lambda b: n < b),
    )
    for key, holds in checks:
        bound = schema.get(key)
        if isinstance(bound, int | float) and not isinstance(bound, bool) and not holds(bound):
            return False
    step = schema.get("multipleOf")
    return not (isinstance(step, int | float) and step > 0 and (n / step) != int(n / step))


def _fits(text: str, schema: Mapping[str, Any]) -> bool:
    low, high = schema.get("minLength", 0), schema.get("maxLength")
    if isinstance(low, int) and len(text) < low or isinstance(high, int) and len(text) > high:
        return False
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        try:
            return re.search(pattern, text) is not None
        except re.error:
            return False
    return True
