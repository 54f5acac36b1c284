"""A complaint or a wish said as a problem, read as the task it implies: "I can't sleep, any advice?" asks how to
sleep better, "My back hurts after work, what can I do?" how to ease the pain in your back, "I keep forgetting
names" how to remember names, "I'm always tired" how to have more energy. The answer is that task's tips.

Only a first sentence in the first person is read ("I…", "I'm…", "My…"), followed by nothing or by a plea for
advice ("any advice?", "what can I do?", "help!"); a complaint that is also a question of fact ("I can't find
the capital of Peru") is left to the other readers, since its verb is no everyday task's.
"""

from __future__ import annotations

import re

from emulator.default_model import grammar
from emulator.default_model.lexicon import LEXICON
from emulator.default_model.question import CODE_NOUNS, flip

_I = re.I
# The complaint, then what follows it: nothing, or a plea for advice.
_SPLIT = re.compile(r"^(?P<c>[^,.;!?]+?)\s*(?:(?:[,.;!?]+|\s+(?:-|–|—))\s*(?P<ask>.*?))?\s*$", re.S)
_PLEA = re.compile(
    r"(?:(?:so|and|but|please)\s+)?(?:any (?:advice|tips|ideas|suggestions|help)|what (?:can|should|do) i do"
    r"(?: about it| now| today| tonight| this weekend| this evening| with myself| to feel better)?"
    r"|what would you (?:suggest|recommend|do)|how (?:do|can|should) i (?:fix|stop|deal with|handle|change) "
    r"(?:it|this|that)|can you help(?: me)?|help(?: me)?(?: please)?|please help|ideas|tips|advice|suggestions)"
    r"(?:\s+(?:for|on) (?:me|this|that|it))?\W*$",
    _I,
)
_CANNOT = re.compile(
    r"i (?:just |really |still )?(?:can't|cant|cannot|can not|can never|never seem to|struggle to|find it hard to"
    r"|have (?:trouble|difficulty|a hard time|problems)|struggle with) (?P<v>[a-z].*)",
    _I,
)
_KEEP = re.compile(r"i (?:always |often |constantly )?keep (?P<g>[a-z]+ing)\b(?P<rest>.*)", _I)
_WANT = re.compile(
    r"i (?:really )?(?:want|would like|'d like|wish i could|need|am trying|'m trying) to (?P<v>[a-z].*)", _I
)
_HURTS = re.compile(
    r"my (?P<part>(?:[a-z]+ ){0,2}?[a-z]+?) (?:hurts?|aches?|is (?:sore|stiff|aching|killing me)"
    r"|are (?:sore|stiff|aching|killing me)|feels? (?:sore|stiff))\b(?P<rest>.*)",
    _I,
)
_FEEL = re.compile(
    r"i(?:'m feeling| am feeling|'ve been feeling| have been feeling|'ve been| have been|'m| am| feel| always feel"
    r"| get| often feel)(?: (?:always|so|really|very|too|constantly|often|quite|pretty|super|extremely|just|still"
    r"|a bit|a little|kind of|sort of|all the time))* (?P<a>[a-z]+)\b(?P<rest>.*)",
    _I,
)
_ENDS = re.compile(r"\s+(?:all the time|lately|recently|these days|anymore|any more)$", _I)


def task(text: str) -> tuple[str, bool]:
    """The task a complaint in `text` implies, in the answer's person ("sleep better", "remember names"), or ""
    when the text is no complaint this reads; and whether it is a complaint rather than a wish ("I want to get
    fit"), which an answer meets with a word of sympathy."""
    low = text.lstrip().lower()
    if not low.startswith(("i ", "i'm ", "i've ", "my ", "our ", "the ")):
        return "", False
    parts = _SPLIT.match(text.strip())
    if parts is None or parts["ask"] and not _PLEA.match(parts["ask"]):
        return "", False
    said = _ENDS.sub("", parts["c"].strip())
    if not low.startswith(("i ", "i'm ", "i've ", "my ")):  # "The sink is blocked": a thing's fault alone
        found = _broken(said)
        return (flip(found), True) if found else ("", False)
    for reader in (_cannot, _keep, _hurts, _feel, _want, _am, _broken, _mine):
        found = reader(said) if reader is not _am or parts["ask"] else ""  # "I am a student." asks nothing
        if found:
            return flip(found), reader is not _want and reader is not _am
    return "", False


def _cannot(said: str) -> str:
    m = _CANNOT.match(said)
    if not m:
        return ""
    words = m["v"].split()
    if words[0].endswith("ing") and len(words[0]) > 4:  # "have trouble falling asleep": "fall asleep"
        words[0] = base(words[0])
    if words[0].lower() not in LEXICON.verbs:
        return ""
    if len(words) == 1 or words[1].lower() in _PREPOSITIONS:  # "I can't sleep", "I can't focus at work"
        return " ".join([words[0], "better", *words[1:]])
    return " ".join(words)


