"""Everyday requests read for their form, beside `forms`' table: small talk that is no request ("Thanks, that
helped!", "Bye for now"), a request for a recipe ("a recipe for pancakes", "How do I make guacamole?"), tips or
the best way for a task said as a verb ("Any tips for staying focused?", "What's the best way to learn to code?"),
and a letter for an occasion ("a thank-you note to my teacher", "a birthday message for my sister").
"""

from __future__ import annotations

import re

from emulator.default_model import recipes, troubles
from emulator.default_model.ask import DETERMINERS as _DETERMINERS
from emulator.default_model.ask import Ask
from emulator.default_model.ask import np as _np
from emulator.default_model.lexicon import LEXICON, goal
from emulator.default_model.question import Question, flip

_I = re.I
HOW_ARE_YOU = re.compile(r"\bhow(?:'s| (?:are|is|have|do)\b)|what's up", re.I)
# Small talk that is no request: thanks ("Great, thanks!", "That helped a lot, thank you") and goodbyes.
_SMALL_TALK = (
    (
        "thanks",
        re.compile(
            r"(?:(?:ok(?:ay)?|great|perfect|awesome|cool|nice|brilliant|wonderful|excellent|got it|that(?:'s| is)"
            r" (?:great|perfect|helpful)|that (?:helped|helps|works|worked)(?: a lot)?)\W+)*"
            r"(?:thanks|thank you|thx|ty|cheers|much appreciated|many thanks)\b[^?]{0,40}$"
            r"|[^?]{0,40}\b(?:thanks|thank you)(?: (?:so|very) much)?(?: for \w+(?: \w+)?)?[.!]*$",
            re.I,
        ),
    ),
    (
        "bye",
        re.compile(
            r"(?:(?:ok(?:ay)?|thanks|thank you)\W+)*(?:bye|goodbye|good night|see you|see ya|talk (?:to you )?later"
            r"|have a (?:good|nice|great) (?:day|one|night|evening|weekend))\b.{0,20}$",
            re.I,
        ),
    ),
)


def small_talk(text: str) -> str:
    """The sort of small talk `text` is ("thanks", "bye"), or ""."""
    return next((sort for sort, pattern in _SMALL_TALK if pattern.match(text)), "")


# "a recipe for pancakes", "recipes for a vegan chili"; "a good lasagna recipe", "your best pancake recipe".
_RECIPE_FOR = re.compile(r".*?\brecipes?\s+(?:for|of|to make|to cook|to bake)\s+(?P<s>.+?)[.?!]*$", _I)
_RECIPE_AFTER = re.compile(
    r".*?\b(?:a|an|your|the|some|my|any|good|great|easy|simple)\s+(?P<s>(?:[\w'-]+\s+){0,3}?[\w'-]+)\s+recipes?\b", _I
)
_COOKING = frozenset(("make", "cook", "bake", "prepare", "fry", "roast", "grill", "whip", "brew", "blend"))


# "What should I cook for dinner?", "What can I make with chicken and rice?": dishes to choose from.
_WHAT_TO_COOK = re.compile(
    r"(?:so,? )?what (?:should|can|could|shall) (?:i|we) (?:cook|make|have|eat|bake)"
    r"(?: for (?P<m>breakfast|lunch|dinner|supper|tea|brunch|dessert))?"
    r"(?: (?:tonight|today|this evening|this week))?(?: (?:with|using) (?P<w>[^?.!]+?))?"
    r"(?: (?:tonight|today|this evening|this week))?[.?!]*$",
    _I,
)

# "What do I do with leftover rice?": dishes that use them up.
_LEFTOVERS = re.compile(
    r"(?:so,? )?what (?:should|can|could|shall|do) (?:i|we) do with (?:(?:my|the|some|all (?:the|my|this|that)|this"
    r"|that|these|those) )?(?P<w>left ?-?overs?\b[^?.!]*)[.?!]*$",
    _I,
)


