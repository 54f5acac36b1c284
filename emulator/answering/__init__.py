"""Answering: a request's way through the server as named stages (`stages`: read, parse, pick, shape, note,
render), taken round them by `rounds`; a `Turn` from its source within the request's limits (`compose`); the
first stage (`reading`), the public profiles' model checks, tool pairing, what the public APIs keep (`recall`), the
token-counting endpoints (`counting`), and `conformance` (the emulator's rendering of a recorded answer).

Layer: above the state, the journal, the three sources, the dialects, the rules and the core, all it imports; no
web framework, no socket, no event loop.
"""
