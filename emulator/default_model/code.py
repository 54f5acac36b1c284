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

import keyword
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True, slots=True)
class Code:
    """A block of code, ready to fence."""

    language: str  # the fence's tag: python, javascript, typescript, sql, bash, go, html, css, jsx, tsx, …
    source: str  # the block's text, ending in a newline
    name: str  # the main function, class, table or component it defines
    summary: str  # one or two plain-English sentences saying what the code does and how to use it


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


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


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

# --- the language asked for ----------------------------------------------------------------------------------

_NAMED = {
    **dict.fromkeys(("python", "python3", "py", "django", "flask", "fastapi", "pandas", "numpy"), "python"),
    **dict.fromkeys(("javascript", "js", "node", "nodejs", "express", "mjs", "ecmascript"), "javascript"),
    **dict.fromkeys(("typescript", "ts", "deno"), "typescript"),
    **dict.fromkeys(("sql", "sqlite", "sqlite3", "postgres", "postgresql", "mysql", "mariadb"), "sql"),
    **dict.fromkeys(("bash", "shell", "sh", "zsh", "cron", "crontab"), "bash"),
    **dict.fromkeys(("golang",), "go"),
    **dict.fromkeys(("html", "html5", "htm"), "html"),
    **dict.fromkeys(("css", "stylesheet", "css3"), "css"),
    **dict.fromkeys(("react", "jsx", "nextjs"), "jsx"),
    "tsx": "tsx",
    **{w: w for w in ("rust", "java", "kotlin", "swift", "ruby", "php", "vue", "svelte", "angular")},
    **dict.fromkeys(("c++", "cpp"), "cpp"),
    **dict.fromkeys(("c#", "csharp"), "csharp"),
}
_CASED = {"Go": "go", "C": "c"}  # "go" and "c" are languages only when written so
_EXTENSION = re.compile(r"\w\.(py|js|mjs|ts|sql|sh|bash|go|html?|css|jsx|tsx|rs|java|rb|php)\b")
_EXTENSIONS = {"py": "python", "mjs": "javascript", "js": "javascript", "ts": "typescript", "sh": "bash"}
_EXTENSIONS |= {"htm": "html", "rs": "rust", "rb": "ruby"}
_GO = re.compile(r"\b(?:in|using|with|a|an) go\b(?! to\b| back\b| through\b)", re.I)  # "in go", "a go server"
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9+#]*|\d+")


def language(request: str) -> str:
    """The fence tag of the language `request` asks for: one it names (the first), a file's extension, a
    framework (React: JSX, or TSX with TypeScript), or what its nouns imply (a query over tables, a web page, a
    stylesheet); Python when nothing says."""
    named = [_CASED.get(w) or _NAMED.get(w.lower(), "") for w in _WORD.findall(request)]
    named = [n for n in named if n] or [_EXTENSIONS.get(e.lower(), e.lower()) for e in _EXTENSION.findall(request)]
    if "jsx" in named or "tsx" in named:
        return "tsx" if "typescript" in named or "tsx" in named else "jsx"
    words = set(_lower_words(request))
    if not named and _GO.search(request):
        return "go"
    if named:
        if named[0] == "css" and "html" in named:
            return "html"  # "a page in HTML and CSS": one page, its style inside
        return named[0]
    if words & {"component", "components", "hook", "jsx", "props"}:
        return "jsx"
    if words & {"query", "queries", "table", "tables", "join", "database"} and not words & {"function", "class"}:
        return "sql"
    if words & {"page", "webpage", "website", "form", "navbar", "markup"}:
        return "html"
    if words & {"stylesheet", "styles", "flexbox"}:
        return "css"
    return "python"


# --- whether it asks for code at all ---------------------------------------------------------------------------

_NOUNS = _set(
    "function functions method script program class component query snippet code module algorithm implementation"
    " regex hook struct endpoint decorator stylesheet page webpage form liner oneliner cli tool utility helper"
)
_ASKS = re.compile(
    r"\b(?:write|writing|implement|code|create|generate|give|show|make|build|need|want|help|craft|produce"
    r"|draft|add|can|could|would|please|how (?:do|can|could|would|should|to))\b",
    re.I,
)
_PROSE = _set("story poem haiku limerick email letter essay song joke summary paragraph tweet")
_NOT_CODE_PAGE = _set("page paragraph")


