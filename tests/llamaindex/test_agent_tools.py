"""The LlamaIndex agent tools against the emulator, through Google's clients: the LLM reads
numbered sources with their URLs, the nodes are the raw output, the agent's arguments are
checked, and an agent's output is checked against the nodes its tools returned."""

import asyncio

import pytest
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.agent.workflow.workflow_events import AgentOutput, ToolCallResult
from llama_index.core.base.llms.types import ChatMessage, CitationBlock, ToolCallBlock
from llama_index.core.llms import MessageRole
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.schema import NodeWithScore
from llama_index.core.tools.types import AsyncBaseTool

from grounding_core import ConfigurationError, InputError
from llamaindex_grounding import (
    DeveloperKnowledgeRetriever,
    DiscoveryEngineAnswerQueryEngine,
    DiscoveryEngineRetriever,
    GroundingEvaluator,
    tool_nodes,
)
from llamaindex_grounding.answer_query_tool import AnswerQueryTool
from llamaindex_grounding.developer_knowledge_search_tool import DeveloperKnowledgeSearchTool
from llamaindex_grounding.discovery_engine_search_tool import DiscoveryEngineSearchTool

from .conftest import PROJECT

QUERY = "lighthouse keeper number 131"
KEEPER = "Section 1 of document 13 talks about the lighthouse keeper number 131."
MADE_UP = "The lighthouse was painted bright purple in 1850."


@pytest.fixture
def retriever(emulator):
    return DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="test-docs",
        similarity_top_k=2,
        emulator_host=emulator.address,
    )


def test_class():
    for tool in (DiscoveryEngineSearchTool, DeveloperKnowledgeSearchTool, AnswerQueryTool):
        assert AsyncBaseTool in tool.__mro__


def test_the_llm_reads_numbered_sources_and_the_nodes_are_the_raw_output(retriever):
    tool = DiscoveryEngineSearchTool(retriever=retriever)
    out = tool.call(query=QUERY)
    nodes = retriever.retrieve(QUERY)
    assert out.is_error is False
    assert out.tool_name == "discovery_engine_search"
    assert out.raw_input == {"query": QUERY}
    assert [n.node.node_id for n in out.raw_output] == [n.node.node_id for n in nodes]
    assert all(isinstance(n, NodeWithScore) for n in out.raw_output)
    assert out.content.startswith("[1] Paging document 13 (https://example.com/paging/13)\n")
    assert "\n\n[2] " in out.content
    assert KEEPER in out.content
    # One argument, the query: no filter or k unless the developer allows them.
    assert set(tool.metadata.get_parameters_dict()["properties"]) == {"query"}
    assert "data store test-docs" in tool.metadata.description


def test_filter_and_k_are_offered_only_when_allowed_and_checked(retriever):
    tool = DiscoveryEngineSearchTool(
        retriever=retriever, filter_fields={"lang": "the language"}, allow_k=True, max_k=3
    )
    schema = tool.metadata.get_parameters_dict()
    assert set(schema["properties"]) == {"query", "filter", "k"}
    assert (schema["properties"]["k"]["minimum"], schema["properties"]["k"]["maximum"]) == (1, 3)
    assert "lang (the language)" in tool.metadata.description
    assert 'ANY("value1", "value2")' in tool.metadata.description
    assert len(tool.call(query=QUERY, k=1).raw_output) == 1
    assert len(tool.call(query=QUERY, k=3).raw_output) == 3
    too_many = tool.call(query=QUERY, k=4)
    assert too_many.is_error is True
    assert "k: Input should be less than or equal to 3" in too_many.content
    assert too_many.raw_output == too_many.content
    bad_filter = tool.call(query=QUERY, filter="bogus ((")
    assert bad_filter.is_error is True
    assert "filter is malformed" in bad_filter.content
    # The shared retriever never changes.
    assert retriever.similarity_top_k == 2


def test_acall_runs_on_the_async_client_and_calls_do_not_mix(retriever):
    tool = DiscoveryEngineSearchTool(retriever=retriever, allow_k=True)

    async def run():
        return await asyncio.gather(
            tool.acall(query=QUERY, k=1), tool.acall(query="lighthouse keeper number 2", k=2)
        )

    first, second = asyncio.run(run())
    assert len(first.raw_output) == 1
    assert len(second.raw_output) == 2
    assert first.raw_output[0].node.metadata["title"] == "Paging document 13"
    assert first.content.startswith("[1] Paging document 13")


def test_configuration_errors_name_the_argument(retriever):
    with pytest.raises(ConfigurationError, match="max_k"):
        DiscoveryEngineSearchTool(retriever=retriever, allow_k=True, max_k=0)
    with pytest.raises(ConfigurationError, match="name"):
        DiscoveryEngineSearchTool(retriever=retriever, name=" ")
    with pytest.raises(ConfigurationError, match="query_engine"):
        AnswerQueryTool(query_engine=retriever)


def test_developer_knowledge_search_tool(emulator):
    dk = DeveloperKnowledgeRetriever(emulator_host=emulator.address, similarity_top_k=2)
    tool = DeveloperKnowledgeSearchTool(retriever=dk)
    out = tool.call(query="with statement")
    assert out.is_error is False
    assert len(out.raw_output) == 2
    assert out.content.startswith("[1] ")
    assert set(tool.metadata.get_parameters_dict()["properties"]) == {"query"}


