"""The values every request builds, written out as native classes (issue 32): `conversation.py`'s hot values, the
`Whole` and `Script` of `wire.py`, the `Shaped` answer of `stages.py`, the `Request` read and the `Source` picked.

Each is a slotted dataclass with an `__init__` of its own, which mypyc compiles (a dataclass's generated `__init__`
stays interpreted in a compiled module). Two things the `@frozen` decorator gave them are held here instead: their
`__init__` takes every field, in order, with the field's default (so that `dataclasses.replace` and positional
construction stay right when a field is added), and nothing assigns to a field after it is built (the type checker
refused that of a `@frozen` value; it cannot see it of these)."""

from __future__ import annotations

import ast
import dataclasses
import inspect
from pathlib import Path
from typing import Any

import pytest

from emulator.answering import compose, reading, stages
from emulator.core import conversation, wire

REPO = Path(__file__).resolve().parent.parent
NATIVE: list[type[Any]] = [
    conversation.ToolCall,
    conversation.Message,
    conversation.Prompt,
    conversation.Usage,
    conversation.Reply,
    conversation.Turn,
    wire.Whole,
    wire.Script,
    stages.Shaped,
    reading.Request,
    compose.Source,
]


@pytest.mark.parametrize("cls", NATIVE, ids=lambda cls: cls.__name__)
def test_a_native_value_takes_every_field_in_order_with_its_default(cls: type[Any]) -> None:
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    fields = dataclasses.fields(cls)
    assert [p.name for p in parameters] == [f.name for f in fields]
    for parameter, field in zip(parameters, fields, strict=True):
        if field.default is not dataclasses.MISSING:
            assert parameter.default == field.default, field.name
        elif field.default_factory is not dataclasses.MISSING:  # None stands for a fresh one
            assert parameter.default is None, field.name
        else:
            assert parameter.default is inspect.Parameter.empty, field.name
    assert "__slots__" in vars(cls)  # slotted, as `@frozen` made them


def test_a_native_value_built_empty_has_fresh_mappings_and_equals_its_copy() -> None:
    one, two = conversation.Prompt("chat", "m", ()), conversation.Prompt("chat", "m", ())
    assert one == two and one.headers == {} and one.headers is not two.headers
    turn = conversation.Turn("id", "m", 0, "", "Hello", (), "stop", conversation.Usage(1, 2))
    assert dataclasses.replace(turn, text="Hi") == conversation.Turn(
        "id", "m", 0, "", "Hi", (), "stop", conversation.Usage(1, 2)
    )
    assert hash(conversation.Usage(1, 2)) == hash(conversation.Usage(1, 2))  # hashed by value, as `@frozen` made them


def assignments(source: str) -> list[tuple[str, str, int]]:
    """(the class it is in or "", the attribute, the line) of every assignment to an attribute."""
    found: list[tuple[str, str, int]] = []

    def visit(node: ast.AST, owner: str, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, child.name, "")
                continue
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(child, owner, child.name)
                continue
            targets: list[ast.expr] = []
            if isinstance(child, ast.Assign):
                targets = child.targets
            elif isinstance(child, ast.AugAssign | ast.AnnAssign):
                targets = [child.target]
            for target in targets:
                for one in target.elts if isinstance(target, ast.Tuple) else [target]:
                    if isinstance(one, ast.Attribute):
                        is_self = isinstance(one.value, ast.Name) and one.value.id == "self"
                        where = f"{owner}.{function}" if is_self else ""
                        found.append((where, one.attr, child.lineno))
            visit(child, owner, function)

    visit(ast.parse(source), "", "")
    return found


def test_nothing_assigns_to_a_native_value_after_it_is_built() -> None:
    fields = {field.name for cls in NATIVE for field in dataclasses.fields(cls)}
    natives = {cls.__name__ for cls in NATIVE}
    wrong = []
    for path in sorted((REPO / "emulator").rglob("*.py")):
        for where, name, line in assignments(path.read_text()):
            owner = where.partition(".")[0]
            if owner in natives and where != f"{owner}.__init__":
                wrong.append(f"{path.relative_to(REPO)}:{line} {where} sets {name}")
            elif not where and name in fields:  # `x.text = …` on something not `self`: maybe one of these
                wrong.append(f"{path.relative_to(REPO)}:{line} sets .{name}")
    assert wrong == []
    assert assignments("class Prompt:\n    def later(self):\n        self.model = 'x'\nprompt.text = 'y'\n") == [
        ("Prompt.later", "model", 3),
        ("", "text", 4),
    ]
