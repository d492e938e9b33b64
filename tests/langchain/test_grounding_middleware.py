"""GroundingMiddleware (issue #18): ``create_agent`` agents with scripted tool-calling models,
searching the emulator through ``DiscoveryEngineSearchTool``, their final answers checked, cited
and revised through Google's clients."""

from __future__ import annotations

import asyncio

import pytest
from langchain.agents import create_agent
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableLambda
from pydantic import Field

from grounding_core import (
    DEFAULT_FALLBACK_ANSWER,
    CitationSpan,
    ConfigurationError,
    InputError,
    UngroundedAnswerError,
)
from grounding_core.agents import REVISION_KEY
from langchain_grounding import (
    AsyncGroundingCallbackHandler,
    DiscoveryEngineRetriever,
    DiscoveryEngineSearchTool,
    ExtractiveChatModel,
    GroundingCallbackHandler,
    GroundingChecker,
    GroundingMiddleware,
    with_grounding,
)
from langchain_grounding.agent_messages import (
    current_turn,
    final_answer,
    revision_message,
    turn_documents,
    turn_revisions,
)
from langchain_grounding.citations import cited_message, uncited_message
from langchain_grounding.grounding_middleware import GroundingState

from .test_search_tool import KEEPER, MADE_UP, QUERY, ToolCallingFake

PROJECT = "test-project"
URL = "https://example.com/paging/13"
QUESTION = "Who is keeper 131?"


@pytest.fixture
def tool(emulator):
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT, data_store_id="test-docs", k=2, emulator_host=emulator.address
    )
    return DiscoveryEngineSearchTool(retriever=retriever)


def middleware(emulator, **kwargs):
    return GroundingMiddleware(project_id=PROJECT, emulator_host=emulator.address, **kwargs)


def search_call(query=QUERY, call_id="c1"):
    return AIMessage(
        "",
        tool_calls=[{"name": "discovery_engine_search", "args": {"query": query}, "id": call_id}],
    )


def agent_of(tool, grounding, *answers, search=True):
    script = [search_call()] if search else []
    model = ToolCallingFake(messages=iter([*script, *map(AIMessage, answers)]))
    return create_agent(model, tools=[tool], middleware=[grounding])


def ask(question=QUESTION, **state):
    return {"messages": [("user", question)], **state}


def assert_cited_keeper(message, start=0):
    [block] = message.content_blocks
    [annotation] = block["annotations"]
    assert block["text"][annotation["start_index"] : annotation["end_index"]] == KEEPER
    assert (annotation["start_index"], annotation["url"]) == (start, URL)
    assert annotation["cited_text"].startswith("Paging document 13")
    assert annotation["extras"]["claim_index"] == 0


def test_annotate_cites_the_final_answer_and_flags_the_made_up_claim(emulator, tool):
    answer = f"{KEEPER} {MADE_UP}"
    state = agent_of(tool, middleware(emulator), answer).invoke(ask())
    final = state["messages"][-1]
    assert final.text == answer
    assert not final.tool_calls
    assert_cited_keeper(final)
    grounding = state["grounding"]
    assert grounding == final.response_metadata["grounding"]
    assert [(c["text"], c["status"]) for c in grounding["claims"]] == [
        (KEEPER, "supported"),
        (MADE_UP, "unsupported"),
    ]
    assert grounding["passed"] is False
    assert grounding["source_ids"] == [d.id for d in state["messages"][-2].artifact]
    assert state["grounding_revisions"] == 0
    assert "original_answer" not in state
    # One message per step: the model's answer was replaced by its cited copy, not added to.
    assert [type(m).__name__ for m in state["messages"]] == [
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "AIMessage",
    ]


def test_revise_converges_when_the_second_answer_drops_the_made_up_claim(emulator, tool):
    grounding = middleware(emulator, on_ungrounded="revise")
    agent = agent_of(tool, grounding, f"{KEEPER} {MADE_UP}", KEEPER)
    state = agent.invoke(ask())
    first, request, final = state["messages"][-3:]
    assert first.response_metadata["grounding"]["passed"] is False
    assert isinstance(request, HumanMessage)
    assert request.additional_kwargs == {REVISION_KEY: 1}
    assert request.text.splitlines()[:2] == [
        "The sources do not support these claims of your answer:",
        f"- {MADE_UP}",
    ]
    assert final.text == KEEPER
    assert_cited_keeper(final)
    assert state["grounding"]["passed"] is True
    assert state["grounding_revisions"] == 1


