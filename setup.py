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
# The modules compiled, in one place, by layer: what a request goes through, and the default model. Left Python,
# and why:
# - a folder's __main__.py (emulator/default_model/'s): `python -m` runs its code object, which a compiled module
#   has not ("No code object available").
# - emulator/core/frozen.py: `dataclass_transform` sets an attribute on the function it marks, which a compiled
#   function cannot take (the import fails).
# - emulator/core/errors.py: its errors give each subclass its `status` and `kind` as class attributes, and an
#   instance's own (UpstreamError) overrides them; on a compiled class derived from a built-in type (`Exception`) a
#   class-level value is never set on the instances. Errors are made only on a refusal, off the plain path.
#   tests/test_packaging.py holds the compiled modules free of the pattern.
# - the HTTP shell (emulator/http/ but `serving`), the command line and MCP: their time is in Starlette and I/O, and
#   their classes subclass Starlette's; the server's loop, its stop and its forks (`emulator/server/running.py`,
#   `workers.py`, `__init__.py`): off a request's path; the recordings' formats: I/O and vcrpy.
# - the state in Redis's address, outage guard (a subclass of redis-py's client) and scripts: off the plain path.
# Compiled beyond the pure stages, each because a request goes through it:
# - the server's connection, exchanges, access log and turns (`emulator/server/`): classes of the emulator's own
#   that derive from nothing. A compiled class derived from a class the build cannot see gets no `__dict__` and
#   crashes at start; tests/test_packaging.py refuses any compiled class whose base is not compiled.
# - emulator/http/serving.py, the answering endpoint's ASGI app.
# - emulator/state/ and its stores in Redis: a native class takes a Python subclass only under
#   `@mypyc_attr(allow_interpreted_subclasses=True)`, which the wheel could not import, so every form of a store's
#   interface is compiled with it. The metrics count every answer in plain lists; prometheus_client runs only
#   when scraped.
COMPILED = [
    # core
    "emulator/core/conversation.py",
    "emulator/core/fields.py",
    "emulator/core/identity.py",
    "emulator/core/ids.py",
    "emulator/core/logprobs.py",
    "emulator/core/recent.py",
    "emulator/core/sse.py",
    "emulator/core/tokens.py",
    "emulator/core/wire.py",
    # the server's per-request steps
    "emulator/server/access.py",
    "emulator/server/connection.py",
    "emulator/server/exchange.py",
    "emulator/server/turns.py",
    # rules
    "emulator/rules/anthropic_rules.py",
    "emulator/rules/bedrock_rules.py",
    "emulator/rules/caches.py",
    "emulator/rules/catalog/__init__.py",
    "emulator/rules/faults.py",
    "emulator/rules/google_rules.py",
    "emulator/rules/limits.py",
    "emulator/rules/profiles.py",
    "emulator/rules/schema.py",
    "emulator/rules/structured.py",
    "emulator/rules/validation.py",
    "emulator/rules/wording.py",
    # dialects and the default model, whole
    "emulator/dialects/",
    "emulator/default_model/",
    # scenarios
    "emulator/scenarios/__init__.py",
    "emulator/scenarios/form.py",
    "emulator/scenarios/entries.py",
    # journal
    "emulator/journal/__init__.py",
    "emulator/journal/delivery.py",
    "emulator/journal/findings.py",
    # state: every store's interface and its forms, in process and in Redis (a native class's subclass must be
    # compiled too); the Redis link's address, outage guard and scripts stay Python
    "emulator/state/__init__.py",
    "emulator/state/buckets.py",
    "emulator/state/counts.py",
    "emulator/state/directions.py",
    "emulator/state/kept.py",
    "emulator/state/metrics.py",
    "emulator/state/posted.py",
    "emulator/state/records.py",
    "emulator/state/stores.py",
    "emulator/state/values.py",
    "emulator/state/redis/batch.py",
    "emulator/state/redis/counters.py",
    "emulator/state/redis/directions.py",
    "emulator/state/redis/kept.py",
    "emulator/state/redis/link.py",
    "emulator/state/redis/posted.py",
    "emulator/state/redis/records.py",
    "emulator/state/redis/stores.py",
    # answering
    "emulator/answering/compose.py",
    "emulator/answering/counting.py",
    "emulator/answering/model_checks.py",
    "emulator/answering/reading.py",
    "emulator/answering/recall.py",
    "emulator/answering/rounds.py",
    "emulator/answering/stages.py",
    # the answering endpoint
    "emulator/http/serving.py",
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
