"""Answers in the shape a prompt spells out in words: "respond with a JSON object with keys a, b and c" (exactly
those keys, each valued by what its name says it holds), and "put your answer in <answer> tags" (each tag
asked for, in the order asked, a reasoning tag holding the default's thinking, the others its answer).

A request with a JSON Schema (given in `response_format` or written in the prompt, which the default answers by
that schema) is left to the default, and so is one with tools (the table says so).
"""

from __future__ import annotations

import json
import re
from typing import Any

from emulator.default_model import extract, mentions, prose, question
from emulator.default_model.asked import Asked

_KEYS = re.compile(
    r"(?i)\bjson\b[^.\n]{0,80}?\b(?:keys?|fields?|properties)\b(?:\s+(?:named|called))?\s*[:(]?\s*"
    r"([^\n]*(?:\n\s*[-*] [^\n]+)*)"  # the rest of the line, and a bulleted list under it
)
# JSON asked for in prose, its keys named as nouns: "reply with JSON giving the city and country of …", "give me
# the title and author of … as JSON". The list ends where what it is about begins ("of", "for", a colon).
_NOUNS = r"([a-z][a-z ,_-]{0,80}?)(?=\s+(?:of|for|from|in|about|as|at|on|that|which)\b|\s*[:.;?!\n]|\s*$)"
_PROSE_KEYS = (
    re.compile(
        r"(?i)\b(?:reply|respond|answer|return|output|give|format|provide|send)\w*\b[^.\n]{0,40}?"
        r"\bjson\b(?:\s+(?:object|only|format|output|response))?\s+(?:that\s+)?"
        r"(?:giving|gives|with|containing|contains|holding|listing|including|has|having)\s+"
        r"(?:the|its|their|his|her|each\s+\w+'s)\s+" + _NOUNS
    ),
    re.compile(
        r"(?i)\b(?:give|return|tell|list|extract|output|provide|send|show|get|find)\s+(?:me\s+|us\s+)?"
        r"(?:the|its|their|his|her)\s+" + _NOUNS + r"\s+(?:of|for|from|in|about)\b[^\n]{0,160}?\b(?:as|in|into)\s+"
        r"(?:a\s+|an\s+)?(?:json|JSON)\b"
    ),
)
_CUT = re.compile(r"\s+(?:for|of|from|about|describing|that|which|where)\s+|:")
_QUOTED = re.compile(r"[`\"']([A-Za-z_][\w.-]{0,40})[`\"']")
_BARE = re.compile(r"^(?:[-*]\s*)?([A-Za-z_][\w-]{0,40})\s*(?:\([^)]*\))?\s*[:=-]?")
_NOT_KEYS = frozenset(("and", "or", "the", "a", "an", "with", "following", "only", "exactly", "these", "those"))
_TAG = re.compile(r"<([A-Za-z][\w-]*)>")
_ASKED_TAGS = re.compile(r"(?i)\b(?:answer|respond|reply|output|put|place|wrap|enclose|write|give|return|provide)")
THINKING_TAGS = frozenset(("thinking", "think", "reasoning", "scratchpad", "analysis", "thoughts", "rationale"))
NUMBERS = re.compile(r"(?:^|_)(?:count|number|num|age|year|total|amount|quantity|price|score|rating|size|n)$", re.I)
FLAGS = re.compile(r"^(?:is|has|can|should|was)_|(?:^|_)(?:valid|ok|success|enabled|correct)$", re.I)
LISTS = re.compile(r"(?:^|_)(?:list|array|\w*[^su_]s)$", re.I)  # a plural names a list: tags, steps, landmarks


def json_keys(asked: Asked) -> str | None:
    prompt = asked.prompt
    if prompt.response_format.type == "json_schema" or question.schema_in(prompt) is not None:
        return None
    keys = _keys(asked.texts)
    if not keys:
        return None
    task = question.read(prompt.last_user_text)
    value = {key: _valued(asked, key, task.text) for key in keys}
    said = json.dumps(value, ensure_ascii=False, indent=2)
    return f"```json\n{said}\n```" if question.asks_for_json_block(prompt, task) else said


def _keys(texts: tuple[str, ...]) -> list[str]:
    """The keys the last text that names some asks for, in order: named as keys, or as nouns in prose."""
    for text in reversed(texts):
        for listed in reversed(list(_KEYS.finditer(text))):
            said = listed.group(1).split(". ")[0]
            keys = _QUOTED.findall(said)
            if not keys:
                said = _CUT.split(re.sub(r"\([^)]*\)", "", said), maxsplit=1)[0]
                parts = re.split(r",|\band\b|\bor\b|\n", said.rstrip(".:; "))
                keys = [m.group(1) for p in parts if (m := _BARE.match(p.strip()))]
            keys = [k for k in dict.fromkeys(keys) if k.lower() not in _NOT_KEYS]
            if keys:
                return keys
        for pattern in _PROSE_KEYS:
            if (found := pattern.search(text)) is not None and (keys := _nouns(found.group(1))):
                return keys
    return []


def _nouns(listed: str) -> list[str]:
    """Keys from nouns listed in prose ("city, country and population" → city, country, population; "release
    year" → release_year); none where a part is longer than a key's name would be."""
    keys = []
    for part in re.split(r",|\band\b|\bor\b", listed):
        words = [w for w in part.split() if w.lower() not in _NOT_KEYS]
        if not words:
            continue
        if len(words) > 3 or not all(re.fullmatch(r"[a-z][a-z_-]*", w, re.I) for w in words):
            return []
        keys.append("_".join(w.lower() for w in words).replace("-", "_"))
    return list(dict.fromkeys(keys))


def _valued(asked: Asked, key: str, task: str) -> Any:
    """What `key` holds: read from the conversation where it says (`extract`); a sentence of the answer for an
    answer's keys, a judgement for a flag; else null, never a value made up to look right."""
    if key.lower() in ("answer", "response", "summary", "explanation", "reason", "reasoning", "description", "text"):
        return asked.sentence(task)
    found = extract.value(key, task, mentions.conversation(asked.prompt))
    if found is not None:
        return found
    if FLAGS.search(key):
        return next(asked.dice) % 2 == 0
    return [] if LISTS.search(key) and not NUMBERS.search(key) else None


def tagged(asked: Asked) -> str | None:
    tags = _tags(asked.texts)
    if not tags:
        return None
    task = question.read(asked.prompt.last_user_text)
    parts = []
    for tag in tags:
        if tag.lower() in THINKING_TAGS:
            said = prose.thinking(task, prose.slots(task), asked.dice, 2)
        else:
            said = asked.answer(task.text)
        parts.append(f"<{tag}>\n{said}\n</{tag}>" if "\n" in said else f"<{tag}>{said}</{tag}>")
    return "\n".join(parts)


def _tags(texts: tuple[str, ...]) -> list[str]:
    """The tags the prompt asks the answer to be in, in the order it names them: on a line that asks for an
    answer, output or the like, named as tags or closed further on."""
    for text in reversed(texts):
        found: list[str] = []
        for line in text.splitlines():
            asks = _ASKED_TAGS.search(line)
            if not asks:
                continue
            for tag in _TAG.finditer(line):
                name = tag.group(1)
                if re.search(r"\btags?\b", line) or f"</{name}>" in text:
                    found.append(name)
        if found:
            return list(dict.fromkeys(found))
    return []
