"""``DiscoveryEngineGroundedLLM``: grounded generation as a LlamaIndex LLM, against the emulator
over gRPC with Google's unmodified clients."""

from __future__ import annotations

import pytest
from llama_index.core.base.llms.types import ChatMessage, CitationBlock, MessageRole
from llama_index.core.chat_engine import (
    CondensePlusContextChatEngine,
    ContextChatEngine,
    SimpleChatEngine,
)
from llama_index.core.instrumentation.events.llm import LLMChatEndEvent
from llama_index.core.prompts import PromptTemplate
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import NodeWithScore, TextNode

from grounding_core import InputError
from grounding_emulator import EmulatorServer
from llamaindex_grounding import (
    DiscoveryEngineGroundedLLM,
    DiscoveryEngineRetriever,
    GroundedQueryEngine,
)
from tests.conftest import PROJECT, TEST_DATA_STORE, TEST_ENGINE

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


# -- in LlamaIndex's engines: the engine's retrieved context is what the answer is grounded on --

CAPE = "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month."
CREW = "The astronaut crew 👩‍🚀👨‍🚀 trains for years before a flight."
EMOJI_CHUNK = "/documents/emoji/chunks/c1"


@pytest.fixture
def retriever(emulator: EmulatorServer) -> DiscoveryEngineRetriever:
    return DiscoveryEngineRetriever(
        project_id=PROJECT,
        emulator_host=emulator.address,
        data_store_id=TEST_DATA_STORE,
        similarity_top_k=1,
    )


@pytest.fixture
def bare_llm(emulator: EmulatorServer) -> DiscoveryEngineGroundedLLM:
    """No nodes, no search source: what grounds its answers is what an engine retrieved."""
    return DiscoveryEngineGroundedLLM(project_id=PROJECT, emulator_host=emulator.address)


def grounded_calls(events) -> list:
    """The grounded LLM's chat responses an engine received (LlamaIndex's events)."""
    return [e.response for e in events.events if isinstance(e, LLMChatEndEvent)]


def assert_grounded_on_the_context(response, sentences: list[str]) -> None:
    """``response`` (the LLM's own, inside an engine) answered ``sentences`` from the context,
    each a supported claim citing it."""
    answer = " ".join(sentences)
    assert response.message.content == answer
    grounding = response.additional_kwargs["grounding"]
    assert grounding["source_ids"] == ["context"]
    spans = [(answer.index(s), answer.index(s) + len(s)) for s in sentences]
    claims = grounding["claims"]
    assert [(c["start"], c["end"], c["source_ids"]) for c in claims] == [
        (start, end, ["context"]) for start, end in spans
    ]
    [context] = response.additional_kwargs["source_nodes"]
    assert CAPE in context.node.text
    blocks = [b for b in response.message.blocks if isinstance(b, CitationBlock)]
    cited = [
        (b.additional_location_info["start_char_idx"], b.additional_location_info["end_char_idx"])
        for b in blocks
    ]
    assert [answer[start:end] for start, end in cited] == sentences


def test_a_query_engine_grounds_the_llm_on_the_retrieved_nodes(
    emulator, retriever, bare_llm, instrumentation
):
    events, _ = instrumentation
    engine = GroundedQueryEngine(
        RetrieverQueryEngine.from_args(retriever, llm=bare_llm),
        project_id=PROJECT,
        emulator_host=emulator.address,
    )
    response = engine.query("Where do rockets launch from?")
    assert response.response == CAPE
    [node] = response.source_nodes
    assert node.node.node_id.endswith(EMOJI_CHUNK)
    # The check of the engine's answer cites the retrieved node itself.
    grounding = response.metadata["grounding"]
    assert grounding["passed"] is True
    assert [(c["start"], c["end"], c["source_ids"]) for c in grounding["claims"]] == [
        (0, 52, [node.node.node_id]),
    ]
    uri = node.node.metadata["uri"]
    assert [b.source for b in response.metadata["citation_blocks"]] == [uri]
    # The LLM was sent the question as the user's turn, the template's words as instruction
    # and the context as its grounding fact, in no message's text.
    [call] = [e for e in events.events if isinstance(e, LLMChatEndEvent)]
    assert all(CAPE not in (m.content or "") for m in call.messages)
    assert [m.role for m in call.messages] == ["system", "system", "user"]
    assert call.messages[-1].content == "Where do rockets launch from?"
    assert "answer the query" in (call.messages[1].content or "")
    assert_grounded_on_the_context(call.response, [CAPE])


