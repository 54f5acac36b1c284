"""The model catalogs hold what the pinned SDKs name: every model id of their model types, every beta field
gated by a beta they name, every effort their types allow; and each model's facts are consistent."""

from __future__ import annotations

import typing
from typing import Any

import pytest
from anthropic.types import Model as ClaudeModel
from anthropic.types.beta import message_create_params as beta_create_params
from openai.types.shared import AllModels, ReasoningEffort

from emulator.rules import catalog, schema

OPENAI, ANTHROPIC = catalog.CATALOGS["openai"], catalog.CATALOGS["anthropic"]


def literals(kind: Any) -> set[str]:
    """The string literals a type names, through unions and aliases."""
    found: set[str] = set()
    for arg in typing.get_args(kind):
        found |= {a for a in typing.get_args(arg) if isinstance(a, str)} if typing.get_origin(arg) else set()
        found |= {arg} if isinstance(arg, str) else literals(arg)
    return found


def test_every_model_id_the_sdks_name_is_in_its_catalog() -> None:
    assert literals(AllModels) - set(OPENAI.models) == set()
    assert literals(ClaudeModel) - set(ANTHROPIC.models) == set()


def test_every_beta_field_is_gated_by_a_beta_the_sdk_names() -> None:
    known = schema.SCHEMAS["messages"].fields.keys()
    beta_only = set(beta_create_params.MessageCreateParamsBase.__annotations__) - known
    assert beta_only - {"betas"} <= set(ANTHROPIC.betas)  # `betas` is the header, not a field
    from anthropic.types import AnthropicBetaParam

    named = literals(AnthropicBetaParam)
    assert {b for betas in ANTHROPIC.betas.values() for b in betas} <= named


def test_each_models_facts_hold_together() -> None:
    efforts = literals(ReasoningEffort)
    for model in OPENAI.models.values():
        assert set(model.efforts) <= efforts, model.id
        assert model.reasoning or not model.efforts, model.id  # an effort only where the model reasons
        assert set(model.endpoints) in ({"chat"}, {"responses"}, {"chat", "responses"}, {"completions"}, {"embeddings"})
        if model.endpoints == ("embeddings",):  # a vector's size, and the most tokens an input may have
            assert model.dimensions and model.context and not model.output, model.id
            continue
        assert model.output and model.context and model.output <= model.context, model.id
        assert not model.dimensions and not model.shortens, model.id
        assert model.sampling in ("any", "default", "unreasoned"), model.id
        assert model.sampling != "unreasoned" or "none" in model.efforts, model.id
    for model in ANTHROPIC.models.values():
        assert model.name.startswith("Claude ") and model.created, model.id
        assert set(model.thinking) <= {"enabled", "adaptive", "disabled"} and model.thinking, model.id
        assert set(model.efforts) <= {"low", "medium", "high", "xhigh", "max"}, model.id
        assert model.output <= model.context, model.id


def test_a_like_must_name_an_entry_before_it(tmp_path: Any) -> None:
    document = {"models": [{"ids": ["b"], "like": "a"}], "fields": {}}
    with pytest.raises(ValueError, match="like 'a', which no entry before it names"):
        catalog._entries(document, "test.yaml")
