"""Every example in README.md and docs/*.md runs against a live emulator, so that none can rot.

How a fenced block is treated, by its language:
- `python`: with this venv's python, in a scratch folder; a block that defines tests (`def test_`) runs as a
  test file under `python -m pytest` there instead (the plugin loads from the installed package).
- `sh`: with `bash -euo pipefail`, this venv's bin first on PATH. A line that is an `emulator serve` or
  `emulator record` command (both serve until stopped) is started in the background on a free port, waited
  for, and stopped with Ctrl-C's SIGINT at the next such line on its port or at the block's end; the lines
  after it, in a shell of their own, talk to it. Its `--port` (8000 when it has none) is the port it stands for.
- `yaml`: parsed; a scenario document is checked by the scenario parser, a cassette by the cassette loader.
  `toml` and `json` are parsed; `text` is not run.
- `<!-- not run: reason -->` on the line above a fence: not run (it installs, needs Docker or an agent CLI,
  or runs for minutes). Any other block the test cannot run fails it.
- `<!-- output -->` above a `text` block: what the block before it prints, exactly.
- A block whose first line is a comment naming a file (`# scenarios/refunds.yaml`, `# test_retries.py`) is also
  written there in every scratch folder of its page, for the commands that use it; a Python file that a shell
  block of its page names (`pytest test_retries.py`, `python smoke.py`) runs there, not on its own.

`127.0.0.1:8000` and `localhost:8000` in a block are this module's emulator (the bundled scenarios and the
docs' scenario files), `127.0.0.1:9000` a second one that stands in for an upstream; both are reset before
each block, and the blocks run one at a time. Each scratch folder holds a copy of scenarios/ and recordings/.

Besides: every `--flag` of an `emulator …` command anywhere exists in that subcommand's parser (a command in
a shell block parses whole), every `--emulator-*` option exists in the plugin, every flag in backticks exists
somewhere, docs/cli.md names every flag of every subcommand, and every relative link resolves. And nothing a user
reads says to `pip install emulator`: the distribution is `llm-emulator`, PyPI's `emulator` is another project.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest

from emulator import cli, pytest_plugin, recordings, scenarios
from emulator.core import yamlfile
from emulator.http.app import Settings, create_app
from emulator.http.background import Background
from tests.conftest import BUNDLED, call

REPO = BUNDLED.parent
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
BIN = Path(sys.executable).parent
RUN = {"python", "sh"}
FLAG = r"(?<![\w-])--[a-z][a-z-]*(?![\w*-])"  # a flag's name; not a pattern such as `--emulator-*`
DATA = {"yaml", "toml", "json", "text"}
EMULATOR_PORT, UPSTREAM_PORT = 8000, 9000
# Flags of other programs that the docs mention in backticks.
FOREIGN_FLAGS = {
    "--dangerously-skip-permissions",
    "--dangerously-bypass-approvals-and-sandbox",
    "--skip-git-repo-check",
    "--model",
}


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the opening fence, from 1
    lang: str
    text: str
    above: str  # the line above the fence, stripped

    @property
    def id(self) -> str:
        return f"{self.page.name}:{self.line}"

    @property
    def not_run(self) -> str | None:
        found = re.fullmatch(r"<!-- not run: (.+) -->", self.above)
        return found[1] if found else None

    @property
    def file(self) -> str | None:
        """The file a block says it is, by a first-line comment: `# scenarios/refunds.yaml`."""
        found = re.fullmatch(r"# ([\w./-]+\.(?:py|ya?ml|toml|json))", self.text.partition("\n")[0])
        return found[1] if found else None


def blocks(page: Path) -> list[Block]:
    """The page's fenced code blocks, their text dedented by the fence's indent."""
    found: list[Block] = []
    lines = page.read_text().splitlines()
    number = 0
    while number < len(lines):
        opening = re.fullmatch(r"(\s*)(```+)\s*([\w-]*)\s*", lines[number])
        number += 1
        if not opening:
            continue
        indent, fence, lang = opening[1], opening[2], opening[3]
        start, body = number, []
        while number < len(lines) and not re.fullmatch(rf"\s*{fence}\s*", lines[number]):
            body.append(lines[number].removeprefix(indent))
            number += 1
        number += 1
        above = lines[start - 2].strip() if start >= 2 else ""
        found.append(Block(page, start, lang, "\n".join(body) + "\n", above))
    return found


BLOCKS = {page: blocks(page) for page in PAGES}  # read once: line numbers are the tests' ids
ALL = [b for page in PAGES for b in BLOCKS[page]]


def prose(page: Path) -> str:
    """The page without its fenced blocks."""
    return re.sub(r"^\s*(```+)[\w-]*\s*$.*?^\s*\1\s*$", "", page.read_text(), flags=re.M | re.S)


# --- the emulators the blocks talk to ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The docs' scenario files (blocks that name a file under scenarios/), written out for the emulator."""
    folder = tmp_path_factory.mktemp("docs-scenarios")
    for b in ALL:
        if b.file and b.file.startswith("scenarios/"):
            (folder / Path(b.file).name).write_text(b.text)
    return folder