def test_revise_stops_after_max_revisions_and_falls_back(emulator, tool):
    grounding = middleware(emulator, on_ungrounded="revise", max_revisions=2)
    made_up = f"{KEEPER} {MADE_UP}"
    # Exactly three answers: a fourth model call would exhaust the script and fail the run.
    state = agent_of(tool, grounding, made_up, made_up, made_up).invoke(ask())
    requests = [m for m in state["messages"] if REVISION_KEY in m.additional_kwargs]
    assert [m.additional_kwargs[REVISION_KEY] for m in requests] == [1, 2]
    final = state["messages"][-1]
    assert final.content == DEFAULT_FALLBACK_ANSWER
    assert final.response_metadata["grounding"]["passed"] is False
    assert state["original_answer"] == made_up
    assert state["grounding_revisions"] == 2


def test_fallback_replaces_the_answer_with_the_checkers_fallback(emulator, tool):
    grounding = middleware(emulator, on_ungrounded="fallback", fallback_answer="I can't say.")
    state = agent_of(tool, grounding, MADE_UP).invoke(ask())
    assert state["messages"][-1].content == "I can't say."
    assert state["original_answer"] == MADE_UP
    # A passing answer is kept.
    state = agent_of(tool, grounding, KEEPER).invoke(ask())
    assert state["messages"][-1].text == KEEPER
    assert "original_answer" not in state


def test_raise_raises_with_the_report(emulator, tool):
    with pytest.raises(UngroundedAnswerError) as caught:
        agent_of(tool, middleware(emulator, on_ungrounded="raise"), MADE_UP).invoke(ask())
    assert caught.value.result.claims[0].text == MADE_UP
    assert caught.value.result.passed is False


def test_state_documents_are_sources_too(emulator, tool):
    document = Document(id="given", page_content=MADE_UP, metadata={"title": "Given"})
    grounding = middleware(emulator)
    state = agent_of(tool, grounding, MADE_UP, search=False).invoke(ask(documents=[document]))
    assert state["grounding"]["passed"] is True
    assert state["grounding"]["source_ids"] == ["given"]
    [annotation] = state["messages"][-1].content_blocks[0]["annotations"]
    assert (annotation["title"], annotation["extras"]["source_id"]) == ("Given", "given")


def test_an_answer_without_any_source_is_checked_and_unsupported(emulator, tool):
    state = agent_of(tool, middleware(emulator), MADE_UP, search=False).invoke(ask())
    assert state["grounding"]["source_ids"] == []
    assert [c["status"] for c in state["grounding"]["claims"]] == ["unsupported"]
    assert "annotations" not in state["messages"][-1].content_blocks[0]


def test_an_empty_final_answer_is_not_sent_and_kept(emulator, tool):
    grounding = middleware(emulator, on_ungrounded="revise")
    state = agent_of(tool, grounding, "").invoke(ask())
    assert state["grounding"]["skipped_reason"] is not None
    assert state["messages"][-1].text == ""
    assert state["grounding_revisions"] == 0


async def test_async_revise_on_the_async_client(emulator, tool):
    grounding = middleware(emulator, on_ungrounded="revise")
    agent = agent_of(tool, grounding, f"{KEEPER} {MADE_UP}", KEEPER)
    state = await agent.ainvoke(ask())
    assert state["messages"][-1].text == KEEPER
    assert_cited_keeper(state["messages"][-1])
    assert (state["grounding"]["passed"], state["grounding_revisions"]) == (True, 1)


async def test_agents_in_parallel_do_not_mix_their_sources(emulator, tool):
    grounding = middleware(emulator)  # one middleware, one tool, two agents
    other_query, other_answer = "lighthouse keeper number 7", MADE_UP
    keeper = agent_of(tool, grounding, KEEPER)
    other_model = ToolCallingFake(
        messages=iter([search_call(other_query, "c2"), AIMessage(other_answer)])
    )
    other = create_agent(other_model, tools=[tool], middleware=[grounding])
    states = await asyncio.gather(keeper.ainvoke(ask()), other.ainvoke(ask("Keeper 7?")))
    for state in states:
        tool_message = state["messages"][-2]
        assert isinstance(tool_message, ToolMessage)
        assert state["grounding"]["source_ids"] == [d.id for d in tool_message.artifact]
    assert states[0]["grounding"]["source_ids"] != states[1]["grounding"]["source_ids"]
    assert states[0]["grounding"]["passed"] is True


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_streaming_agent_streams_its_tokens_and_ends_cited(emulator, tool, mode):
    grounding = middleware(emulator, on_ungrounded="revise")
    agent = agent_of(tool, grounding, f"{KEEPER} {MADE_UP}", KEEPER)
    modes = ["messages", "values"]
    if mode == "sync":
        parts = list(agent.stream(ask(), stream_mode=modes))
    else:
        parts = [part async for part in agent.astream(ask(), stream_mode=modes)]
    tokens = [
        part[1][0]
        for part in parts
        if part[0] == "messages" and part[1][0].type == "AIMessageChunk"
    ]
    model_text = "".join(chunk.text for chunk in tokens)
    assert model_text == f"{KEEPER} {MADE_UP}{KEEPER}"  # both answers streamed, token by token
    assert len(tokens) > 2
    state = [value for kind, value in parts if kind == "values"][-1]
    assert state["messages"][-1].text == KEEPER
    assert_cited_keeper(state["messages"][-1])
    assert state["grounding_revisions"] == 1


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"on_ungrounded": "retry"}, ConfigurationError, ["on_ungrounded must be one of"]),
        ({"max_revisions": 11}, ConfigurationError, ["max_revisions must be an int from 0 to 10"]),
        ({"max_revisions": True}, ConfigurationError, ["max_revisions", "got bool"]),
        ({"max_revisions": 11}, ConfigurationError, ["got 11"]),
        ({"on_ungrounded": 3}, ConfigurationError, ["got int"]),
        ({"min_suport_score": 0.5}, TypeError, ["GroundingMiddleware", "min_suport_score"]),
    ],
)
def test_bad_settings_are_refused_with_the_argument_named(emulator, kwargs, error, words):
    with pytest.raises(error) as caught:
        middleware(emulator, **kwargs)
    for word in words:
        assert word in str(caught.value)


