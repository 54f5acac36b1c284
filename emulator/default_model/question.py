"""What the default model reads in a conversation: the question's subject, its kind, and what it asks for.

No language model here: a question is read with a stop list, a few anchored patterns and a table of programming
languages, all compiled once, since every default answer reads its question. The salient words are those left
when the stop list (function words, common verbs, words every tool description uses) is taken out; runs of
them are the question's topics ("Why is my Go map iteration order random?" is about "Go map iteration order").
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from emulator.core.conversation import Prompt, frozen
from emulator.default_model.code_request import other_code

Kind = Literal["greeting", "short", "list", "steps", "code", "prose"]

# Words that say nothing of a question's subject: function words, and words every tool description uses.
_STOP = """a about above after again against all also am an and any are aren't as at be because been before being
    below between both but by can can't cannot could did didn't do does doesn't doing don't down during each either
    else ever every few for from further had has have having he her here hers herself him himself his how i i'd
    i'll i'm i've if in into is isn't it it's its itself just let let's like may me might mine more most much must
    my myself no nor not now of off often on once only or other our ours ourselves out over own please rather
    really same shall she should so some such than that that's the their theirs them themselves then there
    there's these they this those though through to too under until up upon us very was wasn't we were weren't
    what what's whats when where where's whether which while who who's whom whose why will with within without
    won't would yes yet you you'd you'll you're you've your yours yourself yourselves
    able actually always anything something everything nothing thing things way ways kind sort lot lots bit
    good great best better bad new old current given specified specific main certain different simple
    many several various whole sure okay ok thanks thank hi hello hey
    zero one two three four five six seven eight nine ten
    tool tools function functions result results response responses request requests content data information
    info input output value values text user users model models assistant conversation parameter parameters
    argument arguments type types correct correctly required question questions answer answers example examples
    idea ideas problem"""
# Verbs a request is made of (create, run, make, get…): a tool is picked by a noun the question and the tool
# share, never by one of these, unless a determiner makes it a noun ("a list", "the build").
_VERBS = """add allow allows ask asks build call calls change check choose compare create convert define delete
    describe do done explain extract extracted fetch find fix get gets give go going help implement keep know
    learn list look looks make makes mean means need needs open print put read remove return returns run runs say
    see send set show start stop suggest summarize take tell think try turn understand update use used uses using
    want wants work works write launch execute perform handle schedule cancel retrieve receive enter exit view
    search render insert replace process manage spawn invoke resume terminate wait apply load save copy move
    named called"""
STOP, VERBS = frozenset(_STOP.split()), frozenset(_VERBS.split())
_DETERMINERS = frozenset(
    ("a", "an", "the", "my", "your", "this", "these", "those", "our", "their", "its", "his", "her", "some")
    + ("many", "all", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
)
# Where a code block's language is named: the word as written (lower case) → (fence tag, name as written).
LANGUAGES = {
    "python": ("python", "Python"),
    "javascript": ("javascript", "JavaScript"),
    "js": ("javascript", "JavaScript"),
    "node": ("javascript", "JavaScript"),
    "typescript": ("typescript", "TypeScript"),
    "ts": ("typescript", "TypeScript"),
    "golang": ("go", "Go"),
    "rust": ("rust", "Rust"),
    "java": ("java", "Java"),
    "c++": ("cpp", "C++"),
    "cpp": ("cpp", "C++"),
    "c#": ("csharp", "C#"),
    "csharp": ("csharp", "C#"),
    "ruby": ("ruby", "Ruby"),
    "php": ("php", "PHP"),
    "bash": ("bash", "Bash"),
    "shell": ("bash", "Bash"),
    "sql": ("sql", "SQL"),
    "kotlin": ("kotlin", "Kotlin"),
    "swift": ("swift", "Swift"),
}
_CASED_LANGUAGES = {"Go": ("go", "Go"), "C": ("c", "C")}  # "go" and "c" are languages only when written so
CODE_NOUNS = ("function", "script", "class", "program", "snippet", "method", "query", "module", "code")
SHORT = 6  # words: a question this short gets a short paragraph
NUMBER_WORDS = {
    w: n for n, w in enumerate(("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"))
}

_EDGES = ".,;:!?()[]{}<>\"'*"  # punctuation at a word's edges, taken off as it is read
_TOKEN = re.compile(r"`[^`\n]{1,80}`|[A-Za-z][A-Za-z0-9]*(?:[._'+#-][A-Za-z0-9]+)*[+#]*|\d+|[.,;:!?()\[\]\"]")
# One greeting or a few in a row ("Hey, good morning!"), each maybe with whom it greets ("Hi there", "Hello all").
_GREETING = re.compile(
    r"(?:(?:hi|hello|hey|hiya|howdy|yo|greetings|good (?:morning|afternoon|evening|day))"
    r"(?:,? (?:there|everyone|everybody|all|folks|friend|buddy|mate|again))?\W*){1,3}",
    re.I,
)
_STEPS = re.compile(r"(?:so,? )?how (?:do|can|should|would|could) (?:i|we|you|one) (.+)|how to (.+)", re.I)
_LIST = re.compile(r"(?:what|which) (?:are|were) (.+)|(?:list|name|enumerate|give me) (.+)", re.I)
_CODE_ASK = re.compile(
    r"(?:(?:can|could|would) you |please |i need |i want )?"
    r"(?:write|implement|code|create|generate|show me|give me|make)\b",
    re.I,
)
_CODE_NOUN = re.compile(rf"\b({'|'.join(CODE_NOUNS)})\b(?:\s+((?:that|which|to|for)\b.*))?", re.I)
_PERSON = re.compile(r"\b(?:(?:I|we)['’](?:m|re|ve|d|ll)|I|me|my|mine|myself|we|us|our|ours|am)\b", re.I)
_FLIPPED = {"i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself", "we": "you", "us": "you"}
_FLIPPED |= {"our": "your", "ours": "yours", "am": "are", "i'm": "you're", "we're": "you're"}
_FLIPPED |= {f"{who}'{end}": f"you'{end}" for who in ("i", "we") for end in ("ve", "d", "ll")}  # "I'd" → "you'd"
_TRAILING = re.compile(r"[\s?.!:;,]+$")


@frozen
class Question:
    """The last user message, read: its salient `words` (as written, first use only), the `topics` they run
    into and the main `topic` (the longest run, the first of equals), its `kind` of answer, and for a list,
    steps or code the `clause` it asks about, in the answer's person ("how do I reverse my list" → "reverse
    your list")."""

    text: str
    words: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    topic: str = ""
    kind: Kind = "short"
    clause: str = ""
    language: tuple[str, str] = ("", "")  # a code block's fence tag and the language's name
    code_noun: str = ""  # what the code is: function, script, class…
    names: tuple[str, ...] = ()  # the proper nouns it names (Paris, Jason), for generated arguments
    numbers: tuple[int, ...] = ()  # and its numbers
    count: int = 0  # how many items a list asks for ("list five…"), 0 when it does not say

    @property
    def nouns(self) -> frozenset[str]:
        """The stems of its salient words: what a tool's words are matched with."""
        stems = ((stem(w), w.lower()) for w in self.words)  # "checks": a verb inflected, which `read` kept
        return frozenset(s for s, w in stems if s not in VERBS or s == w)