@pytest.fixture(scope="module")
def addresses(written: Path) -> Iterator[dict[int, str]]:
    """The ports the docs use, each mapped to the live emulator that stands for it."""
    with (
        Background(create_app(Settings(scenarios=(BUNDLED, written)))) as emulator,
        Background(create_app(Settings(scenarios=(BUNDLED,)))) as upstream,
    ):
        # A request first, as the pages' earlier examples make: a block that reads `/metrics` finds one counted
        # on whichever pytest-xdist worker runs it, before or after the blocks that ask.
        asked = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        said = call(emulator.port, "POST", "/v1/chat/completions", asked, {"authorization": "Bearer sk-docs"})
        assert said[0] == 200, said
        yield {EMULATOR_PORT: emulator.url, UPSTREAM_PORT: upstream.url}


def substitute(text: str, ports: dict[int, str]) -> str:
    """`http://127.0.0.1:PORT` and `http://localhost:PORT` as the live address that stands for PORT."""
    for port, url in ports.items():
        text = re.sub(rf"http://(?:127\.0\.0\.1|localhost):{port}(?!\d)", url, text)
    return text


def environment() -> dict[str, str]:
    """A user's shell: this venv first on PATH, keys set (any will do), nothing of this test run's own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "OPENAI_", "ANTHROPIC_", "EMULATOR_"))}
    return env | {
        "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        "OPENAI_API_KEY": "sk-docs",
        "ANTHROPIC_API_KEY": "sk-docs",
    }


def scratch(block: Block, root: Path) -> Path:
    """A folder for the block: a copy of scenarios/ and recordings/, and its page's named files."""
    shutil.copytree(REPO / "scenarios", root / "scenarios")
    shutil.copytree(REPO / "recordings", root / "recordings")
    for b in BLOCKS[block.page]:
        if b.file:
            (root / b.file).parent.mkdir(parents=True, exist_ok=True)
            (root / b.file).write_text(b.text)
    return root


def finished(process: subprocess.CompletedProcess[str], block: Block) -> str:
    assert process.returncode == 0, f"{block.id} exited {process.returncode}:\n{process.stdout}{process.stderr}"
    return process.stdout


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, env=environment(), capture_output=True, text=True, timeout=180)


# --- shell blocks: segments between the lines that serve ----------------------------------------------------

SERVES = re.compile(r"(?:\w+=\S*\s+)*emulator\s+(?:serve|record)\b")


def segments(script: str) -> list[tuple[bool, str]]:
    """The script as (serves, text) pieces: each line that serves on its own, the lines between together.
    Continued lines are one line; a heredoc stays with the line that opens it."""
    pieces: list[tuple[bool, str]] = []
    lines = iter(script.splitlines())
    for first in lines:
        line = first
        while line.endswith("\\"):
            line += "\n" + next(lines, "")
        heredoc = re.search(r"<<-?\s*['\"]?(\w+)", line)
        if heredoc:
            for more in lines:
                line += "\n" + more
                if more.strip() == heredoc[1]:
                    break
        if SERVES.match(line.strip()):
            pieces.append((True, line))
        elif pieces and not pieces[-1][0]:
            pieces[-1] = (False, pieces[-1][1] + "\n" + line)
        else:
            pieces.append((False, line))
    return pieces


class Servers:
    """The `emulator serve` and `emulator record` lines of one block, each running on a free port."""

    def __init__(self, cwd: Path, ports: dict[int, str]) -> None:
        self.cwd, self.ports = cwd, dict(ports)
        self.running: dict[int, tuple[subprocess.Popen[bytes], Path]] = {}

    def start(self, line: str) -> None:
        words = shlex.split(line.replace("\\\n", " "), comments=True)
        words = words[:-1] if words[-1] == "&" else words
        assigned = {}  # `EMULATOR_ADMIN_TOKEN=… emulator serve`
        while re.fullmatch(r"\w+=.*", words[0]):
            name, _, value = words.pop(0).partition("=")
            assigned[name] = value
        port = EMULATOR_PORT
        if "--port" in words:
            at = words.index("--port")
            port = int(words[at + 1])
            del words[at : at + 2]
        self.stop(port)
        log = self.cwd / f"server-{port}-{time.monotonic_ns()}.log"
        with log.open("wb") as out:
            process = subprocess.Popen(
                [*words, "--port", "0"],
                cwd=self.cwd,
                env=environment() | assigned,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its group holds its workers too: `stop` ends whatever is left of it
            )
        self.running[port] = (process, log)
        deadline = time.monotonic() + 60
        while not (found := re.search(rb"http://127\.0\.0\.1:(\d+)", log.read_bytes().partition(b"\n")[0])):
            if process.poll() is not None or time.monotonic() > deadline:
                self.stop(port)
                pytest.fail(f"`{line.strip()}` did not serve:\n{log.read_text()}")
            time.sleep(0.05)
        self.ports[port] = f"http://127.0.0.1:{int(found[1])}"

    def stop(self, port: int) -> None:
        if port not in self.running:
            return
        process, _ = self.running.pop(port)
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        # Its forked workers, should it have been killed (or they missed its stop): none may outlive the test.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)

    def close(self) -> None:
        for port in list(self.running):
            self.stop(port)


def run_shell(block: Block, cwd: Path, ports: dict[int, str]) -> str:
    servers = Servers(cwd, ports)
    out = ""
    try:
        for serves, text in segments(block.text):
            text = substitute(text, servers.ports)
            if serves:
                servers.start(text)
            else:
                out += finished(run(["bash", "-euo", "pipefail", "-c", text], cwd), block)
    finally:
        servers.close()
    return out


# --- the tests --------------------------------------------------------------------------------------------


def run_by_a_command(block: Block) -> bool:
    """Whether a test file is run by a shell block of its page that names it (`pytest test_retries.py`): it runs
    there, not twice."""
    if block.lang != "python" or not block.file:
        return False
    named = re.compile(rf"(?<![\w/.-]){re.escape(block.file)}(?![\w.-])")
    return any(named.search(b.text) for b in BLOCKS[block.page] if b.lang == "sh" and not b.not_run)


RUNS = [b for b in ALL if b.lang in RUN and not b.not_run and not run_by_a_command(b)]


@pytest.mark.parametrize("block", RUNS, ids=lambda b: b.id)
def test_the_example_runs(block: Block, addresses: dict[int, str], tmp_path: Path) -> None:
    for url in addresses.values():
        port = int(url.rpartition(":")[2])
        assert call(port, "POST", "/_emulator/reset")[0] == 200
    cwd = scratch(block, tmp_path)
    text = substitute(block.text, addresses)
    if block.lang == "sh":
        out = run_shell(block, cwd, addresses)
    elif re.search(r"^def test_", text, re.M):
        path = cwd / (block.file or "test_example.py")
        path.write_text(text)
        out = finished(
            run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "error", path.name], cwd), block
        )
    else:
        (cwd / "example.py").write_text(text)
        out = finished(run([sys.executable, "example.py"], cwd), block)
    following = [b for b in BLOCKS[block.page] if b.line > block.line][:1]
    if following and following[0].above == "<!-- output -->":
        assert out == following[0].text, f"{block.id} printed something else than {following[0].id} shows"