def test_a_checker_and_its_fields_are_not_both_given(emulator):
    checker = GroundingChecker(project_id=PROJECT, emulator_host=emulator.address)
    assert GroundingMiddleware(checker).checker is checker
    with pytest.raises(TypeError, match="either checker= or the checker's fields"):
        GroundingMiddleware(checker, min_support_score=0.5)


def test_state_documents_of_the_wrong_type_are_refused(emulator, tool):
    agent = agent_of(tool, middleware(emulator), KEEPER, search=False)
    with pytest.raises(InputError, match="must be a list of Documents, got str") as info:
        agent.invoke(ask(documents="not documents"))
    assert info.value.field == "documents"


def test_the_turn_starts_after_the_users_last_message():
    old = ToolMessage("old", tool_call_id="a", artifact=[Document(page_content="old", id="o")])
    new = ToolMessage("new", tool_call_id="b", artifact=[Document(page_content="new", id="n")])
    again = ToolMessage("new", tool_call_id="c", artifact=(Document(page_content="new", id="n"),))
    odd = ToolMessage("odd", tool_call_id="d", artifact={"not": "documents"})
    messages = [
        HumanMessage("first"),
        old,
        AIMessage("answer"),
        HumanMessage("second"),
        new,
        AIMessage("draft"),
        revision_message("revise", 1),
        again,
        odd,
        AIMessage("final"),
    ]
    turn = current_turn(messages)
    assert turn == messages[4:]
    assert [d.id for d in turn_documents(turn)] == ["n"]
    assert turn_revisions(turn) == 1
    assert final_answer(messages) is messages[-1]
    assert final_answer([*messages, search_call()]) is None
    assert final_answer([]) is None
    assert current_turn([AIMessage("no user")]) == [AIMessage("no user")]


def test_the_callback_handler_checks_an_agent_run(emulator, tool):
    handler = GroundingCallbackHandler(project_id=PROJECT, emulator_host=emulator.address)
    model = ToolCallingFake(messages=iter([search_call(), AIMessage(f"{KEEPER} {MADE_UP}")]))
    agent = create_agent(model, tools=[tool])
    state = agent.invoke(ask(), config={"callbacks": [handler]})
    report = handler.latest
    assert report is not None
    assert len(handler.reports) == 1
    assert [(c.text, c.status) for c in report.claims] == [
        (KEEPER, "supported"),
        (MADE_UP, "unsupported"),
    ]
    assert report.sources == tuple(state["messages"][-2].artifact)


async def test_the_async_callback_handler_checks_an_agent_run_with_state_documents(emulator, tool):
    handler = AsyncGroundingCallbackHandler(project_id=PROJECT, emulator_host=emulator.address)
    given = Document(id="given", page_content=MADE_UP)
    model = ToolCallingFake(messages=iter([search_call(), AIMessage(f"{KEEPER} {MADE_UP}")]))
    agent = create_agent(model, tools=[tool], state_schema=GroundingState)
    state = await agent.ainvoke(ask(documents=[given]), config={"callbacks": [handler]})
    report = handler.latest
    assert [c.status for c in report.claims] == ["supported", "supported"]
    assert report.sources == (*state["messages"][-2].artifact, given)


