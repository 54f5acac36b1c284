"""`emulator mcp`: the emulator's controls as Model Context Protocol tools (`controls`), its guides as resources
(`guides`), served over stdio by the `mcp` SDK (`stdio`, the SDK's home).

Layer: above the HTTP shell (it can start a server of its own), below the command line that runs it.
"""

from __future__ import annotations

import argparse
import sys


def main(args: argparse.Namespace) -> int:
    """`emulator mcp`: serve until the client closes standard input; 1 without the `mcp` extra."""
    try:
        from emulator.mcp import stdio
    except ModuleNotFoundError as exc:
        if not (exc.name or "").startswith("mcp"):
            raise
        print(f"emulator mcp needs the MCP SDK ({exc}): pip install 'llm-emulator[mcp]'", file=sys.stderr)
        return 1
    return stdio.run(args)