def recipe(text: str, low: str, q: Question) -> Ask | None:
    """A request for a recipe: "a recipe for X" (unless X is success or disaster), "an X recipe", or a how-to
    whose verb is cooking's and whose object is a dish ("How do I make guacamole?", not "make a bed")."""
    if low.startswith(("what ", "so")) and (m := _WHAT_TO_COOK.match(text) or _LEFTOVERS.match(text)):
        said = m.groupdict().get("m") or ""
        meal = {"supper": "dinner", "tea": "dinner", "brunch": "breakfast"}.get(said.lower(), said)
        subject = f"{meal or 'a meal'} with {m['w']}" if m["w"] else meal or "a meal"
        return Ask("recipe", subject, other="suggest", task=m["w"] or "", source=meal.lower())
    if "recipe" in low:
        m = _RECIPE_FOR.match(text) or _RECIPE_AFTER.match(text)
        if m and recipes.is_food(m["s"]) and not low.startswith(("what is a recipe", "what's a recipe")):
            return Ask("recipe", recipes.find(_np(m["s"])).name)
    if q.kind == "steps" and q.clause:
        verb, _, rest = q.clause.partition(" ")
        rest = rest.removeprefix("up ") if verb.lower() == "whip" else rest
        if verb.lower() in _COOKING and rest and recipes.is_dish(rest):
            return Ask("recipe", recipes.find(_np(rest)).name, task=q.clause)
    return None


# "Any tips for staying focused?", "What are some ways to save money?"; "What tips do you have for new runners?",
# "Recommendations for a first trip to Japan"; "What's the best way to learn to code?"
_TIPS = re.compile(
    r".*?\b(?:tips|ways|strategies|tricks|advice|hacks|pointers|hints|recommendations|suggestions|recommend)"
    r"(?:\s+(?:and|or)\s+(?:tips|tricks|advice|ideas|suggestions))?"
    r"(?:\s+(?:do|would|can|could|did)\s+you\s+(?:have|give|offer|share|recommend|suggest|got)(?:\s+(?:me|us))?)?"
    r"\s+(?P<t>(?:for|to|on|about)\s+.+?)[.?!]*$",
    _I,
)
_BEST_WAY = re.compile(
    r".*?\b(?:best|easiest|quickest|fastest|simplest|right|smartest|cheapest|good) ways? to\s+(?P<t>.+?)[.?!]*$", _I
)
# "What advice would you give someone who is starting college?": what the someone does or wants to do.
_SOMEONE = re.compile(
    r".*?\b(?:someone|somebody|anyone|a person|people|a friend)\s+(?:(?:who|that)\s+)?(?P<w>.+?)[.?!]*$", _I
)
# What a request for tips holds, one of them at least: `forms` asks `tips` only of a text that holds one.
ASKING: tuple[str, ...] = (
    "tip",
    "way",
    "strateg",
    "trick",
    "advice",
    "hack",
    "recommend",
    "suggestion",
    "pointer",
    "hint",
)


def tips(text: str, low: str) -> tuple[str, str] | None:
    """Tips or "the best way" for a task said as a verb ("to save money", "for staying focused"), by a group of
    people ("for new runners"), by what someone does ("someone who is starting college") or by an event ("for a
    job interview"): the task, and "tips" for tips ("" for steps); a skill named by a gerund ("tips for public
    speaking") is one to get better at. None when the request asks for neither (`low`, the text in lower case,
    holds one of `ASKING`, or the text is not ASCII)."""
    if "way" in low and (m := _BEST_WAY.match(text)):
        task = flip(m["t"])
        return (task, "") if task.split(" ", 1)[0].lower() in LEXICON.verbs else None
    if ("some" in low or "any" in low or "people" in low) and (m := _SOMEONE.match(text)):
        task = _someone(m["w"].split())
        if task:
            return task, "tips"
    m = _TIPS.match(text)
    task = _clause(flip(m["t"]), "recommend" in low) if m else ""
    return (task, "tips") if task else None


