"""How a request for code reads, for the default model's code (`code`): the language it asks for, whether it
asks for code at all, and the words to name the code by, spelled as each language spells names.

Read with word lists and a few anchored patterns, no parser: "Write a Python function that reverses a linked
list" is Python, asks (a code noun after a request verb), and names `reverse_linked_list`; "a class for a bank
account" names `BankAccount`; "checks if a string is a palindrome" names `is_palindrome`.
"""

from __future__ import annotations

import keyword
import re

from emulator.default_model.lexicon import LEXICON


def vocabulary(words: str) -> frozenset[str]:
    """A set of words, written as one string (a word list a contributor can read at a glance)."""
    return frozenset(words.split())


# --- the language asked for ----------------------------------------------------------------------------------

NAMED = {
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
    named = [_CASED.get(w) or NAMED.get(w.lower(), "") for w in _WORD.findall(request)]
    named = [n for n in named if n] or [_EXTENSIONS.get(e.lower(), e.lower()) for e in _EXTENSION.findall(request)]
    if "jsx" in named or "tsx" in named:
        return "tsx" if "typescript" in named or "tsx" in named else "jsx"
    words = set(words_of(request))
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

_NOUNS = vocabulary(
    "function functions method script program class component query snippet code module algorithm implementation"
    " regex hook struct endpoint decorator stylesheet page webpage form liner oneliner cli tool utility helper"
)
ASKS = re.compile(
    r"\b(?:write|writing|implement|code(?= (?:a|an|the|me|up|some|this|it|my|your)\b)|create|generate|give|show"
    r"|make|build|need|want|help|craft|produce"
    r"|draft|add|can|could|would|please|how (?:do|can|could|would|should|to))\b",
    re.I,
)
_PROSE = vocabulary("story poem haiku limerick email letter essay song joke summary paragraph tweet")
_NOT_CODE_PAGE = vocabulary("page paragraph")
# "code" in its other senses, by the word before it (a QR code, a zip code, a dress code, an error code) or after
# it (a code of conduct, a code word): no program is asked for. The words before are those that give "code" its
# other senses in the lexicon, where they also keep it from cueing software.
_OTHER_CODE_BEFORE = LEXICON.senses["code"]  # lexicon/things.txt [senses]: qr, zip, dress, error…
_OTHER_CODE_AFTER = vocabulary("of word words name names red blue")
_OTHER_CLASS = LEXICON.senses["class"]  # a class one takes or teaches: the words said with it (things.txt)
_OWN = vocabulary("my our")  # code the user has already: what they ask is how to work on it
_KIND = vocabulary("clean cleaner better good readable maintainable faster efficient secure testable idiomatic")


def other_code(before: str, after: str) -> bool:
    """Whether "code" between the words `before` and `after` (lower case) is not a program's: "zip code", "code of
    conduct"."""
    return before in _OTHER_CODE_BEFORE or after in _OTHER_CODE_AFTER


def asks(request: str, words: list[str], verb: bool) -> bool:
    """Whether `request` asks for code: a code noun ("function", "query", "component") that a request `verb`
    asks for or a clause follows ("SQL query to find…"), and no prose form before it ("a story about a
    function")."""
    for at, word in enumerate(words):
        if word in _PROSE:
            return False
        if word in _NOUNS:
            if word == "code" and other_code(words[at - 1] if at else "", words[at + 1] if at + 1 < len(words) else ""):
                continue
            if word == "class" and not _OTHER_CLASS.isdisjoint(words):  # "tell my parents I failed a class"
                continue
            before = words[max(at - 3, 0) : at]
            if not _OWN.isdisjoint(before) or word == "code" and not _KIND.isdisjoint(before[-2:]):
                return False  # "fix a bug in my Python code", "write cleaner code": help with code, not code
            if not verb and words[at + 1 : at + 2] not in (["to"], ["that"], ["which"], ["for"]):
                return False
            return word not in _NOT_CODE_PAGE or language(request) in ("html", "jsx", "tsx")
    return False


def words_of(request: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(request)]


# --- the names --------------------------------------------------------------------------------------------------

_FILLERS = vocabulary("uh um erm hmm ok okay pls plz thx thanks")
_PARTS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_SKIPPED = vocabulary(
    "uh um erm hmm ok okay pls plz thx thanks"
    " a an the my your our their its this that these those some any each all given provided specified new"
    " simple small basic quick little nice good short custom it them one please just very me us i you we another"
    " other"
    " python javascript typescript js ts node sql bash shell go golang html css react jsx tsx rust java ruby php"
    " kotlin swift c cpp csharp"
)
_ENDS = vocabulary(
    "with using and then so that which where when while without via as or but because like whose in on at until"
    " unless than if whether every daily nightly weekly hourly once"
)
_WEAK = vocabulary("take takes accept accepts receive receives given")
_RETURNS = vocabulary("return returns give gives output outputs produce produces compute computes")
_CONTAINERS = vocabulary("list lists array arrays set sets collection sequence slice slices vector")
_PREDICATE = re.compile(
    r"\b(?:checks?|determines?|tests?|tells?|sees?|verif(?:y|ies)|returns?(?: true)?|decides?)"
    r" (?:if|whether) (?:or not )?(?:the |a |an |my |your |two |given )*([\w-]+(?: [\w-]+)??) (is|are|has|have)"
    r" (?:not )?"
    r"(?:a |an |the |in |all )?([\w ]+)",
    re.I,
)
_HOW = re.compile(r"\bhow (?:do|can|could|should|would|to)(?: (?:i|you|we|one))? (.+)", re.I)
# A name the request gives: `called parse_date`, `named "parse-date"`, `named 'my func'`, `called «total»`.
_EXPLICIT = re.compile(
    r"\b(?:called|named)\s+(?:[`'\"«“‘]([A-Za-z_][A-Za-z0-9_ -]{0,40}?)[`'\"»”’]|`?([A-Za-z_][A-Za-z0-9_]*)`?)"
)
# What must not reach code from the request's own words: any character but letters, digits, spaces and plain
# punctuation, and runs that end or open a comment in some language ("--", "//"). A docstring or comment that
# repeats the request is made of what is left ("write function «" → "Write function.").
_ODD = re.compile(r"[^\w\s,.;:'%()/+-]+|-{2,}|/{2,}|_{2,}")


def plain(text: str) -> str:
    """`text` with odd punctuation taken out (see `_ODD`), its spaces made single."""
    return " ".join(_ODD.sub(" ", text).split())


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


_FORMATS = vocabulary("tar gz tgz zip csv json yaml xml html pdf")
_LINKS = vocabulary("from in into to of on within")
_GENERIC = vocabulary(
    "text string strings sentence list array lists arrays input it place order number numbers integer integers"
    " dict dicts dictionary dictionaries object objects items values elements"
)


def names(request: str) -> tuple[list[str], list[str]]:
    """The words to name the code by: a function's (its verb and objects, or what it tests: `is`, `palindrome`)
    and a type's (its nouns). Empty lists when the request gives no words (the template's defaults then)."""
    explicit = _EXPLICIT.search(request)
    if explicit:
        given = explicit.group(1) or explicit.group(2)
        parts = [p.lower() for p in _PARTS.findall(given)]
        if parts and not parts[0][0].isdigit():
            return parts, parts
    words = words_of(request.replace("'", ""))
    noun_at = next((i for i, w in enumerate(words) if w in _NOUNS), -1)
    after = words[noun_at + 1 :] if noun_at >= 0 else []
    while after[:1] in (["in"], ["using"], ["with"]) and after[1:2] and (after[1] in NAMED or after[1] in ("go", "c")):
        after = after[2:]  # "a function in JavaScript that groups…"
    verb_first = False
    how = _HOW.search(request)
    if how and noun_at < 0:  # "How do I sort a list of dictionaries by a key in Python?"
        after, verb_first = words_of(how.group(1).replace("'", "")), True
    elif after and after[0] in ("that", "which", "who"):
        after, verb_first = after[1:], True
        while after[:1] and after[0] in _FILLERS:  # "a function that -- uh -- sorts a list"
            after = after[1:]
    elif after and after[0] in ("to", "for", "of", "with"):
        verb_first = after[0] == "to"
        after = after[1:]
    else:
        after = []
    ask = next((i for i, w in enumerate(words) if ASKS.fullmatch(w)), -1)
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

CASE = {"python": "snake", "bash": "snake", "sql": "snake", "rust": "snake", "ruby": "snake", "c": "snake"}
CASE |= {"cpp": "snake", "html": "kebab", "css": "kebab", "csharp": "pascal"}
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


def identifier(parts: list[str], tag: str, fallback: str, case: str) -> str:
    parts = parts or fallback.split()
    name = spell(parts, case)
    if name in _RESERVED_SETS.get(tag, frozenset()) or len(parts) == 1 and len(name) < 3:
        name = spell([*parts, *(fallback.split()[1:] or ["items"])], case)
    return name


EACH = re.compile(r"^@each\n(.*?)^@end\n", re.M | re.S)
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
    found = [_phrase(words_of(item))[:2] for item in split]
    return [words for words in found if words][:6]


def each(block: str, named: list[list[str]], case: str, noun: str) -> str:
    """`block` once per method, named in the language's case; a keyword takes the class's noun (return_book)."""
    spelled = [spell([*words, noun] if keyword.iskeyword(spell(words, case)) else words, case) for words in named]
    return "".join(block.replace("@method@", name).replace("@Method@", name[:1].upper() + name[1:]) for name in spelled)


def names_a_language(request: str) -> bool:
    """Whether `request` names a programming language or a file of one (not merely implies one)."""
    return any(_CASED.get(w) or w.lower() in NAMED for w in _WORD.findall(request)) or bool(_EXTENSION.search(request))
