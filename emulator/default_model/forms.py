"""What form of answer a request wants, and what it is about, read from how it is worded.

A table of anchored patterns, tried in order, each naming a form (a definition, a comparison, a haiku, an email…)
and capturing its subject, the second thing of a comparison, the text a rewrite works on, the language of a
translation. The question's reading (`question.read`) decides greetings, steps, lists and code, as before.
"""

from __future__ import annotations

import dataclasses
import functools
import re

from emulator.default_model import choices, edits, everyday, lookups, members, troubles, why
from emulator.default_model.ask import DETERMINERS as _DETERMINERS
from emulator.default_model.ask import PREPOSITIONS, Ask
from emulator.default_model.ask import np as _np
from emulator.default_model.lexicon import LEXICON
from emulator.default_model.question import Question, flip
from emulator.default_model.question import read as read_question

_I = re.I
_SAY_HELLO = re.compile(
    r"(?:please |can you |could you )?(?:say|wave) (?:hi|hello|hey|good \w+)\b.{0,24}$"
    r"|(?:(?:hi|hello|hey|hiya|good (?:morning|afternoon|evening))(?: there)?\W+)?"
    r"(?:how are you|how's it going|how is it going|how are things|how's your day|how is your day|how have you been"
    r"|how do you do|what's up)\b.{0,16}$",
    re.I,
)
# The phrase to translate, in double quotes or single ones (an apostrophe inside a word is not a quote).
_QUOTED = r"(?:[\"“](?P<d>[^\"”]+)[\"”]|(?<!\w)['‘](?P<q>.+?)['’](?!\w))"
_TRANSLATE = (
    re.compile(rf".*?\btranslate\b[^\"“'‘]*{_QUOTED}.*?\b(?:into|to|in)\s+(?P<l>[A-Z][a-z]+)", _I),
    re.compile(rf".*?\bhow (?:do|would|can) (?:you|i) say\s+{_QUOTED}\s+in\s+(?P<l>[A-Z][a-z]+)", _I),
)
_ABOUT = r"(?:about|on|of|for)\s+(?P<s>.+?)"
_VERSE = (
    ("haiku", re.compile(rf".*?\bhaikus?\b(?:\s+{_ABOUT})?[.!?]*$", _I)),
    ("limerick", re.compile(rf".*?\blimericks?\b(?:\s+{_ABOUT})?[.!?]*$", _I)),
    ("poem", re.compile(rf".*?\b(?:poem|verse|sonnet|ode)s?\b(?:\s+{_ABOUT})?[.!?]*$", _I)),
    ("story", re.compile(rf".*?\b(?:story|tale|fable)\b(?:\s+{_ABOUT})?[.!?]*$", _I)),
)
_JOKE = re.compile(
    r"(?:please |can you |could you |do you )?(?:tell|give|share|write|make up|know|have)(?: me| us)?\s+"
    r"(?:a |an |another |one |any |some |your )?(?:good |funny |short |quick |silly |clean |best )?"
    r"(?P<k>(?:dad |knock-knock )?joke|riddle|fun fact|pun)s?(?:\s+(?:about|on|with|involving)\s+(?P<s>.+?))?[.?!]*$"
    r"|(?:please |can you )?make me laugh[.?!]*$",
    _I,
)
_LETTER = re.compile(
    r"(?:please )?(?:write|draft|compose|send)\b.*?\b(?:e-?mail|letter|note|message|card|invitation)s?\b(?P<rest>.*)",
    _I,
)
_RECIPIENT = re.compile(r"\bto (?:my |our |the |a )?(?P<r>[a-z]+(?: [a-z]+)?)", _I)
_MINE = re.compile(r"\b(?:my|our) (?P<r>[a-z]+)", _I)
_LETTER_ABOUT = re.compile(
    r"\b(?:about|regarding|asking (?:\w+ )*?for|requesting|inviting (?:\w+ )*?to|for) (?P<s>.+)", _I
)
_COMPARE = (
    re.compile(r"(?:compare\s+)?(?P<a>.+?)\s+(?:vs\.?|versus)\s+(?P<b>.+?)(?:\s+(?:for|as|in)\s+.+)?[.?!]*$", _I),
    re.compile(r".*?\bdifferences? between\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)[.?!]*$", _I),
    re.compile(r"compare\s+(?P<a>.+?)\s+(?:and|with|to)\s+(?P<b>.+?)[.?!]*$", _I),
    _CHOICE := re.compile(r"(?:should (?:i|we)|is it better to)\s+(?P<a>.+?)\s+or\s+(?:to\s+)?(?P<b>.+?)[.?!]*$", _I),
)
_PROSCONS = re.compile(
    r".*?\b(?:pros and cons|advantages and disadvantages|benefits and drawbacks)\b(?:\s+of)?\s+(?P<s>.+?)[.?!]*$", _I
)
_IDEAS = re.compile(
    r".*?\b(?:ideas?|names?|suggestions?|themes?|titles?)\b(?:\s+ideas)?\s+(?:for|about|of)\s+(?P<s>.+?)[.?!]*$", _I
)
# Asking for a name without the word "names for": "What should I call my bakery?", "Help me name our podcast",
# "Name my cat" (of something one's own: "Name a country in Africa" asks for one).
_NAMING = re.compile(
    r".*?\b(?:what\s+(?:should|could|shall)\s+(?:i|we)\s+(?:call|name)|help\s+(?:me|us)\s+name|name(?=\s+(?:my|our)\s)|"
    r"(?:suggest|give\s+me|"
    r"come\s+up\s+with|think\s+of)\s+(?:a\s+)?(?:good\s+)?name\s+for)\s+(?P<s>.+?)[.?!]*$",
    _I,
)
_DEFINE = re.compile(r"(?:what(?:'s| is| are)|define|explain what)\s+(?P<s>.+?)(?:\s+(?:is|are|means?))?[.?!]*$", _I)
_EXPLAIN = re.compile(
    r"(?:explain|describe|tell me about|teach me about|walk me through|how does|how do)\s+(?P<s>.+?)"
    r"(?:,?\s+(?:like (?:i'm|i am|i was|you're talking to) (?:a |an )?(?:five|5|a child|a kid|ten|10|a beginner)"
    r"(?: years? old| year-old)?|to (?:a |an )?(?:five|5|ten|10)[- ]year[- ]old|to (?:a child|a kid|kids|children"
    r"|a beginner|beginners|a layman|a layperson|my grandma|my grandmother)|for (?:a beginner|beginners|kids"
    r"|children|dummies)|in (?:simple|plain|layman's) (?:terms|words|english|language)|simply|briefly"
    r"|in a nutshell|in one (?:sentence|paragraph)|in a few sentences))?[.?!]*$",
    _I,
)
_HOW_IT = re.compile(r"how\s+(?P<s>.+?)\s+(?:works?|(?:is|are) \w+ed|happens?)$", _I)
# "how does a dishwasher work", "what a smoke detector does", "what a router is for": the thing alone.
_DOES_WHAT = re.compile(r"(?:what\s+)?(?P<s>.+?)\s+(?:works?|does|do|is for|are for|is used for)$", _I)
_LISTY = frozenset(
    ["benefits", "uses", "advantages", "types", "examples", "ways", "tips", "reasons", "kinds", "signs", "causes"]
    + ["drawbacks", "disadvantages", "downsides", "risks", "mistakes", "pitfalls", "dangers"]
)
# A lookup of one fact about a named thing ("Give me the area code for Boston"): a short answer, never a list.
_LOOKUP = re.compile(
    r"(?:please |can you |could you )?(?:give me|tell me|find|look up|name|get me|do you know|what(?:'s| is| was))\s+"
    r"(?P<s>the (?:[\w-]+ ){0,2}(?P<h>[\w-]+) (?:for|of|in|at|on) .+?)[.?!]*$",
    _I,
)
_FACTS = frozenset(
    [
        "code", "number", "address", "population", "capital", "height", "price", "cost", "rate", "date", "time",
        "zone", "hours", "score", "result", "weather", "forecast", "distance", "email", "website", "postcode",
        "zipcode", "age", "birthday", "temperature", "speed", "length", "size", "weight", "currency", "mayor",
        "president", "owner", "author", "director", "founder", "ceo", "record", "elevation", "area", "depth",
        "timezone"
    ]
)  # fmt: skip
_RECOMMEND = re.compile(r"(?:(?:can|could|would) you |please )*(?:recommend|suggest)\s+(?P<s>.+?)[.?!]*$", _I)
_NEED = re.compile(r"(?:i|we) (?:need|want|would like|'d like)\s+(?P<s>(?:\d+|[a-z]+) .+?)[.?!]*$", _I)
_HOW_MANY = re.compile(r"how many (?P<s>.+?) (?:are there|exist|do we have|are in .+|does .+ have)[.?!]*$", _I)
_SHORT_OPENINGS = ("who ", "when ", "where ", "which ", "how tall", "how many", "how much", "how long", "how old")