# What a token is to the reader, looked up once: a break in a run of salient words (a stop word or punctuation),
# a verb (with its -s form), or a language's name. Anything else is a salient word.
_BREAK, _VERB, _LANGUAGE = 1, 2, 3
_ROLES = {
    **dict.fromkeys(LANGUAGES, _LANGUAGE),
    **dict.fromkeys(VERBS, _VERB),
    **{f"{v}s": _VERB for v in VERBS if not v.endswith("s")},
    **dict.fromkeys(STOP, _BREAK),
    **dict.fromkeys('.,;:!?()[]"', _BREAK),
}


# How a word (as split from the text, its punctuation still on) reads, learned once: the vocabulary of questions
# is small, and reading a word afresh (strip, lower, lookups, code or name) cost most of a question's reading.
# (punctuation before it, after it, role, lower case, the word, as shown, a name?, its number, its language)
Word = tuple[bool, bool, int | None, str, str, str, bool, int, tuple[str, str]]
_SKIP, _NUMBER = 0, 4  # no word (punctuation alone, a symbol); a number
LEARNED = 1 << 14  # words remembered at most; past that the memory starts afresh
_learned: dict[str, Word] = {}


def _learn(part: str) -> Word:
    token = part.strip(_EDGES)
    lead, trail = token != part and part[0] in _EDGES, token != part and part[-1] in _EDGES
    if not token or not (token[0].isalnum() or token[0] == "`"):
        word: Word = (True, True, _SKIP, "", "", "", False, -1, ("", ""))
    else:
        low = token.lower()
        role = _ROLES.get(low)
        language = _CASED_LANGUAGES.get(token) or (LANGUAGES[low] if role == _LANGUAGE else ("", ""))
        role = _LANGUAGE if language[0] else role
        number = -1
        if role is None and "0" <= token[0] <= "9":  # a number, if a whole and human-sized one
            role, number = _NUMBER, int(token) if token.isdecimal() and len(token) < 10 else -1
        if "'" in token and low.endswith("'s"):
            token, low = token[:-2], low[:-2]
        shown = token
        if token[0] != "`" and ("_" in token or "." in token or low != token and token[0].islower()):
            shown = f"`{token}`"  # snake_case, dotted.names, camelCase: code, as a model writes it
        name = role is None and low != token and shown[0] != "`"  # Paris, Jason, TCP
        word = (lead, trail, role, low, token, shown, name, number, language)
    if len(_learned) >= LEARNED:
        _learned.clear()
    _learned[part] = word
    return word


