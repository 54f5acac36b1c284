"""The default model: what the emulator says when no scenario or recording answers, without a model.

`question` reads the question, `prose` writes the answer in the form it asks for, `relevance` picks the tools it
calls, `instances` builds JSON valid against a schema, and `generate` puts them together (`default_reply`) from
dice rolled from the conversation key. Pure: no I/O, and faker's one home (`generate`).
"""