_PREPOSITIONS = frozenset(("at", "in", "on", "during", "when", "while", "after", "before", "with", "for", "anymore"))


def _keep(said: str) -> str:
    """ "I keep forgetting names" → "remember names"; "I keep losing my keys" → "keep track of my keys"; else stop
    doing it ("I keep waking up at 4am" → "stop waking up at 4am")."""
    m = _KEEP.match(said)
    if not m:
        return ""
    doing, rest = m["g"].lower(), m["rest"].strip()
    opposite = _OPPOSITES.get(doing)
    if opposite and rest:
        return f"{opposite} {rest}"
    return f"stop {doing} {rest}".strip()


# Doing something again and again, and the task that undoes it (everyday words, written for this project).
_OPPOSITES = {"forgetting": "remember", "losing": "keep track of", "missing": "stop missing", "dropping": "hold on to"}


def _hurts(said: str) -> str:
    m = _HURTS.match(said)
    if not m:
        return ""
    part = m["part"].lower()
    if part in _NOT_BODY:
        return ""
    return f"ease the pain in my {part}"


# Things that "hurt" but are no part of the body: "my feelings hurt", "my eyes" is a body part, "my pride" is not.
_NOT_BODY = frozenset(("feelings", "pride", "heart", "business", "wallet", "budget", "score"))


def _feel(said: str) -> str:
    """How one feels, read as what to work on ("I'm so bored" → "beat boredom"), with where or what it is about
    where that fits the task ("I'm stressed about exams" → "manage stress about exams", "I feel lonely at
    university" → "make new friends at university")."""
    m = _FEEL.match(said)
    if m is None:
        return ""
    feeling, rest = m["a"].lower(), m["rest"].strip()
    task = _STATES.get(feeling, "")
    if task and (rest.lower().startswith(_WHERE) or rest.lower().startswith("about ") and task in _ABOUT):
        return f"{task} {rest}"
    if feeling in _FED_UP and rest.startswith("of "):  # "I'm tired of this": fed up, not sleepy
        return "cope with feeling fed up"
    if rest and rest.lower() not in _WHEN and feeling in _BARE:
        return ""  # "I'm down to my last ten dollars", "I'm low on petrol": no mood
    return task


_WHERE = ("at work", "at school", "at university", "at college", "at home", "in a new city", "in my new job")
_ABOUT = frozenset(("manage stress", "manage anxiety", "stop worrying"))
_BARE = frozenset(("down", "low", "blue", "alone"))  # a mood only when said alone, or with a time
_FED_UP = frozenset(("tired", "exhausted", "sick", "bored"))  # of something: fed up
_WHEN = frozenset(("today", "tonight", "this week", "this morning", "right now", "at the moment"))


# How one feels, and what to work on for it (written for this project).
_STATES = {
    "tired": "have more energy",
    "exhausted": "have more energy",
    "sleepy": "have more energy",
    "stressed": "manage stress",
    "anxious": "manage anxiety",
    "nervous": "manage anxiety",
    "worried": "stop worrying",
    "lonely": "make new friends",
    "unmotivated": "stay motivated",
    "lazy": "stay motivated",
    "distracted": "focus better",
    "forgetful": "improve my memory",
    "overwhelmed": "cope with feeling overwhelmed",
    "burned": "recover from burnout",
    "burnt": "recover from burnout",
    "disorganized": "get organized",
    "late": "stop being late",
    "stiff": "become more flexible",
    "unfit": "get fit",
    "out": "get fit",  # "I'm out of shape"
    "bored": "beat boredom",
    "sad": "lift my mood",
    "down": "lift my mood",
    "low": "lift my mood",
    "blue": "lift my mood",
    "unhappy": "lift my mood",
    "miserable": "lift my mood",
    "depressed": "lift my mood",
    "homesick": "cope with homesickness",
    "heartbroken": "get over heartbreak",
    "angry": "calm down",
    "furious": "calm down",
    "frustrated": "calm down",
    "irritable": "calm down",
    "scared": "manage anxiety",
    "afraid": "manage anxiety",
    "panicky": "manage anxiety",
    "isolated": "make new friends",
    "alone": "make new friends",
}


