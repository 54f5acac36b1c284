"""The real opencode CLI (`opencode run`) against the emulator as an OpenAI-compatible provider, with no scenario:
asked to read a file it names, it calls its own `read` tool with that file's path and answers with what the file
holds. Under the default profile and the public profile it targets (OpenAI's, with one of its models).

opencode is installed with npm, pinned, into a cache directory outside the repository (`$XDG_CACHE_HOME` or
`~/.cache`, then `emulator-tests/opencode-<version>`), so only the first run downloads it; no npm, or no way to
the npm registry (offline): the test is skipped, and says so (tests/agent_cli.py, as for Codex and Claude Code).

opencode is configured through its own global config file (`~/.config/opencode/opencode.json` in a HOME of the
test's): one provider, `@ai-sdk/openai-compatible` (bundled with opencode) with the emulator's loopback base URL;
no update checks, no sharing; its environment switches turn off the models.dev fetch, LSP downloads and the
default plugins. Where we can, both processes run in a network namespace with only loopback up.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests import agent_cli

OPENCODE_VERSION = "1.18.33"
OPENCODE_PACKAGE = f"opencode-ai@{OPENCODE_VERSION}"
RUN_TIMEOUT = 180
READ_PROMPT = "Read recipes/bread.txt and tell me what it says"
RECIPE = "Proof the rye dough for ninety minutes, then bake at 230 C under a lid."

CONFIG = {
    "$schema": "https://opencode.ai/config.json",
    "model": "emu/{model}",
    "small_model": "emu/{model}",
    "autoupdate": False,
    "share": "disabled",
    "provider": {
        "emu": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Emulator",
            "options": {"baseURL": "{base_url}", "apiKey": "sk-test"},
            "models": {"{model}": {"name": "{model}", "tool_call": True}},
        }
    },
}

# The driver's agent step: `opencode run` in the work dir with only PATH, HOME and its offline switches.
AGENT = r"""
(cd "$WORK" && exec env -i PATH="$OPENCODE_PATH" HOME="$OPENCODE_HOME_DIR" \
    OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_LSP_DOWNLOAD=1 \
    OPENCODE_DISABLE_DEFAULT_PLUGINS=1 \
    "$OPENCODE" run "$PROMPT" </dev/null)
"""


@pytest.fixture(scope="session")
def opencode() -> Path:
    """The `opencode` launcher of the pinned version, installed on first use; skips only without npm."""
    return agent_cli.npm_launcher(
        "opencode",
        OPENCODE_PACKAGE,
        directory=f"opencode-{OPENCODE_VERSION}",
        launcher="opencode",
        version=OPENCODE_VERSION,
    )


def opencode_home(tmp_path: Path, base_url: str, model: str) -> Path:
    """A HOME whose opencode config makes the emulator at `base_url` its only provider, serving `model`."""
    home = tmp_path / "home"
    (home / ".config" / "opencode").mkdir(parents=True)
    config = json.dumps(CONFIG).replace("{base_url}", base_url).replace("{model}", model)
    (home / ".config" / "opencode" / "opencode.json").write_text(config)
    return home


@pytest.mark.parametrize(("prefix", "model"), [("", "m"), ("/openai", "gpt-4.1")], ids=["default", "openai"])
def test_opencode_asked_to_read_a_file_calls_read_with_its_path_and_answers_with_it(
    opencode: Path, tmp_path: Path, prefix: str, model: str
) -> None:
    """No scenario answers this: the default calls opencode's `read` tool with the file's absolute path (its
    system prompt's working directory joined to the path the user wrote) and answers with what the file holds;
    no shell, edit or write tool on the way. opencode also asks once for the session's title."""
    placed = agent_cli.placement()
    home = opencode_home(tmp_path, f"http://127.0.0.1:{placed[1]}{prefix}/v1", model)
    work = tmp_path / "work"
    (work / "recipes").mkdir(parents=True)
    (work / "recipes" / "bread.txt").write_text(RECIPE + "\n")
    environment = agent_cli.environment("OPENCODE", opencode, home, READ_PROMPT)
    run = agent_cli.run_agent(
        AGENT,
        environment,
        tmp_path,
        placed=placed,
        work=work,
        timeout=RUN_TIMEOUT,
        what="opencode run",
        name="opencode",
    )
    assert RECIPE in run.out, run.report
    assert sorted(p.name for p in work.rglob("*")) == ["bread.txt", "recipes"], run.report  # nothing written
    path = f"POST {prefix}/v1/chat/completions"
    assert set(run.requests()) == {(path, "200")}, run.report
    turns = [e for e in run.journal() if (e["body"] or {}).get("tools")]  # the agent's, not the title's
    titled = [e["preview"]["answer"] for e in run.journal() if not (e["body"] or {}).get("tools")]
    assert titled == ["Read recipes/bread.txt"], run.report  # the title asked for: one short line, what is done
    assert [e["preview"]["tools"] for e in turns] == [["read"], []], run.report
    (sent,) = [m for m in turns[1]["body"]["messages"] if m.get("tool_calls")]  # the call, as opencode sent it back
    (call,) = sent["tool_calls"]
    assert call["function"]["name"] == "read", run.report
    assert json.loads(call["function"]["arguments"]) == {"filePath": str(work / "recipes" / "bread.txt")}, run.report
    assert turns[1]["preview"]["answer"] and RECIPE in run.out, run.report  # the answer, printed, quotes the file