def test_every_block_is_run_checked_or_marked() -> None:
    """A block the test cannot run is a language it does not know, or an unreadable mark."""
    for b in ALL:
        assert b.lang in RUN | DATA, f"{b.id}: a ```{b.lang} block: use python, sh, yaml, toml, json or text"
        if b.above.startswith("<!--"):
            assert b.not_run or b.above == "<!-- output -->", f"{b.id}: unknown mark {b.above}"
        if b.above == "<!-- output -->":
            before = [a for a in BLOCKS[b.page] if a.line < b.line][-1:]
            assert b.lang == "text", f"{b.id}: an output is a ```text block"
            assert before and before[0] in RUNS, f"{b.id}: an output follows the block that prints it, which runs"


@pytest.mark.parametrize("block", [b for b in ALL if b.lang in DATA - {"text"}], ids=lambda b: b.id)
def test_the_data_parses(block: Block, tmp_path: Path) -> None:
    if block.lang == "toml":
        tomllib.loads(block.text)
    elif block.lang == "json":
        json.loads(block.text)
    else:
        document = yamlfile.load(block.text)
        if recordings.is_cassette(document):
            (tmp_path / "cassette.yaml").write_text(block.text)
            recordings.load([tmp_path / "cassette.yaml"])
        elif isinstance(document, dict) and ("scenarios" in document or "name" in document):
            scenarios.parse(document)
        else:
            assert isinstance(document, dict) and "services" in document, f"{block.id}: what is this YAML?"


# --- flags ----------------------------------------------------------------------------------------------


