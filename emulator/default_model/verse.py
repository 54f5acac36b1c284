"""The default model's verse: a haiku of 5-7-5 syllables, a limerick rhyming AABBA on a word of its subject, a
poem in stanzas (the lines are in `lexicon/verse.txt`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from emulator.default_model.grammar import capital, fill
from emulator.default_model.page import VERSE, Page

_VOWELS = re.compile(r"[aeiouy]+")


def syllables(phrase: str) -> int:
    """An estimate of `phrase`'s syllables: vowel groups, less a silent final e (used to fit a haiku's line)."""
    total = 0
    for word in re.findall(r"[a-z]+", phrase.lower()):
        count = len(_VOWELS.findall(word))
        if word.endswith("e") and not word.endswith(("le", "ee", "ye")) and count > 1:
            count -= 1
        if re.search(r"[aeiou](?:ia|io|ea)", word) or re.search(r"[^aeiou](?:ia|io)(?!n)", word):
            count += 1
        total += max(1, count)
    return total


def haiku(page: Page, places: Sequence[str]) -> str:
    subject = page.slots["subject"]
    count = syllables(subject)
    if count <= 4:
        first = f"{capital(subject)} {page.pick(VERSE[f'haiku-tail-{5 - count}'])}" if count < 5 else capital(subject)
    else:
        first = capital(page.pick(VERSE["haiku-5"]))
    said = set(first.lower().split())
    middle = _unlike(page, VERSE["haiku-7"], said)
    last = _unlike(page, VERSE["haiku-5"] + VERSE["haiku-end"], said | set(middle.split()))
    return f"**{capital(subject)}**\n\n{first}\n{middle}\n{last}"


_SMALL = frozenset(("a", "the", "and", "of", "on", "in", "i", "is", "at"))


def _unlike(page: Page, lines: Sequence[str], said: set[str]) -> str:
    """A line sharing no word (but small ones) with what the poem has said, if there is one."""
    fresh = [line for line in lines if not (set(line.split()) - _SMALL) & said]
    return page.pick(fresh or lines)


def limerick(page: Page, places: Sequence[str]) -> str:
    """Five lines rhyming AABBA on a word of the subject where the rhyme table has one ("There once was a sleepy
    owl"), else on a rhyme the dice choose, the subject named in the first line."""
    subject = page.slots["subject"]
    rhymes = _RHYMES
    said = [w.lower().strip(".,'\"") for w in subject.split()]
    found = next((r for word in reversed(said) for r in rhymes if word in r[0]), None)
    if found is not None:
        first, words = f"There once was {subject}", {said[-1]}
    else:
        found = rhymes[page.roll(len(rhymes))]
        first, words = f"There once was {subject} {found[1]}", {found[1].split()[-1]}
    second = _fresh(page, found[2], words)
    fifth = _fresh(page, found[3], words)
    three, four = (line.strip() for line in page.pick(VERSE["limerick-b"]).split("|"))
    return "\n".join((capital(first) + ",", second + ",", three, four, fifth + "."))


def _fresh(page: Page, lines: Sequence[str], said: set[str]) -> str:
    """One of `lines` whose rhyme word is not said yet; the word is then said."""
    line = page.pick([line for line in lines if line.split()[-1] not in said] or lines)
    said.add(line.split()[-1])
    return line


# The rhyme table (lexicon/verse.txt): each A rhyme's words, its first line's tail, its who-lines and and-lines.
_RHYMES = tuple(
    (
        frozenset(words.split()),
        tail.strip(),
        tuple(w.strip() for w in who.split(" / ")),
        tuple(a.strip() for a in ands.split(" / ")),
    )
    for words, tail, who, ands in (line.split(" | ") for line in VERSE["limerick-rhymes"])
)


def poem(page: Page, places: Sequence[str]) -> str:
    stanzas = []
    for pool in ("poem-opening", "poem-middle", "poem-closing"):
        lines = VERSE[pool]
        start = 4 * page.roll(len(lines) // 4)
        stanzas.append("\n".join(fill(line, page.slots) for line in lines[start : start + 4]))
    return f"**{capital(page.slots['subject'])}**\n\n" + "\n\n".join(stanzas)