@functools.lru_cache(maxsize=1024)
def read(q: Question) -> Ask:
    """The form `q` asks for and what it is about (see `Ask`); cached, since the answer and its reasoning both
    read it, and an agent loop asks the same question again."""
    return dataclasses.replace(_read(q), context=frozenset(w.lower() for w in q.words))


def _read(q: Question) -> Ask:
    text = q.text.strip()
    low = text.lower()
    # On ASCII text (most), re.I compares as str.lower does: a pattern is tried only where `low` holds a word it
    # needs (`_may`), since each `.*?\b…` pattern tries every position of the text, and trying the whole table on
    # every question was the dearest part of reading it.
    said = _Said(q, text, low, {w for w in _NEEDED if w in low} if text.isascii() else None)
    for reading in _READINGS:
        found = reading(said)
        if found is not None:
            return found
    return _question(said)


@dataclasses.dataclass(frozen=True, slots=True)
class _Said:
    """A request as the readings take it: the question, its text, that text in lower case, and the words of
    `_NEEDED` it holds (None: not ASCII, so every pattern is tried)."""

    q: Question
    text: str
    low: str
    plain: set[str] | None


def _talk(said: _Said) -> Ask | None:
    """A greeting or small talk ("Thanks!", "See you")."""
    q, text, plain = said.q, said.text, said.plain
    if q.kind == "greeting" or _may(plain, _HELLO_WORDS) and _SAY_HELLO.match(text):
        return Ask("greeting", "", other="how" if everyday.HOW_ARE_YOU.search(text) else "")
    if len(text) < 64 and "?" not in text and _may(plain, _SMALL_TALK_WORDS):
        sort = everyday.small_talk(text)
        if sort:
            return Ask("greeting", "", other=sort)
    return None


