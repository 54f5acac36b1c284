"""The default model's recipes: "Give me a recipe for pancakes", "How do I make guacamole?".

A dish in the table of lexicon/recipes.txt gets its recipe: a one-line opening, the ingredients with their
amounts, numbered steps and a tip. Any other dish gets the general method of its kind (a batter, a soup, a
stew…), told by the last word of its name ("chicken tikka masala" is a stew by "masala"), naming the dish in
its steps and saying plainly that it gives no amounts it cannot know.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from emulator.default_model import grammar
from emulator.default_model.grammar import Slots, capital, fill
from emulator.default_model.lexicon import sections
from emulator.default_model.page import Page


@dataclass(frozen=True, slots=True)
class Dish:
    """A dish of the table, as lexicon/recipes.txt describes it."""

    name: str
    meals: frozenset[str]
    summary: str
    serves: str
    time: str
    ingredients: tuple[str, ...]
    steps: tuple[str, ...]
    tip: str


@dataclass(frozen=True, slots=True)
class Kind:
    """A kind of dish and its general method: `about` frames, what it is usually made of (`need`), `steps`, `tips`."""

    name: str
    about: tuple[str, ...]
    need: tuple[str, ...]
    steps: tuple[str, ...]
    tips: tuple[str, ...]


def _fields(lines: Sequence[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in lines:
        key, _, value = line.partition(":")
        found.setdefault(key.strip(), []).append(value.strip())
    return found


def _load() -> tuple[Mapping[str, Dish], Mapping[str, Kind], Mapping[str, Kind], Mapping[str, tuple[str, ...]]]:
    dishes: dict[str, Dish] = {}
    kinds: dict[str, Kind] = {}
    by_word: dict[str, Kind] = {}
    frames: dict[str, tuple[str, ...]] = {}
    for title, lines in sections("recipes").items():
        sort, _, name = title.partition(" ")
        if sort == "dish":
            f = _fields(lines)
            meals = frozenset(m.strip() for m in f["meal"][0].split("|"))
            dish = Dish(
                name,
                meals,
                f["summary"][0],
                f["serves"][0],
                f["time"][0],
                tuple(f["ingredient"]),
                tuple(f["step"]),
                f["tip"][0],
            )
            for alias in " | ".join(f["names"]).split(" | "):
                dishes[alias.strip().lower()] = dish
        elif sort == "kind":
            f = _fields(lines)
            kind = Kind(name, tuple(f["about"]), tuple(f["need"]), tuple(f["step"]), tuple(f["tip"]))
            kinds[name] = kind
            for word in " | ".join(f.get("words", [])).split(" | "):
                if word.strip():
                    by_word[word.strip().lower()] = kind
        elif sort == "diet":
            frames.update({f"diet {diet}": tuple(said) for diet, said in _fields(lines).items()})
        else:
            frames[title] = lines
    return dishes, kinds, by_word, frames


DISHES, KINDS, KIND_WORDS, FRAMES = _load()

# Words of a request that do not change which dish it is ("an easy homemade lasagna" is a lasagna).
_FILLERS = frozenset(
    ["a", "an", "the", "some", "my", "your", "our", "easy", "simple", "quick", "quickest", "easiest", "good", "great"]
    + ["best", "perfect", "classic", "traditional", "authentic", "basic", "delicious", "tasty", "nice", "proper"]
    + ["homemade", "home-made", "really", "very", "favorite", "favourite", "own", "decent"]
)
# Where a dish's name ends and what is said of it begins: "pancakes from scratch", "curry for four people".
_END = re.compile(r"\s+(?:from|for|at|in|without|using|that|which|so|like|on|tonight|today|please)\b.*$", re.I)
_WITHOUT = re.compile(r"\b(?:without|no|instead of|minus)\b|\w-free\b", re.I)
# What a "recipe for" that is no dish is for: "a recipe for success", "a recipe for disaster".
_NOT_FOOD = frozenset(("success", "disaster", "happiness", "failure", "chaos", "trouble", "love", "life", "peace"))


@dataclass(frozen=True, slots=True)
class Found:
    """A requested dish: its name as the answer says it, the table's dish if it has one, else its kind."""

    name: str
    dish: Dish | None
    kind: Kind | None


@functools.lru_cache(maxsize=512)
def find(phrase: str) -> Found:
    """The dish `phrase` names: "easy homemade pancakes" → the table's pancakes; "vegan pancakes" → a dish of
    the batter kind (no table dish: its ingredients would not be vegan); "bibimbap" → no kind known."""
    said = _END.sub("", phrase.strip(" .?!\"'")).strip(" ,;:.?!")
    words = [w for w in said.lower().replace("’", "'").split() if w not in _FILLERS]
    key = " ".join(words)
    dish = None if _WITHOUT.search(phrase) else DISHES.get(key)  # "bread without yeast" is not the table's loaf
    if dish is not None:
        return Found(dish.name, dish, None)
    head = key.split(" with ", 1)[0].split()
    kind = KIND_WORDS.get(head[-1]) if head else None
    if kind is None and head:
        kind = KIND_WORDS.get(grammar.singular(head[-1]))
    if _WITHOUT.search(phrase):  # the name keeps what it is made without: "bread without yeast"
        said = phrase.strip(" ,;:.?!\"'")
    named = [w for w in said.split() if w.lower() not in _FILLERS]
    article = said.split()[0].lower() if said else ""
    if article in ("a", "an") and named and not _many(named[-1]):  # "a carrot cake", as asked
        named = [grammar.article(" ".join(named)).split(" ", 1)[0], *named]
    return Found(" ".join(named) or said, None, kind)


