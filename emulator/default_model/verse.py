"""The default model's verse: a haiku of 5-7-5 syllables, a limerick rhyming AABBA on a word of its subject, a
poem in stanzas (the lines are in `lexicon/verse.txt`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

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
    if 1 <= count <= 4:
        first = f"{capital(subject)} {page.pick(VERSE[f'haiku-tail-{5 - count}'])}"
    else:  # too long for a line of five, or no word to say (a subject of symbols only): a line of its own
        first = capital(page.pick(VERSE["haiku-5"]))
    said = set(first.lower().split())
    middle = _unlike(page, VERSE["haiku-7"], said)
    last = _unlike(page, VERSE["haiku-5"] + VERSE["haiku-end"], said | set(middle.split()))
    title = f"**{capital(subject)}**\n\n" if count else ""
    return f"{title}{first}\n{middle}\n{last}"


_SMALL = frozenset(("a", "the", "and", "of", "on", "in", "i", "is", "at"))


def _unlike(page: Page, lines: Sequence[str], said: set[str]) -> str:
    """A line sharing no word (but small ones) with what the poem has said, if there is one."""
    fresh = [line for line in lines if not (set(line.split()) - _SMALL) & said]
    return page.pick(fresh or lines)


def limerick(page: Page, places: Sequence[str]) -> str:
    """Five lines rhyming AABBA on a word of the subject where the rhyme table has one ("There once was a sleepy
    owl"), else on a rhyme and a tail the dice choose among those that keep the first line near eight to ten
    syllables; the middle couplet is about the subject's main noun, its third line five or six syllables."""
    subject = page.slots["subject"]
    said = [w.lower().strip(".,'\"") for w in subject.split()]
    found = next((r for r in _RHYMES if said and said[-1] in r.words), None)  # the line ends on its last word
    if found is not None:
        first, words = f"There once was {subject}", {said[-1]}
    else:
        placed = bool(_PLACED & set(said[1:]))  # "a dentist from Leeds": no second place ("from town")
        tails = [(r, tail) for r in _RHYMES for tail in r.tails if not placed or tail.split()[0] in ("who", "with")]
        lines = [(r, f"There once was {subject} {tail}") for r, tail in tails]
        if placed:  # "A dentist from Leeds, so the stories say"
            lines += [(r, f"{capital(subject)}, so the stories say") for r in _RHYMES if "say" in r.words]
        fits = [line for line in lines if 8 <= syllables(line[1]) <= 10]
        found, first = fits[page.roll(len(fits))] if fits else min(lines, key=lambda line: syllables(line[1]))
        words = {first.split()[-1]}
    second = _fresh(page, found.who, words)
    fifth = _fresh(page, found.ands, words)
    three, four = _couplet(page, found)
    return "\n".join((capital(first) + ",", second + ",", three + ",", four + ",", fifth + "."))


def _couplet(page: Page, rhyme: _Rhyme) -> tuple[str, str]:
    """Lines three and four, about the subject's main noun, the third of five or six syllables where one fits
    (four to seven next), their rhyme not the A rhyme."""
    the = _the(page.slots["subject"])
    slots = {"the": the, "The": capital(the)}
    pairs = [[fill(line.strip(), slots) for line in pair.split("|")] for pair in VERSE["limerick-b"]]
    pairs = [p for p in pairs if not ({_ending(p[0]), _ending(p[1])} & rhyme.endings)]
    for low, high in ((5, 6), (4, 7)):
        fits = [p for p in pairs if low <= syllables(p[0]) <= high]
        if fits:
            pairs = fits
            break
    three, four = page.pick(["|".join(p) for p in pairs]).split("|")
    return three, four


_PLACED = frozenset(["from", "in", "on", "at", "by", "near"])
_CUT = frozenset(["who", "that", "which", "with", "from", "in", "on", "and", "of", "at", "by", "named", "called"])
_DETERMINERS = frozenset(["a", "an", "the", "my", "your", "our", "their", "his", "her", "this", "that", "some"])


def _the(subject: str) -> str:
    """The subject's main noun with "the" ("a sleepy dragon" → "the dragon", "a farmer and his pig" → "the
    farmer"), or its name as it is ("Paris")."""
    words = subject.split()
    cut = next((i for i, w in enumerate(words) if i and w.lower() in _CUT), len(words))
    head = words[:cut][-1] if words[:cut] else subject
    if head[:1].isupper() and words[0].lower() not in _DETERMINERS:
        return " ".join(words[:cut])
    return f"the {head.lower()}"


def _ending(line: str) -> str:
    """A rough rhyme key of a line's last word: its last vowels and what follows ("town" → "own")."""
    word = re.sub(r"[^a-z]", "", line.split()[-1].lower())
    found = re.search(r"[aeiouy]+[^aeiouy]*$", word)
    return found.group() if found else word


def _fresh(page: Page, lines: Sequence[str], said: set[str]) -> str:
    """One of `lines` whose rhyme word is not said yet; the word is then said."""
    line = page.pick([line for line in lines if line.split()[-1] not in said] or lines)
    said.add(line.split()[-1])
    return line


@dataclass(frozen=True, slots=True)
class _Rhyme:
    """One A rhyme of the table (lexicon/verse.txt): its words, the first line's tails, who-lines and and-lines."""

    words: frozenset[str]
    tails: tuple[str, ...]
    who: tuple[str, ...]
    ands: tuple[str, ...]
    endings: frozenset[str]  # its words' rhyme keys (`_ending`), which the couplet must not rhyme on


def _rhyme(line: str) -> _Rhyme:
    words, tails, who, ands = (tuple(part.strip() for part in field.split(" / ")) for field in line.split(" | "))
    listed = frozenset(words[0].split())
    return _Rhyme(listed, tails, who, ands, frozenset(map(_ending, listed)))


_RHYMES = tuple(map(_rhyme, VERSE["limerick-rhymes"]))


def poem(page: Page, places: Sequence[str]) -> str:
    stanzas = []
    for pool in ("poem-opening", "poem-middle", "poem-closing"):
        lines = VERSE[pool]
        start = 4 * page.roll(len(lines) // 4)
        stanzas.append("\n".join(fill(line, page.slots) for line in lines[start : start + 4]))
    return f"**{capital(page.slots['subject'])}**\n\n" + "\n\n".join(stanzas)
