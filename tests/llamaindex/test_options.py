"""The LlamaIndex Discovery Engine components take their options as ``**arguments`` typed by
the core's ``...Args`` TypedDicts (connection, target and the spec's options), so every
default is the spec's; every option reaches the core component."""

import inspect
import typing

import pytest
from typing_extensions import Unpack

from grounding_core import (
    DEFAULT_SEARCH_K,
    AnswerSpec,
    ChunkSearchSpec,
    DataStoreSpec,
    DiscoveryEngineConnectionArgs,
    InputError,
    SummarySpec,
)
from grounding_core.answers.answer_query import AnswerOptions, DiscoveryEngineAnswerQueryArgs
from grounding_core.search.discovery_engine import (
    DiscoveryEngineChunkSearchArgs,
    DiscoveryEngineTargetArgs,
)
from grounding_core.search.specs import SearchOptions
from grounding_core.search.summaries import DiscoveryEngineSearchSummaryArgs, SummaryOptions
from llamaindex_grounding import (
    DiscoveryEngineAnswerQueryEngine,
    DiscoveryEngineChatEngine,
    DiscoveryEngineRetriever,
    DiscoveryEngineSearchSummaryQueryEngine,
)

from .conftest import PROJECT

COMPONENTS = [
    (DiscoveryEngineRetriever, DiscoveryEngineChunkSearchArgs, SearchOptions, set()),
    (DiscoveryEngineAnswerQueryEngine, DiscoveryEngineAnswerQueryArgs, AnswerOptions, set()),
    (DiscoveryEngineChatEngine, DiscoveryEngineAnswerQueryArgs, AnswerOptions, set()),
    (
        DiscoveryEngineSearchSummaryQueryEngine,
        DiscoveryEngineSearchSummaryArgs,
        SummaryOptions,
        {"search"},
    ),
]
# The component's own parameters (LlamaIndex's), next to the options.
OWN = {"callback_manager", "verbose", "similarity_top_k", "metadata_layout", "streaming"}


@pytest.mark.parametrize(
    ("component", "args", "options", "extra"), COMPONENTS, ids=lambda c: getattr(c, "__name__", "")
)
def test_the_options_are_the_core_arguments(component, args, options, extra):
    parameters = inspect.signature(component.__init__).parameters
    keywords = [p for p in parameters.values() if p.kind is p.VAR_KEYWORD]
    assert [p.name for p in keywords] == ["arguments"]
    hints = typing.get_type_hints(component.__init__)
    assert hints["arguments"] == Unpack[args]
    assert set(parameters) - {"self", "arguments"} <= OWN  # no option repeated with a default
    assert args.__optional_keys__ == {
        *DiscoveryEngineConnectionArgs.__optional_keys__,
        *DiscoveryEngineTargetArgs.__optional_keys__,
        *options.__optional_keys__,
        *extra,
    }


def test_the_retriever_takes_k_as_similarity_top_k(emulator):
    common = {"project_id": PROJECT, "data_store_id": "d", "emulator_host": emulator.address}
    assert DiscoveryEngineRetriever(**common).spec == ChunkSearchSpec(k=DEFAULT_SEARCH_K)
    assert DiscoveryEngineRetriever(similarity_top_k=2, **common).spec.k == 2
    with pytest.raises(InputError, match="k is similarity_top_k in LlamaIndex") as info:
        DiscoveryEngineRetriever(k=2, **common)
    assert info.value.field == "k"


def test_every_search_option_reaches_the_core(emulator):
    changed = {
        "filter": 'lang: ANY("en")',
        "boost_spec": {"condition_boost_specs": [{"condition": 'lang: ANY("en")', "boost": 0.5}]},
        "order_by": "year",
        "relevance_threshold": "low",
        "search_mode": "documents",
        "return_snippet": True,
        "max_extractive_answer_count": 2,
        "max_extractive_segment_count": 3,
        "return_extractive_segment_score": True,
        "num_previous_segments": 1,
        "num_next_segments": 1,
        "document_text": "extractive_answers",
        "spell_correction": "suggestion_only",
        "query_expansion": "auto",
        "pin_unexpanded_results": True,
        "canonical_filter": 'lang: ANY("en")',
        "language_code": "en",
        "user_pseudo_id": "visitor-1",
        "session": "projects/p/locations/global/collections/c/engines/e/sessions/s",
        "relevance_filter_spec": {"keyword_search_threshold": {"relevance_threshold": "LOW"}},
        "data_store_specs": [DataStoreSpec("docs")],
        "facet_specs": [{"facet_key": {"key": "lang"}, "limit": 10}],
    }
    # The chunk-only neighbours cannot go with documents mode; k is similarity_top_k.
    assert set(changed) == set(SearchOptions.__optional_keys__) - {
        "k",
        "num_previous_chunks",
        "num_next_chunks",
    }
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT, engine_id="e", emulator_host=emulator.address, **changed
    )
    assert retriever.spec == ChunkSearchSpec(k=DEFAULT_SEARCH_K, **changed)


def test_the_summary_and_answer_options_reach_the_core(emulator):
    common = {"project_id": PROJECT, "engine_id": "e", "emulator_host": emulator.address}
    summary = {"model_version": "preview", "use_semantic_chunks": True, "result_count": 3}
    engine = DiscoveryEngineSearchSummaryQueryEngine(**summary, **common)
    assert (engine.spec, engine.answering.search) == (SummarySpec(**summary), ChunkSearchSpec())
    answer = {"max_rephrase_steps": 2, "query_classification_types": ["adversarial_query"]}
    assert DiscoveryEngineAnswerQueryEngine(**answer, **common).spec == AnswerSpec(**answer)