def _many(word: str) -> bool:
    """Whether a dish's name ending in `word` is plural ("pancakes" is; "salmon" and "hummus" are not)."""
    return word.endswith("s") and grammar.is_plural(word)


def is_dish(phrase: str) -> bool:
    """Whether `phrase` names a dish this module knows, by the table or by its kind (what a how-to's object must
    be for "How do I make X?" to get a recipe)."""
    found = find(phrase)
    return found.dish is not None or found.kind is not None


def is_food(phrase: str) -> bool:
    """Whether a "recipe for `phrase`" is one for food: anything but "success", "disaster" and their like."""
    return not _NOT_FOOD.intersection(w.strip(".,!?").lower() for w in phrase.split())


def recipe(page: Page, places: Sequence[str]) -> str:
    """A recipe for the dish `page.ask.subject` names: the table's, or the general method of its kind; or, asked
    what to cook (`Ask.other` "suggest"), a few dishes of the table to choose from."""
    if page.ask.other == "suggest":
        return _suggest(page)
    found = find(page.ask.subject)
    many = _many(found.name.split()[-1])
    facts = {"subject": found.name, "dish": found.name, "is": "are" if many else "is", "them": "them" if many else "it"}
    if found.dish is not None:
        dish = found.dish
        slots = Slots({**facts, "serves": dish.serves, "time": dish.time}, page.domain.lists, page.dice)
        opening = fill(page.pick(FRAMES["open"]), slots)
        ingredients = "\n".join(f"- {capital(i)}" for i in dish.ingredients)
        steps = "\n".join(f"{n}. {s}" for n, s in enumerate(dish.steps, 1))
        return f"{opening}\n\n**Ingredients**\n\n{ingredients}\n\n**Method**\n\n{steps}\n\n**Tip:** {dish.tip}"
    kind = found.kind or KINDS["dish"]
    left = _LEFT_OUT.search(found.name)  # "bread without yeast": what the usual method has, and this leaves out
    slots = Slots({**facts, "left": left["x"] if left else ""}, page.domain.lists, page.dice)
    opening = f"{fill(page.pick(FRAMES['open-kind']), slots)} {fill(page.pick(kind.about), slots)}"
    if left:
        opening += f" {fill(FRAMES['left-out'][0], slots)}"
    need = "\n".join(f"- {capital(n)}" for n in kind.need if not left or left["x"].lower() not in n.lower())
    steps = "\n".join(f"{n}. {fill(s, slots)}" for n, s in enumerate(kind.steps, 1))
    diet = next((FRAMES[f"diet {w}"][0] for w in found.name.lower().split() if f"diet {w}" in FRAMES), "")
    tip = f"{page.pick(kind.tips)} {fill(diet or page.pick(FRAMES['close-kind']), slots)}"
    return f"{opening}\n\n**What you will need**\n\n{need}\n\n**Method**\n\n{steps}\n\n**Tip:** {tip}"


_LEFT_OUT = re.compile(r"\b(?:without|no|minus) (?:any )?(?P<x>[a-z]+(?: [a-z]+)?)$", re.I)
_TABLE = tuple(dict.fromkeys(DISHES.values()))  # each dish once, in the file's order
_MAIN = frozenset(("breakfast", "lunch", "dinner"))  # a meal, when the question names none


def _suggest(page: Page) -> str:
    """What to cook (`Ask.source` the meal, `Ask.task` what the user has to cook with): four dishes of the table
    for that meal, those using what they have first, each with what it is and how long it takes."""
    meal, having = page.ask.source, frozenset(w.strip(",.").lower() for w in page.ask.task.split()) - _JOINING
    fits = [d for d in _TABLE if meal in d.meals or not meal and d.meals & _MAIN] or list(_TABLE)
    chosen: list[Dish] = []
    while fits and len(chosen) < 4:  # the dishes that use most of what they have, a face of the dice among equals
        most = max(_uses(d, having) for d in fits)
        best = [d for d in fits if _uses(d, having) == most]
        chosen.append(fits.pop(fits.index(best[page.roll(len(best))])))
    lines = "\n".join(f"- **{capital(d.name)}** (about {d.time}): {d.summary}." for d in chosen)
    said = f" with {page.ask.task}" if page.ask.task else f" for {meal}" if meal else ""
    slots = Slots({"subject": meal or "a meal", "for_meal": said}, page.domain.lists, page.dice)
    opening, closing = fill(page.pick(FRAMES["suggest-open"]), slots), page.pick(FRAMES["suggest-close"])
    return f"{opening}\n\n{lines}\n\n{closing}"


_JOINING = frozenset(("and", "some", "a", "an", "the", "or", "of", "leftover", "leftovers"))


def _uses(dish: Dish, having: frozenset[str]) -> int:
    """How many of the foods the user has (`having`) the dish's ingredients name."""
    return sum(any(h in i.lower() for i in dish.ingredients) for h in having)
