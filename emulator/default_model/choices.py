"""What an advice question or a choice asks, read from its clause: "Should I buy or rent?" (advice on two ways
to act), "Should I learn piano or guitar first?" (a choice between piano and guitar, the verb and tail shared),
"Is it better to walk or cycle to work?" (a choice between two acts, walking and cycling).
"""

from __future__ import annotations

import re

from emulator.default_model import grammar
from emulator.default_model.ask import DETERMINERS as _DETERMINERS
from emulator.default_model.ask import Ask
from emulator.default_model.ask import np as _np
from emulator.default_model.lexicon import LEXICON
from emulator.default_model.question import VERBS, flip

_I = re.I
# Advice asked on a task of the user's, by its sort ("" whether to, "how" how long or much, "safe", "choose"):
# the clause after "should I", "is it safe to"…; "recommend a book" asks to choose one.
_ADVICE = (
    ("", re.compile(r"(?:so,? )?should (?:i|we) (?P<t>.+?)[.?!]*$", _I)),
    (
        "",
        re.compile(
            r"what (?:should|shall) (?:i|we) (?P<t>(?:pack|bring|wear|buy|cook|say|do|get|take)\b.+?)[.?!]*$", _I
        ),
    ),
    ("free", re.compile(r"what (?:can|could|do) (?:i|we) (?P<t>do\b.+?)[.?!]*$", _I)),  # only as below
    # What to say, however it is asked: "What do I say to a grieving friend?", "What to say to my landlord?"
    ("", re.compile(r"what (?:do|can|could|would|might) (?:i|we) (?P<t>say (?:to|in)\b.+?)[.?!]*$", _I)),
    ("", re.compile(r"what to (?P<t>say (?:to|in)\b.+?)[.?!]*$", _I)),
    ("safe", re.compile(r"is it (?:safe|dangerous|healthy|bad for you) (?:for me )?to (?P<t>.+?)[.?!]*$", _I)),
    (
        "",
        re.compile(
            r"is it (?:ok|okay|bad|good|worth it|normal|wise|smart|rude|a good idea) (?:for me )?to (?P<t>.+?)[.?!]*$",
            _I,
        ),
    ),
    ("choose", re.compile(r"(?:can|could) you (?:please )?(?:recommend|suggest) (?P<c>.+?)[.?!]*$", _I)),
    ("how", re.compile(r"how (?P<h>long|much|often|many \w+) (?:should|do|can|must) (?:i|we) (?P<t>.+?)[.?!]*$", _I)),
)


# Words that end a choice's option and start what both options share: "guitar | first", "Go | for a web server".
_TAIL = frozenset(
    [
        "first", "now", "later", "today", "tonight", "next", "this", "at", "in", "on", "for", "to", "with", "as",
        "when", "after", "before", "while",
    ]
)  # fmt: skip


def choice(a: str, b: str) -> Ask | None:
    """A choice whose options share a verb, said once ("learn piano or guitar first": piano and guitar), or whose
    options are acts ("walk or cycle to work": walking and cycling; "buy a car or lease one"); the whole clause
    is its task. None when the options are not read so."""
    first, second = a.split(), b.split()
    cut = next((i for i, w in enumerate(second) if i and w.lower() in _TAIL), len(second))
    verb = first[0].lower()  # after "should I" a verb, whether or not the lexicon knows it
    if not verb.isalpha() or verb in _DETERMINERS or cut > 3:
        return None
    task, option = _np(f"{a} or {b}"), second[:cut]
    acting = option[0].islower() and option[0].isalpha() and option[0] not in _DETERMINERS
    if len(first) == 1 or acting and (_acts(option[0]) or option[1:2] and option[1] in _OBJECTS):
        if not acting:
            return None
        said = (
            f"{grammar.participle(verb)} {' '.join(first[1:])}",
            f"{grammar.participle(option[0])} {' '.join(option[1:])}",
        )
        return Ask("compare", _np(said[0]), other=_np(said[1]), task=task)
    if first[1].lower() in _DETERMINERS and option[0].lower() not in _DETERMINERS:  # "paint the kitchen white or grey"
        if len(first) == len(option) + 2:  # "use the bus or train": the bus and the train
            option = [first[1].lower(), *option]
        return Ask("compare", _np(" ".join(first[-len(option) :])), other=_np(" ".join(option)), task=task)
    return Ask("compare", _np(" ".join(first[1:])), other=_np(" ".join(option)), task=task)


_OBJECTS = _DETERMINERS | {"one", "it", "them"}
# When someone asks what to do with free time: things to do, not whether to do them.
_FREE_TIME = frozenset(("this weekend", "tonight", "today", "this evening", "at the weekend", "on the weekend"))
_FREE_TIME |= {"this afternoon", "on a rainy day", "on a day off", "in my free time", "in your free time", "tomorrow"}


def _acts(word: str) -> bool:
    return word.islower() and (word in LEXICON.verbs or word in VERBS)


def advice(text: str) -> Ask | None:
    """Advice on the task the question names, or None; "Should I use Python or Go?" is left to the comparison
    (two things named), "Should I buy or rent an apartment?" is advice (two ways to act)."""
    for sort, pattern in _ADVICE:
        m = pattern.match(text)
        if m is None:
            continue
        groups = m.groupdict()
        task = _np(flip(groups["t"]) if groups.get("t") else f"choose {flip(groups['c'])}")
        if task.startswith("do ") and task[3:].lower() in _FREE_TIME:  # "What should I do this weekend?"
            task = f"find something to do {task[3:]}"
            return Ask("steps", task, task=task, other="tips")
        if task.startswith("do about "):  # "What should I do about my debt?": how to deal with it
            task = f"deal with {task[9:]}"
            return Ask("steps", task, task=task, other="tips")
        if task.startswith(("do in ", "do if ", "do when ", "do after ", "do during ")):  # "… in an emergency?"
            task = f"know what to {task}"
            return Ask("steps", task, task=task, other="tips")
        if task.startswith(("say to ", "say in ")) and text[:4].lower() == "what":  # "What should I say to my boss?"
            task = f"{'talk to' if task[4:6] == 'to' else 'prepare for'} {task[7:]}"  # "… in a job interview?"
            return Ask("steps", task, task=task, other="tips")
        if sort == "free":  # "What can I do to help?": none of these
            continue
        if " or " in f" {task} " and task.split()[1:2] != ["or"]:
            return None
        other = f"how:{groups['h'].lower()}" if groups.get("h") else sort
        return Ask("advice", task, task=task, other=other)
    return None
