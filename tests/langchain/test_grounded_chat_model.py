"""``ChatDiscoveryEngineGrounded``: grounded generation as a LangChain chat model, against the
emulator over gRPC with Google's unmodified clients."""

from __future__ import annotations

import pytest
from langchain.agents import create_agent
from langchain_core.documents import Document
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate

from grounding_core import InputError
from grounding_emulator import EmulatorServer
from langchain_grounding import (
    AsyncGroundingCallbackHandler,
    ChatDiscoveryEngineGrounded,
    GroundingCallbackHandler,
    GroundingMiddleware,
)
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


def without_ids(content: list) -> list:
    """``content`` without what differs between two calls' messages: each ``Citation``'s
    random ``id``, and the ``index`` LangChain merges a stream's blocks by."""
    return [
        {
            **{k: v for k, v in block.items() if k != "index"},
            "annotations": [
                {k: v for k, v in a.items() if k != "id"} for a in block.get("annotations", [])
            ],
        }
        for block in content
    ]


def added_up(chunks: list) -> AIMessageChunk:
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged += chunk
    return merged


def test_stream_yields_the_text_then_the_citations_and_the_grounding(llm):
    chunks = list(llm.stream("Who launches from Cape Canaveral?"))
    assert [c.text for c in chunks] == [
        "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month. ",
        "The crew 👩‍🚀 launches from Cape Canaveral too.",
        "",
    ]
    assert [c.content_blocks[0].get("annotations") for c in chunks[:-1]] == [None, None]
    last = chunks[-1]
    assert last.chunk_position == "last"
    spans = [(a["start_index"], a["end_index"]) for a in last.content_blocks[0]["annotations"]]
    assert spans == [(0, 52), (53, 99)]
    assert last.response_metadata["grounding"]["source_ids"] == ["tokyo", "rockets"]


def test_the_streamed_chunks_add_up_to_the_invoked_message(llm):
    question = "Who launches from Cape Canaveral?"
    merged = added_up(list(llm.stream(question)))
    message = llm.invoke(question)
    assert merged.text == message.text == ROCKETS.page_content
    assert without_ids(merged.content) == without_ids(message.content)
    [block] = merged.content_blocks
    for annotation in block["annotations"]:
        start, end = annotation["start_index"], annotation["end_index"]
        assert merged.text[start:end] in ROCKETS.page_content
        assert (annotation["url"], annotation["extras"]["source_id"]) == (
            "https://example.com/rockets",
            "rockets",
        )
    assert merged.response_metadata == message.response_metadata
    assert [c["text"] for c in merged.response_metadata["grounding"]["claims"]] == [
        "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month.",
        "The crew 👩‍🚀 launches from Cape Canaveral too.",
    ]


async def test_ainvoke_and_astream_answer_the_same(emulator):
    llm = ChatDiscoveryEngineGrounded(
        project_id=PROJECT, emulator_host=emulator.address, documents=DOCS
    )
    message = await llm.ainvoke("日本の首都はどこですか？")
    merged = added_up([c async for c in llm.astream("日本の首都はどこですか？")])
    assert merged.text == message.text
    assert merged.text.startswith("東京都は日本の首都です。")
    assert without_ids(merged.content) == without_ids(message.content)
    assert merged.response_metadata == message.response_metadata
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


CHAIN_PROMPT = ChatPromptTemplate.from_messages(
    [("system", "Answer from the sources only."), ("human", "{question}")]
)
CREW = "The crew 👩‍🚀 launches from Cape Canaveral too."


def test_in_a_chain_the_message_keeps_its_citations(llm):
    message = (CHAIN_PROMPT | llm).invoke({"question": "日本の首都はどこですか？"})
    [citation, *_] = message.content_blocks[0]["annotations"]
    start, end = citation["start_index"], citation["end_index"]
    assert message.text[start:end] == "東京都は日本の首都です。"
    assert citation["extras"]["source_id"] == "tokyo"
    text = (CHAIN_PROMPT | llm | StrOutputParser()).invoke({"question": "日本の首都はどこですか？"})
    assert text == message.text


@pytest.mark.parametrize("call", ["invoke", "stream"])
def test_the_callback_checks_a_chain_answer_against_the_models_documents(emulator, llm, call):
    handler = GroundingCallbackHandler(project_id=PROJECT, emulator_host=emulator.address)
    chain = CHAIN_PROMPT | llm.bind(documents=[ROCKETS]) | StrOutputParser()
    config = {"callbacks": [handler]}
    question = {"question": "Who launches from Cape Canaveral?"}
    if call == "invoke":
        answer = chain.invoke(question, config=config)
    else:
        answer = "".join(chain.stream(question, config=config))
    assert answer == ROCKETS.page_content
    report = handler.latest
    assert report is not None
    assert (report.passed, report.support_score, report.error) == (True, 1.0, None)
    assert report.source_ids == ("rockets",)  # the documents the model was given, only
    assert [(c.start, c.end, c.status) for c in report.claims] == [
        (0, 52, "supported"),
        (53, 99, "supported"),
    ]
    assert answer[53:99] == CREW
    assert [s.id for c in report.claims for s in c.sources] == ["rockets", "rockets"]


