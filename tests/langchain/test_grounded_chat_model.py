"""``ChatDiscoveryEngineGrounded``: grounded generation as a LangChain chat model, against the
emulator over gRPC with Google's unmodified clients."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate

from grounding_core import InputError
from grounding_emulator import EmulatorServer
from langchain_grounding import ChatDiscoveryEngineGrounded
from tests.conftest import PROJECT, TEST_DATA_STORE

TOKYO = Document(
    "東京都は日本の首都です。人口は約千四百万人です。",
    metadata={"title": "東京", "uri": "https://example.jp/tokyo"},
    id="tokyo",
)
ROCKETS = Document(
    "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month. "
    "The crew 👩‍🚀 launches from Cape Canaveral too.",
    metadata={"title": "Rockets", "uri": "https://example.com/rockets"},
    id="rockets",
)
DOCS = [TOKYO, ROCKETS]


@pytest.fixture(scope="module")
def llm(emulator: EmulatorServer) -> ChatDiscoveryEngineGrounded:
    return ChatDiscoveryEngineGrounded(
        project_id=PROJECT, emulator_host=emulator.address, documents=DOCS
    )


def test_invoke_answers_with_citations_and_the_grounding_metadata(llm):
    message = llm.invoke([SystemMessage("Be brief."), HumanMessage("日本の首都はどこですか？")])
    assert isinstance(message, AIMessage)
    assert message.text.startswith("東京都は日本の首都です。")
    [block] = message.content_blocks
    citation = block["annotations"][0]
    assert (citation["start_index"], citation["end_index"]) == (0, 12)
    assert (
        message.text[citation["start_index"] : citation["end_index"]] == "東京都は日本の首都です。"
    )
    assert citation["url"] == "https://example.jp/tokyo"
    assert citation["extras"]["source_id"] == "tokyo"
    grounding = message.response_metadata["grounding"]
    assert grounding["grounding_score"] == 1.0
    claim = grounding["claims"][0]
    assert (claim["start"], claim["end"], claim["byte_start"], claim["byte_end"]) == (0, 12, 0, 36)
    assert (claim["score"], claim["source_ids"]) == (1.0, ["tokyo"])
    assert message.response_metadata["documents"] == DOCS


def test_documents_given_per_call_replace_the_constructed_ones(llm):
    message = llm.invoke("Who launches from Cape Canaveral?", documents=[ROCKETS])
    assert message.text == ROCKETS.page_content
    assert message.response_metadata["grounding"]["source_ids"] == ["rockets"]
    spans = [(a["start_index"], a["end_index"]) for a in message.content_blocks[0]["annotations"]]
    assert spans == [(0, 52), (53, 99)]
    for start, end in spans:
        assert message.text[start:end] in ROCKETS.page_content


def test_multi_turn_sends_ai_messages_as_model_turns(llm):
    message = llm.invoke(
        [
            HumanMessage("Tell me about Tokyo."),
            AIMessage("Tokyo is the capital of Japan."),
            HumanMessage("Who launches from Cape Canaveral?"),
        ]
    )
    assert message.text == ROCKETS.page_content


def test_stream_yields_the_text_then_the_grounding(llm):
    chunks = list(llm.stream("Who launches from Cape Canaveral?"))
    texts = [c.text for c in chunks if c.text]
    assert texts == [
        "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month. ",
        "The crew 👩‍🚀 launches from Cape Canaveral too.",
    ]
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged += chunk
    assert merged.text == ROCKETS.page_content
    grounding = merged.response_metadata["grounding"]
    assert [c["text"] for c in grounding["claims"]] == [
        "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month.",
        "The crew 👩‍🚀 launches from Cape Canaveral too.",
    ]


async def test_ainvoke_and_astream_answer_the_same(emulator):
    llm = ChatDiscoveryEngineGrounded(
        project_id=PROJECT, emulator_host=emulator.address, documents=DOCS
    )
    message = await llm.ainvoke("日本の首都はどこですか？")
    chunks = [c async for c in llm.astream("日本の首都はどこですか？")]
    assert "".join(c.text for c in chunks) == message.text
    assert (
        chunks[-2].response_metadata["grounding"]["claims"]
        == (message.response_metadata["grounding"]["claims"])
    )
    await llm.connection.aclose()


def test_a_data_store_grounds_the_answer_and_its_chunks_become_documents(emulator):
    llm = ChatDiscoveryEngineGrounded(
        project_id=PROJECT,
        emulator_host=emulator.address,
        data_store_id=TEST_DATA_STORE,
        max_result_count=3,
    )
    message = llm.invoke("Where do rockets launch from?")
    assert "Cape Canaveral" in message.text
    documents = message.response_metadata["documents"]
    assert documents
    assert all(d.id and "/chunks/" in d.id for d in documents)
    cited = message.content_blocks[0]["annotations"][0]
    assert cited["extras"]["source_id"] in {d.id for d in documents}


def test_it_works_in_a_chain(llm):
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Answer from the sources."), ("human", "{question}")]
    )
    chain = prompt | llm | StrOutputParser()
    assert chain.invoke({"question": "日本の首都はどこですか？"}).startswith("東京都")


def test_tool_calling_is_not_supported(llm):
    with pytest.raises(NotImplementedError, match="does not support tool calling"):
        llm.bind_tools([])
    assert "Tool calling is not supported" in (ChatDiscoveryEngineGrounded.__doc__ or "")
    with pytest.raises(InputError, match="does not support tool calling") as excinfo:
        llm.invoke([HumanMessage("Hi?"), ToolMessage("result", tool_call_id="1")])
    assert excinfo.value.field == "messages[1]"


@pytest.mark.parametrize(
    ("messages", "kwargs", "field"),
    [
        ([SystemMessage("Only a system message.")], {}, "contents"),
        ([HumanMessage("Hi?"), AIMessage("Hello.")], {}, "contents[1].role"),
        ("Where?", {"documents": []}, "sources"),
    ],
    ids=["no-turns", "ends-with-ai", "no-source"],
)
def test_bad_input_is_refused_naming_the_field(llm, messages, kwargs, field):
    with pytest.raises(InputError) as excinfo:
        llm.invoke(messages, **kwargs)
    assert excinfo.value.field == field