def read(text: str) -> Question:
    """What `text` asks (see `Question`). One pass over its words, split on spaces, each read as `_learn` read
    it the first time: this is on every default answer's path."""
    parts = text.split()
    text = " ".join(parts)
    if not text:
        return Question(text)
    words: dict[str, str] = {}
    topics: list[str] = []
    run: list[str] = []
    names: list[str] = []
    numbers: list[int] = []
    language = ("", "")
    before = ""  # the word before, lower case
    learned = _learned.get
    for part in parts:
        lead, trail, role, low, token, shown, name, number, spoken = learned(part) or _learn(part)
        after, before = before, low
        if role is not None:
            if role == _NUMBER:
                if number >= 0:
                    numbers.append(number)
                continue
            if role != _LANGUAGE and (role != _VERB or after not in _DETERMINERS):  # "a list", "the build": nouns
                if run:  # a stop word, punctuation, a verb: a run of salient words ends
                    topics.append(" ".join(run[:4]))
                    run = []
                continue
        if lead and run:
            topics.append(" ".join(run[:4]))
            run = []
        if role == _LANGUAGE:
            language = language[0] and language or spoken
        elif name:
            names.append(token)
        run.append(shown)
        if low not in words:
            words[low] = token
        if trail:
            topics.append(" ".join(run[:4]))
            run = []
    if run:
        topics.append(" ".join(run[:4]))
    kind, clause, noun = _kind(text, parts[0].lower().strip(_EDGES))
    verb = clause.split(" ", 1)[0].lower() if kind == "steps" else ""  # a how-to clause opens with its verb
    if kind == "code" and not language[0]:
        language = ("python", "Python")  # asked to write code in no language: what a model picks
    if len(topics) == 1:  # the common case, without the search
        topic = "" if _language(topics[0]) or topics[0].lower() == verb else topics[0]
    else:
        topic = max((t for t in topics if not _language(t) and t.lower() != verb), key=_length, default="")
    return Question(
        text,
        tuple(words.values()),
        tuple(topics),
        topic,
        kind,
        clause,
        language,
        noun,
        tuple(dict.fromkeys(names)) if len(names) > 1 else tuple(names),
        tuple(numbers),
        _count(clause) if kind == "list" else 0,
    )


def _language(topic: str) -> bool:
    """Whether `topic` is only a language's name: no subject of its own ("Write a Python function…")."""
    return topic.lower() in LANGUAGES or topic in _CASED_LANGUAGES


def _length(topic: str) -> int:
    return topic.count(" ")


def _count(clause: str) -> int:
    """How many items a list's clause asks for: "five uses of Redis" → 5, "the 3 best" → 3; else 0."""
    for word in clause.lower().split()[:2]:
        if word in NUMBER_WORDS or word.isdecimal():
            return NUMBER_WORDS.get(word) or int(word)
    return 0


def _dull(word: str, before: str) -> bool:
    """Whether `word` says nothing of the subject: a stop word, or a verb not made a noun by a determiner."""
    return word in STOP or word in VERBS and before not in _DETERMINERS  # `read` has the same rule, in a table