def _working_on_text(said: _Said) -> Ask | None:
    """A translation, a rewrite of the text after a colon, or code."""
    q, text, plain = said.q, said.text, said.plain
    for pattern, needed in zip(_TRANSLATE, _TRANSLATE_WORDS, strict=True):
        m = pattern.match(text) if _may(plain, needed) else None
        if m:
            phrase = (m["d"] or m["q"]).strip()
            return Ask("translate", phrase, source=phrase, language=m["l"].capitalize())
    if (edit := edits.asked(text)) is not None:
        form, source, how = edit
        return Ask(form, read_question(source).topic or _topic(q), source=source, other=how)  # type: ignore[arg-type]
    if q.kind == "code":
        return Ask("code", _topic(q))
    return None


def _writing(said: _Said) -> Ask | None:
    """A joke, verse, a letter or a recipe."""
    q, text, low, plain = said.q, said.text, said.low, said.plain
    m = _JOKE.match(text) if _may(plain, _JOKE_WORDS) else None
    if m:  # "Tell me a joke about cats": the kind ("joke", "pun", "riddle", "fact") and its subject, if any
        kind = (m["k"] or "joke").lower().split()[-1]
        return Ask("joke", _np(m["s"]) if m["s"] else "", other=kind)
    for (form, pattern), needed in zip(_VERSE, _VERSE_WORDS, strict=True):
        m = pattern.match(text) if _may(plain, needed) else None
        if m:
            return Ask(form, _np(m["s"]) if m["s"] else _topic(q))  # type: ignore[arg-type]
    m = _LETTER.match(text) if _may(plain, _LETTER_WORDS) else None
    if m:
        return _letter(m["rest"], low, q)
    return everyday.recipe(text, low, q)


