"""Core values: the canonical `Prompt` and `Turn`, what goes back (`Whole`, `Script` and its steps), errors, ids,
tokens, SSE framing and JSON, field checks, the conversation key, bounded containers, YAML read within bounds.
Plain values and pure functions, no I/O.

Layer: the lowest; it imports nothing of the emulator's.
"""
