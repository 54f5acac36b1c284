"""Side venvs for third-party clients whose dependencies cannot share the test venv (agent frameworks pin their
own openai, pydantic or jiter): built on first use under `$XDG_CACHE_HOME` or `~/.cache`, then
`emulator-tests/<directory>`, under a lock so concurrent runs install once, and reused while their marker
says the same requirements. Skipped, with pip's last words, only when the install fails (offline).

A script runs there with a minimal environment: no proxy, the frameworks' telemetry and hub access off, so it
reaches nothing but the emulator on loopback.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import venv
from pathlib import Path

import pytest

INSTALL_TIMEOUT = 900
QUIET = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # litellm's (and DSPy's) model map: the bundled copy, not a download
    "HF_HUB_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "LANGCHAIN_TRACING_V2": "false",
    "LANGSMITH_TRACING": "false",
    "ANONYMIZED_TELEMETRY": "false",
    "DO_NOT_TRACK": "1",
    "NO_PROXY": "*",
    "CREWAI_DISABLE_TELEMETRY": "true",  # CrewAI's telemetry and traces, and the OpenTelemetry export under them
    "CREWAI_TRACING_ENABLED": "false",
    "OTEL_SDK_DISABLED": "true",
}


# Where the tests keep what they install once: side venvs, npm prefixes, compiled wheels.
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")) / "emulator-tests"


def python(directory: str, *requirements: str) -> Path:
    """The python of the side venv `directory` with `requirements` (pinned), installed on first use."""
    root = CACHE
    root.mkdir(parents=True, exist_ok=True)
    prefix = root / directory
    executable, done = prefix / "bin" / "python", prefix / ".installed"
    wanted = " ".join(requirements)
    with open(root / f"{directory}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists() or done.read_text() != wanted:
            shutil.rmtree(prefix, ignore_errors=True)
            venv.create(prefix, with_pip=True)
            command = [str(executable), "-m", "pip", "install", "-q", "--disable-pip-version-check", *requirements]
            try:
                result = subprocess.run(command, capture_output=True, timeout=INSTALL_TIMEOUT, check=False)
            except subprocess.TimeoutExpired:
                pytest.skip(f"installing {wanted} took over {INSTALL_TIMEOUT} s")
            if result.returncode != 0:
                said = (result.stdout + result.stderr).decode(errors="replace").strip().splitlines()[-5:]
                pytest.skip(f"could not install {wanted} into a side venv: {' / '.join(said)}")
            done.write_text(wanted)
    return executable


def run(executable: Path, script: Path, *arguments: str, cwd: Path | None = None, timeout: int = 180) -> str:
    """`script` run by the side venv's python with `arguments`: its standard output; its failure fails the test."""
    environment = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(Path.home()), **QUIET}
    done = subprocess.run(
        [str(executable), str(script), *arguments],
        capture_output=True,
        timeout=timeout,
        check=False,
        env=environment,
        cwd=cwd,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-4000:]
    return done.stdout.decode()


def offline(home: Path) -> dict[str, str]:
    """The environment a client runs in: PATH, a HOME of its own, and every offline switch."""
    return {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(home), **QUIET}
