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
from tests import installs
from tests.conftest import BUNDLED, call, launch, read_until

REPO = BUNDLED.parent
COMPOSE = yaml.safe_load((REPO / "docker-compose.yml").read_text())
Stage = installs.Stage
stages = installs.stages


def only(stage: Stage, keyword: str) -> str:
    """The rest of the stage's one `keyword` line."""
    lines = [rest for k, rest in stage if k == keyword]
    assert len(lines) == 1, f"expected one {keyword} in the stage, found {lines}"
    return lines[0]


BUILD, IMAGE = stages()[0], stages()[-1]
WORKDIR = only(IMAGE, "WORKDIR")  # where the image runs, and compose mounts the folders


def build_command() -> str:
    """The build stage's `pip wheel` line."""
    return installs.dockerfile_command()


@pytest.fixture(scope="module")
def image_install(tmp_path_factory: pytest.TempPathFactory) -> installs.Install:
    """The wheel the build stage's `pip wheel` makes from what the stage copies (compiled, so kept by a hash of what
    makes it: tests/installs.py), installed into a fresh venv as the runtime stage installs it."""
    return installs.install("Dockerfile", tmp_path_factory.mktemp("image"))


@pytest.fixture(scope="module")
def wheel(image_install: installs.Install) -> Path:
    assert image_install.wheel is not None
    return image_install.wheel


@pytest.fixture(scope="module")
def venv(image_install: installs.Install) -> Path:
    return image_install.venv


