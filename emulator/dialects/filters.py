"""Azure OpenAI's content filter results, which its answers carry (reference providers-aws-azure-ollama.md §2.3):
every category checked and found safe, since the emulator filters nothing. Read by the OpenAI dialects where the
profile has `content_filters`."""

from __future__ import annotations

from typing import Any

SEVERITIES = ("hate", "self_harm", "sexual", "violence")  # each `{filtered, severity}`


def _safe() -> dict[str, Any]:
    return {category: {"filtered": False, "severity": "safe"} for category in SEVERITIES}


def prompt_results(prompts: int = 1) -> list[dict[str, Any]]:
    """`prompt_filter_results`: one entry per prompt, its categories and the jailbreak check."""
    found = _safe() | {"jailbreak": {"filtered": False, "detected": False}}
    return [{"prompt_index": index, "content_filter_results": found} for index in range(prompts)]


def choice_results() -> dict[str, Any]:
    """A choice's `content_filter_results`: its categories and the protected material checks."""
    unseen = {"filtered": False, "detected": False}
    return _safe() | {"protected_material_code": unseen, "protected_material_text": unseen}


def first_chunk() -> dict[str, Any]:
    """The chunk an Azure stream opens with: the prompt's results, no choices, empty id, object and model."""
    return {"choices": [], "created": 0, "id": "", "model": "", "object": "", "prompt_filter_results": prompt_results()}
