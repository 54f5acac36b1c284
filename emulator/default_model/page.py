"""One answer being written: its slots, its dice, and what it has said (see `writer`).

Every choice is a face of the answer's dice, and no frame is used twice in an answer, so the same conversation
gets the same words and one answer never repeats a sentence.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from emulator.default_model import grammar
from emulator.default_model.ask import Ask
from emulator.default_model.grammar import Slots, fill
from emulator.default_model.lexicon import LEXICON, Domain

Dice = Iterator[int]
FRAMES, VERSE, LETTERS = LEXICON.frames, LEXICON.verse, LEXICON.letters


class Page:
    """One answer being written: its slots, its dice, and the frames it has used (never used twice)."""

    def __init__(self, ask: Ask, domain: Domain, dice: Dice, people: Sequence[str] = ()) -> None:
        subject = ask.subject or "this"
        head = subject.split()[-1] if subject.split() else subject
        fixed = {"subject": subject, "other": ask.other, "task": ask.task or f"work on {subject}", "head": head}
        fixed["recipient"] = ask.recipient or "the reader"
        fixed["heads"] = grammar.plural(head) if head.isalpha() and not grammar.is_plural(head) else head
        self.ask, self.domain, self.dice, self.people = ask, domain, dice, people
        self.slots = Slots(fixed, domain.lists, dice)
        self.used: set[str] = set()

    def roll(self, n: int) -> int:
        return next(self.dice) % n if n > 0 else 0

    def pick(self, options: Sequence[str]) -> str:
        """One of `options` not used yet in this answer (the first of them again if all were)."""
        fresh = [o for o in options if o not in self.used] or list(options)
        chosen = fresh[self.roll(len(fresh))]
        self.used.add(chosen)
        return chosen

    def say(self, section: str) -> str:
        """A sentence from the frames of `section`, filled."""
        return fill(self.pick(FRAMES[section]), self.slots)

    def fresh(self, name: str) -> str:
        """A new value of the domain's list `name` for the slot `{name}`, unlike those said before."""
        options = self.domain.lists[name]
        value = self.pick([o for o in options if o not in self.used] or options)
        kept = {k: v for k, v in self.slots.items() if k.lower() != name}  # "{Aspect}" too: it names the old one
        self.slots = Slots({**kept, name: value}, self.domain.lists, self.dice)
        return value

    def of_subject(self, sentence: str) -> str:
        """A domain sentence written about "it", said of the subject ("They give…" for a plural one)."""
        if self.slots["it"] == "they" and sentence.startswith("It "):
            verb, _, rest = sentence[3:].partition(" ")
            return f"They {grammar.agree(verb, True)} {rest}"
        return sentence