def _help(said: _Said) -> Ask | None:
    """A fact to look up, a plan, tips, a complaint, members recommended, or advice on a choice."""
    q, text, low, plain = said.q, said.text, said.low, said.plain
    m = _LOOKUP.match(text) if _may(plain, _LOOKUP_WORDS) else None
    if m and m["h"].lower() in _FACTS:
        return Ask("short", _np(m["s"]), other="lookup")
    if low.startswith(_PLANNING) and "?" not in text and q.kind in ("short", "prose"):  # "Plan a trip to Rome."
        plan = text[8:] if low.startswith("help me ") else text
        return Ask("steps", _topic(q), task=flip(plan[:1].lower() + plan[1:]))
    if now := lookups.clock(text, low):  # "What time is it in Tokyo?": no clock offline, so looked up
        return Ask("short", now, other="lookup")
    if place := everyday.sights(text, low):  # "Things to do in Lisbon?": a place's sights
        task = f"find things to do in {place}"
        return Ask("steps", task, task=task, other="tips", count=q.count or _count(low))
    tips = everyday.tips(text, low) if _may(plain, everyday.ASKING) else None
    if tips is not None:
        task, other = tips
        return Ask("steps", _topic(q), task=task, other=other, count=q.count or _count(low) if other else 0)
    wanted = _NEED.match(text)
    if wanted and (named := _named_members(wanted["s"])) is not None:  # "I need 5 examples of mammals for …"
        return Ask("list", named, task=named, count=_count(low))
    trouble, complaint = troubles.task(text) if low.startswith(("i ", "i'", "my ", "our ", "the ")) else ("", False)
    if trouble:  # "I can't sleep, any advice?": tips to sleep better, a complaint kept as the user said it
        return Ask("steps", _topic(q), task=trouble, other="tips", source=text if complaint else "")
    m = _RECOMMEND.match(text) if "recommend" in low or "suggest" in low else None
    named = _named_members(m["s"]) if m else None
    if m and named is not None:  # "Recommend some houseplants for a dark room": the members
        return Ask("list", named, task=named, count=q.count or _count(low))
    advice = choices.advice(text)
    if advice is None and m and _COUNT.match(m["s"]):  # "Recommend seven …" things no table holds: the list says so
        return Ask("list", m["s"], task=m["s"], count=_count(m["s"]))
    return advice


def _named_members(phrase: str) -> str | None:
    """The longest start of `phrase` that names a known category: "herbs to grow on a balcony" → "herbs to grow"."""
    words, counted = phrase.split(), _COUNT.match(phrase) is not None
    for end in range(len(words), 0, -1):  # "a board game for four players" asks advice; "3 board games for …" a list
        if end < len(words) and (words[end] not in PREPOSITIONS or words[end] == "for" and not counted):
            continue
        if members.members(" ".join(words[:end])) is not None:
            return " ".join(words[:end])
    return None


