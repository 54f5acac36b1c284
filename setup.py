"""The build: the answering core compiled by mypyc where it can be, pure Python otherwise; the same behaviour either
way. Everything else about the package is in pyproject.toml.

- A wheel (`pip wheel .`, `pip install .`) compiles the modules of `COMPILED`, as black and mypy ship themselves.
  Where mypyc refuses them or there is no working C compiler, it says why and builds a pure Python wheel, tagged
  `py3-none-any` as any pure wheel is.
- `EMULATOR_PURE=1`: pure Python, nothing compiled.
- `EMULATOR_COMPILED=1`: compiled or the build fails; no fallback. It is also the switch that compiles an editable
  install (`EMULATOR_COMPILED=1 pip install -e .`), which otherwise stays pure so that an edit takes effect at once.
  A compiled editable install puts the extension modules beside the sources (`*.so`, ignored by git), and they win
  over the `.py` files until removed: `git clean -fX emulator` or `EMULATOR_PURE=1 pip install -e .` after
  deleting them.

The compiled modules keep their `.py` sources in the wheel; a module runs compiled where its `__file__` is a `.so`.
The C is built in `GROUPS`, one shared library each, compiled side by side (one per CPU): one library of the whole
core was a single 27.5 MB C file that one CPU compiled alone.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).parent
# The modules compiled, in one place: the pure stages a request goes through and the default model. Left Python,
# and why:
# - a folder's __main__.py (emulator/default_model/'s): `python -m` runs its code object, which a compiled module
#   has not ("No code object available").
# - emulator/frozen.py: `dataclass_transform` sets an attribute on the function it marks, which a compiled
#   function cannot take (the import failed).
# - emulator/errors.py: its errors give each subclass its `status` and `kind` as class attributes, and an
#   instance's own (UpstreamError) overrides them. On a class mypyc compiles that derives from a built-in type
#   (`Exception`), a class-level value is never set on the instances: reading `InvalidRequest(...).status` raised
#   AttributeError, and the dialect tests failed (33 of 78) against the compiled wheel. The errors are made only on
#   a refusal, off the plain path, so they stay Python. tests/test_packaging.py holds the compiled modules free of
#   the pattern.
# - the shell (app, admin, models, player, cli, ...): its time is in httptools and Starlette, and its classes
#   subclass Starlette's; the server's loop and its stop (`server/running.py`, `server/__init__.py`): off the path
#   of a request; the recordings' formats: I/O and vcrpy, off the plain path.
# - emulator/server/workers.py (it forks and waits); shared_redis's address, outage guard (a subclass of redis-py's
#   client) and scripts: off the plain path.
# Compiled beyond the pure stages, each because a request goes through it:
# - the server's connection (`emulator/server/connection.py`, the asyncio protocol), its exchanges (`exchange.py`), the
#   access log (`access.py`) and `turns.py` (the outbox, the task-free run, the `Flag`): classes of the emulator's own
#   that derive from nothing (a compiled class derived from a class the build cannot see, uvicorn's when it was not
#   installed in the isolated build, was given no `__dict__` and crashed at start; tests/test_packaging.py refuses
#   any compiled class whose base is not compiled). Their per-request steps were most of the server's Python calls.
# - emulator/serving.py, the answering endpoint's ASGI app (app.py routes to it).
# - emulator/state.py and the state in Redis that subclasses it (shared_redis's base, batch, journal and shared: 12%
#   less CPU a request in a worker on Redis). A native class takes a Python subclass only under
#   `@mypyc_attr(allow_interpreted_subclasses=True)`, which the wheel could not import: a subclass of `State` must be
#   compiled too (a test's own would fail against the compiled wheel). `State.before_shape` reads its stores
#   directly, so that the plain path awaits one of its coroutines before the shape, not four.
# - emulator/metrics.py: it counts every answer in plain lists; prometheus_client is called only when `/metrics` is
#   read. With state.py, six Python calls a request fewer: a plain answer 3% cheaper at 16 connections.
COMPILED = [
    "emulator/answer.py",
    "emulator/answering.py",
    "emulator/catalog/__init__.py",
    "emulator/conversation.py",
    "emulator/error_answer.py",
    "emulator/faults.py",
    "emulator/fields.py",
    "emulator/identity.py",
    "emulator/ids.py",
    "emulator/journal.py",
    "emulator/delivery.py",
    "emulator/limits.py",
    "emulator/logprobs.py",
    "emulator/memory.py",
    "emulator/model_checks.py",
    "emulator/pipeline.py",
    "emulator/reading.py",
    "emulator/recent.py",
    "emulator/counting.py",
    "emulator/profiles.py",
    "emulator/report.py",
    "emulator/scenarios.py",
    "emulator/scenario_form.py",
    "emulator/scenario_reading.py",
    "emulator/serving.py",
    "emulator/sse.py",
    "emulator/state.py",
    "emulator/metrics.py",
    "emulator/tokens.py",
    "emulator/validation.py",
    "emulator/wire.py",
    "emulator/server/access.py",
    "emulator/server/connection.py",
    "emulator/server/exchange.py",
    "emulator/server/turns.py",
    "emulator/shared_redis/base.py",
    "emulator/shared_redis/batch.py",
    "emulator/shared_redis/journal.py",
    "emulator/shared_redis/shared.py",
    "emulator/dialects/",
    "emulator/default_model/",
]
# mypyc type-checks what it compiles: in the build's own environment, where the runtime dependencies (orjson,
# google-re2, faker, inflect) are not installed, they are `Any`; --strict is for the project's own mypy run.
# The groups, one C library each (mypyc's `separate`): a module's calls into another group's stay native.
GROUPS = {"emulator_model": ("emulator/default_model/",), "emulator_dialects": ("emulator/dialects/",)}
BUILDS = {"bdist_wheel", "build_ext", "build", "editable_wheel", "install", "develop"}
EDITABLE = {"editable_wheel", "develop"}
MYPY_OPTIONS = ["--config-file", os.devnull, "--ignore-missing-imports", "--python-version", "3.11"]


def wanted() -> tuple[bool, bool]:
    """(compile, must): whether to compile, and whether failing to must fail the build."""
    pure, must = os.environ.get("EMULATOR_PURE") == "1", os.environ.get("EMULATOR_COMPILED") == "1"
    if pure and must:
        sys.exit("EMULATOR_PURE=1 and EMULATOR_COMPILED=1 ask for opposite builds: set one")
    building = not BUILDS.isdisjoint(sys.argv)  # not when pip only asks for the metadata (egg_info, dist_info)
    editable = not EDITABLE.isdisjoint(sys.argv)  # pure unless asked, so that an edit takes effect at once
    return (building and not pure and (must or not editable)), must


def extensions(must: bool) -> list[object]:
    """mypyc's extension modules for `COMPILED`, or none (pure Python) when it cannot make them and need not."""
    paths = [
        str(p)
        for entry in COMPILED
        for p in sorted(HERE.glob(entry + "**/*.py" if entry.endswith("/") else entry))
        if p.name != "__main__.py"  # `python -m` runs a module's code object, which a compiled one has not
    ]
    groups: dict[str | None, list[str]] = {name: [] for name in [*GROUPS, None]}
    for path in paths:
        relative = Path(path).relative_to(HERE).as_posix()
        name = next((g for g, entries in GROUPS.items() if relative.startswith(entries)), None)
        groups[name].append(path)
    separate = [(files, name or "emulator_core") for name, files in groups.items() if files]
    try:
        from mypyc.build import mypycify

        built = mypycify([*MYPY_OPTIONS, *paths], opt_level="3", separate=separate)
        # The largest C first (a group's library; the modules' stubs are small), so that the CPUs finish together.
        return sorted(built, key=lambda e: -sum(os.path.getsize(source) for source in e.sources))
    except (Exception, SystemExit) as exc:  # mypyc reports a module it refuses by exiting
        if must:
            raise
        print(f"emulator: building pure Python, mypyc could not compile the core: {exc!r}", file=sys.stderr)
        return []


class OptionalBuildExt(build_ext):
    """Compiles the extensions, one per CPU at a time, or, when the C compiler fails or is missing (and
    EMULATOR_COMPILED is not set), removes what it built and leaves the package pure Python: a wheel then tagged
    pure (`py3-none-any`), not for this platform, since it holds no extension module."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:
            if wanted()[1]:
                raise
            print(f"emulator: building pure Python, the C build failed: {exc!r}", file=sys.stderr)
            for extension in self.extensions:
                built = Path(self.get_ext_fullpath(extension.name))
                built.unlink(missing_ok=True)
            self.extensions = []
            self.distribution.ext_modules = []
            wheel = self.distribution.get_command_obj("bdist_wheel", create=False)
            if wheel is not None:  # it took its tag from the extensions before they were built
                wheel.root_is_pure = True  # type: ignore[attr-defined]


compile_, must = wanted()
setup(ext_modules=extensions(must) if compile_ else [], cmdclass={"build_ext": OptionalBuildExt})