async def test_a_streaming_async_query_engine_answers_the_same(emulator, retriever):
    llm = DiscoveryEngineGroundedLLM(project_id=PROJECT, emulator_host=emulator.address)
    engine = RetrieverQueryEngine.from_args(retriever, llm=llm, streaming=True)
    streamed = engine.query("Where do rockets launch from?")
    assert "".join(streamed.response_gen) == CAPE
    answered = await RetrieverQueryEngine.from_args(retriever, llm=llm).aquery(
        "How long does the astronaut crew train?"
    )
    assert answered.response == CREW
    await llm.generating.connection.aclose()


@pytest.mark.parametrize("engine_class", [ContextChatEngine, CondensePlusContextChatEngine])
def test_a_chat_engine_grounds_each_turn_on_its_retrieved_context(
    retriever, bare_llm, instrumentation, engine_class
):
    events, _ = instrumentation
    options = {"skip_condense": True} if engine_class is CondensePlusContextChatEngine else {}
    engine = engine_class.from_defaults(retriever=retriever, llm=bare_llm, **options)
    first = engine.chat("Where do rockets launch from?")
    assert first.response == CAPE
    second = engine.chat("How long does the astronaut crew train?")
    assert second.response == f"{CAPE} {CREW}"
    assert [n.node.node_id.endswith(EMOJI_CHUNK) for n in second.source_nodes] == [True]
    # The second turn went with the first as history, and its answer is grounded on the context.
    last = grounded_calls(events)[-1]
    assert [m.content for m in engine.chat_history[:2]] == ["Where do rockets launch from?", CAPE]
    assert_grounded_on_the_context(last, [CAPE, CREW])
    engine.reset()
    streamed = engine.stream_chat("Where do rockets launch from?")
    assert "".join(streamed.response_gen) == CAPE


def test_condensing_a_follow_up_needs_a_source_of_the_llms_own(emulator, retriever, bare_llm):
    engine = CondensePlusContextChatEngine.from_defaults(retriever=retriever, llm=bare_llm)
    assert engine.chat("Where do rockets launch from?").response == CAPE
    with pytest.raises(InputError, match="no grounding source") as excinfo:
        engine.chat("How long does its crew train?")  # the condense prompt carries no context
    assert excinfo.value.field == "sources"
    own = DiscoveryEngineGroundedLLM(
        project_id=PROJECT, emulator_host=emulator.address, data_store_id=TEST_DATA_STORE
    )
    engine = CondensePlusContextChatEngine.from_defaults(retriever=retriever, llm=own)
    engine.chat("Where do rockets launch from?")
    assert CREW in engine.chat("How long does its crew train?").response


def test_simple_chat_engine_keeps_the_cited_answer_in_its_history(emulator):
    llm = DiscoveryEngineGroundedLLM(
        project_id=PROJECT, emulator_host=emulator.address, nodes=[TOKYO, ROCKETS]
    )
    engine = SimpleChatEngine.from_defaults(llm=llm)
    assert engine.chat("日本の首都はどこですか？").response.startswith("東京都は日本の首都です。")
    answer = engine.chat_history[-1]
    [block, *_] = [b for b in answer.blocks if isinstance(b, CitationBlock)]
    location = block.additional_location_info
    assert answer.content[location["start_char_idx"] : location["end_char_idx"]] == (
        "東京都は日本の首都です。"
    )
    assert answer.additional_kwargs["grounding"]["claims"][0]["source_ids"] == ["tokyo"]


@pytest.mark.parametrize("name", ["context_str", "context_msg"])
def test_a_templates_context_is_the_grounding_fact_and_a_blank_one_is_none(bare_llm, name):
    template = PromptTemplate(f"Context:\n{{{name}}}\n\nQuery: {{query_str}}\nAnswer: ")
    context = f"{CAPE} {CREW}"
    answer = bare_llm.predict(template, **{name: context}, query_str="Where do rockets launch?")
    assert answer == CAPE
    with pytest.raises(InputError, match="no grounding source") as excinfo:
        bare_llm.predict(template, **{name: " \n"}, query_str="Where do rockets launch?")
    assert excinfo.value.field == "sources"
