"""The public profiles' model catalogs: what OpenAI and Anthropic serve, and what their APIs check of each model.

The facts are data, `openai.yaml` and `anthropic.yaml` beside this module (the wheel carries them), read once at
import into frozen `Model`s by id: a request's model is one dictionary lookup. The same files list the request
fields each endpoint knows, as frozensets, and Anthropic's beta-gated fields: validation is set arithmetic on
the body's keys, never a walk of its values.
"""

from __future__ import annotations

import calendar
import datetime
from collections.abc import Mapping
from dataclasses import dataclass, fields
from importlib import resources
from typing import Any

from emulator.core import yamlfile

PROVIDERS = ("openai", "anthropic")  # the profiles with a catalog
ALIASES = {"azure": "openai"}  # profiles that serve another's models (an Azure deployment is one of OpenAI's)


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

    def get(self, model: str) -> Model | None:
        return self.models.get(model)


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
    for listed in ("efforts", "endpoints", "thinking"):
        if listed in values:
            values[listed] = tuple(values[listed])
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


CATALOGS: Mapping[str, Catalog] = {provider: _load(provider) for provider in PROVIDERS}


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
