"""Which tools the default model calls on its own, under `tool_choice: auto`: those the question names.

A tool is relevant when the last message is the user's and a salient noun of it (not a verb such as create,
run, make or get) is among the words of the tool's name or of the first sentence of its description:
"What's the weather in Paris?" and `current_conditions`, "Current weather conditions for a city".

Never one that acts: an agent must not execute or write on generated input. Codex and Claude Code offer
such tools on every request, with long descriptions that mention almost every common word, so a tool named
like a shell, an exec, a patch, a write or an edit, or one with a parameter named like a command, a script,
code, a path or file content, is never called by relevance; nor is a custom (freeform) tool, whose input
follows a grammar generated text would not.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from emulator.conversation import Prompt, Tool
from emulator.default_model.question import Question, stem, words_of

MAX_CALLS = 4  # relevant tools called at once, with `parallel_tool_calls`
# A tool acts when its name has one of these words (or one starting `exec`), or its description opens with one
# ("Runs a command…", "Launch a new agent…", "Create a goal…"): it executes, writes or changes something.
_ACTING = """shell bash sh zsh powershell terminal exec execute eval run command cmd script patch apply write edit
    delete remove kill create update set send schedule cron launch spawn cancel stop start restart terminate
    enter exit move rename install deploy commit push post submit insert replace modify change save upload"""
# And when it takes one of these: what it would run or write, or where.
_ACTING_PARAMETERS = "command cmd script patch code path file_path filepath notebook_path content cwd workdir prompt"
ACTING, ACTING_PARAMETERS = frozenset(_ACTING.split()), frozenset(_ACTING_PARAMETERS.split())
_NAME_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")  # `apply_patch`, `WebFetch`, `HTTPGet` → words
_FIRST_WORD = re.compile(r"[A-Za-z]+")
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)|\n")
FIRST_SENTENCE = 300  # characters of a description read at most
MAX_NAME = 128  # and of a name


def relevant(prompt: Prompt, question: Question) -> tuple[Tool, ...]:
    """The tools `question` (the last message, the user's) names, in the request's order; none unless the
    choice is `auto` and the last message is the user's."""
    if prompt.tool_choice.mode != "auto" or not prompt.tools or not prompt.messages:
        return ()
    nouns = question.nouns
    if not nouns or prompt.messages[-1].role != "user":
        return ()
    found = (t for t in prompt.tools if t.kind == "function" and not nouns.isdisjoint(_words(*_read(t))))
    return tuple(t for t in found if not acts(t))[: MAX_CALLS if prompt.parallel_tool_calls else 1]


def acts(tool: Tool) -> bool:
    """Whether `tool` executes, writes or changes something: by its name, its description's first word, or its
    parameters' names (see `ACTING`)."""
    if tool.kind == "custom" or _acting(*_read(tool)):
        return True
    properties = (tool.parameters or {}).get("properties")
    return isinstance(properties, Mapping) and not ACTING_PARAMETERS.isdisjoint(map(_lower, properties))


def _read(tool: Tool) -> tuple[str, str]:
    """What relevance reads of a tool: its name and its description's first sentence, both bounded, so that the
    caches keyed by them stay small whatever a request sends."""
    description = tool.description[: FIRST_SENTENCE + 16].lstrip(" -*#\n")
    end = _SENTENCE_END.search(description, 0, FIRST_SENTENCE)
    return tool.name[:MAX_NAME], description[: end.start() if end else FIRST_SENTENCE]


def _lower(name: Any) -> str:
    return name.lower() if isinstance(name, str) else ""


@functools.lru_cache(maxsize=1024)
def _acting(name: str, first: str) -> bool:
    words = {w.lower() for w in _NAME_WORDS.findall(name)}
    opening = _FIRST_WORD.search(first)
    words |= {stem(opening.group())} if opening else set()
    return not ACTING.isdisjoint(words) or any(w.startswith("exec") for w in words)


@functools.lru_cache(maxsize=1024)
def _words(name: str, first: str) -> frozenset[str]:
    """The salient words of a tool's name and of its description's first sentence, stemmed; cached, since an
    agent sends the same tools on every request."""
    return words_of(" ".join(_NAME_WORDS.findall(name))) | words_of(first)