def _clause(said: str, choosing: bool = False) -> str:
    """A verb phrase for what tips are for: "to save money" → "save money", "for staying focused at work" → "stay
    focused at work", "on public speaking" → "get better at public speaking", "for a job interview" → "prepare
    for a job interview", and for recommendations (`choosing`) "for a good laptop" → "choose a good laptop"; ""
    for anything else."""
    to, _, said = said.partition(" ")
    words = said.split()
    if not words:
        return ""
    first = words[0].lower()
    if to.lower() in ("for", "to"):  # "for new runners (in the mountains)": what runners do (there)
        cut = next((i for i, w in enumerate(words) if i and (w.lower() in _GROUP_ENDS or w.endswith("ing"))), 0)
        group = troubles.group(words[:cut] or words)
        if group:
            where = " ".join(_YOURS.get(w.lower(), w) for w in words[cut:]) if cut and words[cut] in _WHERE else ""
            return f"{group} {where}".strip()
    aim = LEXICON.goals.get(goal(said))
    if aim:  # "for better sleep": sleep better
        return aim
    if first == "how" and len(words) > 2 and words[1].lower() == "to":  # "tips on how to save money"
        return " ".join(words[2:])
    if to.lower() == "to":  # "ways to" opens a verb phrase; "advice to someone" does not
        return said if first.isalpha() and first not in _DETERMINERS and first not in _PERSONS else ""
    if len(first) > 4 and first.endswith("ing") and first not in troubles.STARTING:  # "aspiring" is no task
        return " ".join([troubles.base(first), *words[1:]])
    if len(words) <= 3 and len(words[-1]) > 5 and words[-1].endswith("ing") and words[0] not in ("a", "an", "the"):
        return f"get better at {said}"
    if first in _DETERMINERS:  # an event or a thing: "a first trip to Japan", "my job interview next week"
        cut = next((i for i, w in enumerate(words) if i and w.lower() in _AFTER_HEAD), len(words))
        head = words[cut - 1].lower()
        if head in _OF_EVENT:
            return f"{_OF_EVENT[head]} {said}"
        return f"choose {said}" if choosing else ""
    return ""


_WHERE = frozenset(("in", "on", "at"))  # a group's place or time, kept: "new hikers in the mountains"
_GROUP_ENDS = frozenset(("in", "on", "at", "with", "who", "that", "of", "for", "from", "during", "like"))
_PERSONS = frozenset(("someone", "somebody", "anyone", "people", "me", "us", "you", "him", "her", "them"))
# An event tips are asked for, and what the tips help to do with it ("a trip to Japan": plan a trip to Japan).
_OF_EVENT = dict.fromkeys(("trip", "holiday", "vacation", "journey", "honeymoon", "wedding", "party"), "plan")
_OF_EVENT |= dict.fromkeys(("picnic", "barbecue", "celebration", "reunion", "move", "visit"), "plan")
_OF_EVENT |= dict.fromkeys(("interview", "exam", "exams", "test", "audition"), "prepare for")
_OF_EVENT |= dict.fromkeys(("marathon", "race", "5k", "10k", "half-marathon", "triathlon"), "train for")
# Words after a noun phrase's head: "a trip | to Japan", "a job interview | next week".
_AFTER_HEAD = frozenset(("to", "in", "at", "on", "with", "for", "from", "of", "next", "this", "tomorrow", "soon"))
# Words that open what someone does in "someone who…" and say nothing of it ("is", "just", "wants to").
_WHO_SKIPS = frozenset(("is", "are", "'s", "just", "really", "currently", "soon", "about", "going", "planning"))
_WHO_SKIPS |= {"trying", "hoping", "wants", "want", "would", "like", "plans", "hopes", "needs", "to", "has", "have"}
_YOURS = {"their": "your", "they": "you", "them": "you", "themselves": "yourself", "they're": "you're"}


def _someone(words: list[str]) -> str:
    """What someone does or wants to do, as a task: "is starting college" → "start college", "wants to learn
    guitar" → "learn guitar", "is new to running" → "start running"; "" when no verb the lexicon knows opens it."""
    words = [_YOURS.get(w.lower(), w) for w in words]
    while words and words[0].lower() in _WHO_SKIPS:
        words = words[1:]
    if len(words) > 2 and words[0].lower() == "new" and words[1].lower() == "to":  # "is new to running"
        words = ["start" if words[2].endswith("ing") else "get started with", *words[2:]]
    if words and len(words[0]) > 4 and words[0].lower().endswith("ing"):
        words[0] = troubles.base(words[0])
    return " ".join(words) if words and words[0].lower() in LEXICON.verbs else ""


