"""What the inspector says of journal entries beyond their fields: a row's preview, the words a search looks
in, and the conversations that entries make when read as a story.

A conversation is made of turns, each turn of attempts. Attempts at one turn share the journal's conversation
key (`request`: a retry sends the same conversation again), with the same test id and API key. A turn
continues an earlier one when its messages extend that turn's messages and answer (an agent loop sends back
what it was told, then its tool results), with the same test id and key: the prefix is compared on what a
client keeps when it sends a conversation back (roles, words, tool calls by name and arguments, tool results),
not on ids or reasoning, which some clients drop. A Responses request that names a `previous_response_id` sends
only what is new: it continues the turn that answered with that id. Pure: it reads journal views
(`journal.view`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from emulator.core.sse import canonical
from emulator.journal import assembly, transcript

WORDS = 160  # characters of a preview
Atom = tuple[str, str]  # one thing a conversation said: ("user", words), ("call", name + arguments), …


def read(view: Mapping[str, Any]) -> tuple[dict[str, Any], str, Told]:
    """All the inspector reads of a journal view, its request folded and its answer assembled once: its
    `preview`, its `text`, and what `conversations` needs of it."""
    folded, answer = transcript.request(view), assembly.assemble(view.get("response"))
    body = view.get("body")
    previous = body.get("previous_response_id") if isinstance(body, dict) else None
    previous = previous if isinstance(previous, str) else None
    answer_id = answer["id"] if answer is not None and isinstance(answer["id"], str) else None
    told = Told(view, _said(folded), _answered(answer), answer_id, previous)
    return _preview(folded, answer), _text(view, answer), told


def preview(view: Mapping[str, Any]) -> dict[str, Any]:
    """A row's preview: the last user message (or the last tool result, `prompt_kind` "tool_result"), the
    answer's first words, the tools it called, whether it reasoned, and its error's message."""
    return _preview(transcript.request(view), assembly.assemble(view.get("response")))


def _preview(folded: Mapping[str, Any], answer: Mapping[str, Any] | None) -> dict[str, Any]:
    prompt, kind = "", None
    for message in reversed(folded["messages"]):
        results = [p for p in message["parts"] if p["type"] == "tool_result"]
        if results:
            prompt, kind = results[-1]["content"], "tool_result"
            break
        if message["role"] == "user":
            prompt, kind = _words(message["parts"]), "user"
            break
    out: dict[str, Any] = {"prompt": _short(prompt), "prompt_kind": kind, "answer": None, "tools": []}
    out |= {"reasoning": False, "error": None}
    if answer is not None:
        out["answer"] = _short(answer["text"])
        out["tools"] = [c["name"] for c in answer["tool_calls"]]
        out["reasoning"] = bool(answer["reasoning"])
        out["error"] = answer["error"] and _short(answer["error"]["message"])
        out["finish_reason"] = answer["finish_reason"]
        out["complete"] = answer["complete"]
    return out


def text(view: Mapping[str, Any]) -> str:
    """Every word a search looks in, lowercased: the request's body and the answer as assembled."""
    return _text(view, assembly.assemble(view.get("response")))


def _text(view: Mapping[str, Any], answer: Mapping[str, Any] | None) -> str:
    body = view.get("body")
    pieces = [canonical(body) if body is not None else view.get("body_text") or ""]
    if answer is not None:
        pieces += [answer["text"], answer["reasoning"], (answer["error"] or {}).get("message", "")]
        pieces += [c["name"] + " " + str(c["raw"] or canonical(c["arguments"])) for c in answer["tool_calls"]]
    response = view.get("response") or {}
    if response.get("body_text"):
        pieces.append(response["body_text"])
    return "\n".join(pieces).lower()


class Told(NamedTuple):
    """What `conversations` needs of an entry: its summary (its journal fields), what its request said and
    what its answer said; its answer's id, and the stored response its request continues (Responses'
    `previous_response_id`, which sends only what is new)."""

    entry: Mapping[str, Any]
    said: tuple[Atom, ...]
    answered: tuple[Atom, ...]
    answer_id: str | None = None
    previous: str | None = None


def told(view: Mapping[str, Any]) -> Told:
    """What `conversations` needs of a journal view."""
    return read(view)[2]


