"""The public profiles' model catalogs: what OpenAI, Anthropic, Google and Bedrock serve, and what their APIs check
of each model.

The facts are data, `openai.yaml`, `anthropic.yaml`, `gemini.yaml` and `bedrock.yaml` beside this module (the
wheel carries them), read once at import into frozen `Model`s by id: a request's model is one dictionary lookup.
Anthropic's file also lists its beta-gated fields, versions and betas. Two catalogs are composed of others:
Vertex AI serves Gemini's models and Claude's (as `claude-sonnet-4-5@20250929` too), Bedrock serves Claude's as
`anthropic.{id}-v1:0` beside its own.
"""

from __future__ import annotations

import calendar
import datetime
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from importlib import resources
from typing import Any

from emulator.core import yamlfile

PROVIDERS = ("openai", "anthropic", "gemini", "bedrock")  # the profiles with a catalog file
ALIASES = {"azure": "openai"}  # profiles that serve another's models (an Azure deployment is one of OpenAI's)
# A Bedrock model id's cross-region inference profile prefixes (`us.anthropic.claude-…`).
GEOGRAPHIES = ("us.", "eu.", "apac.", "global.", "jp.", "au.", "ca.", "us-gov.")
APPLICATION_PROFILE = ":application-inference-profile/"  # an ARN that names no model: taken as known


@dataclass(frozen=True, slots=True)
class Model:
    """One model as its API checks it (the files' header comments say what each fact means)."""

    id: str
    name: str = ""
    created: int = 0  # Unix time
    reasoning: bool = False
    efforts: tuple[str, ...] = ()
    sampling: str = "any"  # any, default, unreasoned
    max_tokens: bool = True
    output: int = 0
    context: int = 0
    tools: bool = True
    vision: bool = False
    structured: bool = False
    endpoints: tuple[str, ...] = ()
    thinking: tuple[str, ...] = ()
    dimensions: int = 0  # an embeddings model's vector size
    shortens: bool = False  # whether it takes `dimensions`, a shorter vector
    budget: tuple[int, ...] = ()  # Gemini's least and most `thinkingBudget`
    signed: bool = False  # Gemini 3: calls sent back carry their thought signatures
    note: str = ""


@dataclass(frozen=True, slots=True)
class Catalog:
    """A provider's models by id (every alias and snapshot), in the file's order, and the fields only a beta header
    makes known (field → the betas that do); Anthropic's: the `anthropic-version` values and the betas it knows
    (empty: any)."""

    models: Mapping[str, Model]
    betas: Mapping[str, tuple[str, ...]]
    versions: frozenset[str] = frozenset()
    known_betas: frozenset[str] = frozenset()
    regional: bool = False  # Bedrock's: ids may come as inference profiles and ARNs

    def get(self, model: str) -> Model | None:
        found = self.models.get(model)
        if found is not None or not self.regional:
            return found
        return self.models.get(regional(model))

    def unlisted(self, model: str) -> bool:
        """Whether an id names no model this catalog could check (an application inference profile's ARN)."""
        return self.regional and APPLICATION_PROFILE in model


def regional(model: str) -> str:
    """A Bedrock id as its model's: an ARN's last part, without a cross-region profile's prefix."""
    if model.startswith("arn:"):
        model = model.rpartition("/")[2]
    for prefix in GEOGRAPHIES:
        if model.startswith(prefix):
            return model[len(prefix) :]
    return model


_FACTS = {f.name for f in fields(Model)} - {"id"}


def _entries(document: Mapping[str, Any], source: str) -> dict[str, Model]:
    """Each id of each entry as a `Model`, an entry's `like` resolved against those before it."""
    defaults = dict(document.get("defaults") or {})
    facts: dict[str, dict[str, Any]] = {}
    models: dict[str, Model] = {}
    for at, entry in enumerate(document["models"]):
        entry = dict(entry)
        ids = entry.pop("ids")
        like = entry.pop("like", None)
        if like is not None and like not in facts:
            raise ValueError(f"{source}: models[{at}] is like {like!r}, which no entry before it names")
        unknown = set(entry) - _FACTS
        if unknown:
            raise ValueError(f"{source}: models[{at}] has unknown facts {sorted(unknown)}")
        merged = {**(facts[like] if like else defaults), **entry}
        if "note" not in entry:  # a note speaks of its own entry, not of those like it
            merged.pop("note", None)
        for model in ids:
            facts[model] = merged
            models[model] = _model(model, merged)
    return models


def _model(model: str, facts: Mapping[str, Any]) -> Model:
    values = dict(facts)
    created = values.pop("created", None)
    stamp = calendar.timegm(created.timetuple()) if isinstance(created, datetime.date) else 0
    for listed in ("efforts", "endpoints", "thinking", "budget"):
        if listed in values:
            values[listed] = tuple(values[listed])
            kind = int if listed == "budget" else str
            if not all(type(v) is kind for v in values[listed]):  # YAML reads `off` as false
                raise ValueError(f"{model}: {listed} must be a list of {kind.__name__}s, not {values[listed]!r}")
    return Model(id=model, created=stamp, **{k: v for k, v in values.items() if k in _FACTS})


def _load(provider: str) -> Catalog:
    text = resources.files(__name__).joinpath(f"{provider}.yaml").read_text(encoding="utf-8")
    document = yamlfile.load(text)
    betas = {name: tuple(values) for name, values in (document.get("betas") or {}).items()}
    return Catalog(
        _entries(document, f"{provider}.yaml"),
        betas,
        frozenset(document.get("versions") or ()),
        frozenset(document.get("known_betas") or ()),
    )


def _claude(anthropic: Catalog, own: Catalog) -> dict[str, Model]:
    """Claude's models as Bedrock names them (`anthropic.{id}-v1:0`, `…-v1`), then Bedrock's own."""
    models: dict[str, Model] = {}
    for model in anthropic.models.values():
        for named in (f"anthropic.{model.id}-v1:0", f"anthropic.{model.id}-v1"):
            models[named] = replace(model, id=named)
    return models | dict(own.models)


def _vertex(gemini: Catalog, anthropic: Catalog) -> dict[str, Model]:
    """Gemini's models, then Claude's, each dated snapshot also as Vertex names it (`claude-sonnet-4-5@20250929`)."""
    models = dict(gemini.models) | dict(anthropic.models)
    for model in anthropic.models.values():
        head, dash, date = model.id.rpartition("-")
        if dash and len(date) == 8 and date.isdigit():
            models[f"{head}@{date}"] = replace(model, id=f"{head}@{date}")
    return models


def _catalogs() -> dict[str, Catalog]:
    loaded = {provider: _load(provider) for provider in PROVIDERS}
    anthropic = loaded["anthropic"]
    loaded["bedrock"] = replace(loaded["bedrock"], models=_claude(anthropic, loaded["bedrock"]), regional=True)
    loaded["vertex"] = replace(anthropic, models=_vertex(loaded["gemini"], anthropic))
    return loaded


CATALOGS: Mapping[str, Catalog] = _catalogs()


def catalog(profile: str) -> Catalog | None:
    """The profile's catalog; None for the seeds' profiles, which have none."""
    return CATALOGS.get(ALIASES.get(profile, profile))


def lookup(model: str) -> Model | None:
    """A model of any catalog by id (a scenario's `like:` names one without saying whose)."""
    for held in CATALOGS.values():
        found = held.models.get(model)
        if found:
            return found
    return None