def test_answer_query_tool_gives_the_cited_answer_and_its_references(emulator):
    engine = DiscoveryEngineAnswerQueryEngine(
        project_id=PROJECT, engine_id="test-app", emulator_host=emulator.address
    )
    tool = AnswerQueryTool(query_engine=engine)
    out = tool.call(query=QUERY)
    response = engine.query(QUERY)
    assert out.is_error is False
    assert [n.node.node_id for n in out.raw_output] == [
        n.node.node_id for n in response.source_nodes
    ]
    assert out.content.startswith(response.response[:20])
    assert "[1]" in out.content
    blocks = response.metadata["citation_blocks"]
    assert blocks
    assert all(isinstance(b, CitationBlock) for b in blocks)
    for block, span in zip(blocks, response.metadata["citation_annotations"], strict=True):
        start, end = span["start_index"], span["end_index"]
        info = block.additional_location_info
        assert (info["start_char_idx"], info["end_char_idx"]) == (start, end)
        assert response.response[start:end]
        assert block.cited_content.text == span["cited_text"]


def test_an_agent_output_is_checked_against_its_tools_nodes(emulator, retriever):
    tool = DiscoveryEngineSearchTool(retriever=retriever)
    out = tool.call(query=QUERY)
    call = ToolCallResult(
        tool_name=tool.metadata.name,
        tool_kwargs={"query": QUERY},
        tool_id="t1",
        tool_output=out,
        return_direct=False,
    )
    output = AgentOutput(
        response=ChatMessage(role="assistant", content=f"{KEEPER} {MADE_UP}"),
        current_agent_name="agent",
    )
    # The workflow's ToolCallResult events hold the nodes; the final AgentOutput holds none.
    nodes = tool_nodes([call])
    assert [n.node.node_id for n in nodes] == [n.node.node_id for n in out.raw_output]
    evaluator = GroundingEvaluator(project_id=PROJECT, emulator_host=emulator.address)
    empty = evaluator.evaluate_response(response=output)
    assert empty.grounding["source_ids"] == []
    assert empty.passing is False
    result = evaluator.evaluate_response(response=output, nodes=nodes)
    assert result.grounding["source_ids"] == [n.node.node_id for n in out.raw_output]
    assert [c["status"] for c in result.grounding["claims"]] == ["supported", "unsupported"]
    assert result.passing is False
    (span,) = result.grounding["citation_annotations"]
    assert (span["start_index"], span["end_index"], span["claim_index"]) == (0, len(KEEPER), 0)
    assert span["url"] == "https://example.com/paging/13"
    asynced = asyncio.run(evaluator.aevaluate_response(response=output, nodes=nodes))
    assert asynced.grounding == result.grounding


def scripted_llm(final_answer):
    """A tool-calling LLM (LlamaIndex's ``MockFunctionCallingLLM``) that searches once, then
    gives ``final_answer``."""

    def respond(messages, **kwargs):
        if not any(m.role == MessageRole.TOOL for m in messages):
            call = ToolCallBlock(
                tool_call_id="call-1",
                tool_name="discovery_engine_search",
                tool_kwargs={"query": QUERY},
            )
            return ChatMessage(role="assistant", blocks=[call])
        return ChatMessage(role="assistant", content=final_answer)

    return MockFunctionCallingLLM(response_generator=respond)


async def test_a_function_agent_searches_and_its_answer_is_checked(emulator, retriever):
    tool = DiscoveryEngineSearchTool(retriever=retriever)
    agent = FunctionAgent(tools=[tool], llm=scripted_llm(f"{KEEPER} {MADE_UP}"))
    handler = agent.run(user_msg="Who is keeper 131?")
    results = [
        event async for event in handler.stream_events() if isinstance(event, ToolCallResult)
    ]
    output = await handler
    assert [r.tool_name for r in results] == ["discovery_engine_search"]
    assert results[0].tool_output.content.startswith("[1] Paging document 13")
    evaluator = GroundingEvaluator(project_id=PROJECT, emulator_host=emulator.address)
    result = await evaluator.aevaluate_response(response=output, nodes=tool_nodes(results))
    assert [c["status"] for c in result.grounding["claims"]] == ["supported", "unsupported"]
    assert result.grounding["claims"][1]["text"] == MADE_UP
    assert result.grounding["citation_annotations"][0]["url"] == "https://example.com/paging/13"


@pytest.mark.parametrize(
    ("nodes", "message"),
    [
        ("not nodes", "nodes must be a list of NodeWithScore, got str"),
        ([None], r"nodes\[0\] must be a NodeWithScore, got NoneType"),
    ],
)
def test_the_nodes_given_are_checked(emulator, nodes, message):
    output = AgentOutput(
        response=ChatMessage(role="assistant", content=KEEPER), current_agent_name="agent"
    )
    evaluator = GroundingEvaluator(project_id=PROJECT, emulator_host=emulator.address)
    with pytest.raises(InputError, match=message) as info:
        evaluator.evaluate_response(response=output, nodes=nodes)
    assert info.value.field == "nodes"


async def test_a_runs_final_output_carries_its_tool_results_and_is_checked_alone(
    emulator, retriever
):
    tool = DiscoveryEngineSearchTool(retriever=retriever)
    agent = FunctionAgent(tools=[tool], llm=scripted_llm(f"{KEEPER} {MADE_UP}"))
    output = await agent.run(user_msg="Who is keeper 131?")
    [result] = [c for c in output.tool_calls if isinstance(c, ToolCallResult)]
    evaluator = GroundingEvaluator(project_id=PROJECT, emulator_host=emulator.address)
    evaluated = await evaluator.aevaluate_response(response=output)
    assert evaluated.grounding["source_ids"] == [
        n.node.node_id for n in result.tool_output.raw_output
    ]
    assert [c["status"] for c in evaluated.grounding["claims"]] == ["supported", "unsupported"]