def test_the_callback_handler_skips_an_agent_that_did_not_answer(emulator, tool):
    handler = GroundingCallbackHandler(project_id=PROJECT, emulator_host=emulator.address)
    state = {"messages": [HumanMessage("q"), search_call()]}
    agent = RunnableLambda(lambda _: state)
    agent.invoke({}, config={"callbacks": [handler]})
    assert handler.reports == {}


class RecordingFake(ToolCallingFake):
    """A scripted model that keeps what it was sent."""

    seen: list = Field(default_factory=list)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def test_the_model_is_sent_its_answers_without_our_citations(emulator, tool):
    model = RecordingFake(
        messages=iter([search_call(), AIMessage(f"{KEEPER} {MADE_UP}"), AIMessage(KEEPER)])
    )
    grounding = middleware(emulator, on_ungrounded="revise")
    state = create_agent(model, tools=[tool], middleware=[grounding]).invoke(ask())
    first_answer = state["messages"][-3]
    assert first_answer.content_blocks[0]["annotations"]  # the state keeps them
    revision_call = model.seen[-1]
    sent = revision_call[-2]
    assert sent.id == first_answer.id
    assert sent.content == f"{KEEPER} {MADE_UP}"  # as the model wrote it
    assert REVISION_KEY in revision_call[-1].additional_kwargs


def test_uncited_keeps_a_providers_citations_and_other_blocks():
    provider = {"type": "citation", "url": "https://web"}
    reasoning = {"type": "reasoning", "reasoning": "r"}
    span = CitationSpan(0, 2, "c", 0, "s0", "", "", 0)
    message = AIMessage([reasoning, {"type": "text", "text": "abc", "annotations": [provider]}])
    cited = cited_message(message, [span], {"passed": True})
    assert uncited_message(cited).content == message.content
    plain = AIMessage("abc")
    assert uncited_message(cited_message(plain, [span], {})).content == "abc"
    assert uncited_message(plain) is plain
    assert uncited_message(message) is message


def test_a_checker_of_the_wrong_type_is_refused_by_name():
    for build, name in (
        (lambda: GroundingMiddleware("not a checker"), "GroundingMiddleware"),
        (lambda: GroundingCallbackHandler(checker={"project_id": "p"}), "GroundingCallbackHandler"),
        (lambda: with_grounding(RunnableLambda(lambda x: x), checker=3), "with_grounding"),
    ):
        with pytest.raises(
            ConfigurationError, match=f"^{name}: checker must be a GroundingChecker"
        ):
            build()


def test_a_state_document_of_the_wrong_type_is_refused_by_position(emulator, tool):
    agent = agent_of(tool, middleware(emulator), KEEPER, search=False)
    documents = [Document(page_content=KEEPER), "plain text"]
    with pytest.raises(InputError, match=r"documents\[1\] must be a Document") as info:
        agent.invoke(ask(documents=documents))
    assert info.value.field == "documents"


async def test_claims_checked_while_the_agent_streams(emulator):
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT, data_store_id="python-docs", k=3, emulator_host=emulator.address
    )
    made_up = "The with statement was added in Python 1.0."
    model = ExtractiveChatModel(invent=made_up, token_delay=0.01)
    grounding = middleware(emulator, check_while_streaming=True, claim_min_chars=10)
    agent = create_agent(
        model, tools=[DiscoveryEngineSearchTool(retriever=retriever)], middleware=[grounding]
    )
    question = "How does the with statement work?"
    tokens, verdicts, final = 0, [], None
    async for event in agent.astream_events({"messages": [("user", question)]}, version="v2"):
        if event["event"] == "on_chat_model_stream":
            tokens += 1
        elif event["event"] == "on_custom_event" and event["name"] == "grounding_claim":
            verdicts.append((tokens, event["data"]))
        elif event["event"] == "on_chain_end" and event["name"] == "LangGraph":
            final = event["data"]["output"]
    assert [v["status"] for _, v in verdicts] == ["supported", "supported", "unsupported"]
    assert verdicts[0][0] < tokens  # the first sentence was checked while the answer streamed
    answer = final["messages"][-1].text
    for _, verdict in verdicts:
        assert answer[verdict["start"] : verdict["end"]] == verdict["text"]
    assert verdicts[-1][1]["text"] == made_up
    assert final["grounding"]["unsupported_claims"] == 1  # the final check ran as usual
    # off by default, and the sync stream checks at the end only
    quiet = create_agent(
        model,
        tools=[DiscoveryEngineSearchTool(retriever=retriever)],
        middleware=[middleware(emulator)],
    )
    events = [
        e async for e in quiet.astream_events({"messages": [("user", question)]}, version="v2")
    ]
    assert not [
        e for e in events if e["event"] == "on_custom_event" and e["name"] == "grounding_claim"
    ]
