"""What users install, built the ways users build it, each into a fresh venv: for tests/test_install.py and
tests/test_packaging.py.

The ways (`WAYS`):
- `pip install .`: a fresh venv's own pip installs a clean copy of the checkout, with no flag and no setting (an
  isolated build: pip puts the build requirements in a throw-away environment; the dependencies come from the index);
- `python -m build`: the sdist, and the wheel `build` makes from that sdist (isolated too), which a fresh venv's pip
  installs with its dependencies;
- `Dockerfile`: the build stage's `pip wheel` command, run in a folder that holds only what the stage copies, and its
  wheel installed as the runtime stage installs it;
- `lowest dependencies`: the wheel of `python -m build`, installed with each dependency at the lowest version its range
  in pyproject.toml allows (the other ways install the newest): both ends of every range are tested.

A clean copy is what git tracks, and what it would (new files not ignored): a fresh clone of this work tree. The
wheels of the last two are kept under `CACHE/wheels` by a hash of everything that makes them: the files built, the
command, this Python and platform, and the versions pip resolves for the build requirements now (a new setuptools or
mypy builds again). The first is built every time: pip keeps no wheel of a local folder.

Each venv borrows the test venv's packages after its own (a .pth file), for the tests run there (pytest, the SDKs):
the emulator and its dependencies are the venv's own. Skipped, saying why, only when the index cannot be reached.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.side_venv import CACHE

REPO = Path(__file__).resolve().parent.parent
WAYS = ("pip install .", "python -m build", "Dockerfile", "lowest dependencies")
WHEELS = CACHE / "wheels"
BUILD_TIMEOUT = 1800  # seconds: mypyc's C for the whole core, on two loaded cores


@dataclass(frozen=True)
class Install:
    way: str
    venv: Path
    wheel: Path | None  # None for `pip install .`, which leaves none

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"


def clean_copy(into: Path) -> Path:
    """The files a fresh clone of this work tree holds (tracked or new, not ignored), copied into `into`; links kept."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source, target = REPO / name, into / name
        if not source.exists() and not source.is_symlink():
            continue  # deleted in the work tree, not yet in git
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, target)
    return into


def dockerfile_context(into: Path) -> Path:
    """What the Dockerfile's build stage copies (its COPY lines), in `into`, as Docker lays it under WORKDIR."""
    into.mkdir(parents=True, exist_ok=True)
    for keyword, rest in build_stage():
        if keyword == "COPY":
            *sources, target = rest.split()
            for source in sources:
                to = into / target / source if len(sources) > 1 or target.endswith("/") else into / target
                if (REPO / source).is_dir():  # as .dockerignore: no caches or built modules; emulator/bundled/'s links
                    ignored = shutil.ignore_patterns("__pycache__", "*.so")
                    shutil.copytree(REPO / source, to, symlinks=True, ignore=ignored)
                else:
                    shutil.copy(REPO / source, to)
    return into


Stage = list[tuple[str, str]]  # a Dockerfile stage: (INSTRUCTION, the rest of its line), continuations joined


def stages() -> list[Stage]:
    """The Dockerfile's stages, from each FROM on, without comments."""
    text = re.sub(r"\\\n\s*", " ", (REPO / "Dockerfile").read_text())
    found: list[Stage] = []
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            keyword, _, rest = line.strip().partition(" ")
            if keyword == "FROM":
                found.append([])
            found[-1].append((keyword, rest.strip()))
    return found


def build_stage() -> Stage:
    return stages()[0]


def dockerfile_command() -> str:
    """The build stage's `pip wheel` line."""
    [command] = [rest for keyword, rest in build_stage() if keyword == "RUN" and "pip wheel" in rest]
    return command


@functools.cache
def build_environment() -> list[str]:
    """The versions pip resolves now for the build requirements ([build-system] requires), as `name==version`."""
    requires = tomllib.loads((REPO / "pyproject.toml").read_text())["build-system"]["requires"]
    command = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "-q", "--report", "-"]
    done = subprocess.run([*command, *requires], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        pytest.skip(f"the build requirements cannot be resolved here (offline?): {done.stderr.strip()[-2000:]}")
    report = json.loads(done.stdout)
    return sorted(f"{i['metadata']['name']}=={i['metadata']['version']}" for i in report["install"])


def lowest_dependencies() -> list[str]:
    """Each runtime dependency pinned at its range's lower bound (`name>=X` gives `name==X`)."""
    pinned = []
    for requirement in tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]:
        found = re.fullmatch(r"([A-Za-z0-9_.\-]+)>=([0-9][^,;\s]*)(\s*;.*)?", requirement)
        assert found, f"a dependency whose lower bound this cannot read: {requirement}"
        pinned.append(f"{found[1]}=={found[2]}")
    return pinned


