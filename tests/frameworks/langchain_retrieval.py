# mypy: ignore-errors
"""Run in the LangChain side venv (tests/test_embeddings.py): a retrieval pipeline with no scenario. The passages
on argv[3] (JSON) go into LangChain's in-memory vector store through `OpenAIEmbeddings` against the emulator at
argv[1]; the question argv[2] retrieves one, which a chat model is asked about with it as context. Prints the
passage retrieved and the answer."""

import json
import sys

from langchain_core.prompts import ChatPromptTemplate
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_openai import ChatOpenAI, OpenAIEmbeddings

base_url, question, passages = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
# Text, not tiktoken's ids: tiktoken would fetch its vocabulary from the network first.
embeddings = OpenAIEmbeddings(
    base_url=base_url, api_key="sk-test", model="text-embedding-3-small", check_embedding_ctx_length=False
)
store = InMemoryVectorStore.from_texts(passages, embeddings)
found = store.similarity_search(question, k=1)[0].page_content
prompt = ChatPromptTemplate.from_messages(
    [("system", "Answer from this context only:\n{context}"), ("human", "{question}")]
)
llm = ChatOpenAI(base_url=base_url, api_key="sk-test", model="gpt-4.1-mini", max_retries=0)
answer = (prompt | llm).invoke({"context": found, "question": question})
print(json.dumps({"retrieved": found, "answer": answer.content}))
