"""The build: the answering core compiled by mypyc where it can be, pure Python otherwise; the same behaviour either
way. Everything else about the package is in pyproject.toml.

- Pure Python by default, for now: the compiled wheel fails the SDK-driven dialect tests (an error's class
  attribute, `InvalidRequest.status`, reads as unset under mypyc), so compiling is opt-in until that is mended
  (issue 32). With `EMULATOR_COMPILED=1`, a wheel (`pip wheel .`, `pip install .`) compiles the modules of
  `COMPILED`, as black and mypy ship themselves.
- `EMULATOR_PURE=1`: pure Python, nothing compiled.
- `EMULATOR_COMPILED=1`: compiled or the build fails; no fallback. It is also the switch that compiles an editable
  install (`EMULATOR_COMPILED=1 pip install -e .`), which otherwise stays pure so that an edit takes effect at once.
  A compiled editable install puts the extension modules beside the sources (`*.so`, ignored by git), and they win
  over the `.py` files until removed: `git clean -fX emulator` or `EMULATOR_PURE=1 pip install -e .` after
  deleting them.

The compiled modules keep their `.py` sources in the wheel; a module runs compiled where its `__file__` is a `.so`.
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
# - emulator/frozen.py: `dataclass_transform` sets an attribute on the function it marks, which a compiled
#   function cannot take (the import failed).
# - emulator/recent.py: `Recent` subclasses `dict`; a class compiled by mypyc cannot subclass a built-in type.
# - the shell (server, app, admin, models, player, cli, ...): its time is in uvicorn, httptools and Starlette, and
#   its classes subclass theirs; shared_redis and the recordings' formats: I/O and vcrpy, off the plain path.
# - emulator/state.py, emulator/shared_redis.py: split and rewritten in parallel (issue 32's Redis half); state is
#   worth compiling once they settle.
COMPILED = [
    "emulator/answer.py",
    "emulator/catalog/__init__.py",
    "emulator/conversation.py",
    "emulator/error_answer.py",
    "emulator/errors.py",
    "emulator/faults.py",
    "emulator/fields.py",
    "emulator/identity.py",
    "emulator/ids.py",
    "emulator/journal.py",
    "emulator/limits.py",
    "emulator/logprobs.py",
    "emulator/memory.py",
    "emulator/model_checks.py",
    "emulator/pipeline.py",
    "emulator/reading.py",
    "emulator/counting.py",
    "emulator/profiles.py",
    "emulator/report.py",
    "emulator/scenarios.py",
    "emulator/scenario_form.py",
    "emulator/scenario_reading.py",
    "emulator/sse.py",
    "emulator/tokens.py",
    "emulator/validation.py",
    "emulator/wire.py",
    "emulator/dialects/",
    "emulator/default_model/",
]
# mypyc type-checks what it compiles: in the build's own environment, where the runtime dependencies (orjson,
# google-re2, faker, inflect) are not installed, they are `Any`; --strict is for the project's own mypy run.
BUILDS = {"bdist_wheel", "build_ext", "build", "editable_wheel", "install", "develop"}
MYPY_OPTIONS = ["--config-file", os.devnull, "--ignore-missing-imports", "--python-version", "3.11"]


def wanted() -> tuple[bool, bool]:
    """(compile, must): whether to compile, and whether failing to must fail the build."""
    pure, must = os.environ.get("EMULATOR_PURE") == "1", os.environ.get("EMULATOR_COMPILED") == "1"
    if pure and must:
        sys.exit("EMULATOR_PURE=1 and EMULATOR_COMPILED=1 ask for opposite builds: set one")
    building = not BUILDS.isdisjoint(sys.argv)  # not when pip only asks for the metadata (egg_info, dist_info)
    return (building and not pure and must), must


def extensions(must: bool) -> list[object]:
    """mypyc's extension modules for `COMPILED`, or none (pure Python) when it cannot make them and need not."""
    paths = [
        str(p) for entry in COMPILED for p in sorted(HERE.glob(entry + "**/*.py" if entry.endswith("/") else entry))
    ]
    try:
        from mypyc.build import mypycify

        return list(mypycify([*MYPY_OPTIONS, *paths], opt_level="3"))
    except (Exception, SystemExit) as exc:  # mypyc reports a module it refuses by exiting
        if must:
            raise
        print(f"emulator: building pure Python, mypyc could not compile the core: {exc!r}", file=sys.stderr)
        return []


class OptionalBuildExt(build_ext):
    """Compiles the extensions, or, when the C compiler fails or is missing (and EMULATOR_COMPILED is not set),
    removes what it built and leaves the package pure Python."""

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


compile_, must = wanted()
setup(ext_modules=extensions(must) if compile_ else [], cmdclass={"build_ext": OptionalBuildExt})
