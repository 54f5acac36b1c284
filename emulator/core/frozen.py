"""`frozen`: the decorator of plain values (a `Fault`, a `Timing`, a scenario's parts...). The values built on every
request (`Prompt`, `Turn`...) are native classes instead (conversation.py says why).

A module of its own, kept Python in the compiled wheel (setup.py): `dataclass_transform` marks the function it
decorates with an attribute, which a function compiled by mypyc cannot take, so compiled, the import failed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar, dataclass_transform

T = TypeVar("T")


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def frozen(cls: type[T]) -> type[T]:
    """A frozen dataclass to the type checker, a slotted dataclass with the frozen one's hash at run time.

    A frozen dataclass's `__init__` sets each field through `object.__setattr__`: a `Prompt` (then `frozen`) took
    several times as long to build as it takes this way, a cost every request paid. Nothing
    assigns to a field, and mypy --strict refuses code that would, as it does for `frozen=True`;
    `dataclasses.replace` makes a changed copy.
    """
    return dataclass(slots=True, unsafe_hash=True)(cls)
