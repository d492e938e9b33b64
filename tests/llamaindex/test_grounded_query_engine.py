"""GroundedQueryEngine around real LlamaIndex RetrieverQueryEngines, against the emulator."""

import json
import re

import pytest
from google.cloud import discoveryengine_v1 as de
from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.response.schema import (
    AsyncStreamingResponse,
    PydanticResponse,
    Response,
    StreamingResponse,
)
from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import CustomQueryEngine, RetrieverQueryEngine
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from pydantic import BaseModel

from grounding_core import (
    ConfigurationError,
    GroundingReport,
    InputError,
    ServiceUnavailableError,
    UngroundedAnswerError,
)
from llamaindex_grounding import (
    DiscoveryEngineRetriever,
    GroundedQueryEngine,
    GroundingCheckEndEvent,
)

from .conftest import PROJECT, UNSUPPORTED, ContextEchoLLM, span_names

QUESTION = "lighthouse keeper number 131"
KEEPER = "Section 1 of document 13 talks about the lighthouse keeper number 131."

UNGROUNDED = r"support score 0\.50 is below the required 1\.00; 1 claim\(s\) unsupported"


@pytest.fixture
def retriever(emulator):
    return DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="test-docs",
        emulator_host=emulator.address,
        similarity_top_k=2,
    )


def grounded(emulator, retriever, llm=None, streaming=False, **kwargs):
    """RetrieverQueryEngine(retriever, llm) wrapped in a GroundedQueryEngine."""
    inner = RetrieverQueryEngine.from_args(retriever, llm=llm or MockLLM(), streaming=streaming)
    return GroundedQueryEngine(inner, project_id=PROJECT, emulator_host=emulator.address, **kwargs)


def assert_spans_slice(answer, grounding):
    encoded = answer.encode()
    assert grounding["claims"]
    for claim in grounding["claims"]:
        assert answer[claim["start"] : claim["end"]] == claim["text"]
        assert encoded[claim["byte_start"] : claim["byte_end"]].decode() == claim["text"]


def claim_containing(grounding, text):
    (claim,) = [c for c in grounding["claims"] if text in c["text"]]
    return claim


def assert_mock_llm_grounding(response):
    """The MockLLM echoes its prompt: the chunk sentences are supported by their own node,
    the prompt's instructions by none."""
    answer = response.response if isinstance(response, Response) else response.response_txt
    assert answer.startswith("Context information is below.")
    grounding = response.metadata["grounding"]
    report = response.metadata["grounding_report"]
    ids = [n.node.node_id for n in response.source_nodes]
    assert grounding["source_ids"] == ids
    assert ids[0].endswith("/documents/page-13/chunks/c1")
    # the keys of the shared schema only (docs/metadata.md: renamed in this release)
    assert "source_node_ids" not in grounding
    assert all("node_ids" not in claim for claim in grounding["claims"])
    # what the synthesizer put in the metadata (node id -> node metadata) is kept
    for node in response.source_nodes:
        assert response.metadata[node.node.node_id] == node.node.metadata
    assert_spans_slice(answer, grounding)
    keeper = claim_containing(grounding, KEEPER)
    assert keeper["status"] == "supported"
    assert keeper["source_ids"] == [ids[0]]
    assert keeper["source_indices"] == [0]
    instruction = claim_containing(grounding, "Given the context information")
    assert instruction["status"] != "supported"  # unsupported (or, for a checker, not a claim)
    assert instruction["source_ids"] == []
    assert 0.0 < grounding["support_score"] < 1.0
    assert grounding["support_score"] == report.support_score
    assert grounding["passed"] is report.passed
    assert grounding["error"] is None
    # the report resolves citations to the very source nodes of the response
    assert isinstance(report, GroundingReport)
    (keeper_report,) = [c for c in report.claims if KEEPER in c.text]
    assert keeper_report.sources[0] is response.source_nodes[0]
    json.dumps(grounding)  # JSON-safe
    return grounding


def test_class():
    assert BaseQueryEngine in GroundedQueryEngine.__mro__
    assert CustomQueryEngine not in GroundedQueryEngine.__mro__


def test_query_with_mock_llm(emulator, retriever):
    response = grounded(emulator, retriever).query(QUESTION)
    assert isinstance(response, Response)
    assert_mock_llm_grounding(response)


