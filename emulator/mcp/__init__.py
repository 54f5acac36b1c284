"""`emulator mcp`: the emulator's controls as Model Context Protocol tools (`controls`), its guides as resources
(`guides`), served over stdio by the `mcp` SDK (`stdio`, the SDK's home).

Layer: above the HTTP shell (it can start a server of its own), below the command line that runs it.
"""