def _weighing(said: _Said) -> Ask | None:
    """A comparison, pros and cons, names, or ideas."""
    q, text, low, plain = said.q, said.text, said.low, said.plain
    for pattern, needed in zip(_COMPARE, _COMPARE_WORDS, strict=True):
        m = pattern.match(text) if _may(plain, needed) else None
        if m and len(m["a"].split()) <= 6 and len(m["b"].split()) <= 6:
            if pattern is _CHOICE and (choice := choices.choice(m["a"], m["b"])):
                return choice
            first, second = _np(m["a"]), _np(m["b"])
            if first.istitle() and " " not in first and second[:1].islower():  # "Tea vs coffee": "tea"
                first = first.lower()
            return Ask("compare", first, other=second)
    m = _PROSCONS.match(text) if _may(plain, _PROSCONS_WORDS) else None
    if m:
        return Ask("proscons", _np(m["s"]))
    m = _NAMING.match(text) if _may(plain, ("call", "name")) else None
    if m:
        return Ask("ideas", _np(m["s"]), task="names", count=q.count or _count(low))
    m = _IDEAS.match(text) if _may(plain, _IDEAS_WORDS) else None
    if m and not low.startswith(("what is", "what are", "why")):
        names = re.search(r"\bnames?\b", low) is not None
        return Ask("ideas", _np(m["s"]), task="names" if names else "", count=q.count or _count(low))
    return None


_READINGS = (_talk, _working_on_text, _writing, _help, _weighing)  # tried in order; then `_question`


def _question(said: _Said) -> Ask:
    """What is left: a question (steps, why, a definition, a list, an explanation, a short fact) or a follow-up."""
    q, text, low, plain = said.q, said.text, said.low, said.plain
    if q.kind == "steps" and q.clause:
        return Ask("steps", _topic(q), task=q.clause)
    if low.startswith("why"):
        return why.read(text, q, _topic)
    m = _WAS.match(text) if low.startswith(("what was", "what were")) else None
    if m and LEXICON.thing(_np(m["s"]), frozenset(w.lower() for w in q.words)):  # "What was the Cold War?"
        return Ask("definition", _np(m["s"]))
    m = _HOW_MANY.match(text) if low.startswith("how many") else None
    if m and (category := members.members(m["s"])) is not None and category[2]:  # "How many continents are there?"
        return Ask("list", m["s"], task=m["s"])
    if most := lookups.superlative(text, low):  # "Which ocean is the deepest?": the deepest ocean
        return Ask("short", _np(most))
    if low.startswith(_SHORT_OPENINGS) or low.startswith("summarize"):
        return Ask("short", lookups.named(q) or lookups.topic_named(_topic(q, whole=True)))
    m = _DEFINE.match(text) if _may(plain, ("what", "define")) else None
    if m and not low.startswith("explain"):
        return _defined(_np(m["s"]), q)
    if q.kind == "list" and q.clause:
        return _list(_np(q.clause), q)
    m = _EXPLAIN.match(text) if _may(plain, _EXPLAIN_WORDS) else None
    if m:
        subject = _np(m["s"])
        how = _HOW_IT.match(subject) or _DOES_WHAT.match(subject)
        return Ask("explain", _np(how["s"]) if how else subject)
    m = _WHAT_DOES.match(text)
    if m and (what := _what_does(m["s"])):
        return what
    if not q.topics:  # "Tell me more.", "Go on": nothing named to write about
        return Ask("followup", "")
    return Ask("short" if q.kind == "short" else "explain", _topic(q, whole=True))


