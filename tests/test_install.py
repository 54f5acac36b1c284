"""What a user installs starts and answers: built each way a user builds it (`tests/installs.py`: `pip install .`,
`python -m build`, the Dockerfile's build stage), into a fresh venv. Where there is a C compiler the core must be
compiled, never fallen back to pure Python; `emulator serve` must answer the openai and anthropic SDKs, the pytest
plugin's fixture must work, and (`pip install .`, the way the README gives) the SDK-driven dialect and server tests
must pass against the install.

Run apart, after the rest (`-m install`, .ci/run): each build compiles the whole core with mypyc, minutes of both
CPUs."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import anthropic
import openai
import pytest

from tests.conftest import launch, read_until
from tests.installs import REPO, WAYS, Install, install
from tests.test_packaging import CLASS_BASES, compiled_modules
from tests.test_plugin import USER_TESTS

pytestmark = pytest.mark.install
COMPILER = shutil.which("cc") or shutil.which("gcc")


@pytest.fixture(scope="module", params=WAYS)
def installed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Install:
    return install(request.param, tmp_path_factory.mktemp(re.sub(r"\W+", "-", request.param)))


def test_the_core_that_runs_is_compiled_and_no_compiled_class_derives_from_one_the_build_could_not_see(
    installed: Install, tmp_path: Path
) -> None:
    """Every module setup.py compiles is an extension module where a C compiler exists (a build that fell back to pure
    Python fails here); no compiled class derives from a class outside the compiled modules and the standard library
    (mypyc gave one derived from uvicorn's `Config`, which the isolated build could not import, no `__dict__`, and
    `emulator serve` crashed at start); and every compiled class whose Python base keeps a `__dict__` has one."""
    modules = compiled_modules()
    said = run([str(installed.python), "-c", CLASS_BASES, *modules], tmp_path)
    found = json.loads(said)
    if COMPILER is None:
        pytest.skip("no C compiler here: the install is pure Python, as setup.py builds it then")
    assert found["pure"] == [], f"{installed.way} fell back to pure Python for {found['pure']}"
    assert found["unseen"] == [] and found["dictless"] == [], found
    version = run([str(installed.venv / "bin" / "emulator"), "--version"], tmp_path)
    assert version.startswith("emulator ") and "(compiled)" in version, version


def test_serve_answers_the_openai_and_anthropic_sdks(installed: Install, tmp_path: Path) -> None:
    """`emulator serve` as installed, from an empty folder (the bundled scenarios), driven by the official SDKs:
    whole and streamed, Chat Completions, Responses and Messages; then SIGTERM ends it with status 0."""
    process, port = launch([str(installed.venv / "bin" / "emulator"), "serve", "--port", "0"], cwd=tmp_path)
    try:
        read_until(process, "INFO:     Started server process")
        base = f"http://127.0.0.1:{port}"
        with openai.OpenAI(base_url=f"{base}/v1", api_key="sk-test", max_retries=0) as client:
            chat = client.chat.completions.create(
                model="gpt-4o-mini", messages=[{"role": "user", "content": "Name three rivers in Europe."}]
            )
            assert chat.choices[0].message.content and chat.choices[0].finish_reason == "stop"
            with client.chat.completions.stream(
                model="gpt-4o-mini", messages=[{"role": "user", "content": "And three mountains?"}]
            ) as stream:
                streamed = stream.get_final_completion()
            assert streamed.choices[0].message.content
            response = client.responses.create(model="gpt-4o-mini", input="What is a delta?")
            assert response.status == "completed" and response.output_text
        with anthropic.Anthropic(base_url=base, api_key="sk-ant-test", max_retries=0) as claude:
            message = claude.messages.create(
                model="claude-sonnet-5",
                max_tokens=300,
                messages=[{"role": "user", "content": "Why is the sky blue?"}],
            )
            said = [block.text for block in message.content if block.type == "text"]  # after its thinking
            assert said and said[0] and message.stop_reason in ("end_turn", "max_tokens"), message
            with claude.messages.stream(
                model="claude-sonnet-5", max_tokens=300, messages=[{"role": "user", "content": "Short, please."}]
            ) as events:
                final = events.get_final_message()
            assert [b for b in final.content if b.type == "text"] and final.usage.output_tokens > 0
    finally:
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=60)
    assert process.returncode == 0, out
    assert 'POST /v1/chat/completions HTTP/1.1" 200 OK' in out and "Traceback" not in out, out


def test_the_pytest_plugins_fixture_works(installed: Install, tmp_path: Path) -> None:
    """A user's test file in an empty folder, using only the documented fixture API, passes with the plugin the
    install registered (its entry point alone)."""
    (tmp_path / "test_user.py").write_text(USER_TESTS)
    ran = subprocess.run(
        [installed.python, "-m", "pytest", "-p", "no:cacheprovider", "-W", "error", "-q", "test_user.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=_env(),
    )
    assert ran.returncode == 0, ran.stdout[-10000:] + ran.stderr[-5000:]
    assert f"{USER_TESTS.count('def test_')} passed" in ran.stdout
    plugin = run([str(installed.python), "-c", "import emulator.pytest_plugin as p; print(p.__file__)"], tmp_path)
    assert Path(plugin.strip()).is_relative_to(installed.venv)


# The dialects driven end to end by the official SDKs, the server's own HTTP, and the workers on Redis (its state
# compiled where a request goes through it).
DIALECT_TESTS = ["test_app_chat.py", "test_app_responses.py", "test_app_messages.py", "test_server.py"]
DIALECT_TESTS += ["test_shared_redis.py", "test_workers.py", "test_metrics_workers.py"]


def test_the_sdk_driven_dialect_and_server_tests_pass_against_the_install(installed: Install, tmp_path: Path) -> None:
    """The tests are copied to a folder with no emulator/ beside them, so that the install's (compiled) package is
    the one they import, and run there by its python, with the project's pytest settings. Once, for the way the README
    gives (`pip install .`): the other ways build the same sources, and the tests above start and drive theirs."""
    if installed.way != "pip install .":
        pytest.skip("run against the `pip install .` install; this way is started and driven by the tests above")
    shutil.copytree(REPO / "tests", tmp_path / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "scenarios", tmp_path / "scenarios")
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    where = run(
        [str(installed.python), "-c", "import emulator.answering.stages as p; print(p.__file__)"], tmp_path
    ).strip()
    assert Path(where).is_relative_to(installed.venv), where
    assert COMPILER is None or where.endswith(".so"), where
    command = [str(installed.python), "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-q"]
    ran = subprocess.run(
        [*command, *(f"tests/{t}" for t in DIALECT_TESTS)], cwd=tmp_path, env=_env(), capture_output=True, text=True
    )
    assert ran.returncode == 0, ran.stdout[-20000:] + ran.stderr[-5000:]
    assert re.search(r"\b\d+ passed\b", ran.stdout) and " failed" not in ran.stdout, ran.stdout[-2000:]


def _env() -> dict[str, str]:
    """This environment for a run of its own (not this run's process accounting), without a path into the checkout."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "RUN_OF_EMULATOR_TESTS")}


def run(command: list[str], cwd: Path) -> str:
    """What `command` prints, run in `cwd` (not the checkout, whose emulator/ `python -c` would import); it must
    succeed."""
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=_env())
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout
