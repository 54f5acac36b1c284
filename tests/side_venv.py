"""Side venvs for third-party clients whose dependencies cannot share the test venv, cached between runs.

Each lives in `$XDG_CACHE_HOME` (or `~/.cache`) under `emulator-tests/NAME-VERSION`, built under a lock on first
use (concurrent runs install once) and marked done with `.installed`; an install that fails or times out skips
the test with pip's last words. `offline` is the environment a client runs in: loopback only, its telemetry and
update checks off, nothing of the caller's but PATH and HOME.
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
OFFLINE = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # litellm's (and DSPy's) model map: the bundled copy, not a download
    "HF_HUB_OFFLINE": "1",
    "DO_NOT_TRACK": "1",
    "ANONYMIZED_TELEMETRY": "False",
    "NO_PROXY": "127.0.0.1,localhost",
    "no_proxy": "127.0.0.1,localhost",
}


def python(name: str, version: str, requirement: str) -> Path:
    """The python of a venv holding `requirement` (pinned to `version`), built on first use."""
    root = Path(os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")) / "emulator-tests"
    root.mkdir(parents=True, exist_ok=True)
    prefix = root / f"{name}-{version}"
    executable, done = prefix / "bin" / "python", prefix / ".installed"
    with open(root / f"{name}-{version}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(prefix, ignore_errors=True)
            venv.create(prefix, with_pip=True)
            command = [str(executable), "-m", "pip", "install", "-q", "--disable-pip-version-check", requirement]
            try:
                result = subprocess.run(command, capture_output=True, timeout=INSTALL_TIMEOUT, check=False)
            except subprocess.TimeoutExpired:
                pytest.skip(f"installing {requirement} took over {INSTALL_TIMEOUT} s")
            if result.returncode != 0:
                said = (result.stdout + result.stderr).decode(errors="replace").strip().splitlines()[-5:]
                pytest.skip(f"could not install {requirement} into a side venv: {' / '.join(said)}")
            done.write_text(version)
    return executable


def offline(home: Path) -> dict[str, str]:
    """The environment a client runs in: PATH, a HOME of its own, and every offline switch."""
    return {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(home)} | OFFLINE
