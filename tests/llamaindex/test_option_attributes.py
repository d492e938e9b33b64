"""Options set as attributes of the LlamaIndex retriever, the way
llama-index-retrievers-vertexai-search takes them (``retriever.filter = ...``,
``retriever.get_extractive_answers = True``): an attribute configures the retriever as the
constructor given the same argument does (the same translation, the same one check), on the
emulator."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import warnings

import pytest
from llama_index.core.retrievers import BaseRetriever

from grounding_core import ChunkSearchSpec, InputError
from llamaindex_grounding import DiscoveryEngineRetriever

PROJECT = "test-project"
FILTER = 'lang: ANY("en")'
BOOST = {"condition_boost_specs": [{"condition": 'lang: ANY("ja")', "boost": 0.5}]}
# Every option of the peer (its class attributes, and engine_data_type and max_documents, which
# it reads at each search), each with a value other than its default.
PEER_OPTIONS = {
    "filter": FILTER,
    "get_extractive_answers": True,
    "max_documents": 3,
    "max_extractive_answer_count": 2,
    "max_extractive_segment_count": 2,
    "query_expansion_condition": 2,
    "spell_correction_mode": 2,
    "boost_spec": BOOST,
    "return_extractive_segment_score": False,
    "engine_data_type": 2,
}
# The option of ours each peer name sets: an assignment replaces an argument setting it.
REPLACES = {"engine_data_type": "search_mode", "max_documents": "similarity_top_k"}
# Retrievers built as the peer's users build them, and in our names.
BUILT = {
    "peer": {"location_id": "global", "engine_data_type": 0},
    "ours": {"search_mode": "documents", "max_extractive_segment_count": 1},
}


def build(emulator, **arguments):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the peers' names: tested apart
        return DiscoveryEngineRetriever(
            project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address,
            **arguments,
        )  # fmt: skip


@pytest.fixture
def retriever(emulator):
    return build(emulator)


def test_class():
    assert BaseRetriever in DiscoveryEngineRetriever.__mro__


def test_every_option_but_k_reads_from_the_spec(retriever):
    names = {f.name for f in dataclasses.fields(ChunkSearchSpec)} - {"k"}
    assert names  # the table below is the spec's
    for name in names:
        assert getattr(retriever, name) == getattr(retriever.spec, name), name


@pytest.mark.parametrize("built", BUILT)
@pytest.mark.parametrize(("name", "value"), PEER_OPTIONS.items(), ids=list(PEER_OPTIONS))
def test_a_peer_option_set_as_an_attribute_configures_as_the_constructor(
    emulator, built, name, value
):
    arguments = BUILT[built]
    retriever = build(emulator, **arguments)
    before = retriever.spec
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        setattr(retriever, name, value)
    kept = {n: v for n, v in arguments.items() if n != REPLACES.get(name)}
    constructed = build(emulator, **{**kept, name: value})
    assert retriever.spec == constructed.spec
    if built == "peer":  # each value differs from the peer's default
        assert retriever.spec != before
    assert retriever.metadata_layout == constructed.metadata_layout
    assert getattr(retriever, name) == value
    # What the search sends and gives is the constructed retriever's.
    query = "lighthouse keeper"
    assert [n.node.node_id for n in retriever.retrieve(query)] == [
        n.node.node_id for n in constructed.retrieve(query)
    ]


def test_the_peers_attribute_configuration_searches_as_the_peer(emulator):
    # The peer's way to extractive answers: the constructor, then attributes.
    retriever = build(emulator, location_id="global", engine_data_type=0)
    with pytest.warns(DeprecationWarning, match="`get_extractive_answers=True` is") as record:
        retriever.get_extractive_answers = True
    assert record[0].filename == __file__  # the line that set it
    retriever.max_extractive_answer_count = 3
    spec = retriever.spec
    assert (spec.search_mode, spec.document_text) == ("documents", "extractive_answers")
    assert (spec.max_extractive_answer_count, spec.max_extractive_segment_count) == (3, 0)
    assert retriever.similarity_top_k == 5  # the peer's max_documents
    for hit in retriever.retrieve("lighthouse keeper"):
        answers = hit.node.metadata["derived_struct_data"]["extractive_answers"]
        assert hit.node.text == "\n\n".join(a["content"] for a in answers)


def test_a_documents_option_set_without_search_mode_brings_the_peers_defaults(retriever):
    # The peer's users build it with its shared names only, then set its options.
    with pytest.warns(DeprecationWarning, match="got max_extractive_segment_count without") as w:
        retriever.max_extractive_segment_count = 2
    assert w[0].filename == __file__
    spec = retriever.spec
    assert (spec.search_mode, spec.max_extractive_segment_count, spec.k) == ("documents", 2, 5)
    assert retriever.metadata_layout == "flat"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the defaults are on already: nothing new to say
        retriever.return_extractive_segment_score = False
    assert retriever.retrieve("lighthouse keeper")


def test_none_is_the_peers_no_filter_and_no_boost(emulator):
    retriever = build(emulator, filter=None, boost_spec=None)
    assert (retriever.filter, retriever.boost_spec) == ("", None)
    retriever.filter, retriever.boost_spec = FILTER, BOOST
    retriever.filter, retriever.boost_spec = None, None
    assert retriever.spec == build(emulator).spec


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


def test_our_options_set_as_attributes_do_not_warn(emulator):
    retriever = build(emulator, location_id="global")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        retriever.filter = FILTER
        retriever.similarity_top_k = 2
        retriever.metadata_layout = "flat"
    assert (retriever.spec.filter, retriever.similarity_top_k) == (FILTER, 2)
    assert "id" in retriever.retrieve("lighthouse keeper")[0].node.metadata


def test_an_assignment_replaces_what_set_the_same_option_before(emulator):
    retriever = build(emulator, max_documents=3)
    retriever.similarity_top_k = 4  # not "both max_documents and similarity_top_k"
    assert retriever.similarity_top_k == 4
    with pytest.warns(DeprecationWarning, match="`max_documents=6` is `similarity_top_k=6`"):
        retriever.max_documents = 6
    assert retriever.similarity_top_k == 6
    with pytest.warns(DeprecationWarning, match="`get_extractive_answers=True` is"):
        retriever.get_extractive_answers = True
    retriever.document_text = "extractive_segments"
    assert retriever.spec.document_text == "extractive_segments"


@pytest.mark.parametrize(
    ("name", "value", "error", "message"),
    [
        ("max_extractive_answer_count", 6, InputError, "max_extractive_answer_count must be"),
        ("engine_data_type", 7, InputError, r"engine_data_type must be one of 0 .*, got 7"),
        ("get_extractive_answers", 1, InputError, "get_extractive_answers must be True or False"),
        ("similarity_top_k", 0, InputError, "similarity_top_k must be"),
        ("metadata_layout", "nested", InputError, "metadata_layout must be 'default' or 'flat'"),
    ],
)
def test_a_bad_value_is_refused_as_the_constructor_refuses_it(
    emulator, name, value, error, message
):
    retriever = build(emulator, **BUILT["peer"])
    before = (retriever.spec, retriever.metadata_layout)
    with pytest.raises(error, match=message) as raised:
        setattr(retriever, name, value)
    with pytest.raises(error) as constructed:
        build(emulator, **{**BUILT["peer"], name: value})
    assert str(raised.value) == str(constructed.value)
    assert (retriever.spec, retriever.metadata_layout) == before
    retriever.filter = FILTER  # the refused value is not kept
    assert retriever.spec == dataclasses.replace(before[0], filter=FILTER)


def test_the_set_options_survive_copies(emulator):
    retriever = build(emulator, get_extractive_answers=True)
    retriever.filter = FILTER
    for copied in (copy.deepcopy(retriever), pickle.loads(pickle.dumps(retriever))):
        assert copied.spec == retriever.spec
        with pytest.warns(DeprecationWarning, match="`max_documents=2`"):
            copied.max_documents = 2
        assert (copied.similarity_top_k, copied.spec.document_text) == (2, "extractive_answers")


@pytest.mark.parametrize(
    ("name", "instead"),
    [
        ("location_id", "build the retriever with location=..."),
        ("credentials_path", "build the retriever with credentials=..."),
        ("search_engine_id", "build the retriever with data_store_id=..."),
        ("user_agent", "it has no equivalent"),
        ("custom_embedding", "it has no equivalent"),
        ("k", "set similarity_top_k"),
    ],
)
def test_a_connection_or_langchain_name_is_refused_as_an_attribute(retriever, name, instead):
    with pytest.raises(AttributeError) as raised:
        setattr(retriever, name, "x")
    assert str(raised.value) == (
        f"{name} is not an option of DiscoveryEngineRetriever that an attribute sets: "
        f"{instead} (docs/migrating.md maps each)"
    )
    assert name not in vars(retriever)


def test_other_attributes_behave_as_usual(retriever):
    retriever.anything = 1
    assert retriever.anything == 1
    with pytest.raises(AttributeError, match="has no attribute 'missing'"):
        retriever.missing  # noqa: B018