def _defined(phrase: str, q: Question) -> Ask:
    """A "what is/are" question: a definition, a short fact, or a list ("the benefits of…", "the noble gases")."""
    words = phrase.lower().split()
    if not words:  # "What is ?": nothing named to define
        return Ask("followup", "")
    if q.kind == "list" and _LISTY.intersection(words):
        return _list(phrase, q)
    qualified = len(words) > 1 and words[0] not in ("a", "an", "the")  # "citrus fruits", not "fruits", "a fruit"
    category = members.members(phrase) if words[0] in ("some", "the") or qualified else None
    if category is not None and (words[0] == "some" or category[2] or qualified):
        return _list(phrase, q)  # "What are some good houseplants?", "What are the noble gases?": the members
    if " of " in f" {phrase} " or len(words) > 6:
        return Ask("short", phrase)
    return Ask("definition", phrase)


_WAS = re.compile(r"what (?:was|were) (?P<s>.+?)[.?!]*$", _I)
_WHAT_DOES = re.compile(r"what (?:does|do|did) (?P<s>.+?)[.?!]*$", _I)


def _what_does(clause: str) -> Ask | None:
    """ "What does the zip code 10001 cover?": an explanation of what its subject does ("the zip code 10001"), or
    for "What does X mean?" a definition; the verb is the last word before a preposition ("do in a network")."""
    words = clause.split()
    cut = next((i for i, w in enumerate(words) if i > 1 and w.lower() in PREPOSITIONS), len(words))
    if cut < 2 or words[cut - 1].lower() not in LEXICON.verbs:
        return None
    subject = _np(" ".join(words[: cut - 1]))
    return Ask("definition" if words[cut - 1].lower() == "mean" else "explain", subject)


def _may(plain: set[str] | None, words: tuple[str, ...]) -> bool:
    """Whether a pattern that needs one of `words` may match: on ASCII text, whether its lower case holds one
    (`plain`: those of `_NEEDED` it holds); on any other text, yes (re.I folds some letters that str.lower does
    not: "ſ" is an "s", "İ" an "i")."""
    return plain is None or not plain.isdisjoint(words)


# What each pattern above needs, in lower case: one of these words is in any text it matches.
_HELLO_WORDS: tuple[str, ...] = ("say ", "wave ", "how are you", "how's it", "how is it", "how are things")
_HELLO_WORDS += ("how's your", "how is your", "how have you", "how do you do", "what's up")
_SMALL_TALK_WORDS: tuple[str, ...] = ("thank", "thx", "ty", "cheers", "appreciated", "bye", "good night", "see you")
_SMALL_TALK_WORDS += ("see ya", "later", "have a")
_TRANSLATE_WORDS: tuple[tuple[str, ...], ...] = (("translate",), ("say",))
_VERSE_WORDS: tuple[tuple[str, ...], ...] = (
    ("haiku",),
    ("limerick",),
    ("poem", "verse", "sonnet", "ode"),
    ("story", "tale", "fable"),
)
_LETTER_WORDS = ("mail", "letter", "note", "message", "card", "invitation")
_COMPARE_WORDS: tuple[tuple[str, ...], ...] = (
    ("vs", "versus"),
    ("difference",),
    ("compare",),
    ("should i", "should we", "is it better to"),
)
_PROSCONS_WORDS = ("pros and cons", "advantages and disadvantages", "benefits and drawbacks")
_IDEAS_WORDS = ("idea", "name", "suggestion", "theme", "title")
_EXPLAIN_WORDS = ("explain", "describe", "tell me about", "teach me about", "walk me through", "how do")
_JOKE_WORDS = ("joke", "riddle", "fact", "pun", "laugh")
_LOOKUP_WORDS = ("give me", "tell me", "find", "look up", "name", "get me", "know", "what")
_NEEDED = frozenset(
    w
    for words in (
        _HELLO_WORDS,
        _SMALL_TALK_WORDS,
        *_TRANSLATE_WORDS,
        *_VERSE_WORDS,
        _LETTER_WORDS,
        *_COMPARE_WORDS,
        _PROSCONS_WORDS,
    )
    for w in words
) | {"call", "name", "what", "define", *_IDEAS_WORDS, *_EXPLAIN_WORDS, *_JOKE_WORDS, *_LOOKUP_WORDS, *everyday.ASKING}


