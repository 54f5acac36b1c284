"""Choices a structured answer makes from its input: which of a closed set of options (DSPy's `Literal[…]` fields)
the input points to, and which of its noun phrases a list of strings (`topics`, `keywords`) holds.

An option the input names wins. Else, for the families of options programs commonly ask for (sentiment, yes or
no, priority or urgency, size), the input's words are counted against the short cue lists below: "loved it, the
staff were wonderful" points to `positive`, "the site is down for everyone" to the highest priority offered. A
cue just after a negation ("not good", "never arrived on time") counts for the other side. Else the choice is
the caller's seeded one, so the same conversation picks the same option.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from emulator.default_model import question

# Each family: its options, lowest first, as (option, the names it goes by); then the cues that point up (to the
# last option of the family the field offers) and down (to the first). Cues are prefixes of at least four
# letters ("disappoint" for "disappointed"), or whole words when shorter. The middle (neutral, medium, maybe) is
# what a field offering one gets when the cues cancel out or none is found.
_FAMILIES = {
    "sentiment": (
        "negative:negative,neg,bad,unhappy,dissatisfied,angry|neutral:neutral,mixed,neu,indifferent|"
        "positive:positive,pos,good,happy,satisfied",
        """love like great excellent wonderful amazing awesome fantastic perfect happy delight pleas enjoy best
        brilliant superb recommend thank glad impress outstanding friendly helpful beautiful smooth easy nice good
        favourite favorite""",
        """hate terrible awful horrible worst poor bad disappoint broke fail annoy angry frustrat refund useless
        slow rude dirty late never cancel complain problem issue wrong crash bug ugly sad unhappy waste
        mediocre""",
    ),
    "answer": (
        "no:no,false,n,f,0,incorrect,deny,denied,reject|maybe:maybe,unsure,unknown,uncertain|"
        "yes:yes,true,y,t,1,correct,confirm,confirmed,approve,approved",
        "yes yeah yep true correct confirm approv agree accept allow sure definitely indeed",
        "no nope false incorrect wrong deny denied reject refus disagree cannot can't won't doesn't isn't never",
    ),
    "level": (
        "trivial:trivial,lowest,p4|low:low,minor,p3|medium:medium,normal,moderate,mid,p2|"
        "high:high,major,important,p1|urgent:urgent,critical,blocker,highest,emergency,severe,p0",
        """urgent asap immediately critical outage down broken crash emergency blocking blocker severe every
        everyone customers production security breach deadline today""",
        """whenever someday minor cosmetic typo trivial later eventually nice-to-have low wish small question
        curious rush""",
    ),
    "size": (
        "xs:xs,tiny,extra-small,x-small|small:small,s,little,mini,compact|medium:medium,m,mid,average,regular|"
        "large:large,l,big|xl:xl,huge,extra-large,x-large,massive,giant",
        "huge large big enormous massive giant vast tall wide heavy many lots bulk whole entire thousands",
        "tiny small little mini compact short narrow light few single brief pocket quick",
    ),
}
_NEGATING = "not no never hardly barely isn't wasn't aren't weren't don't didn't doesn't"
_NEGATIONS = frozenset(_NEGATING.split())
_TOKEN = re.compile(r"[a-z][a-z'-]*")
# An adverb, a past verb or an adjective at a phrase's edge ("absolutely loved", "staff made", "trip wonderful").
_PHRASE_EDGE = re.compile(r"(?:(?<![ip])ly|\w{4}ed|ful|ous|less)$")
_MIDDLES = frozenset(("neutral", "maybe", "medium"))
_EDGE_WORDS = """made went got took gave came said saw found felt late broken whenever everyone anyone someone
    terrible awful horrible worst poor bad rude dirty slow useless ugly sad"""
_EDGES = frozenset(_EDGE_WORDS.split())


def _family(spec: str) -> tuple[tuple[str, frozenset[str]], ...]:
    return tuple((o, frozenset(n.split(","))) for o, _, n in (part.partition(":") for part in spec.split("|")))


FAMILIES = {name: (_family(spec), up.split(), down.split()) for name, (spec, up, down) in _FAMILIES.items()}


def pick(options: Sequence[str], text: str, rng: random.Random) -> str:
    """The option `text` points to: one it names, else one its words cue (see above), else `rng`'s."""
    words = question.words_of(text)
    named = [o for o in options if question.words_of(o.replace("_", " ")) & words]
    if named:
        return named[0]
    return cued(options, text) or rng.choice(list(options))


def cued(options: Sequence[str], text: str) -> str | None:
    """The option of a known family the words of `text` point to, or the family's middle one when they point
    nowhere; None when the options are no family's."""
    for ranks, up, down in FAMILIES.values():
        ranked = _ranked(options, ranks)
        if len(ranked) < 2 or len(ranked) < len(options) - 1:
            continue
        score = _score(text, up, down)
        ordered = sorted(ranked, key=ranked.__getitem__)
        if score > 0:
            return ordered[-1]
        if score < 0:
            return ordered[0]
        return next((o for o in ordered if ranks[ranked[o]][0] in _MIDDLES), None)
    return None


def _ranked(options: Sequence[str], ranks: tuple[tuple[str, frozenset[str]], ...]) -> dict[str, int]:
    """The options that belong to a family, by their rank in it."""
    found = {}
    for option in options:
        said = option.lower().replace("_", "-").replace(" ", "-")
        rank = next((i for i, (_, names) in enumerate(ranks) if said in names), None)
        if rank is not None:
            found[option] = rank
    return found


def _score(text: str, up: Sequence[str], down: Sequence[str]) -> int:
    """Cues up less cues down in `text`; a cue within two words after a negation counts for the other side."""
    tokens = _TOKEN.findall(text.lower()[:8000])
    score = 0
    for i, token in enumerate(tokens):
        sign = 1 if _cue(token, up) else -1 if _cue(token, down) else 0
        if sign and not _NEGATIONS.isdisjoint(tokens[max(0, i - 2) : i]) and token not in _NEGATIONS:
            sign = -sign
        score += sign
    return score


def _cue(token: str, cues: Sequence[str]) -> bool:
    return any(token == c or len(c) >= 4 and token.startswith(c) for c in cues)


def phrases(text: str, most: int = 5) -> list[str]:
    """The noun phrases of `text` (the runs of salient words `question.read` finds), an adverb, a past verb or an
    adjective trimmed off either end, each once, at most `most`."""
    found: list[str] = []
    for topic in question.read(text).topics:
        words = topic.split()
        while words and _edge(words[0]):
            words.pop(0)
        while words and _edge(words[-1]):
            words.pop()
        phrase = " ".join(words)
        if phrase and phrase.lower() not in (f.lower() for f in found):
            found.append(phrase)
    return found[:most]


def _edge(word: str) -> bool:
    lower = word.lower()
    return (
        not word[:1].isupper()
        and (lower in question.VERBS or _PHRASE_EDGE.search(lower) is not None or _cue(lower, _ALL_CUES))
        or lower in question.STOP
        or lower in _EDGES
    )


_ALL_CUES = tuple(FAMILIES["sentiment"][1])