async def test_aquery_with_mock_llm_equals_sync(emulator, retriever):
    engine = grounded(emulator, retriever)
    asynchronous = await engine.aquery(QUESTION)
    assert isinstance(asynchronous, Response)
    grounding = assert_mock_llm_grounding(asynchronous)
    assert grounding == engine.query(QUESTION).metadata["grounding"]


async def test_aquery_checks_on_the_async_client(emulator, retriever, monkeypatch):
    def no_sync_check(*args, **kwargs):
        raise AssertionError("the sync client was used by aquery")

    monkeypatch.setattr(de.GroundedGenerationServiceClient, "check_grounding", no_sync_check)
    response = await grounded(emulator, retriever).aquery(QUESTION)
    assert response.metadata["grounding"]["error"] is None


def test_streaming_checks_when_the_stream_is_exhausted(emulator, retriever):
    response = grounded(emulator, retriever, streaming=True).query(QUESTION)
    assert isinstance(response, StreamingResponse)
    assert "grounding" not in (response.metadata or {})
    tokens = list(response.response_gen)
    assert len(tokens) > 100  # the MockLLM streams its echo character by character
    response.response_txt = "".join(tokens)
    grounding = assert_mock_llm_grounding(response)
    plain = grounded(emulator, retriever).query(QUESTION)
    assert response.response_txt == plain.response
    assert grounding == plain.metadata["grounding"]


def test_streaming_get_response_sees_the_result(emulator, retriever):
    response = grounded(emulator, retriever, llm=ContextEchoLLM(), streaming=True).query(QUESTION)
    final = response.get_response()
    assert final.response == KEEPER
    assert final.metadata["grounding"]["support_score"] == pytest.approx(1.0)
    assert final.metadata["grounding"]["passed"] is True


async def test_async_streaming(emulator, retriever):
    engine = grounded(emulator, retriever, streaming=True)
    response = await engine.aquery(QUESTION)
    assert isinstance(response, AsyncStreamingResponse)
    tokens = [token async for token in response.async_response_gen()]
    assert len(tokens) > 100
    assert response.response_txt == "".join(tokens)
    grounding = assert_mock_llm_grounding(response)
    assert grounding == grounded(emulator, retriever).query(QUESTION).metadata["grounding"]


def test_an_abandoned_stream_is_not_checked(emulator, retriever):
    response = grounded(emulator, retriever, streaming=True).query(QUESTION)
    next(response.response_gen)
    response.response_gen.close()
    assert "grounding" not in (response.metadata or {})


def test_unsupported_claim_is_detected(emulator, retriever):
    engine = grounded(emulator, retriever, llm=ContextEchoLLM(extra=UNSUPPORTED))
    response = engine.query(QUESTION)
    assert response.response == f"{KEEPER} {UNSUPPORTED}"
    grounding = response.metadata["grounding"]
    assert [c["status"] for c in grounding["claims"]] == ["supported", "unsupported"]
    assert [c["text"] for c in grounding["claims"]] == [KEEPER, UNSUPPORTED]
    assert grounding["claims"][1]["source_ids"] == []
    assert grounding["unsupported_claims"] == 1
    assert grounding["support_score"] == pytest.approx(0.5)
    assert grounding["passed"] is False
    report = response.metadata["grounding_report"]
    assert [c.text for c in report.unsupported_claims] == [UNSUPPORTED]
    markdown = report.markdown()
    assert markdown.startswith(f"{KEEPER}[1] {UNSUPPORTED} **[unsupported]**")
    assert "1. [Paging document 13](https://example.com/paging/13)" in markdown


def test_non_ascii_answer_spans_slice_exactly(emulator, retriever):
    engine = grounded(
        emulator, retriever, llm=ContextEchoLLM(documents=2), enable_claim_level_score=True
    )
    response = engine.query("東京都は日本の首都")
    answer = response.response
    assert answer.startswith("東京都は日本の首都です。")
    grounding = response.metadata["grounding"]
    assert_spans_slice(answer, grounding)
    first = grounding["claims"][0]
    assert first["text"] == "東京都は日本の首都です。"
    assert (first["start"], first["end"]) == (0, 12)
    assert (first["byte_start"], first["byte_end"]) == (0, 36)
    assert first["status"] == "supported"
    assert first["source_ids"] == [response.source_nodes[0].node.node_id]
    assert response.source_nodes[0].node.metadata["document_id"] == "cjk-ja"
    assert all(isinstance(c["score"], float) for c in grounding["claims"])