def _kind(text: str, first: str) -> tuple[Kind, str, str]:
    """The shape of answer `text` asks for, and what it asks about (a clause in the answer's person). Each
    shape is asked for by how the text opens: its `first` word (lower case) says which pattern to try, if any."""
    if first in _GREETS and len(text) < 32 and _GREETING.fullmatch(text):
        return "greeting", "", ""
    noun = _CODE_NOUN.search(text) if first in _ASKS and _CODE_ASK.match(text) else None
    if noun and noun.group(1).lower() == "code":  # a zip code, a code of conduct: no program
        before, after = text[: noun.start()].split()[-1:], text[noun.end() :].split()[:1]
        noun = None if other_code("".join(before).lower(), "".join(after).lower().strip(".,?!")) else noun
    if noun:
        return "code", flip(noun.group(2) or ""), noun.group(1).lower()
    polite = _POLITE.match(text) if first in _POLITE_WORDS else None
    if polite:  # "Can you list six spices?", "Could you please name the planets?": as "List…", "Name…"
        text, first = text[polite.end() :], polite.group(1).lower()
    pattern = _STEPS if first in ("how", "so") else _LIST if first in _LISTS else None
    asked = pattern.match(text) if pattern else None
    if asked:
        return "steps" if pattern is _STEPS else "list", flip(asked.group(1) or asked.group(2)), ""
    return ("short" if text.count(" ") < SHORT else "prose"), "", ""


_GREETS = frozenset(("hi", "hello", "hey", "hiya", "howdy", "yo", "good", "greetings"))
_ASKS = frozenset(("can", "could", "would", "please", "i", "write", "implement", "code", "create", "generate"))
_ASKS |= {"show", "give", "make"}
_LISTS = frozenset(("what", "which", "list", "name", "enumerate", "give"))
_POLITE = re.compile(r"(?:(?:can|could|would|will) you (?:please )?|please )(?=(list|name|enumerate)\b)", re.I)
_POLITE_WORDS = frozenset(("can", "could", "would", "will", "please"))


def flip(clause: str) -> str:
    """`clause` in the answer's person, its closing punctuation dropped: "fix my build?" → "fix your build"."""
    clause = _TRAILING.sub("", clause)
    if not _PERSON.search(clause):
        return clause
    return _PERSON.sub(lambda m: _FLIPPED[m.group().lower().replace("’", "'")], clause)


def stem(word: str) -> str:
    """A word's stem for matching: lower case, possessive and plural taken off (`cities` → `city`)."""
    word = word.lower().strip("`")
    if word.endswith("'s"):
        word = word[:-2]
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


_IRREGULAR = {"people": "person", "children": "child", "men": "man", "women": "woman", "data": "datum"}


def words_of(text: str) -> frozenset[str]:
    """The stems of the salient words in `text`: what a tool's name or description is matched by."""
    tokens = [t.lower() for t in _TOKEN.findall(text)]
    stems = ((stem(t), t, b) for t, b in zip(tokens, ["", *tokens], strict=False) if t[0].isalpha())
    return frozenset(s for s, t, b in stems if not _dull(t, b) and not _dull(s, b))


# --- a JSON Schema in the prompt ----------------------------------------------------------------------------

_OPENING = re.compile(r'\{\s*"')
_JSON_BLOCK = re.compile(
    r"```json|\bjson\s+(?:code\s*)?block|\bjson\s+codeblock|\bmarkdown\b[^.\n]{0,40}\bjson\b", re.I
)
CANDIDATES = 16  # the most places in one text where a schema is looked for


def asks_for_json_block(prompt: Prompt, question: Question) -> bool:
    """Whether the system prompt or the question (the last user message) asks for JSON in a fenced block."""
    for m in prompt.messages:
        if m.role in ("system", "developer") and _asks_json(m.text):
            return True
    return _asks_json(question.text)


def _asks_json(text: str) -> bool:
    return ("json" in text or "JSON" in text or "Json" in text) and _JSON_BLOCK.search(text) is not None


def schema_in(prompt: Prompt) -> Mapping[str, Any] | None:
    """The first JSON Schema written in the system prompt or a user message (the latest first), or None."""
    decoder = json.JSONDecoder()
    for text in _texts(prompt):
        for opening in list(_OPENING.finditer(text))[:CANDIDATES]:
            try:
                value, _ = decoder.raw_decode(text, opening.start())
            except (ValueError, RecursionError):  # not JSON, or nested deeper than the decoder goes
                continue
            if _schema_like(value):
                return value  # type: ignore[no-any-return]
    return None


def _schema_like(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if isinstance(value.get("properties"), dict) or "$defs" in value and "$ref" in value:
        return True
    return value.get("type") == "array" and isinstance(value.get("items"), dict)


def _texts(prompt: Prompt) -> Iterable[str]:
    """The system prompt's texts, then the user's messages, the latest first."""
    system = [m.text for m in prompt.messages if m.role in ("system", "developer")]
    return system + [m.text for m in reversed(prompt.messages) if m.role == "user"]
