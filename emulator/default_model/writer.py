"""The default model's prose: each form of answer written from the frames and word lists in `lexicon/`.

`write` answers an `Ask` (see `forms`) in its form: a definition, an explanation, cause and consequence, paired
points, pros and cons, steps, ideas, a list, verse, a story, a letter, an edit of the user's own text, a short
answer or a greeting back. Every choice is a face of the answer's dice, and no frame is used twice in an
answer, so the same conversation gets the same words and one answer never repeats a sentence.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from emulator.default_model import advice, edits, grammar, howtos, jokes, listing, members, recipes, tales, verse
from emulator.default_model.ask import Ask
from emulator.default_model.grammar import capital, fill
from emulator.default_model.lexicon import LEXICON, Domain, Thing
from emulator.default_model.names import name, of_trade
from emulator.default_model.page import FRAMES, Dice, Page


def write(ask: Ask, domain: Domain, dice: Dice, people: Sequence[str] = (), places: Sequence[str] = ()) -> str:
    """The answer to `ask` in its form; `people` and `places` (faker's) name a story's characters and town."""
    page = Page(ask, domain, dice, people)
    return WRITERS[ask.form](page, places)


# What a passage of plain prose is made of, paragraph by paragraph: the sections of its sentences, in turn.
PASSAGE = (
    ("claim", "mechanism", "example"),
    ("transition", "reason", "consequence"),
    ("mechanism", "example", "caveat"),
    ("recommendation", "summary"),
)


def passage(ask: Ask, domain: Domain, dice: Dice, kind: str, count: int | None) -> str:
    """Plain prose about `ask`'s subject, for a scenario's `text: {default: …}`: `count` paragraphs, or
    sentences, or one paragraph or sentence. Past what the frames hold without repeating, sentences repeat."""
    page = Page(ask, domain, dice)
    sections = [section for paragraph in PASSAGE for section in paragraph]
    if kind in ("sentence", "sentences"):
        n = 1 if kind == "sentence" else count or 3
        return " ".join(page.say(sections[i % len(sections)]) for i in range(n))
    n = 1 if kind == "paragraph" else count or 3
    return "\n\n".join(_paragraph(page, *PASSAGE[i % len(PASSAGE)]) for i in range(n))


def _paragraph(page: Page, *sections: str) -> str:
    return page.paragraph(*sections)


def _greeting(page: Page, places: Sequence[str]) -> str:
    """A greeting back; to "how are you" an answer first, to thanks "you're welcome", to a goodbye a goodbye."""
    sort = page.ask.other
    return page.pick(FRAMES[f"greeting-{sort}" if sort else "greeting"])


def _followup(page: Page, places: Sequence[str]) -> str:
    return page.pick(FRAMES["followup"])


def _short(page: Page, places: Sequence[str]) -> str:
    said = page.say("short-lookup" if page.ask.other == "lookup" else "short")
    if not page.roll(2):
        return said
    more = page.say("short-more")
    return f"{said} {more}" if len(said.split()) + len(more.split()) <= 50 else said  # a short answer: 10 to 50


def _definition(page: Page, places: Sequence[str]) -> str:
    thing = _known(page)
    category = members.members(page.slots["subject"]) if thing is None else None
    if category is not None:  # "What are fruits?": a group, said by its members
        return _grouped(page, category)
    if thing is None:
        middle = "named" if _named(page) else "mechanism"
        return _paragraph(page, "claim", middle, "example", page.pick(("caveat", "recommendation")))
    said = [page.say("thing-claim"), *_parts(page, thing), page.say("thing-how")]
    if thing.contrast != "-":
        said.append(page.say("thing-contrast"))
    if sum(len(s.split()) for s in said) < 70:
        said.append(page.say("thing-care"))
    return " ".join(said)


def _grouped(page: Page, category: members.Category) -> str:
    """What a category is ("fruits", "a planet"), said by three of its members, with an offer to say more."""
    name, listed, _ = category
    start = page.roll(len(listed))
    three = [listed[(start + i) % len(listed)] for i in range(min(3, len(listed)))]
    examples = f"{', '.join(three[:-1])} and {three[-1]}" if len(three) > 1 else three[0]
    page.slots.add({"examples": examples, "category": name, "one": members.one_of(name)})
    return " ".join([page.say("category-claim"), page.say("category-more"), page.say("category-offer")])


def _known(page: Page) -> Thing | None:
    """The common thing the subject names (lexicon/things.txt), its facts then in the page's slots."""
    thing = _thing(page.slots["subject"], page.ask.context)
    if thing is not None:
        facts = {"named": thing.named, "sort": grammar.article(thing.kind)}
        facts |= {"parts": thing.parts, "does": thing.does, "how": thing.how, "care": thing.care}
        facts["name"] = thing.named.split(" ", 1)[1] if thing.named.startswith(("a ", "an ", "the ")) else thing.named
        page.slots.add({**facts, "contrast": thing.contrast})
    return thing


# `LEXICON.thing`, kept: a subject is asked about again, and its reading is pure.
_thing = functools.lru_cache(maxsize=1024)(LEXICON.thing)
_BASE = {"is": "be", "has": "have"}


def _parts(page: Page, thing: Thing) -> list[str]:
    return [] if thing.parts == "-" else [page.say("thing-parts")]


def _named(page: Page) -> bool:
    """Whether the subject's own words say what kind of thing it is ("solar panels": panels, of the solar kind);
    if so, its slots {base} and {modifier} say them."""
    kind = _kind_of(page.slots["subject"])
    if kind is None:
        return False
    page.slots.add({"base": kind[0], "modifier": kind[1]})
    return True


@functools.lru_cache(maxsize=1024)
def _kind_of(subject: str) -> tuple[str, str] | None:
    """What `subject`'s own words say it is, its base noun and what modifies it ("solar panels": "panel", "solar"),
    when they are two or three plain lower-case words; kept, as a subject is asked about again."""
    words = subject.split()
    if not howtos.OWNING.isdisjoint(map(str.lower, words)):
        words = [w for w in words if w.lower() not in howtos.OWNING]
    joined = "".join(words)  # the words are plain lower-case ones when what they make together is
    if not 2 <= len(words) <= 3 or not joined.isalpha() or not joined.islower() or not howtos.ENDS.isdisjoint(words):
        return None
    return grammar.singular(words[-1]), " ".join(words[:-1])


def _explain(page: Page, places: Sequence[str]) -> str:
    thing = _known(page)
    if thing is not None:
        return _explain_thing(page, thing)
    first = _paragraph(page, "explain-open", "claim", "named" if _named(page) else "mechanism")
    second = _paragraph(page, "transition", "mechanism", "example", "caveat")
    third = _paragraph(page, "example", "recommendation", "summary", *(("question",) if page.roll(2) else ()))
    return f"{first}\n\n{second}\n\n{third}"


def _explain_thing(page: Page, thing: Thing) -> str:
    """What a common thing is, what it is made of and how it works, then what to know about it."""
    first = [page.say("explain-open"), page.say("thing-claim"), *_parts(page, thing)]
    second = [page.say("thing-how")]
    third = [page.say("thing-care")]
    if thing.contrast != "-":
        third.append(page.say("thing-contrast"))
    one = thing.named.startswith(("a ", "an "))  # "a particular kettle", never "a particular Renaissance"
    offer = "thing-offer" if thing.parts != "-" else "thing-offer-plain"
    third += [page.say("thing-summary"), page.say(offer if one else "thing-offer-whole")]
    if sum(len(s.split()) for s in first + second + third) < 165:
        third.insert(-1, page.say("thing-recap" if thing.parts != "-" else "thing-recap-plain"))
    if sum(len(s.split()) for s in first + second + third) < 170:
        second.append(page.say("thing-more"))
    return "\n\n".join(" ".join(p) for p in (first, second, third))


def _why(page: Page, places: Sequence[str]) -> str:
    if page.ask.task:
        return _why_clause(page)
    cause = _paragraph(page, "why-open", "reason", "reason")
    mechanism = _paragraph(page, "mechanism", "example", "mechanism")
    consequence = _paragraph(page, "consequence", "recommendation", "summary")
    return f"**The cause**\n\n{cause}\n\n**How it works**\n\n{mechanism}\n\n**What follows**\n\n{consequence}"


def _why_clause(page: Page) -> str:
    """Cause, mechanism and consequence built from the question's own clause ("batteries lose their charge"):
    what its subject is and how it works, where it is a common thing; else the clause's subject and verb."""
    acting = _acting(page)
    clause = FRAMES["why-clause"] if acting else FRAMES["why-state"]
    act = FRAMES["why-act"] if acting else ()
    thing = _known(page)
    kind = _why_kind(page.slots["actor"], page.slots.get("act", "")) if acting and thing is None else ""
    if kind:  # an everyday event of a kind the lexicon knows: its own cause, mechanism and consequence
        cause, mechanism, consequence = (_in_order(page, f"why-{kind}-{part}") for part in _WHY_PARTS)
    elif thing is not None:
        cause = [page.say("why-event"), page.say("why-thing-is"), page.say("why-thing-how")]
        mechanism = [*_parts(page, thing), page.say("why-thing-where"), _fill(page, act[0] if act else clause[2])]
        consequence = [page.say("thing-care"), _fill(page, clause[4]), page.say("why-thing-close")]
    else:
        cause = [page.say("why-event"), _fill(page, clause[0]), _fill(page, clause[1])]
        mechanism = [_fill(page, clause[2]), *(_fill(page, a) for a in act[:2])]
        if not act:
            mechanism.append(_fill(page, clause[3]))
        last = _fill(page, act[2]) if act else page.say("recommendation")
        consequence = [_fill(page, clause[4]), last, _fill(page, clause[5])]
    parts = (" ".join(cause), " ".join(mechanism), " ".join(consequence))
    return "**The cause**\n\n{}\n\n**How it works**\n\n{}\n\n**What follows**\n\n{}".format(*parts)


_WHY_PARTS = ("cause", "how", "then")
_WHY_KINDS = {kind: frozenset(words.split()) for kind, _, words in (k.partition(": ") for k in FRAMES["why-kinds"])}
_PERSON = _WHY_KINDS.pop("mind")
_BODY = _WHY_KINDS["body"]


def _why_kind(actor: str, act: str) -> str:
    """The kind of everyday event a why-clause names (`why-kinds`): the first kind a word of its subject belongs
    to; for people, the body's when what they do is a bodily word ("people yawn"), else the mind's ("kids love
    cartoons"); else the first kind a word of what it does belongs to ("popcorn pops"); "" when none fits."""
    doer = {w.strip(".,!?'\"").lower() for w in actor.split()}
    done = {w.strip(".,!?'\"").lower() for w in act.split()}
    found = next((kind for kind, cues in _WHY_KINDS.items() if doer & cues), "")
    if found:
        return found
    if doer & _PERSON:
        return "body" if done & _BODY else "mind"
    return next((kind for kind, cues in _WHY_KINDS.items() if done & cues), "")


def _in_order(page: Page, section: str) -> list[str]:
    """Three frames of `section`, filled, in their order: its first and last kept, one between left out."""
    frames = FRAMES[section]
    skip = 1 + page.roll(len(frames) - 2) if len(frames) > 3 else len(frames)
    return [_fill(page, f) for i, f in enumerate(frames) if i != skip][:3]


def _fill(page: Page, frame: str) -> str:
    return fill(frame, page.slots)


_NOT_PLAIN = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "am",
        "be",
        "can",
        "cannot",
        "will",
        "would",
        "should",
        "could",
        "might",
        "must",
        "do",
        "does",
        "did",
        "has",
        "have",
    ]
)