def test_emoji_answer_after_an_emoji_claim(emulator, retriever):
    retriever.similarity_top_k = 1
    extra = "Rockets 🚀 are green 🟩."
    engine = grounded(emulator, retriever, llm=ContextEchoLLM(extra=extra))
    response = engine.query("Rockets launch from Cape Canaveral")
    answer = response.response
    assert answer == "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month. " + extra
    grounding = response.metadata["grounding"]
    assert_spans_slice(answer, grounding)
    second = grounding["claims"][1]
    assert answer[second["start"] :] == extra
    assert second["byte_start"] == len(answer[: second["start"]].encode())
    assert [c["status"] for c in grounding["claims"]] == ["supported", "unsupported"]


def test_raise_policy(emulator, retriever):
    engine = grounded(
        emulator, retriever, llm=ContextEchoLLM(extra=UNSUPPORTED), on_ungrounded="raise"
    )
    with pytest.raises(UngroundedAnswerError, match=UNGROUNDED) as info:
        engine.query(QUESTION)
    assert [c.text for c in info.value.result.unsupported_claims] == [UNSUPPORTED]
    passing = grounded(emulator, retriever, llm=ContextEchoLLM(), on_ungrounded="raise")
    assert passing.query(QUESTION).response == KEEPER


def test_fallback_policy(emulator, retriever):
    engine = grounded(
        emulator,
        retriever,
        llm=ContextEchoLLM(extra=UNSUPPORTED),
        on_ungrounded="fallback",
        fallback_answer="No grounded answer.",
    )
    response = engine.query(QUESTION)
    assert response.response == "No grounded answer."
    assert response.metadata["original_answer"] == f"{KEEPER} {UNSUPPORTED}"
    assert response.metadata["grounding"]["passed"] is False
    grounded_answer = grounded(
        emulator, retriever, llm=ContextEchoLLM(), on_ungrounded="fallback"
    ).query(QUESTION)
    assert grounded_answer.response == KEEPER
    assert "original_answer" not in grounded_answer.metadata


def test_streaming_fallback_holds_the_stream_back(emulator, retriever):
    engine = grounded(
        emulator,
        retriever,
        llm=ContextEchoLLM(extra=UNSUPPORTED),
        streaming=True,
        on_ungrounded="fallback",
        fallback_answer="No grounded answer.",
    )
    response = engine.query(QUESTION)
    assert list(response.response_gen) == ["No grounded answer."]
    assert response.metadata["original_answer"] == f"{KEEPER} {UNSUPPORTED}"
    passing = grounded(
        emulator, retriever, llm=ContextEchoLLM(), streaming=True, on_ungrounded="fallback"
    ).query(QUESTION)
    tokens = list(passing.response_gen)
    assert len(tokens) > 1
    assert "".join(tokens) == KEEPER


async def test_async_streaming_fallback(emulator, retriever):
    engine = grounded(
        emulator,
        retriever,
        llm=ContextEchoLLM(extra=UNSUPPORTED),
        streaming=True,
        on_ungrounded="fallback",
    )
    response = await engine.aquery(QUESTION)
    final = await response.get_response()
    assert final.response == engine.fallback_answer
    assert final.metadata["original_answer"].endswith(UNSUPPORTED)


def test_streaming_raise_comes_from_the_last_step(emulator, retriever):
    engine = grounded(
        emulator,
        retriever,
        llm=ContextEchoLLM(extra=UNSUPPORTED),
        streaming=True,
        on_ungrounded="raise",
    )
    response = engine.query(QUESTION)
    tokens = []
    with pytest.raises(UngroundedAnswerError):
        tokens.extend(response.response_gen)
    assert "".join(tokens) == f"{KEEPER} {UNSUPPORTED}"


