"""The task an agent framework's prompt wrapper carries, and the role its speaker selector asks for.

Frameworks wrap the task they hand a model in words of their own: a marked task section ("Task: …", "Current
task: …"), the criteria the answer must meet ("Expected output: …"), the work of earlier steps ("the context you
are working with: …") and lines about the answer itself ("give your best final answer"). `unwrapped` gives the
default the task alone in such a user message, so the question it reads, the tools it picks and the arguments it
fills come from the task, not from the wrapper's words ("the expected criteria", a parameter filled with "Task").

A group chat's speaker selector lists its roles, one "name: description" a line, then a transcript of the chat
("name: what they said"), and asks for the next role from a bracketed list, only the role. `role` answers with one
name of that list (the options as `directives.options` reads them): the first that has not spoken yet whose
description best matches the task, or the one that has waited longest. Both are pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from emulator.core.conversation import Message, Prompt
from emulator.default_model import directives, question
from emulator.default_model.mentions import OBSERVATION

# --- a task in a wrapper --------------------------------------------------------------------------------------------

# A marked task section: a line that opens with a task label ("Task:", "Current Task:", "## Your task", "TASK -").
_TASK = re.compile(
    r"^[ \t#*>]*(?:(?:current|your|the|main|assigned) )?task(?: description)?\**\s*[:\-—]\**", re.I | re.M
)
# What ends it: the next section of the wrapper, at a line's start (criteria, context, a line about the answer).
_CRITERIA = r"(?:this is )?(?:the )?(?:expected (?:criteria|output|result)|acceptance criteria|criteria for)"
_CONTEXT = r"(?:this is )?(?:the )?(?:context|background)\b[^:\n]{0,40}:"
_ABOUT_ANSWER = r"[^\n]*\b(?:final answer|your (?:\w+ ){0,2}(?:response|answer|output))\b"
_SECTION = re.compile(
    rf"^[ \t#*>]*(?:{_CRITERIA}|{_CONTEXT}|(?:begin|provide|give|you must|important)\b{_ABOUT_ANSWER})", re.I | re.M
)
_CRITERIA_LINE = re.compile(rf"^[ \t#*>]*{_CRITERIA}[^:\n]*:\s*(.+)$", re.I | re.M)
_BLANK = re.compile(r"\n\s*\n")


def carried(text: str) -> tuple[str, str] | None:
    """The task a wrapper carries and its answer's criteria ("" where it sets none); None when `text` is no wrapper:
    it needs a marked task section, and a criteria section or a line about the answer after it."""
    opened = _opening(text)
    if opened is None:
        return None
    ended = _SECTION.search(text, opened.end())
    if ended is None:
        return None
    task = text[opened.end() : ended.start()].strip()
    criteria = _CRITERIA_LINE.search(text, opened.end())
    return (task, criteria.group(1).strip() if criteria else "") if task else None


def _opening(text: str) -> re.Match[str] | None:
    """The task label, tried only at the start of a line that holds "task" near it: a search of the whole text at
    every position cost more than the rest of the reading."""
    low = text.lower() if "ask" in text or "ASK" in text else ""
    at = low.find("task")
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        if at - start <= LABEL and (found := _TASK.match(text, start)) is not None:
            return found
        at = low.find("task", at + 4)
    return None


LABEL = 24  # characters before "task" on its line, at most, for a label ("## Your current task:")


def unwrapped(prompt: Prompt) -> Prompt:
    """`prompt` as the default reads it: each user message that is a framework's wrapper reduced to the task it
    carries, and in a group chat the other participants' turns (`contribution`) read as answers, not as questions;
    the prompt itself where nothing changes (almost always: nothing is copied)."""
    messages = prompt.messages
    kept = [_task_of(m) if m.role == "user" else m for m in messages]
    asked = next((i for i, m in enumerate(kept) if m.role == "user"), len(kept))
    if not prompt.tools:
        for i in range(asked + 1, len(kept)):
            if kept[i].role == "user" and contribution(kept[i].text):
                kept[i] = Message("assistant", kept[i].text)
    return (
        replace(prompt, messages=tuple(kept))
        if any(a is not b for a, b in zip(kept, messages, strict=True))
        else prompt
    )


def _task_of(message: Message) -> Message:
    found = carried(message.text)
    return replace(message, text=_HOW.sub("How", found[0], count=1)) if found else message


# A task that asks to find out how to do something asks how to do it: "Research how to keep bees" → "How to keep bees".
_HOW = re.compile(
    r"^(?:research|find out|explain|describe|investigate|figure out|work out|look into|outline)\s+how\b", re.I
)

# A group chat hands each participant the others' turns as user messages, after the task. Such a turn is an answer:
# long prose, several sentences, none a question but maybe the last (an offer to say more), opening with no request
# and not in the first person (a person's long message that ends in a question opens with "I" or "my").
_ASKING = re.compile(
    r"^\W*(?:please|can|could|would|will|i|i'd|i'm|we|this|my|our|now|ok|okay|also|and|but|thanks|hi|hello"
    r"|(?:here|this) (?:is|are) (?:my|our)|here's (?:my|our))\b",
    re.I,
)
CONTRIBUTION_WORDS = 40  # the fewest words of another participant's turn; a shorter message is a follow-up


def contribution(text: str) -> bool:
    """Whether a user message after the task is another participant's turn in a group chat, not a question."""
    if text.count(" ") < CONTRIBUTION_WORDS or _ASKING.match(text) or OBSERVATION.match(text):
        return False
    if text.split(None, 1)[0].strip("*#:,.").lower() in question.VERBS:
        return False
    said = directives.sentences(text)
    return len(said) >= 3 and not any("?" in s for s in said[:-1])