def _acting(page: Page) -> bool:
    """Whether the why-question's clause has a plain verb after its subject ("batteries lose their charge"); if so,
    the page's slots say {actor}, {act} ("lose their charge") and {not_act} ("do not always lose their charge")."""
    actor, task = page.ask.subject, page.ask.task
    page.slots = page.slots.adding({"actor": actor})
    if not actor or not task.startswith(actor + " "):
        return False
    verb, _, rest = task[len(actor) + 1 :].partition(" ")
    if verb.lower() in _NOT_PLAIN or not verb.isalpha():
        return False
    many = page.slots["it"] == "they"
    base = verb if many else _BASE.get(verb) or grammar.agree(verb, True)
    act = f"{base} {rest}".strip()
    facts = {"actor": actor, "act": act, "not_act": f"{'do' if many else 'does'} not always {act}"}
    page.slots = page.slots.adding(facts)
    return True


def _compare(page: Page, places: Sequence[str]) -> str:
    points = []
    for _ in range(3):
        page.fresh("aspect")
        label, _, point = page.say("compare-point").partition(": ")
        points.append(f"- **{label}**: {capital(point)}")
    close = page.say("compare-close")
    opening = f"{page.say('compare-open-task' if page.ask.task else 'compare-open')} {page.say('compare-then')}"
    return f"{opening}\n\n" + "\n".join(points) + f"\n\n{close}"


