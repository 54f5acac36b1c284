"""One answer being written: its slots, its dice, and what it has said (see `writer`).

Every choice is a face of the answer's dice, and no frame is used twice in an answer, so the same conversation
gets the same words and one answer never repeats a sentence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from emulator.default_model import grammar
from emulator.default_model.ask import Ask
from emulator.default_model.grammar import Slots, fill
from emulator.default_model.lexicon import LEXICON, Domain

Dice = Iterator[int]
_VERB = re.compile(r"\{v:([^{}]+)\}")  # a verb of a frame, said in agreement with the subject
FRAMES, VERSE, LETTERS = LEXICON.frames, LEXICON.verse, LEXICON.letters
Slots.agreeing(
    {verb for said in (FRAMES, VERSE, LETTERS) for frames in said.values() for verb in _VERB.findall(" ".join(frames))}
)


class Page:
    """One answer being written: its slots, its dice, and the frames it has used (never used twice)."""

    __slots__ = ("ask", "dice", "domain", "people", "slots", "used")

    def __init__(self, ask: Ask, domain: Domain, dice: Dice, people: Sequence[str] = ()) -> None:
        self.ask, self.domain, self.dice, self.people = ask, domain, dice, people
        self.slots = Slots(fixed(ask), domain.lists, dice)
        self.used: set[str] = set()

    def roll(self, n: int) -> int:
        return next(self.dice) % n if n > 0 else 0

    def pick(self, options: Sequence[str]) -> str:
        """One of `options` not used yet in this answer (the first of them again if all were)."""
        used = self.used
        fresh = options if used.isdisjoint(options) else [o for o in options if o not in used] or list(options)
        n = len(fresh)  # `roll`, written out: a dozen picks an answer
        chosen = fresh[next(self.dice) % n] if n > 0 else fresh[0]
        used.add(chosen)
        return chosen

    def say(self, section: str) -> str:
        """A sentence from the frames of `section`, filled: `fill(self.pick(FRAMES[section]), self.slots)`, the
        pick written out as in `paragraph` (a call of it for one section cost more than the pick)."""
        options, used = FRAMES[section], self.used
        fresh = options if used.isdisjoint(options) else [o for o in options if o not in used] or options
        chosen = fresh[next(self.dice) % len(fresh)]
        used.add(chosen)
        return fill(chosen, self.slots)

    def paragraph(self, *sections: str) -> str:
        """A sentence from the frames of each of `sections` in turn, filled, joined: `say` each, with `say` and
        `pick` written out and the page's attributes read once. A copy on purpose: `" ".join` of `say` for each paid
        a call and the attribute reads again for every sentence of an answer, and `say` calling this paid more again
        a sentence."""
        used, dice, slots, said = self.used, self.dice, self.slots, []
        for section in sections:
            options = FRAMES[section]
            fresh = options if used.isdisjoint(options) else [o for o in options if o not in used] or options
            chosen = fresh[next(dice) % len(fresh)]
            used.add(chosen)
            said.append(fill(chosen, slots))
        return " ".join(said)

    def fresh(self, name: str) -> str:
        """A new value of the domain's list `name` for the slot `{name}`, unlike those said before."""
        options = self.domain.lists[name]
        value = self.pick([o for o in options if o not in self.used] or options)
        self.slots.renew(name, value)
        return value

    def of_subject(self, sentence: str) -> str:
        """A domain sentence written about "it", said of the subject ("They give…" for a plural one)."""
        if self.slots["it"] == "they" and sentence.startswith("It "):
            verb, _, rest = sentence[3:].partition(" ")
            return f"They {grammar.agree(verb, True)} {rest}"
        return sentence


def fixed(ask: Ask) -> dict[str, str]:
    """What a page's slots say of `ask` before anything is drawn; the same dict for the same `Ask` as the last (the
    reasoning and the answer of a request write from one, and `Slots` only reads it)."""
    last = _LAST[0]
    if last is None or last[0] is not ask:
        subject = ask.subject or "this"
        words = subject.split()
        head = words[-1] if words else subject
        fixed = {"subject": subject, "other": ask.other, "task": ask.task or f"work on {subject}", "head": head}
        fixed["Subject"] = grammar.capital(subject)  # most answers open a sentence on it
        fixed["recipient"] = ask.recipient or "the reader"
        fixed["heads"] = grammar.plural(head) if head.isalpha() and not grammar.is_plural(head) else head
        last = _LAST[0] = (ask, fixed)
    return last[1]


_LAST: list[tuple[Ask, dict[str, str]] | None] = [None]