def _asks(request: str, words: list[str], verb: bool) -> bool:
    """Whether `request` asks for code: a code noun ("function", "query", "component") that a request `verb`
    asks for or a clause follows ("SQL query to find…"), and no prose form before it ("a story about a
    function")."""
    for at, word in enumerate(words):
        if word in _PROSE:
            return False
        if word in _NOUNS:
            if not verb and words[at + 1 : at + 2] not in (["to"], ["that"], ["which"], ["for"]):
                return False
            return word not in _NOT_CODE_PAGE or language(request) in ("html", "jsx", "tsx")
    return False


# --- the task -------------------------------------------------------------------------------------------------


def _lower_words(request: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(request)]


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


_VERBS_OF_ASKING = _set("write create make build generate code implement give show draft produce")


def task(request: str, tag: str, said: list[str] | None = None) -> str | None:
    """The first task of `templates/tasks.txt` that `request` names and language `tag` has a template for."""
    said = _lower_words(request) if said is None else said
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


# --- the names --------------------------------------------------------------------------------------------------

_SKIPPED = _set(
    "a an the my your our their its this that these those some any each every all given provided specified new"
    " simple small basic quick little nice good short custom it them one please just very me us i you we another"
    " other"
    " python javascript typescript js ts node sql bash shell go golang html css react jsx tsx rust java ruby php"
    " kotlin swift c cpp csharp"
)
_ENDS = _set(
    "with using and then so that which where when while without via as or but because like whose in on at until"
    " unless than if whether"
)
_WEAK = _set("take takes accept accepts receive receives given")
_RETURNS = _set("return returns give gives output outputs produce produces compute computes")
_CONTAINERS = _set("list lists array arrays set sets collection sequence slice slices vector")
_PREDICATE = re.compile(
    r"\b(?:checks?|determines?|tests?|tells?|sees?|verif(?:y|ies)|returns?(?: true)?|decides?)"
    r" (?:if|whether) (?:or not )?(?:the |a |an |my |your |two |given )*([\w-]+(?: [\w-]+)??) (is|are|has|have)"
    r" (?:not )?"
    r"(?:a |an |the |in |all )?([\w ]+)",
    re.I,
)
_HOW = re.compile(r"\bhow (?:do|can|could|should|would|to)(?: (?:i|you|we|one))? (.+)", re.I)
_EXPLICIT = re.compile(r"\b(?:called|named)\s+`?([A-Za-z_][A-Za-z0-9_]*)`?")
_PLAIN = re.compile(r"[a-z][a-z0-9]*")


_IRREGULAR = {"does": "do", "has": "have", "goes": "go", "is": "be"}


def _base(verb: str) -> str:
    """A verb's base form from the third person: reverses → reverse, fetches → fetch, retries → retry."""
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb.endswith("ies") and len(verb) > 4:
        return verb[:-3] + "y"
    if verb.endswith(("ches", "shes", "sses", "xes", "zzes")):
        return verb[:-2]
    if verb.endswith("s") and not verb.endswith(("ss", "us", "is")) and len(verb) > 3:
        return verb[:-1]
    return verb


def singular(noun: str) -> str:
    """A plural noun's singular, as identifiers need it: users → user, entries → entry, boxes → box."""
    if noun.endswith("ies") and len(noun) > 4:
        return noun[:-3] + "y"
    if noun.endswith(("ches", "shes", "sses", "xes")):
        return noun[:-2]
    if noun.endswith("s") and not noun.endswith(("ss", "us", "is")) and len(noun) > 3:
        return noun[:-1]
    return noun


def _phrase(words: list[str]) -> list[str]:
    """The words of a name, from the start of a clause: stop at a conjunction or a relative, skip articles and
    language names, fold "a list of users" into its element ("users"), at most four words, no trailing
    preposition."""
    kept: list[str] = []
    for i, word in enumerate(words):
        if word in _ENDS and kept and not (word == "in" and _next_is_noun(words, i)):
            break
        if word in _LINKS and kept and _next_is_generic(words, i):  # "remove duplicates from a list"
            break
        then = [w for w in words[i + 1 : i + 3] if w not in ("a", "an", "the")]
        if word in ("to", "into", "as") and then and then[0] in _FORMATS:  # "… to a tar.gz"
            break
        if word in _SKIPPED or word in _NOUNS or not _PLAIN.fullmatch(word) or not kept and word in _LINKS | {"for"}:
            continue
        if word in _CONTAINERS and words[i + 1 : i + 2] == ["of"] or word == "of" and words[i - 1] in _CONTAINERS:
            continue
        kept.append(word)
        if len(kept) == 4:
            break
    while kept and kept[-1] in _LINKS | {"by", "for", "with", "at"}:
        kept.pop()
    return kept


