"""GroundedAgentWorkflow (issue #18): a ``FunctionAgent`` with a scripted tool-calling LLM
searches the emulator through ``DiscoveryEngineSearchTool``; its final response is checked,
cited and revised through Google's clients."""

from __future__ import annotations

import asyncio

import pytest
from llama_index.core.agent.workflow import AgentOutput, AgentStream, FunctionAgent, ToolCallResult
from llama_index.core.base.llms.types import ChatMessage, CitationBlock, ToolCallBlock
from llama_index.core.llms import MessageRole
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.schema import NodeWithScore, TextNode
from llama_index.core.workflow import Event, Workflow

from grounding_core import (
    DEFAULT_FALLBACK_ANSWER,
    ConfigurationError,
    InputError,
    UngroundedAnswerError,
)
from grounding_core.agents import REVISION_KEY
from llamaindex_grounding import (
    AgentGroundingEvent,
    DiscoveryEngineRetriever,
    DiscoveryEngineSearchTool,
    GroundedAgentOutput,
    GroundedAgentWorkflow,
)

from .conftest import PROJECT

QUERY = "lighthouse keeper number 131"
KEEPER = "Section 1 of document 13 talks about the lighthouse keeper number 131."
MADE_UP = "The lighthouse was painted bright purple in 1850."
URL = "https://example.com/paging/13"


@pytest.fixture
def tool(emulator):
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="test-docs",
        similarity_top_k=2,
        emulator_host=emulator.address,
    )
    return DiscoveryEngineSearchTool(retriever=retriever)


class Script:
    """A tool-calling LLM's script: search once, then give the answers in turn (one per user
    message: the question, then each revision request); it records what it was sent."""

    def __init__(self, *answers, search=True, query=QUERY):
        self.answers = list(answers)
        self.search = search
        self.query = query
        self.requests: list[ChatMessage] = []

    def __call__(self, messages, **kwargs):
        last_user = [m for m in messages if m.role == MessageRole.USER][-1]
        if REVISION_KEY in last_user.additional_kwargs:
            self.requests.append(last_user)
        searched = any(m.role == MessageRole.TOOL for m in messages)
        if self.search and not searched:
            call = ToolCallBlock(
                tool_call_id="call-1",
                tool_name="discovery_engine_search",
                tool_kwargs={"query": self.query},
            )
            return ChatMessage(role="assistant", blocks=[call])
        return ChatMessage(role="assistant", content=self.answers.pop(0))


def grounded(emulator, tool, script, **kwargs):
    llm = MockFunctionCallingLLM(response_generator=script)
    agent = FunctionAgent(tools=[tool], llm=llm, streaming=False)
    return GroundedAgentWorkflow(
        agent, project_id=PROJECT, emulator_host=emulator.address, **kwargs
    )


async def run(workflow, **kwargs):
    handler = workflow.run(user_msg="Who is keeper 131?", **kwargs)
    events = [event async for event in handler.stream_events()]
    return await handler, events


def assert_cited_keeper(output, start=0):
    blocks = [b for b in output.response.blocks if isinstance(b, CitationBlock)]
    [block] = blocks
    info = block.additional_location_info
    assert output.response.content[info["start_char_idx"] : info["end_char_idx"]] == KEEPER
    assert (info["start_char_idx"], block.source, info["claim_index"]) == (start, URL, 0)
    assert KEEPER in block.cited_content.text


def test_class():
    assert Workflow in GroundedAgentWorkflow.__mro__
    assert AgentOutput in GroundedAgentOutput.__mro__
    assert Event in AgentGroundingEvent.__mro__


async def test_annotate_cites_the_response_and_flags_the_made_up_claim(emulator, tool):
    workflow = grounded(emulator, tool, Script(f"{KEEPER} {MADE_UP}"))
    output, events = await run(workflow)
    assert isinstance(output, GroundedAgentOutput)
    assert output.response.content == f"{KEEPER} {MADE_UP}"
    assert_cited_keeper(output)
    assert output.response.additional_kwargs["grounding"] == output.grounding
    assert [(c["text"], c["status"]) for c in output.grounding["claims"]] == [
        (KEEPER, "supported"),
        (MADE_UP, "unsupported"),
    ]
    results = [e for e in events if isinstance(e, ToolCallResult)]
    assert [n.node.node_id for n in output.nodes] == [
        n.node.node_id for n in results[0].tool_output.raw_output
    ]
    assert output.grounding["source_ids"] == [n.node.node_id for n in output.nodes]
    assert output.grounding_report.claims[0].sources[0] is output.nodes[0]
    assert (output.revisions, output.original_answer) == (0, None)
    [verdict] = [e for e in events if isinstance(e, AgentGroundingEvent)]
    assert (verdict.action, verdict.revisions) == ("keep", 0)
    assert verdict.grounding == output.grounding
    assert str(output) == output.response.content
    assert output.current_agent_name == "Agent"


