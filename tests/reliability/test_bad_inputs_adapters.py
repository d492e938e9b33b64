"""The adapters' bad constructor arguments: each refused with an error that names the argument
(and the closest known name), in the style of test_bad_inputs.py's table."""

from langchain_core.runnables import RunnableLambda
from llama_index.core.query_engine import CustomQueryEngine
from pydantic import ValidationError

import langchain_grounding as lc
import llamaindex_grounding as li
from grounding_core.peers import unknown_arguments_message
from tests.reliability.bad_input_table import clear_error_test, table_size_test

PROJECT = "test-project"


class _EchoEngine(CustomQueryEngine):
    def custom_query(self, query_str: str) -> str:
        return query_str


def _echo():
    return RunnableLambda(lambda x: x)


def _checker():
    return lc.GroundingChecker(project_id=PROJECT)


def _hint(component, name, match=None):
    suggestion = f" (did you mean {match!r}?)" if match else ""
    return f"{component} got an unknown argument {name!r}{suggestion}: check the spelling"


# (id, callable taking the emulator, expected exception, message fragments)
CASES = [
    # -- LangChain: pydantic's ValidationError (a ValueError), as for every other field --------
    (
        "langchain retriever kk",
        lambda e: lc.DiscoveryEngineRetriever(project_id=PROJECT, data_store_id="d", kk=3),
        ValidationError,
        [_hint("DiscoveryEngineRetriever", "kk", "k")],
    ),
    (
        "langchain retriever two misspelt",
        lambda e: lc.DiscoveryEngineRetriever(
            project_id=PROJECT, data_store_id="d", fliter="x", order="y"
        ),
        ValidationError,
        ["unknown arguments 'fliter' (did you mean 'filter'?), 'order' (did you mean 'order_by'?)"],
    ),
    (
        "langchain retriever a peer's name it has no alias for",
        lambda e: lc.DiscoveryEngineRetriever(
            project_id=PROJECT, data_store_id="d", conversation_id="-"
        ),
        ValidationError,
        ["unknown argument 'conversation_id'", "help(DiscoveryEngineRetriever)"],
    ),
    (
        "langchain retriever callbacks at construction",
        lambda e: lc.DiscoveryEngineRetriever(project_id=PROJECT, data_store_id="d", callbacks=[]),
        ValidationError,
        ["unknown argument 'callbacks'"],
    ),
    (
        "langchain developer knowledge retriever",
        lambda e: lc.DeveloperKnowledgeRetriever(filtre="x"),
        ValidationError,
        [_hint("DeveloperKnowledgeRetriever", "filtre", "filter")],
    ),
    (
        "langchain answer",
        lambda e: lc.DiscoveryEngineAnswer(project_id=PROJECT, engine_id="e", include_citation=1),
        ValidationError,
        [_hint("DiscoveryEngineAnswer", "include_citation", "include_citations")],
    ),
    (
        "langchain developer knowledge answer",
        lambda e: lc.DeveloperKnowledgeAnswer(condensor=None),
        ValidationError,
        [_hint("DeveloperKnowledgeAnswer", "condensor", "condenser")],
    ),
    (
        "langchain summary",
        lambda e: lc.DiscoveryEngineSummary(project_id=PROJECT, engine_id="e", result_cout=3),
        ValidationError,
        [_hint("DiscoveryEngineSummary", "result_cout", "result_count")],
    ),
    (
        "langchain checker",
        lambda e: lc.GroundingChecker(project_id=PROJECT, citation_treshold=0.5),
        ValidationError,
        [_hint("GroundingChecker", "citation_treshold", "citation_threshold")],
    ),
    (
        "langchain condenser",
        lambda e: lc.QuestionCondenser(max_question=2),
        ValidationError,
        [_hint("QuestionCondenser", "max_question", "max_questions")],
    ),
    (
        "langchain chat model",
        lambda e: lc.ExtractiveChatModel(sentence=2),
        ValidationError,
        [_hint("ExtractiveChatModel", "sentence", "sentences")],
    ),
    (
        "langchain grounded chain",
        lambda e: lc.GroundedChain(chain=_echo(), checker=_checker(), chekcer=None),
        ValidationError,
        [_hint("GroundedChain", "chekcer", "checker")],
    ),
    (
        "langchain nested checker",
        lambda e: lc.GroundedChain(
            chain=_echo(), checker={"project_id": PROJECT, "min_suport_score": 0.5}
        ),
        ValidationError,
        ["checker", _hint("GroundingChecker", "min_suport_score", "min_support_score")],
    ),
    (
        "langchain with_grounding",
        lambda e: lc.with_grounding(_echo(), project_id=PROJECT, on_ungrouded="raise"),
        TypeError,
        [_hint("with_grounding", "on_ungrouded", "on_ungrounded")],
    ),
    (
        "langchain with_grounding checker and fields",
        lambda e: lc.with_grounding(_echo(), _checker(), on_ungrounded="raise"),
        TypeError,
        ["give either checker= or the checker's fields (on_ungrounded), not both"],
    ),
    (
        "langchain callback handler",
        lambda e: lc.GroundingCallbackHandler(project_id=PROJECT, max_report=5),
        TypeError,
        [_hint("GroundingCallbackHandler", "max_report", "max_reports")],
    ),
    (
        "langchain callback handler checker and fields",
        lambda e: lc.AsyncGroundingCallbackHandler(_checker(), project_id=PROJECT),
        TypeError,
        ["AsyncGroundingCallbackHandler: give either checker= or the checker's fields"],
    ),
    # -- LlamaIndex: TypeError, as Python's own for an unexpected keyword argument -------------
    (
        "llamaindex retriever",
        lambda e: li.DiscoveryEngineRetriever(
            project_id=PROJECT, data_store_id="d", simlarity_top_k=3
        ),
        TypeError,
        [_hint("DiscoveryEngineRetriever", "simlarity_top_k", "similarity_top_k")],
    ),
    (
        "llamaindex developer knowledge retriever",
        lambda e: li.DeveloperKnowledgeRetriever(emulator="x"),
        TypeError,
        [_hint("DeveloperKnowledgeRetriever", "emulator", "emulator_host")],
    ),
    (
        "llamaindex answer engine",
        lambda e: li.DiscoveryEngineAnswerQueryEngine(
            project_id=PROJECT, engine_id="e", preambel="x"
        ),
        TypeError,
        [_hint("DiscoveryEngineAnswerQueryEngine", "preambel", "preamble")],
    ),
    (
        "llamaindex developer knowledge answer engine",
        lambda e: li.DeveloperKnowledgeAnswerQueryEngine(filters="x"),
        TypeError,
        [_hint("DeveloperKnowledgeAnswerQueryEngine", "filters", "filter")],
    ),
    (
        "llamaindex chat engine",
        lambda e: li.DiscoveryEngineChatEngine(project_id=PROJECT, engine_id="e", sesion="-"),
        TypeError,
        [_hint("DiscoveryEngineChatEngine", "sesion", "session")],
    ),
    (
        "llamaindex developer knowledge chat engine",
        lambda e: li.DeveloperKnowledgeChatEngine(max_question=2),
        TypeError,
        [_hint("DeveloperKnowledgeChatEngine", "max_question", "max_questions")],
    ),
    (
        "llamaindex summary engine",
        lambda e: li.DiscoveryEngineSearchSummaryQueryEngine(
            project_id=PROJECT, engine_id="e", result_counts=3
        ),
        TypeError,
        [_hint("DiscoveryEngineSearchSummaryQueryEngine", "result_counts", "result_count")],
    ),
    (
        "llamaindex grounded engine",
        lambda e: li.GroundedQueryEngine(_EchoEngine(), project_id=PROJECT, on_eror="raise"),
        TypeError,
        [_hint("GroundedQueryEngine", "on_eror", "on_error")],
    ),
    (
        "llamaindex evaluator",
        lambda e: li.GroundingEvaluator(project_id=PROJECT, user_label={}),
        TypeError,
        [_hint("GroundingEvaluator", "user_label", "user_labels")],
    ),
    (
        "llamaindex llm",
        lambda e: li.ExtractiveLLM(invents="x"),
        TypeError,
        [_hint("ExtractiveLLM", "invents", "invent")],
    ),
    (
        "llamaindex retriever no close name",
        lambda e: li.DiscoveryEngineRetriever(project_id=PROJECT, data_store_id="d", zzz=1),
        TypeError,
        ["DiscoveryEngineRetriever got an unknown argument 'zzz': check the spelling"],
    ),
]


test_the_table_is_big_enough = table_size_test(CASES, minimum=25)


test_bad_input_gets_a_clear_error = clear_error_test(CASES)


def test_every_argument_a_component_documents_is_known():
    # The names come from the signature and its Unpack[TypedDict]: none of them is refused.
    retriever = li.DiscoveryEngineRetriever(
        project_id=PROJECT, data_store_id="d", similarity_top_k=2, verbose=True, timeout=3,
        filter='lang: ANY("en")', num_next_chunks=1, location="eu", callback_manager=None,
    )  # fmt: skip
    assert (retriever.similarity_top_k, retriever.spec.num_next_chunks) == (2, 1)
    assert retriever.search.connection.call_options.timeout == 3


def test_a_long_unknown_name_is_cut():
    message = unknown_arguments_message("C", ["x" * 500], ["k"])
    shown = repr("x" * 60 + "...")
    assert (
        message
        == f"C got an unknown argument {shown}: check the spelling; help(C) lists the arguments"
    )
