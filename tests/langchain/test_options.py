"""The LangChain components' option fields are their specs' fields: the same names, types and
defaults (read from the spec, so defined once), and every one reaches the core component."""

import dataclasses
import typing

import pytest

from grounding_core import (
    DEFAULT_SEARCH_K,
    AnswerSpec,
    ChunkSearchSpec,
    DeveloperKnowledgeAnswerQuery,
    DeveloperKnowledgeSearchSpec,
    SummarySpec,
)
from grounding_core.answers.answer_query import AnswerOptions
from grounding_core.search.specs import SearchOptions
from grounding_core.search.summaries import SummaryOptions
from langchain_grounding import (
    DeveloperKnowledgeAnswer,
    DeveloperKnowledgeRetriever,
    DiscoveryEngineAnswer,
    DiscoveryEngineRetriever,
    DiscoveryEngineSummary,
)
from langchain_grounding._options import spec_default

PROJECT = "test-project"

# component, its options TypedDict, its spec.
COMPONENTS = [
    (DiscoveryEngineRetriever, SearchOptions, ChunkSearchSpec),
    (DiscoveryEngineAnswer, AnswerOptions, AnswerSpec),
    (DiscoveryEngineSummary, SummaryOptions, SummarySpec),
]


def spec_defaults(spec):
    return {f.name: getattr(spec(), f.name) for f in dataclasses.fields(spec)}


@pytest.mark.parametrize(
    ("component", "options", "spec"), COMPONENTS, ids=lambda c: getattr(c, "__name__", "")
)
def test_option_fields_are_the_spec_fields(component, options, spec):
    hints = typing.get_type_hints(options)
    fields = component.model_fields
    assert set(hints) <= set(fields)
    assert {name: fields[name].annotation for name in hints} == hints
    assert {name: fields[name].get_default() for name in hints} == spec_defaults(spec)
    assert all(fields[name].description for name in hints)  # documented


def test_the_summary_takes_every_search_option_in_search():
    fields = DiscoveryEngineSummary.model_fields
    assert fields["search"].get_default(call_default_factory=True) == ChunkSearchSpec()
    # Flat, ChunkSearchSpec's language_code would clash with SummarySpec's: hence one field.
    assert set(SearchOptions.__optional_keys__) & set(fields) == {"language_code"}
    assert "language_code" in SummaryOptions.__optional_keys__


def test_the_developer_knowledge_fields_are_their_specs():
    retriever = DeveloperKnowledgeRetriever.model_fields
    assert (retriever["k"].get_default(), retriever["filter"].get_default()) == (
        DeveloperKnowledgeSearchSpec().k,
        DeveloperKnowledgeSearchSpec().filter,
    )
    answer = DeveloperKnowledgeAnswer.model_fields["filter"].get_default()
    assert answer == spec_default(DeveloperKnowledgeAnswerQuery, "filter") == ""


def test_spec_default_reads_the_spec():
    assert spec_default(ChunkSearchSpec, "k") == DEFAULT_SEARCH_K == 4
    assert spec_default(AnswerSpec, "max_return_results") == AnswerSpec().max_return_results
    assert spec_default(SummarySpec, "result_count") == SummarySpec().result_count
    assert spec_default(DeveloperKnowledgeAnswerQuery, "filter") == ""
    with pytest.raises(KeyError):
        spec_default(SummarySpec, "k")


def test_the_defaults_build_the_spec_defaults(emulator):
    common = {"project_id": PROJECT, "emulator_host": emulator.address}
    retriever = DiscoveryEngineRetriever(data_store_id="d", **common)
    assert retriever.search.spec == ChunkSearchSpec(k=DEFAULT_SEARCH_K)
    assert DiscoveryEngineAnswer(engine_id="e", **common).answering.spec == AnswerSpec()
    summary = DiscoveryEngineSummary(data_store_id="d", **common)
    assert (summary.answering.spec, summary.answering.search) == (SummarySpec(), ChunkSearchSpec())


def test_every_answer_option_reaches_the_core(emulator):
    changed = {
        "include_citations": False,
        "max_return_results": 3,
        "filter": 'lang: ANY("en")',
        "boost_spec": {"condition_boost_specs": [{"condition": 'lang: ANY("en")', "boost": 0.5}]},
        "order_by": "year",
        "search_mode": None,
        "preamble": "Be brief.",
        "model_version": "preview",
        "answer_language_code": "en",
        "include_grounding_supports": True,
        "filtering_level": "high",
        "ignore_adversarial_query": True,
        "ignore_non_answer_seeking_query": True,
        "ignore_jail_breaking_query": True,
        "ignore_low_relevant_content": True,
        "safety_filtering": True,
        "related_questions": True,
        "disable_query_rephraser": True,
        "max_rephrase_steps": 2,
        "query_classification_types": ("adversarial_query",),
        "disable_spell_correction": True,
        "user_pseudo_id": "visitor-1",
        "session": "-",
    }
    assert set(changed) == set(AnswerOptions.__optional_keys__) - {"data_store_specs"}
    answer = DiscoveryEngineAnswer(
        project_id=PROJECT, engine_id="e", emulator_host=emulator.address, **changed
    )
    assert answer.answering.spec == AnswerSpec(**changed)
