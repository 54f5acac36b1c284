"""`emulator mcp`: the emulator's controls (`emulator.mcp.controls`) as Model Context Protocol tools, and its reference
texts (`emulator.mcp.guides`) as resources, over stdio, for the coding agent that writes a client's tests. The home
of the `mcp` SDK (the optional extra `llm-emulator[mcp]`).

It talks to a running emulator's admin API (`--url`, `--admin-token`), or with `--serve` to one of its own, started
in this process on a free loopback port. Standard output carries MCP frames and nothing else: the SDK points
file descriptor 1 at standard error while it serves, and every log line goes to standard error.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from emulator import version
from emulator.bundled import default_scenarios
from emulator.mcp import controls, guides

INSTRUCTIONS = (
    "These tools drive an LLM API emulator (OpenAI Chat Completions and Responses, Anthropic Messages) that a "
    "client under test talks to. base_urls gives the URLs to point the client at; set_fault and set_timing make "
    "its requests fail or slow down on purpose; post_scenario scripts the answers; list_requests and get_request "
    "show what the client sent and got; get_report grades how it handled the faults; reset clears a test id. Read "
    "emulator://faults before writing a fault spec and emulator://scenarios before writing a scenario."
)
log = logging.getLogger("emulator.mcp")


def server(admin: controls.Admin) -> Server[Any]:
    """The MCP server: `controls.TOOLS` run against `admin`, `guides.GUIDES` to read."""

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[types.Tool(name=t.name, description=t.description, input_schema=t.schema) for t in controls.TOOLS]
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            found = await anyio.to_thread.run_sync(controls.call, admin, params.name, params.arguments)
        except controls.ToolError as exc:
            log.info("%s: %s", params.name, exc)
            return types.CallToolResult(content=[types.TextContent(text=str(exc))], is_error=True)
        text = json.dumps(found, ensure_ascii=False, indent=1)
        return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=found)

    async def list_resources(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(uri=g.uri, name=g.name, description=g.description, mime_type="text/markdown")
                for g in guides.GUIDES
            ]
        )

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        for guide in guides.GUIDES:
            if guide.uri == str(params.uri):
                contents = types.TextResourceContents(uri=guide.uri, mime_type="text/markdown", text=guide.text())
                return types.ReadResourceResult(contents=[contents])
        known = ", ".join(g.uri for g in guides.GUIDES)
        raise MCPError(types.INVALID_PARAMS, f"No resource {params.uri}; the resources are {known}.")

    return Server(
        "emulator",
        version=version(),
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )


async def _serve_stdio(admin: controls.Admin) -> None:
    running = server(admin)
    async with stdio_server() as (read_stream, write_stream):
        await running.run(read_stream, write_stream, running.create_initialization_options())


def run(args: argparse.Namespace) -> int:
    """Serve MCP over stdio until the client closes standard input."""
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="emulator mcp: %(message)s")
    if not args.serve:
        log.info("driving the emulator at %s", args.url)
        anyio.run(_serve_stdio, controls.Admin(args.url, args.admin_token))
        return 0
    from emulator.http.app import Settings, create_app
    from emulator.http.background import Background

    paths = tuple(args.scenarios or (default_scenarios(),))
    with Background(create_app(Settings(scenarios=paths))) as emulator:
        log.info("serving an emulator of its own at %s (scenarios: %s)", emulator.url, ", ".join(map(str, paths)))
        anyio.run(_serve_stdio, controls.Admin(emulator.url))
    return 0