def conversations(entries: Sequence[Told]) -> list[dict[str, Any]]:
    """The entries' conversations, oldest first: `{test_id, key, turns: [{requests: [ids], ok: id | None}]}`,
    each turn's attempts in order and `ok` the one that was answered (the one the next turn continues). Each
    entry comes as its summary (its journal fields), what its request said and what its answer said."""
    turns: dict[tuple[str, str, str], dict[str, Any]] = {}
    stories: list[list[dict[str, Any]]] = []
    answers: dict[tuple[Any, ...], list[dict[str, Any]]] = {}  # (test id, key, what was said and answered) -> story
    by_id: dict[tuple[str, str, str], list[dict[str, Any]]] = {}  # (test id, key, answer id) -> story
    for entry, atoms, answer, answer_id, previous in sorted(entries, key=lambda e: e.entry["id"]):
        scope = (entry.get("test_id") or "", entry.get("key") or "")
        name = (*scope, entry.get("request") or f"#{entry['id']}")
        turn = turns.get(name)
        if turn is None:
            turn = turns[name] = {"scope": scope, "requests": [], "ok": None, "said": atoms}
            story = by_id.get((*scope, previous)) if previous else _continued(answers, scope, atoms)
            if story is None:
                story = []
                stories.append(story)
            story.append(turn)
            turn["story"] = story
        turn["requests"].append(entry["id"])
        if entry.get("status") == 200 and not entry.get("fault") and entry.get("duration_ms") is not None:
            turn["ok"] = entry["id"]
            answers[(*scope, turn["said"] + answer)] = turn["story"]
            if answer_id:
                by_id[(*scope, answer_id)] = turn["story"]
    return [
        {
            "test_id": story[0]["scope"][0],
            "key": story[0]["scope"][1],
            "turns": [{"requests": t["requests"], "ok": t["ok"]} for t in story],
        }
        for story in stories
    ]


def _said(folded: Mapping[str, Any]) -> tuple[Atom, ...]:
    """What a request's conversation said, as the atoms a continuation repeats."""
    atoms = [("system", _squash(folded["system"]))] if folded["system"] else []
    for message in folded["messages"]:
        role = "user" if message["role"] in ("user", "tool") else message["role"]
        atoms += _atoms(role, message["parts"])
    return tuple(atoms)


def _answered(answer: Mapping[str, Any] | None) -> tuple[Atom, ...]:
    """What an entry's answer said, as the atoms the next turn sends back."""
    if answer is None:
        return ()
    parts = [{"type": "text", "text": answer["text"]}]
    parts += [{"type": "tool_call", "name": c["name"], "arguments": c["arguments"]} for c in answer["tool_calls"]]
    return tuple(_atoms("assistant", parts))


def _atoms(role: str, parts: Iterable[Mapping[str, Any]]) -> list[Atom]:
    atoms: list[Atom] = []
    for part in parts:
        kind = part["type"]
        if kind == "text" and part["text"].strip():
            atoms.append((role, _squash(part["text"])))
        elif kind == "image":
            atoms.append((role, "[image]"))
        elif kind == "tool_call":
            atoms.append(("call", part["name"] + " " + canonical(part["arguments"])))
        elif kind == "tool_result":
            atoms.append(("result", _squash(part["content"])))
    return atoms


def _continued(
    answers: Mapping[tuple[Any, ...], list[dict[str, Any]]], scope: tuple[str, str], atoms: tuple[Atom, ...]
) -> list[dict[str, Any]] | None:
    """The story whose last answered turn this conversation extends, the longest such; None: a new story."""
    for end in range(len(atoms) - 1, 0, -1):
        story = answers.get((*scope, atoms[:end]))
        if story is not None:
            return story
    return None


def _words(parts: Iterable[Mapping[str, Any]]) -> str:
    return " ".join(p["text"] if p["type"] == "text" else "[image]" for p in parts if p["type"] in ("text", "image"))


def _squash(words: str) -> str:
    return " ".join(words.split())


def _short(words: str) -> str:
    words = _squash(words)
    return words if len(words) <= WORDS else words[: WORDS - 1] + "…"
