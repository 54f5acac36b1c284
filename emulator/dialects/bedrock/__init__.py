"""Bedrock Runtime (reference providers-aws-azure-ollama.md §1): two dialects over AWS's transport, each answering
at `/model/{modelId}/{operation}`. `converse` is Converse and ConverseStream, a wire format of Bedrock's own;
`invoke` is Claude's Messages through InvokeModel and InvokeModelWithResponseStream. `eventstream` frames their
streams as AWS does."""
