"""The code's shape, held as docs/layout.md describes it: few modules at the top, each layer a package that says
what it is, the state's stores small and composed rather than inherited. (The order of the layers is held by
`lint-imports`, in the README's test command.)"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "emulator"


def classes() -> dict[str, list[tuple[Path, int, list[str]]]]:
    """Every class of the project by name: where, how many methods, its bases' names."""
    found: dict[str, list[tuple[Path, int, list[str]]]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                methods = sum(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in node.body)
                bases = [ast.unparse(b).rsplit(".", 1)[-1].split("[")[0] for b in node.bases]
                found.setdefault(node.name, []).append((path, methods, bases))
    return found


def below(found: dict[str, list[tuple[Path, int, list[str]]]], name: str, seen: frozenset[str] = frozenset()) -> int:
    """How many levels a class is below the highest of the project's own classes it derives from."""
    if name in seen:
        return 0
    levels = [1 + below(found, b, seen | {name}) for _, _, bases in found[name] for b in bases if b in found]
    return max(levels, default=0)


def test_at_most_ten_modules_at_the_top_and_every_layer_a_package_that_says_what_it_is() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 10, top
    layers = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"][0]["layers"]
    named = [name.strip() for layer in layers for name in layer.split("|")]
    for module in named:
        path = REPO / module.replace(".", "/")
        if path.with_suffix(".py").is_file():
            continue  # an entry point: a module of its own
        init = path / "__init__.py"
        assert init.is_file(), f"{module} is a layer, not a package"
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        assert "Layer:" in doc, f"{init} does not say what its layer is and may import"


def test_the_state_is_composed_of_small_stores_no_class_deeper_than_two_levels() -> None:
    found = classes()
    big = [
        (name, str(path.relative_to(REPO)), n)
        for name, defs in found.items()
        for path, n, _ in defs
        if path.is_relative_to(PACKAGE / "state") and n > 15
    ]
    assert big == []
    deep = {name: below(found, name) for name in found if below(found, name) > 2}
    assert deep == {}


def test_the_checks_of_this_file_fire() -> None:
    """`below` counts levels of the project's own classes, and stops at a cycle of names."""
    found: dict[str, list[tuple[Path, int, list[str]]]] = {
        "A": [(PACKAGE, 1, [])],
        "B": [(PACKAGE, 1, ["A"])],
        "C": [(PACKAGE, 1, ["B"])],
        "D": [(PACKAGE, 1, ["C", "Exception"])],
        "E": [(PACKAGE, 1, ["E"])],
    }
    assert [below(found, n) for n in "ABCDE"] == [0, 1, 2, 3, 1]


def cycles(imports: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import one another, directly or through others (Tarjan's strongly connected
    components of more than one module)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in sorted(imports.get(module, ())):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = []
            while True:
                other = stack.pop()
                group.append(other)
                if other == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(imports):
        if module not in index:
            visit(module)
    return found


def test_no_modules_import_one_another_even_inside_a_function() -> None:
    """The layers contract keeps imports pointing down between layers; this keeps them acyclic within one too,
    counting the imports a function makes when it runs."""
    import grimp

    graph = grimp.build_graph("emulator")
    imports = {m: set(graph.find_modules_directly_imported_by(m)) & graph.modules for m in graph.modules}
    assert cycles(imports) == []
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
