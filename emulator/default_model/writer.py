"""The default model's prose: each form of answer written from the frames and word lists in `lexicon/`.

`write` answers an `Ask` (see `forms`) in its form: a definition, an explanation, cause and consequence, paired
points, pros and cons, steps, ideas, a list, verse, a story, a letter, an edit of the user's own text, a short
answer or a greeting back. Every choice is a face of the answer's dice, and no frame is used twice in an
answer, so the same conversation gets the same words and one answer never repeats a sentence.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence

from emulator.default_model import advice, edits, grammar, jokes, members, recipes, tales, verse
from emulator.default_model.ask import Ask
from emulator.default_model.grammar import capital, fill
from emulator.default_model.lexicon import LEXICON, Domain, Steps, Thing
from emulator.default_model.names import name, of_trade
from emulator.default_model.page import FRAMES, Dice, Page


def write(ask: Ask, domain: Domain, dice: Dice, people: Sequence[str] = (), places: Sequence[str] = ()) -> str:
    """The answer to `ask` in its form; `people` and `places` (faker's) name a story's characters and town."""
    page = Page(ask, domain, dice, people)
    return WRITERS[ask.form](page, places)


# What a passage of plain prose is made of, paragraph by paragraph: the sections of its sentences, in turn.
PASSAGE = (
    ("claim", "mechanism", "example"),
    ("transition", "reason", "consequence"),
    ("mechanism", "example", "caveat"),
    ("recommendation", "summary"),
)


def passage(ask: Ask, domain: Domain, dice: Dice, kind: str, count: int | None) -> str:
    """Plain prose about `ask`'s subject, for a scenario's `text: {default: …}`: `count` paragraphs, or
    sentences, or one paragraph or sentence. Past what the frames hold without repeating, sentences repeat."""
    page = Page(ask, domain, dice)
    sections = [section for paragraph in PASSAGE for section in paragraph]
    if kind in ("sentence", "sentences"):
        n = 1 if kind == "sentence" else count or 3
        return " ".join(page.say(sections[i % len(sections)]) for i in range(n))
    n = 1 if kind == "paragraph" else count or 3
    return "\n\n".join(_paragraph(page, *PASSAGE[i % len(PASSAGE)]) for i in range(n))


def _paragraph(page: Page, *sections: str) -> str:
    return page.paragraph(*sections)


def _greeting(page: Page, places: Sequence[str]) -> str:
    """A greeting back; to "how are you" an answer first, to thanks "you're welcome", to a goodbye a goodbye."""
    sort = page.ask.other
    return page.pick(FRAMES[f"greeting-{sort}" if sort else "greeting"])


def _followup(page: Page, places: Sequence[str]) -> str:
    return page.pick(FRAMES["followup"])


def _short(page: Page, places: Sequence[str]) -> str:
    said = page.say("short-lookup" if page.ask.other == "lookup" else "short")
    if not page.roll(2):
        return said
    more = page.say("short-more")
    return f"{said} {more}" if len(said.split()) + len(more.split()) <= 50 else said  # a short answer: 10 to 50


def _definition(page: Page, places: Sequence[str]) -> str:
    thing = _known(page)
    category = members.members(page.slots["subject"]) if thing is None else None
    if category is not None:  # "What are fruits?": a group, said by its members
        return _grouped(page, category)
    if thing is None:
        middle = "named" if _named(page) else "mechanism"
        return _paragraph(page, "claim", middle, "example", page.pick(("caveat", "recommendation")))
    said = [page.say("thing-claim"), *_parts(page, thing), page.say("thing-how")]
    if thing.contrast != "-":
        said.append(page.say("thing-contrast"))
    if sum(len(s.split()) for s in said) < 70:
        said.append(page.say("thing-care"))
    return " ".join(said)


def _grouped(page: Page, category: members.Category) -> str:
    """What a category is ("fruits", "a planet"), said by three of its members, with an offer to say more."""
    name, listed, _ = category
    start = page.roll(len(listed))
    three = [listed[(start + i) % len(listed)] for i in range(min(3, len(listed)))]
    examples = f"{', '.join(three[:-1])} and {three[-1]}" if len(three) > 1 else three[0]
    page.slots.add({"examples": examples, "category": name, "one": members.one_of(name)})
    return " ".join([page.say("category-claim"), page.say("category-more"), page.say("category-offer")])


def _known(page: Page) -> Thing | None:
    """The common thing the subject names (lexicon/things.txt), its facts then in the page's slots."""
    thing = _thing(page.slots["subject"], page.ask.context)
    if thing is not None:
        facts = {"named": thing.named, "sort": grammar.article(thing.kind)}
        facts |= {"parts": thing.parts, "does": thing.does, "how": thing.how, "care": thing.care}
        facts["name"] = thing.named.split(" ", 1)[1] if thing.named.startswith(("a ", "an ", "the ")) else thing.named
        page.slots.add({**facts, "contrast": thing.contrast})
    return thing


# `LEXICON.thing`, kept: a subject is asked about again, and its reading is pure.
_thing = functools.lru_cache(maxsize=1024)(LEXICON.thing)
_BASE = {"is": "be", "has": "have"}


def _parts(page: Page, thing: Thing) -> list[str]:
    return [] if thing.parts == "-" else [page.say("thing-parts")]


def _named(page: Page) -> bool:
    """Whether the subject's own words say what kind of thing it is ("solar panels": panels, of the solar kind);
    if so, its slots {base} and {modifier} say them."""
    kind = _kind_of(page.slots["subject"])
    if kind is None:
        return False
    page.slots.add({"base": kind[0], "modifier": kind[1]})
    return True


@functools.lru_cache(maxsize=1024)
def _kind_of(subject: str) -> tuple[str, str] | None:
    """What `subject`'s own words say it is, its base noun and what modifies it ("solar panels": "panel", "solar"),
    when they are two or three plain lower-case words; kept, as a subject is asked about again."""
    words = subject.split()
    if not _OWNING.isdisjoint(map(str.lower, words)):
        words = [w for w in words if w.lower() not in _OWNING]
    joined = "".join(words)  # the words are plain lower-case ones when what they make together is
    if not 2 <= len(words) <= 3 or not joined.isalpha() or not joined.islower() or not _ENDS.isdisjoint(words):
        return None
    return grammar.singular(words[-1]), " ".join(words[:-1])


def _explain(page: Page, places: Sequence[str]) -> str:
    thing = _known(page)
    if thing is not None:
        return _explain_thing(page, thing)
    first = _paragraph(page, "explain-open", "claim", "named" if _named(page) else "mechanism")
    second = _paragraph(page, "transition", "mechanism", "example", "caveat")
    third = _paragraph(page, "example", "recommendation", "summary", *(("question",) if page.roll(2) else ()))
    return f"{first}\n\n{second}\n\n{third}"


def _explain_thing(page: Page, thing: Thing) -> str:
    """What a common thing is, what it is made of and how it works, then what to know about it."""
    first = [page.say("explain-open"), page.say("thing-claim"), *_parts(page, thing)]
    second = [page.say("thing-how")]
    third = [page.say("thing-care")]
    if thing.contrast != "-":
        third.append(page.say("thing-contrast"))
    one = thing.named.startswith(("a ", "an "))  # "a particular kettle", never "a particular Renaissance"
    offer = "thing-offer" if thing.parts != "-" else "thing-offer-plain"
    third += [page.say("thing-summary"), page.say(offer if one else "thing-offer-whole")]
    if sum(len(s.split()) for s in first + second + third) < 165:
        third.insert(-1, page.say("thing-recap" if thing.parts != "-" else "thing-recap-plain"))
    if sum(len(s.split()) for s in first + second + third) < 170:
        second.append(page.say("thing-more"))
    return "\n\n".join(" ".join(p) for p in (first, second, third))


def _why(page: Page, places: Sequence[str]) -> str:
    if page.ask.task:
        return _why_clause(page)
    cause = _paragraph(page, "why-open", "reason", "reason")
    mechanism = _paragraph(page, "mechanism", "example", "mechanism")
    consequence = _paragraph(page, "consequence", "recommendation", "summary")
    return f"**The cause**\n\n{cause}\n\n**How it works**\n\n{mechanism}\n\n**What follows**\n\n{consequence}"


def _why_clause(page: Page) -> str:
    """Cause, mechanism and consequence built from the question's own clause ("batteries lose their charge"):
    what its subject is and how it works, where it is a common thing; else the clause's subject and verb."""
    acting = _acting(page)
    clause = FRAMES["why-clause"] if acting else FRAMES["why-state"]
    act = FRAMES["why-act"] if acting else ()
    thing = _known(page)
    kind = _why_kind(page.slots["actor"], page.slots.get("act", "")) if acting and thing is None else ""
    if kind:  # an everyday event of a kind the lexicon knows: its own cause, mechanism and consequence
        cause, mechanism, consequence = (_in_order(page, f"why-{kind}-{part}") for part in _WHY_PARTS)
    elif thing is not None:
        cause = [page.say("why-event"), page.say("why-thing-is"), page.say("why-thing-how")]
        mechanism = [*_parts(page, thing), page.say("why-thing-where"), _fill(page, act[0] if act else clause[2])]
        consequence = [page.say("thing-care"), _fill(page, clause[4]), page.say("why-thing-close")]
    else:
        cause = [page.say("why-event"), _fill(page, clause[0]), _fill(page, clause[1])]
        mechanism = [_fill(page, clause[2]), *(_fill(page, a) for a in act[:2])]
        if not act:
            mechanism.append(_fill(page, clause[3]))
        last = _fill(page, act[2]) if act else page.say("recommendation")
        consequence = [_fill(page, clause[4]), last, _fill(page, clause[5])]
    parts = (" ".join(cause), " ".join(mechanism), " ".join(consequence))
    return "**The cause**\n\n{}\n\n**How it works**\n\n{}\n\n**What follows**\n\n{}".format(*parts)


_WHY_PARTS = ("cause", "how", "then")
_WHY_KINDS = {kind: frozenset(words.split()) for kind, _, words in (k.partition(": ") for k in FRAMES["why-kinds"])}
_PERSON = _WHY_KINDS.pop("mind")
_BODY = _WHY_KINDS["body"]


def _why_kind(actor: str, act: str) -> str:
    """The kind of everyday event a why-clause names (`why-kinds`): the first kind a word of its subject belongs
    to; for people, the body's when what they do is a bodily word ("people yawn"), else the mind's ("kids love
    cartoons"); else the first kind a word of what it does belongs to ("popcorn pops"); "" when none fits."""
    doer = {w.strip(".,!?'\"").lower() for w in actor.split()}
    done = {w.strip(".,!?'\"").lower() for w in act.split()}
    found = next((kind for kind, cues in _WHY_KINDS.items() if doer & cues), "")
    if found:
        return found
    if doer & _PERSON:
        return "body" if done & _BODY else "mind"
    return next((kind for kind, cues in _WHY_KINDS.items() if done & cues), "")


def _in_order(page: Page, section: str) -> list[str]:
    """Three frames of `section`, filled, in their order: its first and last kept, one between left out."""
    frames = FRAMES[section]
    skip = 1 + page.roll(len(frames) - 2) if len(frames) > 3 else len(frames)
    return [_fill(page, f) for i, f in enumerate(frames) if i != skip][:3]


def _fill(page: Page, frame: str) -> str:
    return fill(frame, page.slots)


_NOT_PLAIN = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "am",
        "be",
        "can",
        "cannot",
        "will",
        "would",
        "should",
        "could",
        "might",
        "must",
        "do",
        "does",
        "did",
        "has",
        "have",
    ]
)


