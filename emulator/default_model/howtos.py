"""How-to answers: the steps of the kind of task asked (lexicon/howto.txt) or of its domain, as numbered steps
or as tips, with the steps marked `step!` never left out (see `writer`, whose form "steps" this writes)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from emulator.default_model import grammar
from emulator.default_model.grammar import fill
from emulator.default_model.lexicon import LEXICON, Domain, Steps
from emulator.default_model.page import FRAMES, Page

_TECHNICAL = frozenset(("software", "data", "web", "operations"))
_OWN_STEPS = frozenset(("software", "data", "web", "operations", "health", "food", "money", "language"))
_TRAVELLING = frozenset(("plan", "travel", "visit", "pack", "tour", "explore", "prepare", "book"))
# Taking something out or off ("get red wine out of a carpet"): a kind of cleaning ("get rid of" is not).
_TAKING_OUT = re.compile(r"(?:get|take|lift|wash|rub) (?!rid of\b).{1,40}? (?:out of|off|out)\b", re.I)
_TAKEN_FROM = re.compile(r"\b(?:out of|off|from) (.+)", re.I)
_PARTICLES = frozenset(("up", "out", "off", "down", "on", "over", "away", "back"))
OWNING = frozenset(("a", "an", "the", "your", "my"))  # words before a subject's own that are not part of it
ENDS = frozenset(("on", "in", "at", "for", "with", "without", "from", "to", "by", "so", "when", "before", "after"))
ENDS |= {"indoors", "outdoors", "inside", "outside", "faster", "quickly", "properly", "safely", "yourself"}


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
    cut = next((i for i, w in enumerate(words) if w.lower() in ENDS), len(words))
    words = words[:cut][:5]
    if not words or words[0].endswith("ing") or words[0].lower() in _NO_THING:  # "know what to do…": no thing
        return "it"
    if words[0].lower() in ("a", "an", "the"):
        return " ".join(["the", *words[1:]]) if len(words) > 1 else "it"
    return " ".join(words)


_NO_THING = frozenset(("it", "them", "this", "that", "what", "how", "where", "when", "why", "who", "which", "whether"))


def steps(page: Page, places: Sequence[str]) -> str:
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
    if asked > 0:  # the count given, said: fewer than asked where the kind has no more
        count = slots.adding({"count": _NUMBERS[len(kept)]})
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
