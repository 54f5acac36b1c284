"""The default model's stories and letters (their paragraphs are in `lexicon/letters.txt`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from emulator.default_model.grammar import capital, fill
from emulator.default_model.page import LETTERS, Page


def story(page: Page, places: Sequence[str]) -> str:
    """A setting, then one arc in four paragraphs (trouble, attempt, turn, ending): the arc the subject suggests
    ("who learns to paint": making something; "a lost dog": a search), else the dice's; the hero and the friend
    from faker's names, the town from its places. "An old fisherman and a seagull": the second keeps the hero
    company."""
    people = list(page.people) or ["Mara", "Tomas"]
    hero = people[page.roll(len(people))]
    friend = next((p for p in people[page.roll(len(people)) :] + people if p != hero), "Sam")
    town = places[page.roll(len(places))] if places else "Port Ellis"
    who, _, company = page.slots["subject"].partition(" and ")
    slots = page.slots.adding({"subject": who, "hero": hero, "friend": friend, "town": town}, lists={})
    arcs = len(LETTERS["story-trouble"])
    low = who.lower()
    arc = next((i for i, cue in _ARCS if cue.search(low)), page.roll(arcs)) % arcs
    setting = fill(page.pick(LETTERS["story-setting"]), slots)
    if company:
        setting += f" Most days, {company} kept {hero} company."
    arc_parts = [fill(LETTERS[part][arc], slots) for part in ("story-trouble", "story-attempt", "story-turn")]
    return f"**{_title(page)}**\n\n" + "\n\n".join([setting, *arc_parts, fill(LETTERS["story-ending"][arc], slots)])


def names(subject: str) -> str:
    """Which of faker's first names suit the hero of a story about `subject`: a boy, a man, a king → its male
    names ("first_name_male"); a girl, a woman, a queen → its female ones; anyone or anything else → either."""
    who = re.split(r"\b(?:who|that|and|with)\b", subject.lower(), maxsplit=1)[0]
    for word in re.findall(r"[a-z]+", who):
        if word in _MALE:
            return "first_name_male"
        if word in _FEMALE:
            return "first_name_female"
    return "first_name"


_MALE = frozenset(
    [
        "boy",
        "man",
        "father",
        "dad",
        "king",
        "prince",
        "son",
        "brother",
        "grandfather",
        "grandpa",
        "uncle",
        "husband",
        "gentleman",
        "fisherman",
        "monk",
        "nephew",
        "lad",
        "he",
        "him",
        "his",
        "schoolboy",
        "widower",
        "businessman",
        "policeman",
        "fireman",
    ]
)
_FEMALE = frozenset(
    [
        "girl",
        "woman",
        "mother",
        "mom",
        "mum",
        "queen",
        "princess",
        "daughter",
        "sister",
        "grandmother",
        "grandma",
        "granny",
        "aunt",
        "wife",
        "lady",
        "nun",
        "niece",
        "lass",
        "she",
        "her",
        "schoolgirl",
        "widow",
        "businesswoman",
        "policewoman",
        "fisherwoman",
    ]
)


# Which arc (the n-th line of each arc's section, lexicon/letters.txt) a subject suggests.
_ARCS = (
    (2, re.compile(r"\b(?:learns?|learning|builds?|makes?|paints?|bakes?|writes?|invents?|practis|practic|wants? to)")),
    (0, re.compile(r"\b(?:lost|loses|finds?|search|missing|home|way back|treasure|secret)\b")),
    (3, re.compile(r"\b(?:friends?|neighbou?rs?|strangers?|rivals?|new)\b")),
)


def _title(page: Page) -> str:
    words = page.slots["subject"].split()
    if words and words[0].lower() in ("a", "an", "the", "your", "my"):
        words = words[1:]
    return "The " + " ".join(capital(w) if w not in ("who", "to", "its", "a", "the", "of", "and") else w for w in words)


_PURPOSES = (
    ("complaint", ("broken", "not working", "repair", "leak", "problem", "complain", "noise", "refund", "heater")),
    ("request", ("day off", "leave", "asking", "request", "permission", "raise", "extension", "time off")),
    ("invitation", ("invite", "inviting", "lunch", "dinner", "party", "join", "celebrat")),
)


def email(page: Page, places: Sequence[str]) -> str:
    ask = page.ask
    about = page.slots["subject"]
    text = f"{ask.source} {about} {ask.recipient}".lower()
    purpose = next((p for p, cues in _PURPOSES if any(c in text for c in cues)), "other")
    if ask.task:  # asking them to do something: the clause in the writer's own words ("fix my boiler")
        purpose, about = "ask", _MINE.sub(lambda m: _OWN[m.group()], ask.task)
    if purpose == "other" and ask.recipient in ("team", "friends", "everyone"):
        purpose = "invitation"
    if purpose == "invitation":  # the writer's own event, as they said it: "my housewarming party", "our barbecue"
        about = ask.source or _MINE.sub(lambda m: _OWN[m.group()], about)
    people = list(page.people) or ["Alex Morgan", "Sam Lee"]
    sender = people[page.roll(len(people))]
    if ask.recipient in ("team", "friends", "everyone", "colleagues", "family"):
        greeting = "Hi everyone,"
    elif ask.register == "friendly" and ask.recipient in _FAMILY:  # "Hi Grandma,": a family's name for them
        greeting = f"Hi {_FAMILY[ask.recipient]},"
    elif ask.register == "friendly":
        greeting = f"Hi {people[page.roll(len(people))].split()[0]},"
    else:
        greeting = f"Dear {ask.recipient.capitalize() or 'Sir or Madam'},"
    slots = {**page.slots.known(), "about": about}
    if ask.other in _REASONS:  # an occasion: thanks, an apology, a birthday…; {reason} what it is for
        purpose = ask.other
        slots["reason"] = ask.source or _REASONS[purpose]
    body = "\n\n".join(fill(line, slots) for line in LETTERS[f"letter-{purpose}"])
    sign = "Best wishes," if ask.register == "friendly" else "Kind regards,"
    title = f"Request to {about}" if ask.task else capital(about)
    if purpose in _REASONS:
        title = fill(LETTERS["letter-subjects"][list(_REASONS).index(purpose)], slots)
    return f"Subject: {title}\n\n{greeting}\n\n{body}\n\n{sign}\n{sender}"


# What a letter for an occasion is for when the request does not say, by occasion (lexicon/letters.txt's
# [letter-subjects] gives their subject lines in this order).
_REASONS = {
    "thanks": "all your help",
    "apology": "the trouble I caused",
    "birthday": "your birthday",
    "congratulations": "your wonderful news",
    "sympathy": "your loss",
    "get-well": "your recovery",
    "farewell": "all the time we have worked together",
    "welcome": "the team",
}
_FAMILY = {"mom": "Mom", "mum": "Mum", "mother": "Mom", "dad": "Dad", "father": "Dad", "grandma": "Grandma"}
_FAMILY |= {"grandmother": "Grandma", "grandpa": "Grandpa", "grandfather": "Grandpa", "nan": "Nan", "granny": "Granny"}
_MINE = re.compile(r"\byours?\b|\byourself\b")
_OWN = {"your": "my", "yours": "mine", "yourself": "myself"}