def _acting(page: Page) -> bool:
    """Whether the why-question's clause has a plain verb after its subject ("batteries lose their charge"); if so,
    the page's slots say {actor}, {act} ("lose their charge") and {not_act} ("do not always lose their charge")."""
    actor, task = page.ask.subject, page.ask.task
    page.slots = page.slots.adding({"actor": actor})
    if not actor or not task.startswith(actor + " "):
        return False
    verb, _, rest = task[len(actor) + 1 :].partition(" ")
    if verb.lower() in _NOT_PLAIN or not verb.isalpha():
        return False
    many = page.slots["it"] == "they"
    base = verb if many else _BASE.get(verb) or grammar.agree(verb, True)
    act = f"{base} {rest}".strip()
    facts = {"actor": actor, "act": act, "not_act": f"{'do' if many else 'does'} not always {act}"}
    page.slots = page.slots.adding(facts)
    return True


def _compare(page: Page, places: Sequence[str]) -> str:
    points = []
    for _ in range(3):
        page.fresh("aspect")
        label, _, point = page.say("compare-point").partition(": ")
        points.append(f"- **{label}**: {capital(point)}")
    close = page.say("compare-close")
    opening = f"{page.say('compare-open-task' if page.ask.task else 'compare-open')} {page.say('compare-then')}"
    return f"{opening}\n\n" + "\n".join(points) + f"\n\n{close}"