# --- a speaker selector ---------------------------------------------------------------------------------------------

_SPEAKER = re.compile(r"^[ \t]*([A-Za-z][\w.-]*)[ \t]*:[ \t]*(\S[^\n]*)$", re.M)


def role(prompt: Prompt) -> str | None:
    """The next speaker a group chat's selector asks for: one of the names it lists, which its own lines describe
    ("name: description"); None where the prompt is no selector."""
    texts = [m.text for m in prompt.messages if m.role in ("system", "developer", "user") and "[" in m.text]
    if not texts:
        return None
    listed = next((found for text in reversed(texts) if (found := directives.options(text)[0])), ())
    if len(listed) < 2:
        return None
    for text in texts:
        described, said = _lines(text, listed)
        if len(described) >= 2:
            return _next(listed, described, said)
    return None


def _lines(text: str, names: Sequence[str]) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """The roles `text` describes (name → description), from the first block of "name: description" lines, one
    after another, that names two of `names` (the roles a selector lists; a previous speaker may be left out of
    them), and the transcript after it (speaker, what they said)."""
    described: dict[str, str] = {}
    said: list[tuple[str, str]] = []
    block: dict[str, str] = {}
    end = -1
    for line in _SPEAKER.finditer(text):
        name, words = line.group(1), line.group(2)
        adjacent = line.start() == end + 1
        if described and not adjacent:
            said.append((name, words))
            end = len(text)  # the block is over
            continue
        block = block if adjacent else {}
        block.setdefault(name, words)
        end = line.end()
        if sum(n in block for n in names) >= 2:
            described = block
    return described, said


def _next(listed: Sequence[str], described: dict[str, str], said: list[tuple[str, str]]) -> str:
    """Of the listed roles, the first not yet heard whose description shares most words with the task (the first
    thing someone other than a role said); when all have spoken, the one heard from longest ago."""
    candidates = [name for name in listed if name in described] or list(listed)
    task = next((words for who, words in said if who not in described), "")
    heard = [who for who, _ in said if who in described]
    waiting = [name for name in candidates if name not in heard]
    if waiting:
        wanted = question.words_of(task)
        return max(waiting, key=lambda name: (len(question.words_of(described[name]) & wanted), -waiting.index(name)))
    return min(candidates, key=lambda name: max(i for i, who in enumerate(heard) if who == name))
