"""What a user installs: the wheel, and the image built from it (Dockerfile, docker-compose.yml).

The wheel is built as the Dockerfile's build stage builds it: that stage's `pip wheel` command, run in a folder
that holds only what the stage copies (skipped, saying so, only when pip cannot install the build backend). It
is then installed, without its dependencies and with no index, into a fresh venv in a temporary folder that
borrows this venv's packages (a .pth file): offline, and the emulator that runs there is the wheel's, not the
checkout's. The image's own `pip install` is only read: it must install that wheel.

Docker does not run where the tests run, so the Dockerfile and docker-compose.yml are read: their commands
must parse with the CLI's own parser, and the image's command and the compose service's, run with the venv's
emulator (on loopback and a free port where they say 0.0.0.0 and 8000), must serve and pass the image's
HEALTHCHECK probe. Not covered: Docker itself (the base image, useradd, pip's downloads, mounts, published
ports, signals to PID 1).
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import urllib.parse
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
import yaml

from emulator import cli, recordings, scenarios
from tests.conftest import BUNDLED, call, launch, read_until
from tests.side_venv import CACHE
from tests.test_plugin import USER_TESTS

REPO = BUNDLED.parent
COMPOSE = yaml.safe_load((REPO / "docker-compose.yml").read_text())
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


def only(stage: Stage, keyword: str) -> str:
    """The rest of the stage's one `keyword` line."""
    lines = [rest for k, rest in stage if k == keyword]
    assert len(lines) == 1, f"expected one {keyword} in the stage, found {lines}"
    return lines[0]


BUILD, IMAGE = stages()[0], stages()[-1]
WORKDIR = only(IMAGE, "WORKDIR")  # where the image runs, and compose mounts the folders


WHEELS = CACHE / "wheels"  # compiled wheels, by a hash of what they are built from