def _proscons(page: Page, places: Sequence[str]) -> str:
    pros = "\n".join(f"- {page.of_subject(fill(page.pick(page.domain.lists['pro']), page.slots))}" for _ in range(3))
    cons = "\n".join(f"- {page.of_subject(fill(page.pick(page.domain.lists['con']), page.slots))}" for _ in range(3))
    opening, closing = _paragraph(page, "pros-open", "pros-then"), _paragraph(page, "pros-close", "recommendation")
    return f"{opening}\n\n**Pros**\n\n{pros}\n\n**Cons**\n\n{cons}\n\n{closing}"


_TECHNICAL = frozenset(("software", "data", "web", "operations"))
_OWN_STEPS = frozenset(("software", "data", "web", "operations", "health", "food", "money", "language"))
_TRAVELLING = frozenset(("plan", "travel", "visit", "pack", "tour", "explore", "prepare", "book"))
# Taking something out or off ("get red wine out of a carpet"): a kind of cleaning ("get rid of" is not).
_TAKING_OUT = re.compile(r"(?:get|take|lift|wash|rub) (?!rid of\b).{1,40}? (?:out of|off|out)\b", re.I)
_TAKEN_FROM = re.compile(r"\b(?:out of|off|from) (.+)", re.I)
_PARTICLES = frozenset(("up", "out", "off", "down", "on", "over", "away", "back"))
_OWNING = frozenset(("a", "an", "the", "your", "my"))  # words before a subject's own that are not part of it
_ENDS = frozenset(("on", "in", "at", "for", "with", "without", "from", "to", "by", "so", "when", "before", "after"))
_ENDS |= {"indoors", "outdoors", "inside", "outside", "faster", "quickly", "properly", "safely", "yourself"}