# Something of one's own misbehaving: "My phone battery drains fast", "My dog keeps barking", "My laptop won't
# start", read as troubleshooting it (or, for an animal, stopping it).
_MINE = re.compile(
    r"my (?P<np>(?:[a-z]+ ){0,2}[a-z]+) (?:(?P<keeps>keeps) (?P<g>[a-z]+ing)|(?P<not>won't|will not|doesn't|does not"
    r"|can't|cannot) (?P<v>[a-z]+)|(?P<s>[a-z]+s))\b(?P<rest>.*)",
    _I,
)


def _mine(said: str) -> str:
    m = _MINE.match(said)
    if not m:
        return ""
    np, rest, head = f"my {m['np']}", m["rest"], m["np"].split()[-1].lower()
    if _not_fixed(head):
        return ""  # "my boss hates me": no thing to fix; "my code crashes": a bug, for the code's readers
    if m["keeps"]:  # "My dog keeps barking": stop it; "My laptop keeps crashing": troubleshoot it
        doing = m["g"].lower()
        return f"stop {np} from {doing}{rest}" if head in _ANIMALS else f"troubleshoot {np} when it keeps {doing}{rest}"
    if m["not"]:  # "My laptop won't turn on"
        verb = m["v"].lower()
        return f"troubleshoot {np} when it {m['not'].lower()} {verb}{rest}" if verb in LEXICON.verbs else ""
    said = m["s"].lower()
    verb = said[:-1] if said[:-1] in LEXICON.verbs else said[:-2] if said[:-2] in LEXICON.verbs else ""
    if not verb or head in _ANIMALS:
        return ""
    return f"troubleshoot {np} when it {said}{rest}"  # "My sink drains slowly"


# A thing said to be in a bad way: "My shower drain is slow", "The kitchen sink is backed up", "Our fridge is
# making a weird noise", read as troubleshooting it in that state.
_BROKEN = re.compile(
    r"(?P<np>(?:my|our|the) (?:[a-z]+ ){0,2}[a-z]+) (?P<be>is|are|seems|seem|has been|have been)"
    r"(?: (?:really|very|so|too|a bit|still|completely|totally|always|suddenly|now))*"
    r" (?P<state>not working|backed up|[a-z]+ing (?:very |really |so |too )?(?:slowly|badly|poorly)"
    r"|making (?:a |an )?(?:strange |weird |funny |loud |odd |clicking |grinding "
    r"|buzzing |rattling )?noises?|slow|broken|leaking|leaky|blocked|clogged|stuck|squeaky|squeaking|noisy|flat"
    r"|dripping|dead|cracked|frozen|overheating|jammed|loose|wobbly|rattling|smelly|cold|too hot)\b(?P<rest>.*)",
    _I,
)


def _broken(said: str) -> str:
    m = _BROKEN.match(said)
    if not m:
        return ""
    np, head = m["np"][:1].lower() + m["np"][1:], m["np"].split()[-1].lower()  # "The sink…": "the sink"
    if _not_fixed(head) or head in _ANIMALS:
        return ""  # "my boss is cold", "my dog is smelly", "my code is slow": no thing to troubleshoot here
    many = m["be"].lower() in ("are", "seem", "have been")
    return f"troubleshoot {np} when {'they are' if many else 'it is'} {m['state'].lower()}{m['rest']}"


def _not_fixed(head: str) -> bool:
    """Whether a complaint's noun names no thing to troubleshoot: a person ("my boss"), or code and its tests,
    which the code readers answer ("my code crashes")."""
    return head in _PEOPLE_AROUND or head in CODE_NOUNS or head in ("test", "tests", "build")


# Who is no thing of one's own to fix ("my boss hates me"), and animals, which are trained rather than fixed.
_PEOPLE_AROUND = frozenset(("mom", "dad", "mother", "father", "boss", "wife", "husband", "friend", "son", "daughter"))
_ANIMALS = frozenset(("dog", "puppy", "cat", "kitten", "parrot", "rabbit", "horse"))


def _want(said: str) -> str:
    m = _WANT.match(said)
    if not m:
        return ""
    verb = m["v"].split(" ", 1)[0].lower()
    return m["v"] if verb in LEXICON.verbs or LEXICON.kind_of(m["v"]) else ""


def _am(said: str) -> str:
    """Who one is, read as what such people do: "I'm a new teacher" → "teach a class well" (see `group`)."""
    m = _AM.match(said)
    return group(m["g"].split()) if m else ""


_AM = re.compile(r"i(?:'m| am) (?:a|an) (?P<g>(?:[a-z-]+ ){0,2}[a-z]+)$", _I)


def base(gerund: str) -> str:
    """A verb's base form from its -ing form: "staying" → "stay", "running" → "run", "saving" → "save"."""
    stem = gerund[:-3].lower()
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz" and stem[:-1] in LEXICON.verbs:
        return stem[:-1]
    if stem in LEXICON.verbs or f"{stem}e" in LEXICON.verbs:
        return stem if stem in LEXICON.verbs else f"{stem}e"
    return f"{stem}e" if stem.endswith(_TAKES_E) else stem