# A letter's occasion, by the words of the request (the first that matches): what its body says is the occasion's.
_OCCASIONS = (
    ("invitation", ("invitation", "invite", "inviting")),
    ("thanks", ("thank-you", "thank you", "thanks", "thanking", "gratitude", "appreciation")),
    ("apology", ("apology", "apologize", "apologise", "apologizing", "apologising", "sorry")),
    ("birthday", ("birthday",)),
    ("congratulations", ("congratulat", "promotion", "graduation", "engagement", "new baby")),
    ("sympathy", ("condolence", "sympathy", "passing", "loss of", "bereavement")),
    ("get-well", ("get well", "get-well", "recovery", "feel better", "in hospital")),
    ("farewell", ("farewell", "goodbye", "leaving", "retirement", "retiring")),
    ("welcome", ("welcome", "welcoming")),
)
# What a letter for an occasion is read as: the subject its reasoning names, with {r} what it is for.
_OCCASION_SUBJECTS = {
    "thanks": "thanks for {r}",
    "apology": "an apology for {r}",
    "birthday": "a happy birthday",
    "congratulations": "congratulations on {r}",
    "sympathy": "sympathy for {r}",
    "get-well": "wishes for a quick recovery",
    "farewell": "a goodbye",
    "welcome": "a welcome to {r}",
}
_FORMAL = ("formal", "customer", "client", "professor", "manager", "boss", "landlord", "council", "company")
_THEIRS = re.compile(r"^(?:(?:a|an|the|my|our|his|her|their)\s+)?[\w-]+'s\s+", _I)  # "a coworker's promotion"
_EVENT = re.compile(r"\b(?:to|for) (?P<e>(?:my|our|a|the) .+)", _I)  # "to my housewarming party"


def occasion(low: str) -> str:
    """The occasion a letter asked for is written for ("thanks", "birthday"…), from the request in lower case."""
    return next((name for name, cues in _OCCASIONS if any(c in low for c in cues)), "")


def occasion_letter(occasion: str, about: str, rest: str, recipient: str, low: str) -> Ask:
    """A letter for `occasion` to `recipient`, `about` what it says it is for ("helping me with my exams"), kept in
    the writer's own words (its `source`); an invitation's event from "to my housewarming party"."""
    about = _THEIRS.sub("your ", about.strip(" .!?")) if about else ""
    if occasion == "invitation":
        event = about or (m["e"].strip(" .!?") if (m := _EVENT.search(rest)) else "")
        return Ask("email", flip(event) or "a get-together", source=event, recipient="friends", register="friendly")
    register = "formal" if any(w in low for w in _FORMAL) else "friendly"
    said = _OCCASION_SUBJECTS[occasion]
    if not about and "{r}" in said:  # "thanks for {r}" with nothing said it is for: "thanks"
        said = said.split(" {r}")[0].rsplit(" ", 1)[0]
    subject = said.format(r=flip(about))
    return Ask("email", subject, other=occasion, source=about, recipient=recipient, register=register)


def sights(text: str, low: str) -> str:
    """The place a question asks what to do or see in ("Things to do in Lisbon?", "Where should we go in Buenos
    Aires?"), or ""."""
    m = _SIGHTS.match(text) if " in " in low else None
    return m["p"] if m and m["p"][:1].isupper() else ""


# What to do or see in a place, however it is asked; the place is a name (checked by its capital letter), so "what
# should I do in an emergency" is no trip.
_SIGHTS = re.compile(
    r"(?:(?:what are |what're |any |give me |list |suggest |recommend )?(?:some |the |a few |\w+ )?"
    r"(?:best |fun |good |top |great |cool |cheap |free |must-see |interesting )?(?:things|places|sights|activities"
    r"|attractions) to (?:do|see|visit|go to)|what (?:should|can|could|would|do) (?:i|we) (?:do|see|visit)"
    r"|what to (?:do|see|visit)|where (?:should|can|could|do) (?:i|we) go|where to go) in (?P<p>.+?)[.?!]*$",
    _I,
)