def steps_of(domain: Domain, task: str) -> tuple[str, Steps]:
    """A how-to's kind and steps: those of the kind of task its opening words or its verb name (lexicon/howto.txt),
    else its domain's where they fit any task of the domain (kind ""), else steps that fit any task. A technical
    task ("fix a merge conflict", "build a website", "talk to an API") takes its domain's steps over an everyday
    kind's."""
    technical = domain.name in _TECHNICAL and _PHYSICAL.isdisjoint(task.lower().split())
    kind = LEXICON.kind_of(task)
    if kind and (not technical or kind in _ANY_DOMAIN or kind in _TECHNICAL_KINDS):
        return kind, LEXICON.howto[kind][1]
    verb = "remove" if _TAKING_OUT.match(task) else task.split(" ", 1)[0].lower()
    found = LEXICON.steps_for(verb)
    if domain.name == "travel" and verb in _TRAVELLING:
        return "", domain.steps
    if technical and (found is None or found[0] in _EVERYDAY_KINDS) or verb == "improve" and domain.name in _OWN_STEPS:
        return "", domain.steps  # "fix a bug", "build a website", "improve your sleep": the domain's own
    if found and found[0] in _FIXING or found is None and domain.name == "repair":
        fitted = LEXICON.repaired(task)  # a chair is glued and tightened, a tap's water turned off first
        if fitted not in ("", "repair") and (fitted != "repair-appliance" or found is None or found[0] == "repair"):
            return fitted, LEXICON.howto[fitted][1]
    if verb in _WRITING:  # a cover letter, a speech, an essay: the writer's steps
        return "", _LANGUAGE.steps
    if found and (found[0] != "setup" or technical):
        return found
    doing = domain.lists.get("doing")
    if doing and verb not in doing:  # "get a stain out of a carpet" is no recipe, though it names wine
        return "any", LEXICON.howto["any"][1]
    if domain.name in _OWN_STEPS or domain.name == "repair" and found is None:
        return "", domain.steps
    return "any", LEXICON.howto["any"][1]