def build_command() -> str:
    """The build stage's `pip wheel` line."""
    [command] = [rest for k, rest in BUILD if k == "RUN" and "pip wheel" in rest]
    return command


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built by the build stage's `pip wheel` (its wheel folder moved here) from what the stage copies:
    compiled (setup.py), so kept under WHEELS by a hash of the copied files, the command and this Python, and built
    again only when one of them changes."""
    context, out = tmp_path_factory.mktemp("context"), tmp_path_factory.mktemp("wheels")
    for keyword, rest in BUILD:
        if keyword == "COPY":
            *sources, target = rest.split()
            for source in sources:
                into = context / target / source if len(sources) > 1 or target.endswith("/") else context / target
                if (REPO / source).is_dir():  # as .dockerignore: no caches or built modules; emulator/bundled/'s links
                    ignored = shutil.ignore_patterns("__pycache__", "*.so")
                    shutil.copytree(REPO / source, into, symlinks=True, ignore=ignored)
                else:
                    shutil.copy(REPO / source, into)
    command = build_command().replace("/wheels", str(out))
    cached = WHEELS / _digest(context, command + os.environ.get("EMULATOR_COMPILED", ""))  # pure or compiled
    found = sorted(cached.glob("*.whl"))
    if found:
        return found[0]
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', os.defpath)}"  # this venv's pip
    built = subprocess.run(
        ["sh", "-c", command], cwd=context, env=os.environ | {"PATH": path}, capture_output=True, text=True
    )
    said = built.stdout + built.stderr
    if built.returncode != 0 and "to install build dependencies did not run successfully" in said:
        pytest.skip(f"the build backend cannot be installed here (offline, no setuptools or mypy at hand):\n{said}")
    assert built.returncode == 0, said[-20000:]
    [made] = out.glob("*.whl")
    partial = WHEELS / f"{cached.name}.{os.getpid()}"
    partial.mkdir(parents=True, exist_ok=True)
    shutil.copy(made, partial / made.name)
    try:
        partial.rename(cached)
    except OSError:  # another run kept the same wheel first: either will do
        shutil.rmtree(partial, ignore_errors=True)
    return made


def _digest(context: Path, command: str) -> str:
    """A hash of the files under `context` (paths, contents, links' targets), `command` and this Python."""
    digest = hashlib.sha256(f"{command}\0{sys.version}\0{sysconfig.get_platform()}\0".encode())
    for path in sorted(context.rglob("*")):
        digest.update(str(path.relative_to(context)).encode() + b"\0")
        if path.is_symlink():
            digest.update(os.readlink(path).encode())
        elif path.is_file():
            digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:24]


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed and this venv's packages borrowed; its folder."""
    root = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], capture_output=True, text=True
    ).stdout.strip()
    Path(purelib, "borrowed.pth").write_text(sysconfig.get_path("purelib") + "\n")  # .pth files there not run
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index"]
    done = subprocess.run([*install, "--ignore-installed", "-q", str(wheel)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return root


def test_the_wheel_carries_the_bundled_scenarios_cassettes_model_catalogs_and_license(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        meta = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    for folder in ("scenarios", "recordings"):
        files = sorted((REPO / folder).glob("*.yaml"))
        assert files
        assert {f"emulator/bundled/{folder}/{f.name}" for f in files} <= names
    assert {"emulator/catalog/openai.yaml", "emulator/catalog/anthropic.yaml"} <= names  # the models' facts
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "License-Expression: MIT" in meta.splitlines()


def test_the_installed_wheel_serves_the_bundled_scenarios_from_an_empty_folder(venv: Path, tmp_path: Path) -> None:
    where = run([venv / "bin" / "python", "-c", "import emulator; print(emulator.__file__)"], tmp_path).strip()
    assert Path(where).is_relative_to(venv)  # the wheel's emulator, not the checkout's
    assert run([venv / "bin" / "emulator", "--version"], tmp_path) == f"emulator {metadata.version('emulator')}\n"
    process, port = launch([str(venv / "bin" / "emulator"), "serve", "--port", "0"], cwd=tmp_path)
    try:
        book = scenarios.load([BUNDLED]).scenarios
        assert (
            read_until(process, "scenarios:")[-1]
            == f"scenarios: {len(book)} from {Path(where).parent}/bundled/scenarios\n"
        )
        assert call(port, "GET", "/health") == (200, {"status": "ok", "scenarios": len(book), "state": "ok"})
        haiku = next(s for s in book if s.name == "haiku")
        asked = {"model": "haiku", "messages": [{"role": "user", "content": "a poem"}]}
        status, answer = call(port, "POST", "/v1/chat/completions", asked, {"authorization": "Bearer sk-test"})
        assert (status, answer["choices"][0]["message"]["content"]) == (200, haiku.steps[0].text)
    finally:
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=60)
    assert process.returncode == 0, out


def test_the_image_installs_the_wheel_its_build_stage_made_and_runs_as_a_user() -> None:
    assert "--wheel-dir /wheels" in build_command()
    installs = [rest for k, rest in IMAGE if k == "RUN" and "pip install" in rest]
    assert len(installs) == 1 and installs[0].endswith("pip install --no-cache-dir /wheels/*.whl"), installs
    assert "from=build,source=/wheels" in installs[0]  # mounted from the build stage: no copy left in a layer
    assert only(IMAGE, "USER") not in ("root", "0")
    ignored = (REPO / ".dockerignore").read_text().splitlines()
    copied = {source for k, rest in BUILD if k == "COPY" for source in rest.split()[:-1]}
    assert {line[1:] for line in ignored if line.startswith("!")} == copied  # the context: what is copied


# The two ways the image serves: as built, with nothing mounted (the bundled scenarios), and as compose runs it.
SERVES = {
    "image": json.loads(only(IMAGE, "ENTRYPOINT")) + json.loads(only(IMAGE, "CMD")),
    "compose": json.loads(only(IMAGE, "ENTRYPOINT")) + COMPOSE["services"]["emulator"]["command"],
}


@pytest.mark.parametrize("name", SERVES)
def test_the_image_and_compose_commands_serve_and_pass_the_health_check(
    name: str, venv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    command = SERVES[name]
    assert command[:2] == ["emulator", "serve"]
    assert flag(command, "--host") == "0.0.0.0" and flag(command, "--port") == only(IMAGE, "EXPOSE") == "8000"
    monkeypatch.setenv("EMULATOR_ADMIN_TOKEN", "s3cret")
    assert cli.parser().parse_args(command[1:]).admin_token == "s3cret"  # bound beyond loopback, it needs one
    data = tmp_path / WORKDIR.strip("/")
    data.mkdir(parents=True)
    if name == "compose":
        for folder in ("scenarios", "recordings"):
            shutil.copytree(REPO / folder, data / folder)  # as mounted
    local = [*command[1:]]
    local[local.index("--host") + 1], local[local.index("--port") + 1] = "127.0.0.1", "0"
    healthcheck = json.loads(only(IMAGE, "HEALTHCHECK").split(" CMD ", 1)[1])
    assert healthcheck[0] == "python" and ":8000/health" in healthcheck[-1]
    process, port = launch([str(venv / "bin" / "emulator"), *local], cwd=data)
    probe = [str(venv / "bin" / "python"), *healthcheck[1:-1], healthcheck[-1].replace(":8000/", f":{port}/")]
    try:
        count = len(scenarios.load([BUNDLED]).scenarios)
        banner = read_until(process, "scenarios:")[-1]
        if name == "compose":  # the mounted folders: ./scenarios served, the cassettes replayed
            assert banner == f"scenarios: {count} from scenarios\n"
            cassettes = len(recordings.load([REPO / "recordings"]))
            assert read_until(process, "recordings:")[-1] == f"recordings: {cassettes} from recordings\n"
        else:  # nothing mounted: the wheel's bundled scenarios
            assert banner.startswith(f"scenarios: {count} from {venv}/") and banner.endswith("/bundled/scenarios\n")
        assert call(port, "GET", "/health") == (200, {"status": "ok", "scenarios": count, "state": "ok"})
        assert subprocess.run(probe, capture_output=True).returncode == 0
    finally:
        process.send_signal(signal.SIGTERM)  # docker stop
        out, _ = process.communicate(timeout=60)
    assert process.returncode == 0, out
    assert subprocess.run(probe, capture_output=True).returncode != 0  # nothing answers: unhealthy


def test_compose_builds_the_image_mounts_the_folders_and_names_real_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (REPO / "docker-compose.yml").read_text()
    assert "pip" not in text  # nothing installed at start
    serve, record = COMPOSE["services"]["emulator"], COMPOSE["services"]["record"]
    assert serve["build"] == record["build"] == "."
    assert serve["ports"] == ["127.0.0.1:8000:8000"] and record["ports"] == ["127.0.0.1:8001:8000"]
    assert serve["environment"] == ["EMULATOR_ADMIN_TOKEN=${EMULATOR_ADMIN_TOKEN:-}"]
    assert serve["volumes"] == [f"./{f}:{WORKDIR}/{f}:ro" for f in ("scenarios", "recordings")]
    assert record["volumes"] == [f"./recordings:{WORKDIR}/recordings"]  # writable: the cassette goes there
    assert record["profiles"] == ["record"]
    assert flag(record["command"], "--upstream") == "${EMULATOR_UPSTREAM:-}"
    assert (REPO / "scenarios").is_dir() and (REPO / "recordings").is_dir()
    monkeypatch.setenv("EMULATOR_UPSTREAM", "https://upstream.example")
    parsed = []
    for service in (serve, record):
        argv = [os.path.expandvars(re.sub(r"\$\{(\w+):-\}", r"${\1}", a)) for a in service["command"]]
        parsed.append(cli.parser().parse_args(argv))  # every flag exists, every value is valid, or it exits 2
    assert [args.port for args in parsed] == [8000, 8000]
    assert parsed[0].recordings == [Path("recordings")] and parsed[1].out.parts[0] == "recordings"  # the mounts


def test_the_scale_profile_runs_replicas_sharing_redis_behind_the_proxy() -> None:
    """Two replicas of `serve --workers 2 --state redis://redis:6379/0`, the Redis they name, and nginx in front
    of them (deploy/nginx.conf) on the host's loopback: read, as Docker does not run here."""
    services = COMPOSE["services"]
    redis, scaled, proxy = services["redis"], services["scaled"], services["proxy"]
    assert redis["profiles"] == scaled["profiles"] == proxy["profiles"] == ["scale"]
    assert scaled["build"] == "." and scaled["deploy"]["replicas"] == 2 and scaled["depends_on"] == ["redis"]
    args = cli.parser().parse_args(scaled["command"])
    assert args.workers == 2 and args.host == "0.0.0.0"
    state = urllib.parse.urlsplit(args.state)
    assert (state.scheme, state.hostname, state.port or 6379) == ("redis", "redis", 6379)  # the service, its port
    assert "--port" not in redis.get("command", []) and redis["image"].startswith("redis:")
    config = (REPO / "deploy" / "nginx.conf").read_text()
    assert proxy["volumes"] == ["./deploy/nginx.conf:/etc/nginx/nginx.conf:ro"] and proxy["depends_on"] == ["scaled"]
    upstream = re.search(r"upstream (\w+) \{\s*server (\w+):(\d+);", config)
    assert upstream and (upstream[2], int(upstream[3])) == ("scaled", args.port)
    assert f"proxy_pass http://{upstream[1]};" in config and "proxy_buffering off;" in config
    (published,) = proxy["ports"]
    assert published.startswith("127.0.0.1:") and published.rsplit(":", 1)[1] == re.search(r"listen (\d+);", config)[1]
    for name, service in services.items():  # nothing published beyond the host's loopback
        assert all(port.startswith("127.0.0.1:") for port in service.get("ports", [])), name


def flag(command: list[str], name: str) -> str:
    """The value after `name` in `command`."""
    return command[command.index(name) + 1]


def run(command: list[str | Path], cwd: Path) -> str:
    """What `command` prints, run in `cwd` (not the checkout, whose emulator/ `python -c` would import); it
    must succeed."""
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_a_users_test_file_passes_with_the_installed_wheels_plugin(venv: Path, tmp_path: Path) -> None:
    """Issue 15's "done when": the wheel installed, a test file in an empty folder that uses only the documented
    fixture API passes, the plugin loaded by its entry point alone."""
    (tmp_path / "test_user.py").write_text(USER_TESTS)
    ran = subprocess.run(
        [venv / "bin" / "python", "-m", "pytest", "-p", "no:cacheprovider", "-W", "error", "-q", "test_user.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "6 passed" in ran.stdout
    plugin = run([venv / "bin" / "python", "-c", "import emulator.pytest_plugin as p; print(p.__file__)"], tmp_path)
    assert Path(plugin.strip()).is_relative_to(venv)


def test_the_wheel_carries_the_default_models_lexicon_and_the_installed_one_reads_it(
    wheel: Path, venv: Path, tmp_path: Path
) -> None:
    """The grammar and lexicon are data files of the package (`[tool.setuptools.package-data]`): the wheel holds
    each, and the installed emulator's default writes from them, not from the checkout's."""
    lexicon = sorted((REPO / "emulator" / "default_model" / "lexicon").glob("*.txt"))
    assert {f.name for f in lexicon} >= {"domains.txt", "frames.txt", "verse.txt", "letters.txt"}
    with zipfile.ZipFile(wheel) as archive:
        assert {f"emulator/default_model/lexicon/{f.name}" for f in lexicon} <= set(archive.namelist())
    probe = (
        "from emulator.default_model import lexicon; from pathlib import Path; import sys\n"
        "where = Path(lexicon.__file__).parent / 'lexicon' / 'frames.txt'\n"
        "assert where.is_file() and str(where).startswith(sys.prefix), where\n"
        "print(len(lexicon.LEXICON.domains), lexicon.LEXICON.domain(['sourdough']).name)\n"
    )
    assert run([venv / "bin" / "python", "-c", probe], tmp_path) == f"{len(_sections(REPO))} food\n"
    said = run([venv / "bin" / "python", "-m", "emulator.default_model", "Write a haiku about rain."], tmp_path)
    assert "**Rain**" in said and said.count("\n") > 5


def _sections(repo: Path) -> list[str]:
    text = (repo / "emulator" / "default_model" / "lexicon" / "domains.txt").read_text()
    return [line for line in text.splitlines() if line.startswith("[")]


def test_the_installed_wheel_writes_code_from_its_own_templates(wheel: Path, venv: Path, tmp_path: Path) -> None:
    """The default model's code templates are package data: the wheel carries every one, and the installed
    package reads its own (a Go request gets Go from the wheel's `templates/go.txt`, not the checkout's)."""
    templates = sorted((REPO / "emulator" / "default_model" / "templates").glob("*.txt"))
    assert len(templates) > 5
    with zipfile.ZipFile(wheel) as archive:
        assert {f"emulator/default_model/templates/{t.name}" for t in templates} <= set(archive.namelist())
    script = (
        "import itertools; from emulator.default_model import code; "
        "c = code.write('Write a Go function that reverses a string', itertools.cycle([0])); "
        "print(code.__file__); print(c.language, c.name, 'func reverseString' in c.source)"
    )
    where, said = run([venv / "bin" / "python", "-c", script], tmp_path).splitlines()
    assert Path(where).is_relative_to(venv)
    assert said == "go reverseString True"


def build_small(tmp_path: Path, name: str, env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], Path]:
    """setup.py and pyproject.toml, building a package of one module setup.py compiles (ids.py, which imports no
    other), with this venv's setuptools and mypyc (the test extras): pip wheel's run and its folder of wheels."""
    source, out = tmp_path / name / "src", tmp_path / name / "wheels"
    (source / "emulator").mkdir(parents=True)
    for copied in ("setup.py", "pyproject.toml", "README.md", "LICENSE", "emulator/ids.py"):
        shutil.copy(REPO / copied, source / copied)
    (source / "emulator" / "__init__.py").write_text("")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("EMULATOR_")}
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', os.defpath)}"  # this venv's pip
    command = [sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-build-isolation", "-w", str(out)]
    built = subprocess.run([*command, str(source)], env=clean | {"PATH": path} | env, capture_output=True, text=True)
    return built, out


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler to build the compiled wheel with")
def test_a_wheel_is_compiled_by_default_pure_and_untagged_without_a_compiler_and_failed_when_it_must_compile(
    tmp_path: Path,
) -> None:
    """The three builds of setup.py, on a package of one module. `CC=false` is a C compiler that always fails."""
    built, out = build_small(tmp_path, "default", {})
    assert built.returncode == 0, built.stdout[-5000:] + built.stderr[-5000:]
    [wheel] = out.glob("*.whl")
    assert wheel.name.endswith(f"-{sysconfig.get_platform().replace('-', '_').replace('.', '_')}.whl"), wheel.name
    with zipfile.ZipFile(wheel) as archive:
        assert any(n.startswith("emulator/ids.cpython-") and n.endswith(".so") for n in archive.namelist())
    built, out = build_small(tmp_path, "no compiler", {"CC": "false"})
    assert built.returncode == 0, built.stdout[-5000:] + built.stderr[-5000:]
    assert "emulator: building pure Python, the C build failed" in built.stdout + built.stderr
    [wheel] = out.glob("*.whl")
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name  # no platform's tag on a wheel of sources
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        purelib = "Root-Is-Purelib: true" in archive.read(next(n for n in names if n.endswith("/WHEEL"))).decode()
    assert "emulator/ids.py" in names and not [n for n in names if n.endswith(".so")] and purelib
    built, out = build_small(tmp_path, "must", {"CC": "false", "EMULATOR_COMPILED": "1"})
    assert built.returncode != 0 and not list(out.glob("*.whl"))
    built, out = build_small(tmp_path, "pure", {"EMULATOR_PURE": "1"})
    assert built.returncode == 0 and [w.name.endswith("-py3-none-any.whl") for w in out.glob("*.whl")] == [True]


def compiled_paths() -> list[Path]:
    """The files setup.py's `COMPILED` names (a folder: every module under it but a `__main__`)."""
    tree = ast.parse((REPO / "setup.py").read_text())
    [entries] = [
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["COMPILED"]
    ]
    found = [p for entry in entries for p in sorted(REPO.glob(entry + "**/*.py" if entry.endswith("/") else entry))]
    return [p for p in found if p.name != "__main__.py"]  # as setup.py: `python -m` needs the module's code


def compiled_modules() -> list[str]:
    """The modules setup.py compiles, by dotted name."""
    return [".".join(p.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__") for p in compiled_paths()]


BUILT_IN_TYPES = {name for name, value in vars(builtins).items() if isinstance(value, type) and value is not object}


def unset_when_compiled(sources: list[str]) -> list[str]:
    """`Class.name` for each value given in the body of a class derived (in `sources`, at any depth) from a built-in
    type such as `Exception`, other than a `ClassVar`, a `Final` or a dunder. Pure Python reads such a value from
    the class; compiled by mypyc, the class never sets it on its instances, and reading it raises AttributeError."""
    classes = [node for source in sources for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ClassDef)]
    derived, grown = set(BUILT_IN_TYPES), True
    while grown:
        named = {c.name for c in classes if any(ast.unparse(b).rsplit(".", 1)[-1] in derived for b in c.bases)}
        grown, derived = not named <= derived, derived | named
    found = []
    for c in (c for c in classes if any(ast.unparse(b).rsplit(".", 1)[-1] in derived for b in c.bases)):
        for item in c.body:
            if isinstance(item, ast.Assign):
                names = [t.id for t in item.targets if isinstance(t, ast.Name)]
            elif isinstance(item, ast.AnnAssign) and item.value is not None and isinstance(item.target, ast.Name):
                kept = re.search(r"\b(ClassVar|Final)\b", ast.unparse(item.annotation))
                names = [] if kept else [item.target.id]
            else:
                names = []
            found += [f"{c.name}.{n}" for n in names if not n.startswith("__")]
    return found


def test_no_compiled_class_derived_from_a_built_in_type_gives_its_instances_a_class_level_value() -> None:
    """Issue 32: the compiled wheel's `InvalidRequest(...).status` was unset. Caught here without compiling."""
    broken = "class Refused(ValueError):\n    status = 400\n\n\nclass Gone(Refused):\n    status: int = 410\n"
    assert unset_when_compiled([broken]) == ["Refused.status", "Gone.status"]
    sound = (
        "from typing import ClassVar\n\n\nclass Refused(LookupError):\n    status: ClassVar[int] = 404\n"
        "    __match_args__ = ('code',)\n\n    def __init__(self, code: int) -> None:\n        self.code = code\n"
        "\n\nclass Plain:\n    status = 400\n"
    )
    assert unset_when_compiled([sound]) == []
    assert unset_when_compiled([p.read_text() for p in compiled_paths()]) == []
    errors = (REPO / "emulator" / "errors.py").read_text()  # the pattern: why errors.py stays Python
    assert "emulator.errors" not in compiled_modules() and "InvalidRequest.status" in unset_when_compiled([errors])


def test_the_wheel_holds_the_compiled_core_and_the_installed_emulator_runs_it(
    wheel: Path, venv: Path, tmp_path: Path
) -> None:
    """Every module setup.py compiles is an extension module in the wheel, beside its source, and is what the
    installed package imports; what stays Python (frozen, the shell) has no extension module."""
    modules = compiled_modules()
    assert {"emulator.pipeline", "emulator.conversation", "emulator.default_model.writer"} <= set(modules)
    assert any(m.startswith("emulator.dialects.openai_chat") for m in modules)
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    extensions = {n.split(".cpython-")[0].replace("/", ".") for n in names if n.endswith(".so")}
    # A package: its __init__'s module (a module beside a data folder of its name, lexicon.py and lexicon/, is none).
    folders = {m for m in modules if (REPO / m.replace(".", "/") / "__init__.py").is_file()}
    assert {f"{m}.__init__" if m in folders else m for m in modules} <= extensions
    assert not {"emulator.frozen", "emulator.app"} & extensions
    assert {"emulator/pipeline.py", "emulator/frozen.py"} <= names  # the sources stay, for tracebacks and reading
    probe = (
        "import importlib, sys\n"
        "for name in sys.argv[1:]:\n"
        "    print(name, importlib.import_module(name).__file__.rsplit('.', 1)[-1])\n"
    )
    kinds = {"emulator.pipeline": "so", "emulator.default_model.writer": "so", "emulator.frozen": "py"}
    kinds["emulator.server"], kinds["emulator.server.cycle"] = "so", "so"  # the server compiled, its cycle too
    kinds["emulator.server.protocol"] = "so"  # and its protocols
    kinds["emulator.shared_redis.batch"], kinds["emulator.shared_redis.outage"] = "so", "py"  # the scripts' path
    kinds["emulator.state"], kinds["emulator.recent"] = "so", "so"
    kinds["emulator.serving"], kinds["emulator.app"] = "so", "py"  # the answering endpoint compiled, its routes not
    said = run([venv / "bin" / "python", "-c", probe, *kinds], tmp_path)
    assert dict(line.split() for line in said.splitlines()) == kinds


# The dialects driven end to end by the official SDKs, and the workers on Redis (its state compiled where a request
# goes through it): run once more, against the installed compiled wheel.
DIALECT_TESTS = ["test_app_chat.py", "test_app_responses.py", "test_app_messages.py", "test_server.py"]
DIALECT_TESTS += ["test_shared_redis.py", "test_workers.py", "test_metrics_workers.py"]


def test_the_sdk_driven_dialect_tests_pass_against_the_installed_compiled_wheel(venv: Path, tmp_path: Path) -> None:
    """The tests are copied to a folder with no emulator/ beside them, so that the venv's (compiled) package is the
    one they import, and run there by the venv's pytest, with the project's pytest settings."""
    shutil.copytree(REPO / "tests", tmp_path / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "scenarios", tmp_path / "scenarios")
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    python = venv / "bin" / "python"
    where = run([python, "-c", "import emulator.pipeline as p; print(p.__file__)"], tmp_path).strip()
    assert Path(where).is_relative_to(venv) and where.endswith(".so"), where
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "RUN_OF_EMULATOR_TESTS")}  # its own run
    ran = subprocess.run(
        [
            python,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "-q",
            *(f"tests/{t}" for t in DIALECT_TESTS),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 0, ran.stdout[-20000:] + ran.stderr[-5000:]
    assert re.search(r"\b\d+ passed\b", ran.stdout) and " failed" not in ran.stdout, ran.stdout[-2000:]
