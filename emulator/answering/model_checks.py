"""A public profile's model checks (`--profile openai`, `anthropic`, ...): the provider's 404 for a model nothing
makes known, and what a known model refuses, by its catalog entry or the one its scenario says it is `like`. Run
once the answer's source is known (`answering.answer`), and by the token counts (`counting.count`)."""

from __future__ import annotations

import functools
from typing import Any

from emulator.answering.compose import Source
from emulator.answering.reading import Endpoint
from emulator.core.conversation import Prompt
from emulator.core.sse import loads
from emulator.recordings import Library
from emulator.rules import catalog, validation
from emulator.scenarios import Book
from emulator.state import State


def checked(
    held: catalog.Catalog,
    endpoint: Endpoint,
    prompt: Prompt,
    body: Any,
    source: Source,
    book: Book,
    state: State,
    lenient: bool,
    path: str = "",
) -> tuple[str, ...]:
    """A public profile's model checks, once the source is known: the provider's 404 for a model no rule makes
    known (a scenario or recording that answers needs none), then what the model refuses, by its catalog entry
    or the one its scenario says it is `like`. Returns the 404 leniency let by, in words."""
    name = prompt.model
    model = held.get(name)
    if model is None and (endpoint.profile.deployments or held.unlisted(name)):  # an Azure deployment, an
        return ()  # application inference profile: of some model, nothing to check
    if model is None:
        like = (source.scenario.like if source.scenario else None) or book.like(name)
        model = catalog.lookup(like) if like else None
        answered = source.scenario is not None or source.conversation is not None
        if model is None and not answered and not known(name, book, state):
            refusal = validation.unknown_model(endpoint.checks, name, path)
            if not lenient:
                raise refusal
            return (refusal.message,)
    if model is not None:
        validation.parameters(endpoint.checks, model, body, prompt, path)
    return ()


def known(model: str, book: Book, state: State) -> bool:
    """Whether a model outside the catalog is known all the same: `--model` names it, a scenario names it (its
    `name`, or its `match.model`, exact or glob), or a loaded cassette recorded it."""
    return model in state.settings.models or book.knows(model) or model in recorded_models(state.library)


@functools.lru_cache(maxsize=4)  # a library is loaded once (and again when `--watch` sees its files change)
def recorded_models(library: Library | None) -> frozenset[str]:
    """The models a library's recorded requests asked for."""
    if library is None:
        return frozenset()
    found = set()
    for recording in library.recordings.values():
        try:
            asked = loads(recording.request.encode())
        except ValueError:
            continue
        if isinstance(asked, dict) and isinstance(asked.get("model"), str):
            found.add(asked["model"])
    return frozenset(found)
