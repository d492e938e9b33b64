"""``DiscoveryEngineGroundedLLM``: grounded generation as a LlamaIndex LLM, against the emulator
over gRPC with Google's unmodified clients."""

from __future__ import annotations

import pytest
from llama_index.core.base.llms.types import ChatMessage, CitationBlock, MessageRole
from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.schema import NodeWithScore, TextNode

from grounding_core import InputError
from grounding_emulator import EmulatorServer
from llamaindex_grounding import DiscoveryEngineGroundedLLM
from tests.conftest import PROJECT, TEST_ENGINE

TOKYO = TextNode(
    text="東京都は日本の首都です。人口は約千四百万人です。",
    metadata={"uri": "https://example.jp/tokyo"},
    id_="tokyo",
)
ROCKETS = TextNode(
    text="Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month. "
    "The crew 👩‍🚀 launches from Cape Canaveral too.",
    id_="rockets",
)


@pytest.fixture(scope="module")
def llm(emulator: EmulatorServer) -> DiscoveryEngineGroundedLLM:
    return DiscoveryEngineGroundedLLM(
        project_id=PROJECT, emulator_host=emulator.address, nodes=[TOKYO, ROCKETS]
    )


def user(text: str) -> ChatMessage:
    return ChatMessage(role=MessageRole.USER, content=text)


def test_chat_answers_with_citation_blocks_and_source_nodes(llm):
    response = llm.chat(
        [ChatMessage(role="system", content="Be brief."), user("日本の首都はどこですか？")]
    )
    answer = response.message.content
    assert answer is not None
    assert answer.startswith("東京都は日本の首都です。")
    blocks = [b for b in response.message.blocks if isinstance(b, CitationBlock)]
    location = blocks[0].additional_location_info
    assert (
        answer[location["start_char_idx"] : location["end_char_idx"]] == "東京都は日本の首都です。"
    )
    assert blocks[0].source == "https://example.jp/tokyo"
    grounding = response.message.additional_kwargs["grounding"]
    assert grounding["grounding_score"] == 1.0
    claim = grounding["claims"][0]
    assert (claim["start"], claim["end"], claim["byte_start"], claim["byte_end"]) == (0, 12, 0, 36)
    assert claim["source_ids"] == ["tokyo"]
    nodes = response.additional_kwargs["source_nodes"]
    assert [(n.node.node_id, n.score) for n in nodes] == [("tokyo", 1.0), ("rockets", None)]


def test_complete_grounds_on_nodes_given_per_call(llm):
    response = llm.complete(
        "Who launches from Cape Canaveral?", nodes=[NodeWithScore(node=ROCKETS)]
    )
    assert response.text == ROCKETS.text
    claims = response.additional_kwargs["grounding"]["claims"]
    assert [(c["start"], c["end"]) for c in claims] == [(0, 52), (53, 99)]
    for claim in claims:
        assert response.text[claim["start"] : claim["end"]] == claim["text"]


def test_multi_turn_chat_sends_assistant_messages_as_model_turns(llm):
    response = llm.chat(
        [
            user("Tell me about Tokyo."),
            ChatMessage(role=MessageRole.ASSISTANT, content="Tokyo is in Japan."),
            user("Who launches from Cape Canaveral?"),
        ]
    )
    assert response.message.content == ROCKETS.text


def test_streams_yield_deltas_then_the_grounding(llm):
    responses = list(llm.stream_chat([user("Who launches from Cape Canaveral?")]))
    assert [r.delta for r in responses] == [
        "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month. ",
        "The crew 👩‍🚀 launches from Cape Canaveral too.",
        "",
    ]
    assert responses[-1].message.content == ROCKETS.text
    assert responses[-1].additional_kwargs["grounding"]["grounding_score"] == 1.0
    completions = list(llm.stream_complete("日本の首都はどこですか？"))
    assert completions[-1].text.startswith("東京都は日本の首都です。")
    assert completions[-1].additional_kwargs["grounding"]["claims"][0]["source_ids"] == ["tokyo"]


async def test_async_chat_complete_and_streams(emulator):
    llm = DiscoveryEngineGroundedLLM(
        project_id=PROJECT, emulator_host=emulator.address, nodes=[TOKYO, ROCKETS]
    )
    chat = await llm.achat([user("日本の首都はどこですか？")])
    completion = await llm.acomplete("日本の首都はどこですか？")
    assert completion.text == chat.message.content
    streamed = [r async for r in await llm.astream_chat([user("日本の首都はどこですか？")])]
    assert streamed[-1].message.content == chat.message.content
    completions = [r async for r in await llm.astream_complete("日本の首都はどこですか？")]
    assert (
        completions[-1].additional_kwargs["grounding"] == completion.additional_kwargs["grounding"]
    )
    await llm.generating.connection.aclose()


def test_an_engine_grounds_a_chat_engine(emulator):
    llm = DiscoveryEngineGroundedLLM(
        project_id=PROJECT, emulator_host=emulator.address, engine_id=TEST_ENGINE
    )
    engine = SimpleChatEngine.from_defaults(llm=llm)
    response = engine.chat("Where do rockets launch from?")
    assert "Cape Canaveral" in response.response
    nodes = llm.complete("Where do rockets launch from?").additional_kwargs["source_nodes"]
    assert nodes
    assert all("/chunks/" in n.node.node_id for n in nodes)


def test_tool_calling_is_not_supported(llm):
    assert llm.metadata.is_function_calling_model is False
    assert "Tool calling is not supported" in (DiscoveryEngineGroundedLLM.__doc__ or "")
    with pytest.raises(InputError, match="does not support tool calling"):
        llm.chat([user("Hi?"), ChatMessage(role=MessageRole.TOOL, content="result")])


def test_bad_input_is_refused_naming_the_field(llm):
    with pytest.raises(InputError) as excinfo:
        llm.complete("Where?", nodes=[])
    assert excinfo.value.field == "sources"
    with pytest.raises(InputError) as excinfo:
        llm.chat([user("Hi?"), ChatMessage(role=MessageRole.ASSISTANT, content="Hello.")])
    assert excinfo.value.field == "contents[1].role"
