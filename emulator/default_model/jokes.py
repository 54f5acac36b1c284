"""The default model's jokes, riddles, puns and fun facts ("Tell me a joke about cats"): one entry of the kind
asked for from lexicon/jokes.txt, one whose cues name a word of the subject when there is one, else one for any
subject (said as such), picked by the answer's dice. A riddle keeps its answer for a line of its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from emulator.default_model.lexicon import sections
from emulator.default_model.page import Page
from emulator.default_model.question import stem

# kind → ((cues, text), …), read once
JOKES = {
    kind: tuple((frozenset(cues.split()), text.strip()) for cues, _, text in (line.partition(":") for line in lines))
    for kind, lines in sections("jokes").items()
}
_NAMES = {"joke": "joke", "pun": "pun", "riddle": "riddle", "fact": "fun fact"}


def joke(page: Page, places: Sequence[str]) -> str:
    """An entry of the kind `page.ask.other` names, fitting its subject where one fits (see the module)."""
    kind = page.ask.other if page.ask.other in JOKES else "joke"
    subject = page.ask.subject
    asked = {stem(w) for w in subject.split()}
    fitting = [text for cues, text in JOKES[kind] if cues & asked]
    opening = ""
    if not fitting:
        fitting = [text for cues, text in JOKES[kind] if "any" in cues]
        if subject:
            opening = f"I have no {_NAMES[kind]} about {subject} to hand, so here is one about something else.\n\n"
    setup, _, punchline = page.pick(fitting).partition(" | ")
    if kind == "riddle":
        return f"{opening}{setup}\n\n**Answer:** {punchline}"
    return f"{opening}{setup} {punchline}".strip() if punchline else f"{opening}{setup}"