def _digest(folder: Path, command: str, environment: list[str]) -> str:
    """A hash of the files under `folder` (paths, contents, links' targets), `command`, the build environment and
    this Python."""
    digest = hashlib.sha256(f"{command}\0{sys.version}\0{sysconfig.get_platform()}\0".encode())
    digest.update("\0".join(environment).encode() + b"\0")
    for path in sorted(folder.rglob("*")):
        digest.update(str(path.relative_to(folder)).encode() + b"\0")
        if path.is_symlink():
            digest.update(os.readlink(path).encode())
        elif path.is_file():
            digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:24]


def _clean_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment without the build's switches or pip's settings: a user's shell."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith(("EMULATOR_", "PIP_", "PYTHON"))}
    kept["PATH"] = os.pathsep.join(p for p in kept.get("PATH", os.defpath).split(os.pathsep) if ".venv" not in p)
    return kept | (extra or {})


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=BUILD_TIMEOUT)
    said = done.stdout + done.stderr
    if done.returncode != 0 and ("No matching distribution" in said or "Could not find a version" in said):
        pytest.skip(f"the index cannot be reached from here: {said[-2000:]}")
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{said[-20000:]}"
    return done


def fresh_venv(root: Path) -> Path:
    """A new venv with pip, its folder."""
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True)
    return root


def borrow(venv: Path) -> None:
    """The test venv's packages, after the venv's own (a .pth line appends to sys.path): the tests' tools."""
    purelib = subprocess.run(
        [venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(purelib, "zz_borrowed.pth").write_text(sysconfig.get_path("purelib") + "\n")


def _cached_wheel(folder: Path, command: str, make: object) -> Path:
    """The wheel `make` builds from `folder` with `command`, kept by a hash of what makes it (one build at a time)."""
    cached = WHEELS / _digest(folder, command, build_environment())
    WHEELS.mkdir(parents=True, exist_ok=True)
    with open(WHEELS / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        found = sorted(cached.glob("*.whl"))
        if found:
            return found[0]
        assert callable(make)
        made: Path = make()
        cached.mkdir(parents=True, exist_ok=True)
        shutil.copy(made, cached / made.name)
        return cached / made.name


def install(way: str, workspace: Path) -> Install:
    """`way` (one of `WAYS`) carried out in `workspace`: the venv it made, and the wheel it installed."""
    venv = fresh_venv(workspace / "venv")
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    env = _clean_environment()
    wheel: Path | None = None
    if way == "pip install .":
        source = clean_copy(workspace / "clone")
        _run([*pip, "."], source, env)
    elif way in ("python -m build", "lowest dependencies"):
        source = clean_copy(workspace / "clone")
        out = workspace / "dist"

        def make() -> Path:
            _run([sys.executable, "-m", "build", "--outdir", str(out), str(source)], source, env)
            [sdist] = out.glob("*.tar.gz")
            [made] = out.glob("*.whl")
            assert sdist.name.startswith("llm_emulator-") or sdist.name.startswith("emulator-"), sdist.name
            return made

        wheel = _cached_wheel(source, "python -m build", make)
        if way == "lowest dependencies":
            lowest = workspace / "lowest.txt"
            lowest.write_text("".join(f"{line}\n" for line in lowest_dependencies()))
            pip += ["--constraint", str(lowest)]
        _run([*pip, str(wheel)], workspace, env)
    elif way == "Dockerfile":
        context = dockerfile_context(workspace / "context")
        out = workspace / "wheels"
        command = dockerfile_command().replace("/wheels", str(out))
        # The build stage's pip: the image's Python with its own pip, as a fresh venv's is.
        builder = fresh_venv(workspace / "builder")
        path = f"{builder / 'bin'}{os.pathsep}{env.get('PATH', os.defpath)}"

        def make() -> Path:
            _run(["sh", "-c", command], context, env | {"PATH": path})
            [made] = out.glob("*.whl")
            return made

        wheel = _cached_wheel(context, command, make)
        _run([*pip, str(wheel)], workspace, env)
    else:
        raise ValueError(f"no such way to install: {way}")
    borrow(venv)
    return Install(way, venv, wheel)