_TAKES_E = ("v", "z", "at", "ag", "dg", "ur", "ar", "ak", "ok", "ik", "uc", "id", "ut", "iz", "is", "ac", "rg", "com")


def group(words: list[str]) -> str:
    """Tips for a group of people read as tips for what the group does: "new runners" → "start running",
    "first-time managers" → "manage a team", "writers" → "write better"; "" when no word names people by what
    they do (an agent noun whose verb the lexicon knows)."""
    said = [w.lower().strip(".,?!") for w in words]
    if len(said) > 1 and said[0] in ("a", "an") and not said[-1].endswith("s"):  # "a first-time hiker"
        said = said[1:]
    if not said or len(said) > 4 or said[0] in ("a", "an", "the", "my", "your"):
        return ""
    agent = said[-1]
    verb = _PEOPLE.get(agent.removesuffix("s")) or _doer(agent)
    if not verb:
        return ""
    starting = not STARTING.isdisjoint(w for word in said[:-1] for w in word.split("-"))
    if verb in _BOUGHT and len(said) > 1 and said[-2] in _BOUGHT[verb]:  # "first-time home buyers"
        return f"{verb} {'your first' if starting else 'a'} {said[-2]}"
    if verb == "play" and len(said) > 1 and said[-2] not in STARTING and said[-2] not in _YOUNG:  # "chess players"
        return f"learn to play {said[-2]}" if starting else f"play {said[-2]} better"
    if verb in _OBJECTS:
        return _STARTING_OBJECTS.get(verb, _OBJECTS[verb]) if starting else _OBJECTS[verb]
    if starting:  # "new runners": start running, where that has steps of its own; else learn it ("learn to swim")
        started = f"start {grammar.participle(verb)}"
        return started if LEXICON.kind_of(started) not in ("", "habit") else f"learn to {verb}"
    return f"{verb} better"


def _doer(noun: str) -> str:
    """The verb an agent noun is made from ("runners" → "run", "managers" → "manage", "investors" → "invest")."""
    if noun.endswith("s"):
        noun = noun[:-1]
    if not noun.endswith(("er", "or")) or len(noun) < 5:
        return ""
    stem = noun[:-2]
    for verb in (stem, f"{stem}e", stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else ""):
        if verb and verb in LEXICON.verbs:
            return verb
    return ""


STARTING = frozenset(("new", "first", "beginner", "beginning", "novice", "aspiring", "budding", "starting"))
# People named by what they do without an -er ("students" study); and verbs whose task needs its object.
_PEOPLE = {"student": "study", "cook": "cook", "leader": "lead", "cyclist": "cycle"}
_PEOPLE |= {"blogger": "blog", "programmer": "code", "coder": "code", "golfer": "golf", "gardener": "garden"}
_PEOPLE |= {"photographer": "photograph", "parent": "parent", "mom": "parent", "mum": "parent", "dad": "parent"}
_PEOPLE |= {"mother": "parent", "father": "parent", "hiker": "hike", "trekker": "hike", "guitarist": "guitar"}
_PEOPLE |= {"pianist": "piano", "traveler": "travel", "traveller": "travel"}
# Things bought, sold or rented, named before the agent noun ("home buyers": buy a home).
_BOUGHT = {"buy": frozenset(("home", "house", "car", "flat", "apartment", "property")), "rent": frozenset(("flat",))}
_BOUGHT["sell"] = _BOUGHT["buy"]
_YOUNG = frozenset(("young", "old", "older", "good", "better", "great", "amateur", "serious", "casual", "keen"))
_OBJECTS = {
    "manage": "manage a team",
    "lead": "lead a team",
    "teach": "teach a class well",
    "coach": "coach a team",
    "mentor": "mentor someone well",
    "invest": "invest your money wisely",
    "drive": "drive safely and confidently",
    "study": "study more effectively",
    "parent": "be a better parent",
    "photograph": "take better photos",
    "garden": "garden better",
    "guitar": "play the guitar better",
    "piano": "play the piano better",
    "travel": "travel well",
    "write": "write better",
}
# For people new to it: a new parent's task is not an old one's.
_STARTING_OBJECTS = {"parent": "look after a new baby", "garden": "start gardening"}
_STARTING_OBJECTS |= {
    "guitar": "learn to play the guitar",
    "piano": "learn to play the piano",
    "travel": "plan your first trip",
}
_STARTING_OBJECTS |= {"write": "write better"}