def _next_is_noun(words: list[str], i: int) -> bool:
    """Whether the "in" at `i` leads to a noun of the name ("count words in a file") rather than a language."""
    rest = [w for w in words[i + 1 : i + 3] if w not in ("a", "an", "the", "my", "your", "given")]
    return bool(rest) and rest[0] not in _SKIPPED and rest[0] not in _NOUNS and rest[0] not in _GENERIC


def _next_is_generic(words: list[str], i: int) -> bool:
    rest = [w for w in words[i + 1 : i + 6] if w not in ("a", "an", "the", "my", "your", "given", "some")]
    if rest[1:2] == ["of"] and rest[0] in _CONTAINERS:
        rest = rest[2:]
    return not rest or rest[0] in _GENERIC


_FORMATS = _set("tar gz tgz zip csv json yaml xml html pdf")
_LINKS = _set("from in into to of on within")
_GENERIC = _set(
    "text string strings sentence list array lists arrays input it place order number numbers integer integers"
    " dict dicts dictionary dictionaries object objects items values elements"
)


def names(request: str) -> tuple[list[str], list[str]]:
    """The words to name the code by: a function's (its verb and objects, or what it tests: `is`, `palindrome`)
    and a type's (its nouns). Empty lists when the request gives no words (the template's defaults then)."""
    explicit = _EXPLICIT.search(request)
    if explicit:
        parts = [p.lower() for p in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", explicit.group(1))]
        return parts, parts
    words = _lower_words(request.replace("'", ""))
    noun_at = next((i for i, w in enumerate(words) if w in _NOUNS), -1)
    after = words[noun_at + 1 :] if noun_at >= 0 else []
    while after[:1] in (["in"], ["using"], ["with"]) and after[1:2] and (after[1] in _NAMED or after[1] in ("go", "c")):
        after = after[2:]  # "a function in JavaScript that groups…"
    verb_first = False
    how = _HOW.search(request)
    if how and noun_at < 0:  # "How do I sort a list of dictionaries by a key in Python?"
        after, verb_first = _lower_words(how.group(1).replace("'", "")), True
    elif after and after[0] in ("that", "which", "who"):
        after, verb_first = after[1:], True
    elif after and after[0] in ("to", "for", "of", "with"):
        verb_first = after[0] == "to"
        after = after[1:]
    else:
        after = []
    ask = next((i for i, w in enumerate(words) if _ASKS.fullmatch(w)), -1)
    if noun_at >= 0 and words[noun_at + 1 : noun_at + 2] == ["with"] and _phrase(words[ask + 1 : noun_at]):
        after = []  # "a login form with email and password" is a login form; "a page with a table" a table
    if not after:  # "write a binary search function in Go", "implement binary search in Go"
        before = words[ask + 1 : noun_at] if noun_at > ask else words[ask + 1 :]
        to = before.index("to") if "to" in before[:4] and noun_at < 0 else -1
        if to >= 0 and before[to + 1 : to + 2] and before[to + 1] not in _SKIPPED:  # "Write CSS to center a div"
            after, verb_first = before[to + 1 :], True
        else:
            nouns = _phrase(before)
            if noun_at >= 0 and words[noun_at] in ("form", "page"):  # "a contact form": the noun names it too
                nouns = [*nouns[:3], words[noun_at]]
            return nouns, nouns
    predicate = _PREDICATE.search(" ".join(after))
    if predicate:
        subject, tested = _phrase(predicate.group(1).split()), _phrase(predicate.group(3).split())
        if len(tested) == 1 and subject and subject[-1] not in _GENERIC | {"year", "word", "value", "email"}:
            tested = [*subject[-1:], *tested]  # "checks if a website is up": is_website_up, but is_prime
        return [predicate.group(2).lower(), *tested], tested
    if not verb_first:  # "a class for a bank account"
        nouns = _phrase(after)
        return nouns, nouns
    verb, rest = _base(after[0]), after[1:]
    if rest[:2] in (["how", "many"], ["how", "often"]):  # "counts how many times each item appears"
        rest = ["occurrences"]
    if verb == "back" and rest[:1] == ["up"]:
        verb, rest = "backup", rest[1:]
    if verb in _WEAK:  # "takes a list of numbers and returns the sum" → sum_numbers
        objects = _phrase(rest)
        tail = rest[rest.index("and") + 1 :] if "and" in rest else []
        if tail and tail[0] in _RETURNS:
            said = _phrase(tail[1:])
            return (said + objects[-1:] if len(said) == 1 else said) or objects, objects
        return [verb, *objects], objects
    objects = _phrase(rest)
    if verb in _RETURNS and objects:
        return objects, objects
    return [verb, *objects], _type_words(objects)


def _type_words(objects: list[str]) -> list[str]:
    """The nouns of a type from a function's objects: a component that shows users is a `UserList`."""
    cut = next((i for i, w in enumerate(objects) if w in _LINKS or w in ("by", "for", "with")), len(objects))
    objects = objects[:cut] or objects
    if len(objects) == 1 and singular(objects[0]) != objects[0]:
        return [singular(objects[0]), "list"]
    return objects


# --- spelling ---------------------------------------------------------------------------------------------------

_CASE = {"python": "snake", "bash": "snake", "sql": "snake", "rust": "snake", "ruby": "snake", "c": "snake"}
_CASE |= {"cpp": "snake", "html": "kebab", "css": "kebab", "csharp": "pascal"}
_RESERVED = {
    "python": "sum max min sorted filter map reversed list len print input type id hash format open range zip all"
    " any sort count find reverse flatten merge parse read write fetch retry and or not is in for if class def"
    " return lambda pass del global import from with while yield try except raise",
    "bash": "sort uniq wc cat echo read test find tr cd cp mv rm tar curl grep sed awk head tail date printf"
    " backup time exit set shift",
    "go": "func range map len append copy delete type string int error make new go select case default var"
    " const package import return for if else switch defer chan struct interface max min",
    "sql": "order group select from where table index key user values",
}
for _tag in ("javascript", "typescript", "jsx", "tsx"):
    _RESERVED[_tag] = (
        "delete new return function class default switch case var let const typeof in of do if for while"
        " this try catch finally throw import export void yield await async with super enum fetch"
    )
_RESERVED_SETS = {tag: frozenset(words.split()) for tag, words in _RESERVED.items()}


def spell(parts: list[str], case: str) -> str:
    """`parts` (lower-case words) spelled as an identifier: snake, camel, pascal or kebab case."""
    if case == "snake":
        return "_".join(parts)
    if case == "kebab":
        return "-".join(parts)
    camel = "".join(p[:1].upper() + p[1:] for p in parts)
    return camel if case == "pascal" else camel[:1].lower() + camel[1:]


def _name(parts: list[str], tag: str, fallback: str, case: str) -> str:
    parts = parts or fallback.split()
    name = spell(parts, case)
    if name in _RESERVED_SETS.get(tag, frozenset()) or len(parts) == 1 and len(name) < 3:
        name = spell([*parts, *(fallback.split()[1:] or ["items"])], case)
    return name


# --- the placeholders -------------------------------------------------------------------------------------------

PLACEHOLDER = re.compile(r"@(name|Type|r|kebab|snake|doc|n|table|other|row|orow|file|url|dir)@")
_FILE = re.compile(r"(?<![\w/.])((?:[\w-]+/)*[\w-]+\.(?:txt|csv|json|log|md|yaml|yml|xml|tsv|ini|conf|cfg|dat))\b")
_URL = re.compile(r"https?://[^\s'\"`<>)]+")
_DIR = re.compile(r"(?<![\w.])((?:~|\.{1,2})?/[\w./~-]*[\w~])")
_PARENTS = _set(
    "customers users employees departments authors students categories products regions teams stores cities"
    " countries accounts members courses suppliers clients artists"
)
_CHILDREN = _set(
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
    words = _lower_words(request)
    parents = [p for w in words for p in (w, w + "s", w[:-1] + "ies") if p in _PARENTS]
    children = [w for w in words if w in _CHILDREN] + [w + "s" for w in words if w + "s" in _CHILDREN]
    table = parents[0] if parents else defaults.get("table", "customers")
    other = children[0] if children else defaults.get("other", "orders")
    if other == table:
        other = defaults.get("other", "orders") if table != defaults.get("other") else "items"
    return table, other


_CLAUSE = re.compile(r"\b(?:that|which|to|for)\s+(.+)")
_IN_LANGUAGE = re.compile(r"\s+(?:in|using|with)\s+(?:python|javascript|typescript|go|golang|bash|sql|react)\b.*", re.I)


def _doc(request: str) -> str:
    """The request as the docstring's sentence: what the code is for, without "Write a Python function that"."""
    text = " ".join(request.split()).rstrip(".?!")
    clause = _CLAUSE.search(text)
    said = _IN_LANGUAGE.sub("", clause.group(1) if clause else text)
    return (said[:1].upper() + said[1:]).rstrip(" ,;:") + "."


READ = 4000  # characters of a request read: what is asked is said early, and a pasted file would cost its length
_EACH = re.compile(r"^@each\n(.*?)^@end\n", re.M | re.S)
_METHODS = re.compile(
    r"\bwith (?:(?:the |a |an )?methods? (?:to |for |that |called |named )?)?([\w ,]+?)(?: methods?\b|$|[.?!])"
    r"|\bmethods? (?:to |for |called |named )?([\w ,]+?)(?:$|[.?!])",
    re.I,
)


def methods(request: str) -> list[list[str]]:
    """The methods a class request names, each as its words: "with deposit and withdraw methods",
    "with methods to add and remove items" → [["deposit"], ["withdraw"]], [["add"], ["remove", "items"]]."""
    said = _METHODS.search(request)
    if not said:
        return []
    items = re.split(r",\s*(?:and\s+)?|\s+and\s+", said.group(1) or said.group(2) or "")
    split = (" ".join(re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", item)) for item in items)  # setTemperature
    found = [_phrase(_lower_words(item))[:2] for item in split]
    return [words for words in found if words][:6]


def _each(block: str, named: list[list[str]], case: str, noun: str) -> str:
    """`block` once per method, named in the language's case; a keyword takes the class's noun (return_book)."""
    spelled = [spell([*words, noun] if keyword.iskeyword(spell(words, case)) else words, case) for words in named]
    return "".join(block.replace("@method@", name).replace("@Method@", name[:1].upper() + name[1:]) for name in spelled)


def write(request: str, dice: Iterator[int]) -> Code | None:
    """The code a capable assistant writes for `request` (the user's text), or None when it asks for no code."""
    request = request[:READ]
    words = _lower_words(request)
    # Asked for by a verb, or by naming the language first: "CSS for a responsive grid", "SQL query to…".
    verb = _ASKS.search(request) is not None or bool(words) and (words[0] in _NAMED or request[:3] == "Go ")
    asked = _asks(request, words, verb)
    if not asked and not (verb and _named_language(request)):  # the common case, cheaply: no code asked for
        return None
    tag = language(request)
    found = task(request, tag, words)
    if not asked and not found:  # a language named and a task, asked for: "How do I sort a list in Python?"
        return None
    template = TEMPLATES.get(tag, {}).get(found or "skeleton") if tag in TEMPLATES else None
    if template is None:
        return None
    defaults = template.defaults
    function_words, type_words = names(request)
    fallback = defaults.get("name", "solve")
    case = _CASE.get(tag, "camel")
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
        "name": lambda: _name(function_words, tag, fallback, case),
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
        "dir": lambda: found_or(_DIR, "dir", "./data"),
    }
    values: dict[str, str] = {}

    def value(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in values:
            values[key] = make[key]()
        return values[key]

    source = template.variants[next(dice) % len(template.variants)]
    if "@each\n" in source:  # a block written once per method the request names ("with deposit and withdraw")
        noun = (type_words or default_type)[-1]
        source = _EACH.sub(lambda m: _each(m.group(1), methods(request), case, noun), source)
    source = PLACEHOLDER.sub(value, source)
    summary = PLACEHOLDER.sub(value, template.summaries[next(dice) % len(template.summaries)])
    if main not in values:
        values[main] = make[main]()
    return Code(tag, source, values[main], summary)


def _named_language(request: str) -> bool:
    """Whether `request` names a programming language or a file of one (not merely implies one)."""
    return any(_CASED.get(w) or w.lower() in _NAMED for w in _WORD.findall(request)) or bool(_EXTENSION.search(request))
