"""`emulator` on the command line: the shell that parses the arguments and hands each subcommand to its module
in `emulator/commands/` (`serve`, `record`, `report`, `check`, `conform`, `drift`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import metadata, util

from emulator import controls
from emulator.commands import check, conform, drift, record, report, serve

# What pip installs is `llm-emulator` (PyPI's `emulator` is another project); the package and the command keep
# the name `emulator`.
DISTRIBUTION = "llm-emulator"
# A module setup.py compiles (its `COMPILED`): it is an extension module exactly when the core runs compiled.
PROBE = "emulator.pipeline"


def parser() -> argparse.ArgumentParser:
    """The whole command line: every subcommand and flag, each with its help."""
    root = argparse.ArgumentParser(prog="emulator", description="Impersonate LLM inference upstreams locally.")
    root.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = root.add_subparsers(dest="command", required=True, metavar="COMMAND", help="what to do")

    def command(name: str, help: str) -> argparse.ArgumentParser:
        return commands.add_parser(name, help=help, description=f"{help[0].upper()}{help[1:]}.")

    serve.arguments(command("serve", "serve the emulated APIs"))
    record.arguments(command("record", "proxy to a real upstream and record each interaction to a cassette"))
    report.arguments(command("report", "grade how clients behaved under the faults a running emulator served"))
    checking = "validate scenario files and cassettes, print every mistake, exit non-zero on any"
    check.arguments(command("check", checking))
    conform.arguments(command("conform", "compare the emulator's own answers with recorded ones, by shape"))
    drift.arguments(command("drift", "re-send recorded requests to the live upstream and compare shapes"))
    controls.arguments(command("mcp", "serve the emulator's controls as MCP tools over stdio, for a coding agent"))
    return root


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "check":
        return check.run(args.paths)
    if args.command == "report":
        return report.run(args.url, args.test_id, args.admin_token)
    if args.command == "record":
        return record.run(args)
    if args.command == "conform":
        return conform.run(args)
    if args.command == "drift":
        return drift.run(args)
    if args.command == "mcp":
        return controls.main(args)
    return serve.run(args)


def _version() -> str:
    """What `--version` prints after the name: the installed version, then `(compiled)` or `(pure Python)`, for
    whether the answering core runs as mypyc's extension modules or as its sources."""
    try:
        version = metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        version = "(not installed)"
    return f"{version} ({'compiled' if compiled() else 'pure Python'})"


def compiled() -> bool:
    """Whether the core runs compiled: `PROBE`'s file is an extension module (`.so`, `.pyd` on Windows)."""
    # The file an import loads (an extension module wins over the .py beside it), found without importing it here.
    spec = util.find_spec(PROBE)
    return spec is not None and spec.origin is not None and spec.origin.endswith((".so", ".pyd"))


if __name__ == "__main__":
    sys.exit(main())
