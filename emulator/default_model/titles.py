"""A conversation's title, for an agent framework's title generator (opencode's, Claude Code's "write a 5-10
word title"): one short line named from what the user asked, read as the default reads a question (its form and
subject), never an essay. The instruction's own lines (those that speak of a title) are not the conversation.
"""

from __future__ import annotations

import re

from emulator.default_model import forms, question
from emulator.default_model.ask import Ask
from emulator.default_model.asked import Asked

_SPEAKER = re.compile(r"^\s*(?:user|human|assistant|ai|me)\s*:\s*", re.I)
_TAGS = re.compile(r"</?[A-Za-z][\w-]*>")
_WORDS = 10  # a title's most words
_FIRST_CLAUSE = re.compile(r"\s+(?:and|then|so)\s+|[,;?!]\s|[.?!]$")


def title(asked: Asked) -> str:
    """The title of the conversation the request quotes, or of its last user message."""
    lines = (_SPEAKER.sub("", _TAGS.sub("", line)).strip(' "“”') for line in asked.prompt.last_user_text.splitlines())
    said = next((line for line in lines if line and "title" not in line.lower()), "")
    if not said:
        return "New conversation"
    q = question.read(said)
    ask = forms.read(q)
    if ask.form == "code" and q.code_noun:  # "Python function that parses dates"
        named = " ".join(w for w in (q.language[1], q.code_noun, q.clause) if w)
    elif ask.form in ("explain", "short", "list") and said.split()[0].lower() in question.VERBS:
        named = _FIRST_CLAUSE.split(said, maxsplit=1)[0]  # "Read recipes/bread.txt and tell me…": what is done
    else:
        named = _named(ask, said)
    words = [w for w in named.replace("`", "").split() if w.lower() not in ("your", "yours")][:_WORDS]
    return _capital(" ".join(words).rstrip(" .,;:!?")) or "New conversation"


def _named(ask: Ask, said: str) -> str:
    subject = ask.subject
    if ask.form == "steps" and ask.task:
        return f"How to {ask.task}"
    if ask.form == "why" and ask.task:
        return f"Why {ask.task}"
    if ask.form == "compare" and ask.other:
        return f"{subject} vs {ask.other}"
    if ask.form in ("greeting", "followup") or not subject:
        return " ".join(said.split()[:6])
    if ask.form in ("haiku", "limerick", "poem", "story", "joke"):
        return f"A {ask.form} about {subject}"
    if ask.form == "email":
        return f"Email about {subject}"
    return subject


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