def test_a_failed_check_keeps_the_answer(emulator, retriever, caplog):
    engine = grounded(emulator, retriever, llm=ContextEchoLLM(), retry=None)
    emulator.faults.fail("CheckGrounding", code="UNAVAILABLE", times=1)
    response = engine.query(QUESTION)
    assert response.response == KEEPER
    grounding = response.metadata["grounding"]
    assert grounding["support_score"] is None
    assert grounding["passed"] is False
    assert grounding["error"].startswith("ServiceUnavailableError: CheckGrounding on projects/")
    assert grounding["source_ids"] == [n.node.node_id for n in response.source_nodes]
    assert response.metadata["grounding_report"].result is None
    assert "the grounding check failed; the answer is kept" in caplog.text


async def test_a_failed_async_check_with_the_raise_policy_chains_the_cause(emulator, retriever):
    engine = grounded(emulator, retriever, llm=ContextEchoLLM(), retry=None, on_ungrounded="raise")
    emulator.faults.fail("CheckGrounding", code="UNAVAILABLE", times=1)
    with pytest.raises(UngroundedAnswerError, match="could not be checked") as info:
        await engine.aquery(QUESTION)
    assert isinstance(info.value.__cause__, ServiceUnavailableError)
    assert info.value.result.error.startswith("ServiceUnavailableError")


def test_on_error_raise_propagates_the_service_error(emulator, retriever):
    engine = grounded(emulator, retriever, llm=ContextEchoLLM(), retry=None, on_error="raise")
    emulator.faults.fail("CheckGrounding", code="UNAVAILABLE", times=1)
    with pytest.raises(ServiceUnavailableError, match="CheckGrounding") as info:
        engine.query(QUESTION)
    assert info.value.__cause__ is not None  # the google.api_core error


def test_transient_failures_are_retried(emulator, retriever):
    engine = grounded(emulator, retriever, llm=ContextEchoLLM())
    emulator.faults.fail("CheckGrounding", code="UNAVAILABLE", times=2)
    assert engine.query(QUESTION).metadata["grounding"]["passed"] is True


class Verdict(BaseModel):
    answer: str


class FixedQueryEngine(BaseQueryEngine):
    """Returns a prepared response, whatever the query."""

    def __init__(self, response):
        self.response = response
        super().__init__(callback_manager=None)

    def _get_prompt_modules(self):
        return {}

    def _query(self, query_bundle):
        return self.response

    async def _aquery(self, query_bundle):
        return self.response


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (
            PydanticResponse(response=Verdict(answer="Paris")),
            r"InputError: GroundedQueryEngine checks text answers",
        ),
    ],
)
def test_responses_without_prose_are_recorded(emulator, response, message):
    engine = GroundedQueryEngine(
        FixedQueryEngine(response), project_id=PROJECT, emulator_host=emulator.address
    )
    out = engine.query("anything")
    assert out is response
    assert out.metadata["grounding"]["passed"] is False
    assert re.match(message, out.metadata["grounding"]["error"])
    strict = GroundedQueryEngine(
        FixedQueryEngine(response),
        project_id=PROJECT,
        emulator_host=emulator.address,
        on_error="raise",
    )
    with pytest.raises(InputError):
        strict.query("anything")


def test_a_structured_response_is_never_replaced(emulator):
    response = PydanticResponse(response=Verdict(answer="Paris"))
    engine = GroundedQueryEngine(
        FixedQueryEngine(response),
        project_id=PROJECT,
        emulator_host=emulator.address,
        on_ungrounded="fallback",
    )
    out = engine.query("anything")
    assert out.response == Verdict(answer="Paris")
    assert "original_answer" not in out.metadata
    assert out.metadata["grounding"]["error"].startswith("InputError: GroundedQueryEngine")