# What says a thing to fix is a physical one, whatever domain its noun cues ("a wobbly table" is no database's).
_PHYSICAL = frozenset(
    ["wobbly", "loose", "squeaky", "creaky", "leaky", "leaking", "dripping", "cracked", "torn", "ripped", "stuck"]
    + ["jammed", "wonky", "rattling", "sagging", "scratched", "dented", "chipped", "bent", "peeling", "wooden"]
)
_ANY_DOMAIN = frozenset(("learn", "habit", "cope", "mood", "boredom", "friends"))  # fit a technical task too
# ("learn to code"), or are about a person, whatever the domain's words ("manage anxiety about your driving test")
# Kinds of a technical task named by phrases of their own: over the domain's steps ("resolve merge conflicts")
_TECHNICAL_KINDS = frozenset(("merge-conflict", "git", "code-quality", "code-speed"))
_EVERYDAY_KINDS = frozenset(("repair", "make", "grow", "talk", "cope", "friends", "pet", "plant", "pain", "stretch"))
_EVERYDAY_KINDS |= {"fitness", "remember"}  # found by a verb a technical task may also use
_WRITING = frozenset(("write", "draft", "compose"))
_FIXING = frozenset(("repair", "troubleshoot"))  # kinds whose steps depend on what is fixed (a chair, a tap…)
_LANGUAGE = next(d for d in LEXICON.domains if d.name == "language")


def thing(task: str) -> str:
    """What a how-to's task is done to: "descale a kettle" → "the kettle", "back up your photos" → "your
    photos", "install Docker on Ubuntu" → "Docker"; "it" when it names nothing."""
    taken = _TAKEN_FROM.search(task) if _TAKING_OUT.match(task) else None
    if taken:  # "get red wine out of a carpet": what is cleaned is the carpet
        return thing(f"clean {taken.group(1)}")
    words = task.split()[1:]
    if words and words[0].lower() in _PARTICLES:
        words = words[1:]
    cut = next((i for i, w in enumerate(words) if w.lower() in _ENDS), len(words))
    words = words[:cut][:5]
    if not words or words[0].endswith("ing") or words[0].lower() in _NO_THING:  # "know what to do…": no thing
        return "it"
    if words[0].lower() in ("a", "an", "the"):
        return " ".join(["the", *words[1:]]) if len(words) > 1 else "it"
    return " ".join(words)


_NO_THING = frozenset(("it", "them", "this", "that", "what", "how", "where", "when", "why", "who", "which", "whether"))


def _steps(page: Page, places: Sequence[str]) -> str:
    task = page.slots["task"]
    kind, steps = steps_of(page.domain, task)
    slots = page.slots.adding({"thing": thing(task)})
    skip = _droppable(steps, page.roll(len(steps)))  # five of the kind's six or seven, in order
    chosen = [s for i, s in enumerate(steps) if i != skip or len(steps) <= 4][:6]
    closing = fill(page.pick(LEXICON.closes[kind]), slots) if kind in LEXICON.closes else page.say("steps-close")
    if page.ask.other == "tips":  # "Any tips for staying focused?": the kind's steps as tips
        return _tips(page, steps, slots, closing, kind)
    lines = [f"{n}. **{label}**: {fill(sentence, slots)}" for n, (label, sentence) in enumerate(chosen, 1)]
    return f"{page.say('steps-open')}\n\n" + "\n".join(lines) + f"\n\n{closing}"