def _proscons(page: Page, places: Sequence[str]) -> str:
    pros = "\n".join(f"- {page.of_subject(fill(page.pick(page.domain.lists['pro']), page.slots))}" for _ in range(3))
    cons = "\n".join(f"- {page.of_subject(fill(page.pick(page.domain.lists['con']), page.slots))}" for _ in range(3))
    opening, closing = _paragraph(page, "pros-open", "pros-then"), _paragraph(page, "pros-close", "recommendation")
    return f"{opening}\n\n**Pros**\n\n{pros}\n\n**Cons**\n\n{cons}\n\n{closing}"


def _ideas(page: Page, places: Sequence[str]) -> str:
    count = min(page.ask.count or 4 + page.roll(2), 8)
    names = page.ask.task == "names"
    items = [name(page) if names else _idea(page) for _ in range(count)]
    opening, closing = ("names-open", "names-close") if names else ("ideas-open", "ideas-close")
    if names and of_trade(page.ask.subject):  # a trade's name: is it free?
        closing = "names-close-trade"
    return f"{page.say(opening)}\n\n" + "\n".join(f"- {i}" for i in items) + f"\n\n{page.say(closing)}"


def _idea(page: Page) -> str:
    label, _, sentence = page.pick(FRAMES["idea"]).partition(": ")
    return f"**{label}**: {fill(sentence, page.slots)}"


def _code(page: Page, places: Sequence[str]) -> str:
    return ""  # answered by `prose.code_answer`, which knows the question's language


WRITERS: dict[str, Callable[[Page, Sequence[str]], str]] = {
    "greeting": _greeting,
    "followup": _followup,
    "short": _short,
    "definition": _definition,
    "explain": _explain,
    "why": _why,
    "compare": _compare,
    "proscons": _proscons,
    "steps": howtos.steps,
    "list": listing.listed,
    "ideas": _ideas,
    "haiku": verse.haiku,
    "limerick": verse.limerick,
    "poem": verse.poem,
    "story": tales.story,
    "email": tales.email,
    "summarize": edits.summarize,
    "rewrite": edits.rewrite,
    "formal": edits.formal,
    "translate": edits.translate,
    "code": _code,
    "advice": advice.advice,
    "joke": jokes.joke,
    "recipe": recipes.recipe,
}
