"""The list form: "Name three fruits", "List 10 reasons to learn Python", "What are 6 benefits of cycling?".

What a list names decides how it is written: the members of a category the table knows (`members`); points in
favour (benefits, reasons, advantages) from the frames of `list-item`, said of the subject ("learning Python");
what goes wrong (mistakes, risks, drawbacks) from `risk-item`. Things of a kind the tables do not hold ("rivers of
Chad") get an honest line rather than made-up names. The count asked is the count given as far as the frames go
without repeating one, and the opening says how many there are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from emulator.default_model import members
from emulator.default_model.grammar import capital, fill, participle
from emulator.default_model.page import FRAMES, Page

_FOR = frozenset(("benefits", "advantages", "reasons", "pros", "perks", "upsides", "strengths", "merits", "plus"))
_USES = frozenset(("uses", "applications", "purposes"))
_MISTAKES = frozenset(("mistakes", "pitfalls", "errors", "traps"))
_AGAINST = frozenset(("risks", "dangers", "drawbacks", "disadvantages", "cons", "downsides", "problems", "costs"))
_PRAISE = frozenset(
    ("common", "main", "top", "key", "good", "great", "biggest", "important", "major", "best", "typical", "frequent")
)
_COUNTED = re.compile(
    r"^(?:the\s+)?(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|some|a few)?\s*(?:the\s+)?",
    re.I,
)


def listed(page: Page, places: Sequence[str]) -> str:
    category = members.asked(page.ask)
    if category is not None:  # "Name three fruits", "List the planets": the members themselves
        return members.listed(page, category)
    head, subject = _head(page.ask.other, page.ask.subject)
    if head in _FOR:
        return _points(page, "list-item", head, subject)
    if head in _USES:
        return _uses(page, head, subject)
    if head in _MISTAKES:
        return _points(page, "risk-item", head, subject)
    if head in _AGAINST:
        return _against(page, head, subject)
    return _unknown(page)


def _head(other: str, subject: str) -> tuple[str, str]:
    """What the list names ("reasons") and what it is about ("learning Python"): from `other` and `subject` as
    `forms` reads them ("benefits" of "cycling to work"), or from the subject alone ("reasons to learn Python")."""
    if other:
        words = [w for w in other.lower().split() if w not in _PRAISE]
        return (words[-1] if words else ""), subject
    words = subject.split()
    while words and (words[0].lower() in _PRAISE or _COUNTED.fullmatch(words[0] + " ")):
        words.pop(0)
    if not words:
        return "", subject
    head, rest = words[0].lower(), words[1:]
    if len(rest) > 1 and rest[0] == "to":  # "reasons to learn Python": about learning Python
        return head, " ".join([participle(rest[1]), *rest[2:]])
    if rest and rest[0] in ("of", "for", "with", "in", "about", "when", "why"):
        rest = rest[1:]
    return head, " ".join(rest) or subject


def _points(page: Page, section: str, head: str, subject: str) -> str:
    frames = FRAMES[section]
    asked = page.ask.count
    count = min(asked or 3 + page.roll(2), len(frames))
    if subject:
        page.slots.add({"subject": subject, "Subject": capital(subject)})
    items = []
    for _ in range(count):
        page.fresh("aspect")
        label, _, point = page.say(section).partition(": ")
        items.append(f"- **{label}**: {point}")
    close = page.say("list-close" if section == "list-item" else "risk-close")
    return f"{_opening(page, head, subject, count)}\n\n" + "\n".join(items) + f"\n\n{close}"


def _uses(page: Page, head: str, subject: str) -> str:
    """Uses: what the domain's things are for, said of the subject, as many as asked and it has."""
    purposes = page.domain.lists["purpose"]
    count = min(page.ask.count or 3, len(purposes))
    if subject:
        page.slots.add({"subject": subject, "Subject": capital(subject)})
    items = [f"- **To {page.pick(purposes)}**: {page.say('use-item')}" for _ in range(count)]
    close = f"Which one fits best depends on what you need {page.slots['subject']} to do."
    return f"{_opening(page, head, subject, count)}\n\n" + "\n".join(items) + f"\n\n{close}"


def _against(page: Page, head: str, subject: str) -> str:
    """Drawbacks and risks: the domain's points against, said of the subject, as many as asked and it has."""
    cons = page.domain.lists["con"]
    asked = page.ask.count
    count = min(asked or len(cons), len(cons))
    if subject:
        page.slots.add({"subject": subject, "Subject": capital(subject)})
    items = [f"- {page.of_subject(fill(page.pick(cons), page.slots))}" for _ in range(count)]
    return f"{_opening(page, head, subject, count)}\n\n" + "\n".join(items) + f"\n\n{page.say('risk-close')}"


def _opening(page: Page, head: str, subject: str, count: int) -> str:
    """ "Here are five reasons to learn Python:", the count as given; fewer than asked said so."""
    task = _COUNTED.sub("", page.ask.task or f"{head} of {subject}").strip(" .?!")
    if page.ask.count > count:  # more than the frames hold: said, not padded with repeats
        return f"Here are the {members.number(count)} {task} that matter most; more would only repeat them:"
    return f"Here are {members.number(count)} {task}:"


def _unknown(page: Page) -> str:
    """An honest line for a list of things the tables do not hold: no names made up."""
    said = _COUNTED.sub("", page.ask.task or page.ask.subject).strip(" .?!")
    return (
        f"I can't give you a dependable list of {said} from here: I answer offline from a small built-in table, "
        "and it does not cover that, so I won't make up names that could be wrong. A reference source will have "
        "it; if you paste the ones you find, I can sort, compare or shorten the list for you."
    )