def test_the_wheel_carries_the_bundled_scenarios_cassettes_model_catalogs_and_license(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        meta = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    for folder in ("scenarios", "recordings"):
        files = sorted((REPO / folder).glob("*.yaml"))
        assert files
        assert {f"emulator/bundled/{folder}/{f.name}" for f in files} <= names
    assert {"emulator/rules/catalog/openai.yaml", "emulator/rules/catalog/anthropic.yaml"} <= names  # the models' facts
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "License-Expression: MIT" in meta.splitlines()


def test_the_installed_wheel_serves_the_bundled_scenarios_from_an_empty_folder(venv: Path, tmp_path: Path) -> None:
    where = run([venv / "bin" / "python", "-c", "import emulator; print(emulator.__file__)"], tmp_path).strip()
    assert Path(where).is_relative_to(venv)  # the wheel's emulator, not the checkout's
    said = run([venv / "bin" / "emulator", "--version"], tmp_path)
    assert said.startswith(f"emulator {metadata.version('llm-emulator')} ("), said
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
    (source / "emulator" / "core").mkdir(parents=True)
    for copied in ("setup.py", "pyproject.toml", "README.md", "LICENSE", "emulator/core/ids.py"):
        shutil.copy(REPO / copied, source / copied)
    (source / "emulator" / "__init__.py").write_text("")
    (source / "emulator" / "core" / "__init__.py").write_text("")
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
        assert any(n.startswith("emulator/core/ids.cpython-") and n.endswith(".so") for n in archive.namelist())
    built, out = build_small(tmp_path, "no compiler", {"CC": "false"})
    assert built.returncode == 0, built.stdout[-5000:] + built.stderr[-5000:]
    assert "emulator: building pure Python, the C build failed" in built.stdout + built.stderr
    [wheel] = out.glob("*.whl")
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name  # no platform's tag on a wheel of sources
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        purelib = "Root-Is-Purelib: true" in archive.read(next(n for n in names if n.endswith("/WHEEL"))).decode()
    assert "emulator/core/ids.py" in names and not [n for n in names if n.endswith(".so")] and purelib
    built, out = build_small(tmp_path, "must", {"CC": "false", "EMULATOR_COMPILED": "1"})
    assert built.returncode != 0 and not list(out.glob("*.whl"))
    built, out = build_small(tmp_path, "pure", {"EMULATOR_PURE": "1"})
    assert built.returncode == 0 and [w.name.endswith("-py3-none-any.whl") for w in out.glob("*.whl")] == [True]


def compiled_entries() -> dict[str, list[Path]]:
    """Each entry of setup.py's `COMPILED` and the files it names (a folder: every module under it)."""
    tree = ast.parse((REPO / "setup.py").read_text())
    [entries] = [
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["COMPILED"]
    ]
    return {entry: sorted(REPO.glob(entry + "**/*.py" if entry.endswith("/") else entry)) for entry in entries}


def compiled_paths() -> list[Path]:
    """The files setup.py's `COMPILED` names, but a `__main__` (`python -m` needs the module's code)."""
    return [p for found in compiled_entries().values() for p in found if p.name != "__main__.py"]


def test_every_compiled_entry_names_a_file_so_a_move_cannot_drop_one_from_the_build() -> None:
    """setup.py finds what it compiles by glob: an entry left behind by a move would match nothing, and the
    module it meant would silently ship pure."""
    assert [entry for entry, found in compiled_entries().items() if not found] == []


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
    errors = (REPO / "emulator" / "core" / "errors.py").read_text()  # the pattern: why errors.py stays Python
    assert "emulator.core.errors" not in compiled_modules() and "InvalidRequest.status" in unset_when_compiled([errors])


def test_the_wheel_holds_the_compiled_core_and_the_installed_emulator_runs_it(
    wheel: Path, venv: Path, tmp_path: Path
) -> None:
    """Every module setup.py compiles is an extension module in the wheel, beside its source, and is what the
    installed package imports; what stays Python (frozen, the shell) has no extension module."""
    modules = compiled_modules()
    assert {"emulator.answering.stages", "emulator.core.conversation", "emulator.default_model.writer"} <= set(modules)
    assert any(m.startswith("emulator.dialects.openai_chat") for m in modules)
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    extensions = {n.split(".cpython-")[0].replace("/", ".") for n in names if n.endswith(".so")}
    # A package: its __init__'s module (a module beside a data folder of its name, lexicon.py and lexicon/, is none).
    folders = {m for m in modules if (REPO / m.replace(".", "/") / "__init__.py").is_file()}
    assert {f"{m}.__init__" if m in folders else m for m in modules} <= extensions
    assert not {"emulator.core.frozen", "emulator.http.app"} & extensions
    assert {
        "emulator/answering/stages.py",
        "emulator/core/frozen.py",
    } <= names  # the sources stay, for tracebacks and reading
    probe = (
        "import importlib, sys\n"
        "for name in sys.argv[1:]:\n"
        "    print(name, importlib.import_module(name).__file__.rsplit('.', 1)[-1])\n"
    )
    kinds = {"emulator.answering.stages": "so", "emulator.default_model.writer": "so", "emulator.core.frozen": "py"}
    kinds["emulator.server.connection"], kinds["emulator.server.exchange"] = "so", "so"  # the server's per request
    kinds["emulator.server"], kinds["emulator.server.running"] = "py", "py"  # its loop and its stop: not
    kinds["emulator.state.redis.batch"], kinds["emulator.state.redis.outage"] = "so", "py"  # the scripts' path
    kinds["emulator.state"], kinds["emulator.core.recent"] = "so", "so"
    kinds["emulator.http.serving"], kinds["emulator.http.app"] = (
        "so",
        "py",
    )  # the answering endpoint compiled, its routes not
    said = run([venv / "bin" / "python", "-c", probe, *kinds], tmp_path)
    assert dict(line.split() for line in said.splitlines()) == kinds


# Run in the install's python with the compiled modules' names: which of them are not extension modules, which of
# their classes derive from a class outside them and the standard library (a class the build may not see: mypyc
# compiles such a base as `Any`), and which lack the `__dict__` their Python base keeps.
CLASS_BASES = """
import importlib, inspect, json, sys
compiled = set(sys.argv[1:])
found = {"pure": [], "unseen": [], "dictless": []}
for name in sorted(compiled):
    module = importlib.import_module(name)
    if not module.__file__.endswith((".so", ".pyd")):
        found["pure"].append(name)
    for value in list(vars(module).values()):
        if not inspect.isclass(value) or value.__module__ != name:
            continue
        for base in value.__mro__[1:]:
            home = base.__module__
            if home in compiled:
                continue
            shown = f"{name}.{value.__qualname__} <- {home}.{base.__qualname__}"
            if home.split(".")[0] not in sys.stdlib_module_names:
                found["unseen"].append(shown)
            if base.__dictoffset__ and not value.__dictoffset__:
                found["dictless"].append(shown)
print(json.dumps(found))
"""


def class_bases(modules: list[str], cwd: Path, env: dict[str, str] | None = None) -> dict[str, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", CLASS_BASES, *modules], cwd=cwd, capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, list[str]] = json.loads(done.stdout)
    return found


def test_no_class_setup_py_compiles_derives_from_one_the_build_may_not_see(tmp_path: Path) -> None:
    """Issue 46: a compiled class derived from uvicorn's `Config` crashed `emulator serve` at start when the wheel was
    built in isolation, where uvicorn is not installed. Caught on the sources, without compiling: every base of every
    class of a compiled module is compiled too, or the standard library's (which typeshed shows mypyc in any build).
    The check itself finds such a class."""
    assert class_bases(compiled_modules(), REPO)["unseen"] == []
    (tmp_path / "probe").mkdir()
    (tmp_path / "probe" / "__init__.py").write_text("")
    (tmp_path / "probe" / "loading.py").write_text("import yaml\n\n\nclass Loader(yaml.SafeLoader):\n    pass\n")
    found = class_bases(["probe.loading"], tmp_path, os.environ | {"PYTHONPATH": str(tmp_path)})
    assert found["unseen"][0] == "probe.loading.Loader <- yaml.loader.SafeLoader", found