def _list(phrase: str, q: Question) -> Ask:
    """A list of "the benefits of drinking water": its subject ("drinking water") and what it lists ("benefits")."""
    words = [w for w in phrase.split() if w.lower() not in _COUNTS and not w.isdigit()]
    listed, _, subject = " ".join(words).partition(" of ")
    listed = " ".join(w for w in listed.split() if w.lower() not in _DETERMINERS)
    return Ask("list", subject or listed, other=listed if subject else "", task=phrase, count=q.count)


_COUNTS = frozenset(
    {"three", "four", "five", "six", "seven", "eight", "nine", "ten", "some", "a", "few", "several", "the"}
)


# A letter asking someone to do something: "asking them to fix the heating", "to ask if they could move the date".
_ASKING_TO = re.compile(
    r"\b(?:asking|to ask|ask)(?: (?:him|her|them|you|everyone|everybody|the \w+|my \w+|our \w+))?"
    r"(?: (?:if|whether) (?:they|he|she|you|it) (?:could|can|would|will|might)| to) (?P<t>(?!for\b)[a-z]+\b.*)",
    _I,
)


def _letter(rest: str, low: str, q: Question) -> Ask:
    recipient = _MINE.search(rest) or _RECIPIENT.search(rest)
    named = recipient["r"].split() if recipient else [""]
    who = named[1] if len(named) > 1 and named[0].lower() in _ADJECTIVES else named[0]  # "a new employee"
    who = "" if who in ("ask", "request", "invite", "say", "tell") else who
    register = _register(low)
    occasion = everyday.occasion(low)
    if occasion:  # a thank-you note, an apology, a birthday card: the occasion, and what it is for if said
        about = _LETTER_ABOUT.search(rest)
        return everyday.occasion_letter(occasion, about["s"] if about else "", rest, who, low)
    asking = _ASKING_TO.search(rest)
    if asking:  # its purpose is a thing to do: "a request to fix the heating", the clause its task
        task = _np(asking["t"])
        return Ask("email", f"a request to {task}", task=task, recipient=who, register=register)
    about = _LETTER_ABOUT.search(rest)
    subject = _np(about["s"]) if about else _topic(q)
    return Ask("email", subject, recipient=who, register=register)


_PLANNING = ("plan ", "organize ", "organise ", "help me plan ", "help me organize ")
_ADJECTIVES = frozenset(("new", "old", "dear", "best", "former", "future", "close", "favorite", "favourite"))


def _register(low: str) -> str:
    friendly = any(w in low for w in ("friendly", "casual", "informal", "team", "friend", "colleagues"))
    return "friendly" if friendly and "formal letter" not in low else "formal"


def _topic(q: Question, whole: bool = False) -> str:
    """The question's main topic with the determiner the user put before it ("your website", "the sky")."""
    topic = q.topic or (q.words[0] if q.words else "this")
    if whole and len(q.topics) > 1:  # "the capital of Australia": the topics and the words that join them
        found = re.search(re.escape(q.topics[0].strip("`")) + r".*" + re.escape(q.topics[-1].strip("`")), q.text)
        if found and len(found.group().split()) <= 7:
            topic = found.group()
    found = re.search(r"(\w+)\s+" + re.escape(topic), q.text)
    if found and found.group(1).lower() in _DETERMINERS:
        return flip(f"{found.group(1).lower()} {topic}")
    return topic


def _count(text: str) -> int:
    """The count a request gives before what it counts: "4 houseplants", "seven tips"; 0 for none."""
    found = _COUNT.search(text)
    if found is None:
        return 0
    return int(found[1]) if found[1].isdigit() else _COUNT_WORDS.index(found[1].lower()) + 2


_COUNT_WORDS = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
_COUNT = re.compile(rf"\b([2-9]|1[0-9]|{'|'.join(_COUNT_WORDS)}) (?=[a-z])", re.I)