def test_too_many_source_nodes_is_an_input_error(emulator):
    nodes = [NodeWithScore(node=TextNode(text=f"fact {i}")) for i in range(201)]
    engine = GroundedQueryEngine(
        FixedQueryEngine(Response("fact 1", source_nodes=nodes)),
        project_id=PROJECT,
        emulator_host=emulator.address,
        on_error="raise",
    )
    with pytest.raises(InputError, match="201 non-empty sources") as info:
        engine.query("anything")
    assert (info.value.field, info.value.limit) == ("facts", 200)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"on_ungrounded": "ignore"}, ConfigurationError, "on_ungrounded must be"),
        ({"on_error": "swallow"}, ConfigurationError, "on_error must be one of"),
        (
            {"citation_threshold": 1.5},
            ConfigurationError,
            "citation_threshold must be a number between",
        ),
        ({"min_support_score": -0.1}, ConfigurationError, "min_support_score must be a number"),
        ({"fallback_answer": None}, ConfigurationError, "fallback_answer must be a string"),
        (
            {"grounding_config": "a/b"},
            ConfigurationError,
            "grounding_config 'a/b' is not a valid resource id",
        ),
        ({"timeout": 0}, ConfigurationError, "timeout must be > 0"),
    ],
)
def test_bad_configuration_fails_at_construction(emulator, retriever, kwargs, error, message):
    with pytest.raises(error, match=message):
        grounded(emulator, retriever, **kwargs)


def test_the_wrapped_object_must_be_a_query_engine(emulator, retriever):
    with pytest.raises(ConfigurationError, match="query_engine must be a LlamaIndex"):
        GroundedQueryEngine(retriever, project_id=PROJECT, emulator_host=emulator.address)


def test_instrumentation_events_and_spans_fire(emulator, retriever, instrumentation):
    events, spans = instrumentation
    response = grounded(emulator, retriever, llm=ContextEchoLLM()).query(QUESTION)
    names = events.names()
    # our engine's query events, the wrapped engine's, the retrieval's and the check's
    assert names.count("QueryStartEvent") == 2
    assert names.count("QueryEndEvent") == 2
    assert "RetrievalEndEvent" in names
    assert names.index("GroundingCheckStartEvent") < names.index("GroundingCheckEndEvent")
    assert names.index("GroundingCheckEndEvent") < len(names) - 1 - names[::-1].index(
        "QueryEndEvent"
    )
    (end,) = [e for e in events.events if isinstance(e, GroundingCheckEndEvent)]
    assert end.grounding == response.metadata["grounding"]
    assert end.error is None
    assert end.span_id.startswith("NodeGroundingChecker.check-")
    completed = span_names(spans)
    for name in (
        "GroundedQueryEngine.query",
        "GroundedQueryEngine._query",
        "RetrieverQueryEngine.query",
        "DiscoveryEngineRetriever._retrieve",
        "NodeGroundingChecker.check",
    ):
        assert name in completed
    by_id = {s.id_: s for s in spans.completed_spans}
    check = by_id[end.span_id]
    parent = by_id[check.parent_id]
    assert parent.id_.startswith("GroundedQueryEngine._query-")


async def test_async_instrumentation(emulator, retriever, instrumentation):
    events, spans = instrumentation
    await grounded(emulator, retriever, llm=ContextEchoLLM()).aquery(QUESTION)
    assert "GroundingCheckEndEvent" in events.names()
    completed = span_names(spans)
    assert "GroundedQueryEngine.aquery" in completed
    assert "NodeGroundingChecker.acheck" in completed
    assert "DiscoveryEngineRetriever.aretrieve" in completed


def test_failed_check_sends_an_end_event_with_the_error(emulator, retriever, instrumentation):
    events, _ = instrumentation
    emulator.faults.fail("CheckGrounding", code="UNAVAILABLE", times=1)
    grounded(emulator, retriever, llm=ContextEchoLLM(), retry=None).query(QUESTION)
    (end,) = [e for e in events.events if isinstance(e, GroundingCheckEndEvent)]
    assert end.error.startswith("ServiceUnavailableError")
    assert end.grounding["passed"] is False


def test_prompts_of_the_wrapped_engine_are_reachable(emulator, retriever):
    engine = grounded(emulator, retriever)
    prompts = engine.get_prompts()
    assert "query_engine:response_synthesizer:text_qa_template" in prompts


def test_retrieve_goes_to_the_wrapped_engine(emulator, retriever):
    nodes = grounded(emulator, retriever).retrieve(QueryBundle(QUESTION))
    assert nodes[0].node.metadata["document_id"] == "page-13"


def test_credentials_never_show(emulator, retriever):
    engine = grounded(emulator, retriever, credentials="SECRET-MARKER")
    assert "SECRET" not in repr(engine)
    assert "SECRET" not in json.dumps(vars(engine), default=repr)