def _tips(page: Page, steps: Steps, slots: grammar.Slots, closing: str, kind: str) -> str:
    """Tips for a task: as many of its kind's steps as asked for (five when it does not say), in their order."""
    asked = page.ask.count
    kept = list(steps)
    while len(kept) > (asked if 0 < asked <= len(steps) else min(5, len(steps))):
        kept.pop(_droppable(kept, page.roll(len(kept))))
    lines = [f"- **{label}**: {fill(sentence, slots)}" for label, sentence in kept]
    if 0 < asked <= len(steps):
        count = slots.adding({"count": _NUMBERS[asked]})
        opening = fill(page.pick(FRAMES["tips-open-count"]), count)
    else:  # a complaint ("I can't sleep"), which the user said as their own text, opens with a word for it
        said = ("tips-open-feeling" if kind in _FEELINGS else "tips-open-trouble") if page.ask.source else "tips-open"
        opening = fill(page.pick(FRAMES[said]), slots)
    return f"{opening}\n\n" + "\n".join(lines) + f"\n\n{closing}"


def _droppable(steps: Sequence[tuple[str, str]], at: int) -> int:
    """The step at `at`, or the next after it (round to the first) that an answer may leave out: not a `step!` of
    howto.txt (turning the water off, the fix itself); `at` when every step is one."""
    for i in range(len(steps)):
        found = (at + i) % len(steps)
        if steps[found][0] not in LEXICON.kept:
            return found
    return at


_FEELINGS = frozenset(("cope", "mood", "boredom", "friends"))  # kinds of task a feeling is read as ("I'm bored")
_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight")


def _list(page: Page, places: Sequence[str]) -> str:
    category = members.asked(page.ask)
    if category is not None:  # "Name three fruits", "List the planets": the members themselves
        return members.listed(page, category)
    count = min(page.ask.count or 3 + page.roll(2), 5)
    items = []
    for _ in range(count):
        page.fresh("aspect")
        label, _, point = page.say("list-item").partition(": ")
        items.append(f"- **{label}**: {point}")
    opening = page.say("list-open" if grammar.is_plural(page.slots["task"]) else "list-open-one")
    return f"{opening}\n\n" + "\n".join(items) + f"\n\n{page.say('list-close')}"


def _ideas(page: Page, places: Sequence[str]) -> str:
    count = min(page.ask.count or 4 + page.roll(2), 8)
    names = page.ask.task == "names"
    items = [name(page) if names else _idea(page) for _ in range(count)]
    opening, closing = ("names-open", "names-close") if names else ("ideas-open", "ideas-close")
    if names and of_trade(page.ask.subject):  # a trade's name: is it free?
        closing = "names-close-trade"
    return f"{page.say(opening)}\n\n" + "\n".join(f"- {i}" for i in items) + f"\n\n{page.say(closing)}"


def _idea(page: Page) -> str:
    label, _, sentence = page.pick(FRAMES["idea"]).partition(": ")
    return f"**{label}**: {fill(sentence, page.slots)}"


def _code(page: Page, places: Sequence[str]) -> str:
    return ""  # answered by `prose.code_answer`, which knows the question's language


WRITERS: dict[str, Callable[[Page, Sequence[str]], str]] = {
    "greeting": _greeting,
    "followup": _followup,
    "short": _short,
    "definition": _definition,
    "explain": _explain,
    "why": _why,
    "compare": _compare,
    "proscons": _proscons,
    "steps": _steps,
    "list": _list,
    "ideas": _ideas,
    "haiku": verse.haiku,
    "limerick": verse.limerick,
    "poem": verse.poem,
    "story": tales.story,
    "email": tales.email,
    "summarize": edits.summarize,
    "rewrite": edits.rewrite,
    "formal": edits.formal,
    "translate": edits.translate,
    "code": _code,
    "advice": advice.advice,
    "joke": jokes.joke,
    "recipe": recipes.recipe,
}
