"""Grounded generation in both frameworks, and a Gemini answer's citations made right.

1. LangChain: ``ChatDiscoveryEngineGrounded`` in a chain (``prompt | llm``), grounded on a
   search engine: the answer, its claims with char and byte spans, the chunks they cite as
   ``Citation`` annotations; streamed, the chunks add up to the same cited message.
2. LlamaIndex: ``DiscoveryEngineGroundedLLM`` as a query engine's LLM: the answer is grounded
   on the retrieved nodes, and ``GroundedQueryEngine`` cites them.
3. A Gemini answer (as ChatVertexAI returns it, in Japanese): its byte offsets read as string
   indices cut the wrong text; ``cite_gemini`` gives the right spans.

Runs offline: it starts the local emulator on its built-in corpus (the Python language
reference). On Google Cloud, drop the emulator and pass your project and engine.

    python -m examples.grounded_generation "How does the with statement work?"
"""

from __future__ import annotations

import sys

from langchain_core.messages import AIMessage
from langchain_core.prompts import ChatPromptTemplate
from llama_index.core.query_engine import RetrieverQueryEngine

from grounding_emulator import EmulatorServer
from langchain_grounding import ChatDiscoveryEngineGrounded
from langchain_grounding.gemini_citations import cite_gemini
from llamaindex_grounding import (
    DiscoveryEngineGroundedLLM,
    DiscoveryEngineRetriever,
    GroundedQueryEngine,
)

PROJECT = "my-project"
PROMPT = ChatPromptTemplate.from_messages(
    [("system", "Answer from the sources only."), ("human", "{question}")]
)


def langchain_answer(question: str, address: str) -> list[str]:
    """The chain's answer, each claim's spans and what it cites; the stream's citations."""
    llm = ChatDiscoveryEngineGrounded(
        project_id=PROJECT, engine_id="python-docs-app", max_result_count=3, emulator_host=address
    )
    chain = PROMPT | llm
    message = chain.invoke({"question": question})
    grounding = message.response_metadata["grounding"]
    lines = [f"Answer: {message.text}", f"Grounding score: {grounding['grounding_score']:.2f}"]
    annotations = message.content_blocks[0].get("annotations", [])  # LangChain's Citations
    for number, claim in enumerate(grounding["claims"]):
        cited = [a["url"] for a in annotations if a["extras"]["claim_index"] == number]
        lines.append(
            f"- chars {claim['start']}-{claim['end']} (bytes {claim['byte_start']}-"
            f"{claim['byte_end']}) {claim['status']} -> {', '.join(cited)}"
        )
    chunks = list(chain.stream({"question": question}))
    streamed = sum(chunks[1:], chunks[0])
    spans = [(a["start_index"], a["end_index"]) for a in streamed.content_blocks[0]["annotations"]]
    same = spans == [(a["start_index"], a["end_index"]) for a in annotations]
    lines.append(f"Streamed in {len(chunks)} chunks, the same citations: {same}")
    return lines


def llamaindex_answer(question: str, address: str) -> list[str]:
    """A query engine's answer, grounded on its retrieved nodes and cited."""
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT, data_store_id="python-docs", similarity_top_k=2, emulator_host=address
    )
    llm = DiscoveryEngineGroundedLLM(project_id=PROJECT, emulator_host=address)
    engine = GroundedQueryEngine(
        RetrieverQueryEngine.from_args(retriever, llm=llm),
        project_id=PROJECT,
        emulator_host=address,
    )
    response = engine.query(question)
    grounding = response.metadata["grounding"]
    lines = [f"Answer: {response.response}", f"Passed: {grounding['passed']}"]
    for block in response.metadata["citation_blocks"]:
        location = block.additional_location_info
        lines.append(
            f"- chars {location['start_char_idx']}-{location['end_char_idx']} -> {block.source}"
        )
    return lines


def gemini_answer() -> list[str]:
    """A Japanese Gemini answer: its byte offsets, read wrongly and rightly."""
    answer = "東京は日本の首都です。人口は約1400万人です。"
    segment = {"start_index": 0, "end_index": 33, "text": "東京は日本の首都です。"}  # bytes
    metadata = {
        "grounding_chunks": [{"web": {"uri": "https://ja.example/tokyo", "title": "東京"}}],
        "grounding_supports": [
            {"segment": segment, "grounding_chunk_indices": [0], "confidence_scores": [0.93]}
        ],
    }
    cited = cite_gemini(AIMessage(answer, response_metadata={"grounding_metadata": metadata}))
    (citation,) = cited.message.content_blocks[0]["annotations"]
    start, end = citation["start_index"], citation["end_index"]
    return [
        f"Byte offsets read as string indices: {answer[0:33]!r}",
        f"cite_gemini's span {start}-{end}: {answer[start:end]!r} -> {citation['url']}",
    ]


def main(question: str) -> str:
    with EmulatorServer() as emulator:  # offline; on Google Cloud, omit emulator_host
        sections = [
            ("LangChain: ChatDiscoveryEngineGrounded in a chain", langchain_answer),
            ("LlamaIndex: DiscoveryEngineGroundedLLM in a query engine", llamaindex_answer),
        ]
        out = [f"Question: {question}"]
        for number, (title, run) in enumerate(sections, start=1):
            out += ["", f"{number}. {title}", *run(question, emulator.address)]
    out += ["", "3. A Gemini answer's citations made right", *gemini_answer()]
    return "\n".join(out)


if __name__ == "__main__":
    print(main(" ".join(sys.argv[1:]) or "How does the with statement work?"))