async def test_revise_converges_when_the_second_answer_drops_the_made_up_claim(emulator, tool):
    script = Script(f"{KEEPER} {MADE_UP}", KEEPER)
    output, events = await run(grounded(emulator, tool, script, on_ungrounded="revise"))
    assert output.response.content == KEEPER
    assert_cited_keeper(output)
    assert output.grounding["passed"] is True
    assert output.revisions == 1
    [request] = script.requests
    assert request.additional_kwargs == {REVISION_KEY: 1}
    assert request.content.splitlines()[:2] == [
        "The sources do not support these claims of your answer:",
        f"- {MADE_UP}",
    ]
    verdicts = [(e.action, e.revisions) for e in events if isinstance(e, AgentGroundingEvent)]
    assert verdicts == [("revise", 0), ("keep", 1)]


async def test_revise_stops_after_max_revisions_and_falls_back(emulator, tool):
    made_up = f"{KEEPER} {MADE_UP}"
    # Exactly three answers: a fourth LLM call would find the script empty and fail the run.
    script = Script(made_up, made_up, made_up)
    workflow = grounded(emulator, tool, script, on_ungrounded="revise", max_revisions=2)
    output, events = await run(workflow)
    assert [r.additional_kwargs[REVISION_KEY] for r in script.requests] == [1, 2]
    assert output.response.content == DEFAULT_FALLBACK_ANSWER
    assert not [b for b in output.response.blocks if isinstance(b, CitationBlock)]
    assert output.response.additional_kwargs["grounding"]["passed"] is False
    assert (output.original_answer, output.revisions) == (made_up, 2)
    verdicts = [e.action for e in events if isinstance(e, AgentGroundingEvent)]
    assert verdicts == ["revise", "revise", "fallback"]


async def test_fallback_and_raise(emulator, tool):
    workflow = grounded(
        emulator, tool, Script(MADE_UP), on_ungrounded="fallback", fallback_answer="Unsure."
    )
    output, _ = await run(workflow)
    assert (output.response.content, output.original_answer) == ("Unsure.", MADE_UP)
    workflow = grounded(emulator, tool, Script(MADE_UP), on_ungrounded="raise")
    with pytest.raises(UngroundedAnswerError) as caught:
        await run(workflow)
    assert caught.value.result.claims[0].text == MADE_UP


async def test_the_nodes_given_are_sources_too(emulator, tool):
    given = NodeWithScore(node=TextNode(id_="given", text=MADE_UP, metadata={"title": "Given"}))
    workflow = grounded(emulator, tool, Script(MADE_UP, search=False))
    output, _ = await run(workflow, nodes=[given])
    assert output.grounding["passed"] is True
    assert output.grounding["source_ids"] == ["given"]


async def test_the_agents_own_events_stream_through(emulator, tool):
    llm = MockFunctionCallingLLM(response_generator=Script(KEEPER))
    agent = FunctionAgent(tools=[tool], llm=llm)  # streaming: AgentStream events
    workflow = GroundedAgentWorkflow(agent, project_id=PROJECT, emulator_host=emulator.address)
    output, events = await run(workflow)
    kinds = [type(e).__name__ for e in events]
    assert "AgentStream" in kinds
    assert kinds.index("ToolCallResult") < kinds.index("AgentGroundingEvent")
    assert kinds[-1] == "AgentGroundingEvent" or kinds[-1] == "StopEvent"
    streamed = "".join(e.delta for e in events if isinstance(e, AgentStream))
    assert KEEPER in streamed
    assert output.grounding["passed"] is True


async def test_runs_in_parallel_do_not_mix_their_sources(emulator, tool):
    keeper = grounded(emulator, tool, Script(KEEPER))
    other = grounded(emulator, tool, Script(MADE_UP, query="lighthouse keeper number 7"))
    (first, _), (second, _) = await asyncio.gather(run(keeper), run(other))
    assert first.grounding["source_ids"] == [n.node.node_id for n in first.nodes]
    assert second.grounding["source_ids"] == [n.node.node_id for n in second.nodes]
    assert first.grounding["source_ids"] != second.grounding["source_ids"]
    assert first.grounding["passed"] is True


def test_bad_settings_are_refused_with_the_argument_named(emulator, tool):
    agent = FunctionAgent(tools=[tool], llm=MockFunctionCallingLLM())
    address = {"project_id": PROJECT, "emulator_host": emulator.address}
    with pytest.raises(ConfigurationError, match="agent must be a LlamaIndex agent workflow"):
        GroundedAgentWorkflow(tool, **address)
    with pytest.raises(ConfigurationError, match="on_ungrounded must be one of"):
        GroundedAgentWorkflow(agent, on_ungrounded="retry", **address)
    with pytest.raises(ConfigurationError, match="max_revisions must be an int from 0 to 10"):
        GroundedAgentWorkflow(agent, max_revisions=11, **address)
    with pytest.raises(TypeError, match="max_revision"):
        GroundedAgentWorkflow(agent, max_revision=1, **address)
    assert "on_ungrounded='annotate'" in repr(GroundedAgentWorkflow(agent, **address))


@pytest.mark.parametrize(
    ("nodes", "message"),
    [
        ("not nodes", "nodes must be a list of NodeWithScore, got str"),
        ([None], r"nodes\[0\] must be a NodeWithScore, got NoneType"),
    ],
)
async def test_bad_nodes_are_refused_before_the_agent_runs(emulator, tool, nodes, message):
    script = Script(KEEPER)
    with pytest.raises(InputError, match=message) as info:
        await run(grounded(emulator, tool, script), nodes=nodes)
    assert info.value.field == "nodes"
    assert script.answers == [KEEPER]  # the agent never ran
