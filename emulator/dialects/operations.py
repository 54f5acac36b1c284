"""The dialect each of Google's and Bedrock's operations speaks, by the name its path ends in: Google's methods on a
model (`…/models/{model}:{method}`; Vertex's Claude: `rawPredict`) and Bedrock's `/model/{modelId}/{operation}`.
Read where a recorded path is given its dialect: the recordings' readers (`state.READERS`) and `emulator conform`.
`countTokens` and Bedrock's `count-tokens` answer no conversation, and are in neither."""

from __future__ import annotations

from emulator.dialects import Dialect, anthropic_messages, gemini
from emulator.dialects.bedrock import converse, invoke
from emulator.dialects.gemini import embed as gemini_embed

# Google's methods that answer, by name.
GOOGLE: dict[str, Dialect] = {
    "generateContent": gemini,
    "streamGenerateContent": gemini,
    "embedContent": gemini_embed,
    "batchEmbedContents": gemini_embed,
    "rawPredict": anthropic_messages,
    "streamRawPredict": anthropic_messages,
}
# Bedrock's operations, the last part of its path.
BEDROCK: dict[str, Dialect] = {
    "converse": converse,
    "converse-stream": converse,
    "invoke": invoke,
    "invoke-with-response-stream": invoke,
}
