"""The names the default model gives when asked for some ("names for a coffee shop", "what should I call my cat"):
each of the kind its subject's head noun names (`name-kinds` in `lexicon/`): a pet's name, a person's, a trade's
built from its trade's words (`name-trade`), a show's or a product's.
"""

from __future__ import annotations

from emulator.default_model.grammar import capital, fill
from emulator.default_model.page import FRAMES, Page


def name(page: Page) -> str:
    """One name for what the user names: a pet's name, a person's (a baby, a character), or a trade's, a
    product's or a show's, built from words of its trade where the subject has one (`name-trade`)."""
    head = name_for(page.ask.subject)
    if head in PETS:
        return f"**{page.pick(FRAMES['name-pet'])}**: {fill(page.pick(FRAMES['name-note-pet']), page.slots)}"
    if head in PERSONS and page.people:
        called = page.pick(page.people)
        return f"**{called}**: {fill(page.pick(FRAMES['name-note-person']), page.slots)}"
    words = trade_words(page.ask.subject) or FRAMES["name-noun"]
    modifier, word = page.pick(FRAMES["name-modifier"]), page.pick(words)
    pattern = page.roll(4)
    if pattern == 0:
        called = f"The {modifier} {word}"
    elif pattern == 1:
        called = f"{page.pick(FRAMES['name-noun'])} & {word}"
    elif pattern == 2 and head in PLACES and "name:street" not in page.used:  # "Mill Lane Bakery", once a list
        page.used.add("name:street")
        said = page.ask.subject.lower().split()
        before = said[said.index(head) - 1] if head in said and said.index(head) > 0 else ""
        trade = before if head in ("shop", "store", "bar", "house") and before.isalpha() else head
        called = f"{page.pick(FRAMES['name-street'])} {capital(trade)}"
    elif head in SHOWS:
        called = f"The {word} Hour" if page.roll(2) else f"Notes from the {word}"
    else:
        called = f"{modifier}{word.lower()}" if head in VENTURES else f"{modifier} {word}"
    return f"**{called}**: {fill(page.pick(FRAMES['name-note']), page.slots)}"


def name_for(subject: str) -> str:
    """The noun a name is for: the head of the subject's first phrase ("a small bakery in the old town": bakery)."""
    words = subject.lower().split()
    cut = next((i for i, w in enumerate(words) if w in _PREPOSITIONS and i > 0), len(words))
    return words[cut - 1].strip(".,!?") if cut else ""


_PREPOSITIONS = frozenset(FRAMES["name-kinds-end"][0].split())


def trade_words(subject: str) -> tuple[str, ...]:
    """The names `name-trade` lends to a subject by its words ("a coffee shop": Bean, Roast, …), or none."""
    words = set(subject.lower().replace("-", " ").split())
    for line in FRAMES["name-trade"]:
        cues, _, names = line.partition(": ")
        if words & set(cues.split()):
            return tuple(names.split())
    return ()


# What a name is for, by the head noun of the subject (`name-kinds`): each kind is named in its own way (`name`).
_KINDS = {kind: frozenset(words.split()) for kind, _, words in (line.partition(": ") for line in FRAMES["name-kinds"])}
PETS, PERSONS, PLACES, SHOWS, VENTURES = (_KINDS[k] for k in ("pet", "person", "place", "show", "venture"))


def of_trade(subject: str) -> bool:
    """Whether the names are a trade's, a place's or a show's: names someone may already own."""
    return name_for(subject) in VENTURES | PLACES | SHOWS
