"""DiscoveryEngineChatEngine (answerQuery sessions) and DeveloperKnowledgeChatEngine (condensed
follow-ups) against the emulator."""

import pytest
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.chat_engine.types import (
    AgentChatResponse,
    BaseChatEngine,
    StreamingAgentChatResponse,
)
from llama_index.core.llms import MockLLM

from grounding_core import GroundedAnswer, InputError, NotFoundError
from llamaindex_grounding import (
    DeveloperKnowledgeAnswerQueryEngine,
    DeveloperKnowledgeChatEngine,
    DiscoveryEngineAnswerQueryEngine,
    DiscoveryEngineChatEngine,
)

from .conftest import PROJECT

FIRST = "What does the with statement do?"
FOLLOW_UP = "and how does it handle exceptions?"
KNOWLEDGE_FIRST = "What does the yield statement do?"
KNOWLEDGE_FOLLOW_UP = "and how does it differ from return?"
CONDENSED = f"{KNOWLEDGE_FIRST} {KNOWLEDGE_FOLLOW_UP}"


def check_response(response, query):
    assert isinstance(response, AgentChatResponse)
    record = response.metadata["grounded_answer"]
    assert isinstance(record, GroundedAnswer)
    assert response.response == record.answer_text
    assert [n.node.node_id for n in response.source_nodes] == [r.name for r in record.references]
    assert response.metadata["session"] == record.session
    for citation in response.metadata["citations"]:
        assert response.response[citation["start"] : citation["end"]] == citation["text"]
    (source,) = response.sources
    assert source.raw_input == {"query": query}
    assert source.raw_output.response == response.response
    return record


def test_class():
    assert BaseChatEngine in DiscoveryEngineChatEngine.__mro__
    assert BaseChatEngine in DeveloperKnowledgeChatEngine.__mro__


def test_a_two_turn_conversation(emulator):
    engine = DiscoveryEngineChatEngine(
        project_id=PROJECT, engine_id="python-docs-app", emulator_host=emulator.address
    )
    assert (engine.session, engine.chat_history) == (None, [])
    first = check_response(engine.chat(FIRST), FIRST)
    assert first.session.startswith(f"{engine.target.parent_path}/sessions/")
    assert engine.session == first.session
    second = check_response(engine.chat(FOLLOW_UP), FOLLOW_UP)
    assert second.session == first.session
    assert [t.query for t in second.turns] == [FIRST, FOLLOW_UP]
    assert [(m.role, m.content) for m in engine.chat_history] == [
        (MessageRole.USER, FIRST),
        (MessageRole.ASSISTANT, first.answer_text),
        (MessageRole.USER, FOLLOW_UP),
        (MessageRole.ASSISTANT, second.answer_text),
    ]
    sessionless = DiscoveryEngineAnswerQueryEngine(
        project_id=PROJECT, engine_id="python-docs-app", emulator_host=emulator.address
    ).query(FOLLOW_UP)
    assert second.answer_text != sessionless.response
    engine.reset()
    assert (engine.session, engine.chat_history) == (None, [])
    fresh = check_response(engine.chat(FOLLOW_UP), FOLLOW_UP)
    assert fresh.session not in ("", first.session)
    assert fresh.answer_text == sessionless.response


async def test_a_two_turn_conversation_async_and_streamed(emulator):
    engine = DiscoveryEngineChatEngine(
        project_id=PROJECT, data_store_id="python-docs", emulator_host=emulator.address
    )
    first = check_response(await engine.achat(FIRST), FIRST)
    assert first.session.startswith(f"{engine.target.parent_path}/sessions/")
    stream = await engine.astream_chat(FOLLOW_UP)
    assert isinstance(stream, StreamingAgentChatResponse)
    chunks = [chunk async for chunk in stream.async_response_gen()]
    record = stream.sources[0].raw_output.metadata["grounded_answer"]
    assert chunks == [record.answer_text]  # one chunk: answerQuery answers at once
    assert record.session == engine.session == first.session
    assert [t.query for t in record.turns] == [FIRST, FOLLOW_UP]
    assert [n.node.node_id for n in stream.source_nodes] == [r.name for r in record.references]
    synced = engine.stream_chat("What is a context manager?")
    assert list(synced.response_gen) == [synced.response]
    assert len(engine.chat_history) == 6


def test_chat_engine_errors(emulator):
    engine = DiscoveryEngineChatEngine(
        project_id=PROJECT,
        engine_id="python-docs-app",
        emulator_host=emulator.address,
        session="404",  # continue a session that does not exist
    )
    assert engine.session == "404"
    with pytest.raises(NotFoundError, match=r"\(session .*/sessions/404\) failed: NOT_FOUND"):
        engine.chat(FIRST)
    assert engine.chat_history == []
    engine.reset()
    history = [ChatMessage(role=MessageRole.USER, content="hi")]
    with pytest.raises(InputError, match="chat_history cannot be given") as given:
        engine.chat(FIRST, chat_history=history)
    assert given.value.field == "chat_history"
    with pytest.raises(InputError, match="between 1 and 5") as steps:
        DiscoveryEngineChatEngine(engine_id="e", emulator_host="h:1", max_rephrase_steps=0)
    assert (steps.value.field, steps.value.limit) == ("max_rephrase_steps", 5)


def test_developer_knowledge_follow_ups_are_condensed(emulator):
    engine = DeveloperKnowledgeChatEngine(emulator_host=emulator.address)
    first = check_response(engine.chat(KNOWLEDGE_FIRST), KNOWLEDGE_FIRST)
    second = check_response(engine.chat(KNOWLEDGE_FOLLOW_UP), CONDENSED)
    direct = DeveloperKnowledgeAnswerQueryEngine(emulator_host=emulator.address).query(CONDENSED)
    assert second.answer_text == direct.response
    assert "yield" in first.answer_text
    assert "yield" in second.answer_text  # "it" is the earlier turn's subject
    assert len(engine.chat_history) == 4
    engine.reset()
    alone = check_response(engine.chat(KNOWLEDGE_FOLLOW_UP), KNOWLEDGE_FOLLOW_UP)
    assert alone.answer_text != second.answer_text
    given = [ChatMessage(role=MessageRole.USER, content=KNOWLEDGE_FIRST)]
    check_response(engine.chat(KNOWLEDGE_FOLLOW_UP, chat_history=given), CONDENSED)


async def test_developer_knowledge_condenses_with_an_llm(emulator):
    llm = MockLLM()  # echoes its prompt: the condensed "question" is the prompt itself, cut
    engine = DeveloperKnowledgeChatEngine(emulator_host=emulator.address, llm=llm)
    await engine.achat(KNOWLEDGE_FIRST)
    prompts = []
    original = llm.apredict

    async def apredict(prompt, **kwargs):
        prompts.append(prompt.format(**kwargs))
        await original(prompt, **kwargs)
        return " What is the difference between yield and return? "

    object.__setattr__(llm, "apredict", apredict)
    second = await engine.achat(KNOWLEDGE_FOLLOW_UP)
    check_response(second, "What is the difference between yield and return?")
    assert f"user: {KNOWLEDGE_FIRST}\nassistant: " in prompts[0]
    assert f"<Follow Up Message>\n{KNOWLEDGE_FOLLOW_UP}" in prompts[0]
    stream = await engine.astream_chat("and generators?")
    assert [c async for c in stream.async_response_gen()] == [stream.response]
    with pytest.raises(InputError, match="max_questions must be >= 0") as info:
        DeveloperKnowledgeChatEngine(emulator_host=emulator.address, max_questions=-1)
    assert info.value.field == "max_questions"
