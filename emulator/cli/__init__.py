"""`emulator` on the command line: the shell that parses the arguments and hands each subcommand to its module
in `emulator/cli/` (`serve`, `record`, `report`, `check`, `conform`, `drift`).

Layer: the top but for the pytest plugin; it may import every layer. `flags` holds what the subcommands share.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from emulator import mcp, version
from emulator.cli import check, conform, drift, flags, record, report, serve
from emulator.mcp import controls


def parser() -> argparse.ArgumentParser:
    """The whole command line: every subcommand and flag, each with its help."""
    root = argparse.ArgumentParser(prog="emulator", description="Impersonate LLM inference upstreams locally.")
    root.add_argument("--version", action="version", version=f"%(prog)s {version()}")
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
    """The command's exit code (`flags.DIFFERENT`, `ENVIRONMENT`, `INTERNAL`): what no command foresaw ends in one
    line naming it, not a traceback (`EMULATOR_TRACEBACK=1` shows it)."""
    args = parser().parse_args(argv)
    try:
        return _run(args)
    except KeyboardInterrupt:
        return 130
    except OSError as exc:  # the machine's: a file, a folder, a socket
        print(f"emulator {args.command}: {exc.strerror or exc}{_where(exc)}", file=sys.stderr)
        return flags.ENVIRONMENT
    except Exception as exc:
        if os.environ.get("EMULATOR_TRACEBACK"):
            raise
        print(
            f"emulator {args.command}: internal error ({type(exc).__name__}: {exc}); this is a bug of the emulator's: "
            "please report it with the command line (EMULATOR_TRACEBACK=1 shows where)",
            file=sys.stderr,
        )
        return flags.INTERNAL


def _where(exc: OSError) -> str:
    return f": {exc.filename}" if exc.filename else ""


def _run(args: argparse.Namespace) -> int:
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
        return mcp.main(args)
    return serve.run(args)


if __name__ == "__main__":
    sys.exit(main())
