"""Search options set as attributes of the LlamaIndex retriever, the way
llama-index-retrievers-vertexai-search takes them (``retriever.filter = ...``): validated and
sent; the peers' own names refused as attributes, naming what to set."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest
from llama_index.core.retrievers import BaseRetriever

from grounding_core import ChunkSearchSpec, InputError
from llamaindex_grounding import DiscoveryEngineRetriever

PROJECT = "test-project"
FILTER = 'lang: ANY("en")'


@pytest.fixture
def retriever(emulator):
    return DiscoveryEngineRetriever(
        project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address
    )


def test_class():
    assert BaseRetriever in DiscoveryEngineRetriever.__mro__


def test_every_option_but_k_reads_from_the_spec(retriever):
    names = {f.name for f in dataclasses.fields(ChunkSearchSpec)} - {"k"}
    assert names  # the table below is the spec's
    for name in names:
        assert getattr(retriever, name) == getattr(retriever.spec, name), name


def test_a_set_option_is_sent(retriever):
    retriever.filter = FILTER
    retriever.search_mode = "documents"
    retriever.max_extractive_segment_count = 1
    assert (retriever.filter, retriever.spec.filter) == (FILTER, FILTER)
    assert retriever.spec.search_mode == "documents"
    nodes = retriever.retrieve("lighthouse keeper")
    assert nodes
    for node in nodes:
        assert node.node.metadata["struct_data"]["lang"] == "en"
        assert node.node.metadata["derived_struct_data"]["extractive_segments"]


async def test_a_set_option_is_sent_async(retriever):
    retriever.filter = 'lang: ANY("ja")'
    nodes = await retriever.aretrieve("東京")
    assert nodes
    assert [n.node.metadata["struct_data"]["lang"] for n in nodes] == ["ja"] * len(nodes)


def test_a_bad_option_is_refused_and_the_old_spec_kept(retriever):
    with pytest.raises(InputError, match="max_extractive_answer_count must be between") as info:
        retriever.max_extractive_answer_count = 6
    assert (info.value.field, info.value.limit) == ("max_extractive_answer_count", 5)
    assert retriever.max_extractive_answer_count == 0


def test_the_set_options_survive_copies(retriever):
    retriever.filter = FILTER
    for copied in (copy.deepcopy(retriever), pickle.loads(pickle.dumps(retriever))):
        assert copied.spec == retriever.spec


@pytest.mark.parametrize(
    ("name", "instead"),
    [
        ("get_extractive_answers", "set document_text instead"),
        ("query_expansion_condition", "set query_expansion instead"),
        ("spell_correction_mode", "set spell_correction instead"),
        ("max_documents", "set similarity_top_k instead"),
        ("engine_data_type", "set search_mode instead"),
        ("location_id", "build the retriever with location=..."),
        ("credentials_path", "build the retriever with credentials=..."),
        ("user_agent", "it has no attribute equivalent"),
        ("custom_embedding", "it has no attribute equivalent"),
    ],
)
def test_a_peer_name_is_refused_as_an_attribute(retriever, name, instead):
    with pytest.raises(AttributeError) as raised:
        setattr(retriever, name, 1)
    assert str(raised.value) == (
        f"{name} is a name of the peers (llama-index-retrievers-vertexai-search, "
        f"langchain-google-community), not an attribute of DiscoveryEngineRetriever: "
        f"{instead} (docs/migrating.md maps each)"
    )
    assert name not in vars(retriever)


def test_other_attributes_behave_as_usual(retriever):
    retriever.anything = 1
    assert retriever.anything == 1
    with pytest.raises(AttributeError, match="has no attribute 'missing'"):
        retriever.missing  # noqa: B018
