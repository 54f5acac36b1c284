"""A request read for its form (`Ask`, what `forms.read` returns) and the noun phrases it is said in (`np`):
its own module so that the readers of a request's parts (`choices`) and `forms` share them.
"""

from __future__ import annotations

import re
from typing import Literal

from emulator.core.conversation import frozen
from emulator.default_model.question import flip

Form = Literal[
    "greeting", "short", "definition", "why", "compare", "proscons", "steps", "ideas", "haiku", "limerick",
    "poem", "story", "email", "summarize", "rewrite", "formal", "translate", "list", "explain", "code", "followup",
    "advice", "joke", "recipe",
]  # fmt: skip


@frozen
class Ask:
    """A request read for its form: `subject` (in the answer's person), `other` (a comparison's second side, or
    advice's sort: see `_advice`), `task` (a how-to's or advice's clause), `source` (the user's own text an edit
    works on), `language` (a translation's target), `recipient` and `register` (a letter's); `context`, the
    question's salient words in lower case, tells which sense of a word it means (see `Lexicon.thing`)."""

    form: Form
    subject: str
    other: str = ""
    task: str = ""
    source: str = ""
    language: str = ""
    recipient: str = ""
    register: str = "formal"
    count: int = 0
    context: frozenset[str] = frozenset()


DETERMINERS = frozenset(["a", "an", "the", "my", "your", "our", "their", "his", "her", "its", "this", "these", "those"])
# The prepositions that end a noun phrase in a question ("your website slow on phones": "your website slow").
PREPOSITIONS = frozenset(["on", "in", "at", "for", "with", "after", "when", "of", "from", "to", "by", "during"])


_POLITE = re.compile(r"\s+(?:please|for me|in \w+ sentences?|in detail|briefly)$", re.I)


def np(phrase: str) -> str:
    """A noun phrase as the user wrote it, in the answer's person, without closing punctuation or politeness."""
    phrase = flip(phrase.strip().strip("\"“”'"))
    phrase = _POLITE.sub("", phrase)
    return (
        phrase[:1].lower() + phrase[1:] if phrase[:2].istitle() and phrase.split()[0].lower() in DETERMINERS else phrase
    )
