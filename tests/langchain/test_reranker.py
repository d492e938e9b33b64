"""DiscoveryEngineReranker: a document compressor over the Ranking API, in a
ContextualCompressionRetriever over our retriever, sync and async, against the emulator."""

import pytest
from langchain_classic.retrievers import ContextualCompressionRetriever
from langchain_core.documents import BaseDocumentCompressor, Document
from pydantic import ValidationError

from grounding_core import ConfigurationError, DiscoveryEngineRanking, InputError
from langchain_grounding import DiscoveryEngineReranker, DiscoveryEngineRetriever

from .conftest import core_error

PROJECT = "test-project"
QUERY = "How does the with statement work?"
WITH = "https://docs.python.org/3.11/reference/compound_stmts.html#with"


def reranker(emulator, **fields):
    return DiscoveryEngineReranker(project_id=PROJECT, emulator_host=emulator.address, **fields)


@pytest.fixture
def retriever(emulator):
    return DiscoveryEngineRetriever(
        project_id=PROJECT, data_store_id="python-docs", k=20, emulator_host=emulator.address
    )


async def test_in_a_contextual_compression_retriever(emulator, retriever):
    assert isinstance(reranker(emulator), BaseDocumentCompressor)
    compressed = ContextualCompressionRetriever(
        base_compressor=reranker(emulator, top_n=3), base_retriever=retriever
    )
    documents = compressed.invoke(QUERY)
    assert len(documents) == 3
    assert documents[0].metadata["source"] == WITH
    scores = [d.metadata["rank_score"] for d in documents]
    assert scores == sorted(scores, reverse=True)
    assert all(0 < s <= 1 for s in scores)
    originals = {d.id: d for d in retriever.invoke(QUERY)}
    for document in documents:  # every metadata key kept, the score as the peer's and ours
        original = originals[document.id]
        assert document.page_content == original.page_content
        score = document.metadata["rank_score"]
        assert document.metadata == {
            **original.metadata,
            "relevance_score": score,
            "rank_score": score,
        }
        assert original.metadata["relevance_score"] != score
        assert document.metadata["id"] == original.metadata["id"]  # its own id kept
    assert await compressed.ainvoke(QUERY) == documents


async def test_async_runs_on_the_async_client(emulator, monkeypatch):
    docs = [
        Document("Use open() to open a file.", metadata={"title": "Files"}, id="f"),
        Document("Birds sing in the morning.", metadata={"title": "Birds"}, id="b"),
    ]

    def no_sync(*args, **kwargs):
        raise AssertionError("the sync client was used by acompress_documents")

    monkeypatch.setattr(DiscoveryEngineRanking, "rank", no_sync)
    ranked = await reranker(emulator).acompress_documents(docs, "How do I open a file?")
    assert [d.id for d in ranked] == ["f", "b"]


def test_the_title_fields_feed_the_title(emulator):
    docs = [
        Document("It is about something.", metadata={"title": "Lighthouse keepers"}, id="t"),
        Document("It is about something.", metadata={"heading": "Lighthouse keepers"}, id="h"),
    ]
    by_title = reranker(emulator).compress_documents(docs, "lighthouse keepers")
    assert [d.id for d in by_title] == ["t", "h"]
    by_heading = reranker(emulator, title_fields=("heading",)).compress_documents(
        docs, "lighthouse keepers"
    )
    assert [d.id for d in by_heading] == ["h", "t"]
    assert reranker(emulator).compress_documents([], "q") == []


def test_bad_settings_and_inputs(emulator):
    for fields, name in (({"top_n": 0}, "top_n"), ({"user_labels": {"Bad": "x"}}, "user_labels")):
        with pytest.raises(ValidationError) as info:
            reranker(emulator, **fields)
        error = core_error(info.value)
        assert isinstance(error, ConfigurationError)
        assert name in str(error)
    with pytest.raises(InputError, match="has neither a title nor a content") as caught:
        reranker(emulator).compress_documents([Document("")], "q")
    assert caught.value.field == "records"
    copied = reranker(emulator, top_n=2).model_copy(update={"top_n": 1})
    assert copied.ranking.spec.top_n == 1


@pytest.mark.parametrize(
    ("fields", "title_field"),
    [({}, "title"), ({"title_fields": ("a", "b")}, None), ({"title_fields": ()}, None)],
    ids=["default", "two", "none"],
)
def test_title_field_is_the_one_title_field(emulator, fields, title_field):
    assert reranker(emulator, **fields).title_field == title_field


def test_title_fields_and_the_stand_in_models_pace_are_checked(emulator):
    from langchain_grounding import ExtractiveChatModel

    with pytest.raises(ValidationError, match="title_fields"):
        reranker(emulator, title_fields=[3])
    for bad in (-0.1, 11):
        with pytest.raises(ValidationError, match="token_delay"):
            ExtractiveChatModel(token_delay=bad)
    assert ExtractiveChatModel(token_delay=10).token_delay == 10


def test_vertex_ai_rank_code_ports_with_its_names(emulator):
    """``VertexAIRank(...)``'s arguments, only the class name changed: each peer name is
    mapped (with one DeprecationWarning) or refused with what to write."""
    documents = [
        Document(page_content="Unrelated text about birds.", metadata={"section": "Birds"}),
        Document(page_content="The with statement wraps a block.", metadata={"section": "with"}),
    ]
    with pytest.warns(DeprecationWarning, match="got langchain-google-community's") as record:
        ported = DiscoveryEngineReranker(
            project_id=PROJECT,
            location_id="global",
            title_field="section",
            id_field="id",
            ignore_record_details_in_response=True,
            top_n=1,
            emulator_host=emulator.address,
        )
    assert len(record) == 1
    message = str(record[0].message)
    assert "VertexAIRank's `title_field='section'` is `title_fields=('section',)` here" in message
    assert "`id_field='id'` is ignored here: each document comes back whole" in message
    assert (ported.location, ported.title_fields, ported.top_n) == ("global", ("section",), 1)
    # The peer's attributes read back.
    assert (ported.location_id, ported.title_field, ported.client) == ("global", "section", None)
    (best,) = ported.compress_documents(documents, QUERY)
    assert best.page_content == documents[1].page_content
    # The peer's metadata: the position given as "id", the rank score as "relevance_score".
    assert (best.metadata["section"], best.metadata["id"]) == ("with", "1")
    assert best.metadata["relevance_score"] == best.metadata["rank_score"] > 0
    with pytest.raises(ValidationError, match=r"client must be a Google client with a rank\(\)"):
        reranker(emulator, client=object())
    with pytest.raises(ValidationError, match=r"title_field must be a metadata key \(a string\)"):
        reranker(emulator, title_field=3)