async def test_the_async_callback_checks_the_same(emulator):
    llm = ChatDiscoveryEngineGrounded(
        project_id=PROJECT, emulator_host=emulator.address, documents=[ROCKETS]
    )
    handler = AsyncGroundingCallbackHandler(project_id=PROJECT, emulator_host=emulator.address)
    chain = CHAIN_PROMPT | llm | StrOutputParser()
    answer = await chain.ainvoke(
        {"question": "Who launches from Cape Canaveral?"}, config={"callbacks": [handler]}
    )
    report = handler.latest
    assert report is not None
    assert (answer, report.passed, report.source_ids) == (ROCKETS.page_content, True, ("rockets",))
    await llm.connection.aclose()


def test_the_middleware_checks_and_cites_the_agents_grounded_answer(emulator, llm):
    agent = create_agent(
        llm.bind(documents=[ROCKETS]),
        tools=[],
        middleware=[GroundingMiddleware(project_id=PROJECT, emulator_host=emulator.address)],
    )
    state = agent.invoke({"messages": [("user", "Who launches from Cape Canaveral?")]})
    final = state["messages"][-1]
    assert final.text == ROCKETS.page_content
    grounding = state["grounding"]
    assert (grounding["passed"], grounding["source_ids"]) == (True, ["rockets"])
    assert [(c["start"], c["end"], c["source_ids"]) for c in grounding["claims"]] == [
        (0, 52, ["rockets"]),
        (53, 99, ["rockets"]),
    ]
    annotations = final.content_blocks[0]["annotations"]
    assert [(a["start_index"], a["end_index"], a["url"]) for a in annotations] == [
        (0, 52, "https://example.com/rockets"),
        (53, 99, "https://example.com/rockets"),
    ]
    assert final.response_metadata["grounding"] == grounding
    assert state["grounding_revisions"] == 0


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


async def test_a_streaming_agent_gets_the_same_cited_answer(emulator):
    llm = ChatDiscoveryEngineGrounded(
        project_id=PROJECT, emulator_host=emulator.address, documents=[ROCKETS]
    )
    agent = create_agent(
        llm,
        tools=[],
        middleware=[GroundingMiddleware(project_id=PROJECT, emulator_host=emulator.address)],
    )
    tokens, states = [], []
    async for mode, data in agent.astream(
        {"messages": [("user", "Who launches from Cape Canaveral?")]},
        stream_mode=["messages", "values"],
    ):
        if mode == "messages":
            tokens.append(data[0].text)
        else:
            states.append(data)
    assert "".join(tokens) == ROCKETS.page_content  # the model's text, streamed as it came
    final = states[-1]["messages"][-1]
    assert final.text == ROCKETS.page_content
    annotations = final.content_blocks[0]["annotations"]
    assert [(a["start_index"], a["end_index"]) for a in annotations] == [(0, 52), (53, 99)]
    assert states[-1]["grounding"]["passed"] is True
    await llm.connection.aclose()


async def test_the_middleware_checks_its_streamed_sentences_while_they_stream(emulator):
    # The model streams content blocks (the token LangChain hands the callbacks is a list): the
    # claim checks read the chunks' text. Its own documents come with its last chunk, so the
    # sources known early are the state's.
    llm = ChatDiscoveryEngineGrounded(
        project_id=PROJECT, emulator_host=emulator.address, documents=[ROCKETS]
    )
    middleware = GroundingMiddleware(
        project_id=PROJECT, emulator_host=emulator.address, check_while_streaming=True
    )
    agent = create_agent(llm, tools=[], middleware=[middleware])
    question = {"messages": [("user", "Who launches from Cape Canaveral?")], "documents": [ROCKETS]}
    verdicts = [
        event["data"]
        async for event in agent.astream_events(question, version="v2")
        if event["event"] == "on_custom_event" and event["name"] == "grounding_claim"
    ]
    assert sorted((v["start"], v["end"], v["status"], v["source_ids"]) for v in verdicts) == [
        (0, 52, "supported", ["rockets"]),
        (53, 99, "supported", ["rockets"]),
    ]
    await llm.connection.aclose()
