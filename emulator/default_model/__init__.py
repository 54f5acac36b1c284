"""The default model: what the emulator says when no scenario or recording answers, without a model.

`question` reads the question and `forms` the form of answer it wants; `writer` writes it from the grammar and
lexicon in `lexicon/` (read by `lexicon`, inflected by `grammar`, inflect's home); `prose` shapes the answer
(code, tool results); `relevance` picks the tools it calls, `instances` builds JSON valid against a schema, and
`generate` puts them together (`default_reply`) from dice rolled from the conversation key. Pure: no I/O but
reading its own data files, and faker's one home (`generate`): faker names people and places, never a sentence.

Layer: beside the dialects; it imports only the core.
"""
