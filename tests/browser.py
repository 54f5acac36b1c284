"""What the browser tests share: Debian's chromium driven by Playwright for Python, and the JS SDKs installed with
npm (pinned, once, into the tests' cache) and served to a page as the modules they ship, with an import map for
their dependencies. No chromium: the tests are skipped, saying how to get it; no npm or no registry: likewise."""

from __future__ import annotations

import fcntl
import functools
import http.server
import json
import os
import shutil
import socketserver
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.agent_cli import find_npm, install_into
from tests.side_venv import CACHE

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Chromium as the machine allows it: no sandbox (root in CI), no GPU, and no background connections, which a
# closed network refuses many at a time.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
needs_chromium = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed: run .ci/deps, as the test command does"
)
JS_SDKS = {"openai": "7.60.0", "@anthropic-ai/sdk": "1.17.0"}  # the SDKs a page imports, pinned
# Dependencies shipped only as CommonJS, which a bundler would wrap and a page cannot import: each a module of the
# names the SDKs import from it, which throw if called (the openai SDK's webhook checks; no page here calls them).
STUBS = {
    "standardwebhooks": "export class Webhook { constructor() { throw new Error('webhooks are not in this page'); } }\n"
    "export class WebhookVerificationError extends Error {}\n",
}


@contextmanager
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            yield launched
        finally:
            launched.close()


def js_sdks() -> Path:
    """A folder whose `node_modules` holds the pinned JS SDKs, installed unless they are there already."""
    return js_packages(JS_SDKS)


def js_packages(pinned: dict[str, str]) -> Path:
    """A folder whose `node_modules` holds the `pinned` npm packages, installed unless they are there already;
    skipped, saying why, without npm or a registry."""
    folder = CACHE / ("js-sdks-" + "-".join(f"{n.replace('/', '+')}@{v}" for n, v in pinned.items()))
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(f"{folder}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if all(_version(folder, name) == version for name, version in pinned.items()):
            return folder
        npm = find_npm("the JS clients", " and ".join(pinned))
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        install_into(npm, folder, *(f"{name}@{version}" for name, version in pinned.items()))
    return folder


def _version(folder: Path, name: str) -> str | None:
    manifest = folder / "node_modules" / name / "package.json"
    return json.loads(manifest.read_text())["version"] if manifest.exists() else None


def import_map(folder: Path) -> dict[str, dict[str, str]]:
    """Each installed package's module entry by its name, for a page's `<script type="importmap">`; a stub's path
    for those only CommonJS (`STUBS`, which `site` serves)."""
    imports: dict[str, str] = {name: f"/stubs/{name}.mjs" for name in STUBS}
    modules = folder / "node_modules"
    for top in sorted(modules.iterdir()):
        for package in sorted(top.iterdir()) if top.name.startswith("@") else [top]:
            manifest = package / "package.json"
            entry = _entry(json.loads(manifest.read_text())) if manifest.exists() else None
            name = package.relative_to(modules).as_posix()
            if entry and name not in STUBS:
                imports[name] = f"/node_modules/{name}/{entry.removeprefix('./')}"
                imports[f"{name}/"] = f"/node_modules/{name}/"
    return {"imports": imports}


def _entry(manifest: dict[str, Any]) -> str | None:
    """A package's module for a browser: its `exports["."]` (browser, import or default), else `module`, `main`."""
    exported = manifest.get("exports")
    if isinstance(exported, dict) and "." in exported:
        return _pick(exported["."])
    if isinstance(exported, str):
        return exported
    return manifest.get("module") or manifest.get("main")


def _pick(choice: Any) -> str | None:
    if isinstance(choice, str):
        return choice
    if isinstance(choice, dict):
        for condition in ("browser", "import", "default", "module"):
            found = _pick(choice.get(condition))
            if found:
                return found
    return None


@contextmanager
def site(folder: Path, pages: dict[str, str]) -> Iterator[str]:
    """`folder`'s files and `pages` (path → HTML) served on a loopback port of its own: the page's origin,
    `http://localhost:PORT`, another origin than the emulator's `http://127.0.0.1:PORT`."""

    class Files(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".mjs": "text/javascript"}

        def do_GET(self) -> None:
            stub = STUBS.get(self.path.removeprefix("/stubs/").removesuffix(".mjs"))
            page = pages.get(self.path)
            if page is None and stub is None:
                super().do_GET()
                return
            body = (page or stub or "").encode()
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8" if page else "text/javascript")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), functools.partial(Files, directory=str(folder)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://localhost:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def run_node(script: str, *arguments: str, pinned: dict[str, str] | None = None) -> Any:
    """`script` (CommonJS, printing one JSON line) run by node with the `pinned` npm packages (the JS SDKs by
    default) to require, loopback only; what it printed, parsed. Skipped without node."""
    if shutil.which("node") is None:
        pytest.skip("no node on PATH: the JS clients run under node")
    folder = js_packages(pinned or JS_SDKS)
    env = {"PATH": os.environ.get("PATH", ""), "NODE_PATH": str(folder / "node_modules"), "NO_PROXY": "*"}
    done = subprocess.run(["node", "-e", script, *arguments], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