def subparsers() -> dict[str, argparse.ArgumentParser]:
    root = cli.parser()
    (commands,) = [a for a in root._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(commands.choices)


def flags(parser: argparse.ArgumentParser) -> set[str]:
    return {o for a in parser._actions for o in a.option_strings if o.startswith("--")}


def plugin_options() -> set[str]:
    names: set[str] = set()

    class Group:
        def addoption(self, *opts: str, **kwargs: Any) -> None:
            names.update(opts)

        def getgroup(self, *args: Any) -> Group:
            return self

    pytest_plugin.pytest_addoption(cast(Any, Group()))
    return names


def commands() -> Iterator[tuple[str, str, bool]]:
    """Each `emulator …` command in the docs: (where, the command, whether it is a shell block's line)."""
    for page in PAGES:
        for span in re.findall(r"`([^`\n]+)`", prose(page)):
            if span.startswith("emulator "):
                yield page.name, span, False
        for b in BLOCKS[page]:
            for line in re.sub(r"\\\n\s*", " ", b.text).splitlines():
                line = line.strip()
                if re.match(r"(\w+=\S*\s+)*emulator\s+\w", line):
                    yield b.id, line, b.lang == "sh"


def words_of(command: str) -> list[str]:
    """A shell command's words, up to its first operator (`|`, `&&`, `&`, `>`, …) or comment."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    words: list[str] = []
    for word in lexer:
        if set(word) <= set("|&;<>()"):
            break
        words.append(word)
    return words


def test_every_flag_of_an_emulator_command_exists() -> None:
    parsers = subparsers()
    seen = 0
    for where, command, whole in commands():
        words = words_of(re.sub(r"^(\w+=\S*\s+)*", "", command))
        sub = words[1]
        if sub.isupper():  # `emulator COMMAND --help`
            continue
        if sub.startswith("--"):
            assert sub in {"--version", "--help"}, f"{where}: emulator {sub}"
            continue
        assert sub in parsers, f"{where}: no subcommand {sub!r} in `{command}`"
        for flag in re.findall(FLAG, " ".join(words)):
            assert flag in flags(parsers[sub]), f"{where}: `emulator {sub}` has no {flag} (in `{command}`)"
            seen += 1
        if whole:
            try:
                cli.parser().parse_args(words[1:])
            except SystemExit as exc:
                pytest.fail(f"{where}: `{command}` does not parse ({exc})")
    assert seen > 20


def test_every_pytest_option_exists_in_the_plugin() -> None:
    known = plugin_options()
    used = {o for page in PAGES for o in re.findall(r"--emulator-[a-z-]+", page.read_text())}
    assert used, "the docs name no pytest option"
    assert used <= known, f"not options of the plugin: {sorted(used - known)}"


def test_every_flag_in_backticks_exists_somewhere() -> None:
    known = set().union(*map(flags, subparsers().values()), plugin_options(), FOREIGN_FLAGS, {"--version"})
    for page in PAGES:
        for span in re.findall(r"`([^`\n]+)`", prose(page)):
            for flag in re.findall(FLAG, span):
                assert flag in known, f"{page.name}: {flag} (in `{span}`) is no flag of the emulator or the plugin"


def test_the_cli_reference_names_every_flag() -> None:
    text = (REPO / "docs" / "cli.md").read_text()
    for name, parser in subparsers().items():
        assert f"emulator {name}" in text, f"docs/cli.md does not show `emulator {name}`"
        missing = sorted(f for f in flags(parser) if f != "--help" and f not in text)
        assert not missing, f"docs/cli.md does not name {missing} of `emulator {name}`"


# --- links ----------------------------------------------------------------------------------------------


def anchors(page: Path) -> set[str]:
    """GitHub's anchors for the page's headings."""
    headings = re.findall(r"^#+ (.+)$", prose(page), re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def test_every_relative_link_resolves() -> None:
    for page in PAGES:
        for target in re.findall(r"\]\(([^)\s]+)\)", prose(page)):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            assert linked.exists(), f"{page.name}: the link {target} leads nowhere"
            if anchor:
                assert anchor in anchors(linked), f"{page.name}: {linked.name} has no heading #{anchor}"


def test_the_readme_keeps_its_two_commands_and_links_every_reference_page() -> None:
    readme = (REPO / "README.md").read_text()
    ci = (REPO / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert f"```sh\n{ci}\n```" in readme, "the README's Test it command is not what .ci/run runs"
    for page in PAGES[1:]:
        assert f"(docs/{page.name}" in readme, f"the README does not link docs/{page.name}"
    assert "docs/inspector.png" in readme + "".join(p.read_text() for p in PAGES)


# --- the distribution's name ----------------------------------------------------------------------------

# `pip install` of PyPI's `emulator` (another project), bare or with an extra, quoted or not, even across a line
# break; not `llm-emulator`, nor a path (`.`, `'.[test]'`).
OLD_INSTALL = re.compile(r"""pip3?\s+install\s+(?:(?:-U|--upgrade|-q|--quiet)\s+)*['"]?emulator(?:\[|(?![\w-]|\.\w))""")


def test_nothing_tells_a_user_to_install_the_old_distribution_name() -> None:
    said = [
        "pip install emulator",
        "pip install emulator && emulator conform recordings/",
        "`pip install emulator`.",
        "pip install 'emulator[mcp]'",
        'pip install "emulator[mcp]"',
        "pip install -U emulator",
        "pip install\n'emulator[mcp]'",
    ]
    not_said = [
        "pip install llm-emulator",
        "pip install 'llm-emulator[mcp]'",
        "pip install -e .",
        "pip install .",
        "pip install -q -e '.[test]'",
        "pip install -e '.[mcp]'",
        "pip install --no-cache-dir /wheels/*.whl",
        "emulator mcp",
    ]
    assert [s for s in said if not OLD_INSTALL.search(s)] == []
    assert [s for s in not_said if OLD_INSTALL.search(s)] == []
    read = [REPO / "README.md", *sorted((REPO / "docs").glob("**/*.md")), REPO / "Dockerfile"]
    read += [REPO / "docker-compose.yml", *sorted((REPO / "emulator").glob("**/*.py"))]
    found = [
        f"{path.relative_to(REPO)}:{text.count(chr(10), 0, hit.start()) + 1}: {hit[0]!r}"
        for path in read
        for text in [path.read_text()]
        for hit in OLD_INSTALL.finditer(text)
    ]
    assert found == [], "the distribution is llm-emulator: " + "; ".join(found)
