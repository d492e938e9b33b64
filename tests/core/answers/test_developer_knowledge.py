"""``grounding_core.answers.developer_knowledge``: the Developer Knowledge API's answerQuery as
the ``DeveloperKnowledgeAnswerQuery`` component.

Covers ``answer_from_developer_knowledge`` (every field; citations as string and byte spans;
references named by their document and the digest of their content, since answer references
carry no chunk id; a declined answer is ``EMPTY_ANSWER``), the component's filter and query
limits (500 characters, refused before any call), ``replace``, and ``answer``/``aanswer``,
``stream``/``astream`` on the emulator (the whole text at once, then the record), with errors
naming the Developer Knowledge corpus.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging

import pytest
from google.developer_knowledge_v1 import types as dk

from grounding_core import (
    AnswerCitation,
    DeveloperKnowledgeAnswerQuery,
    DeveloperKnowledgeConnection,
    GroundedAnswer,
    InputError,
    NotFoundError,
    ServiceUnavailableError,
    SourceChunk,
)
from grounding_core.answers.developer_knowledge import answer_from_developer_knowledge
from tests.core.emulated import RETRYING, result_of
from tests.developer_corpus import BOTH, CREATE, NOTHING, PARENT, REMOVE, two_chunk_emulator

__all__ = ["two_chunk_emulator"]  # the fixture, used by name

SPAN_LOGGER = "grounding_core._convert"
KNOWLEDGE = "How do I sort a list?"
YIELD = "What does the yield statement do?"
CORPUS = "AnswerQuery on the Developer Knowledge corpus failed"


def pb(message):
    return type(message).pb(message)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def reference(content: str, parent: str = "documents/d", id: str = "", **document: object):
    chunk = dk.DocumentChunk(
        parent=parent, content=content, id=id, document=dk.Document(**document)
    )
    return dk.Answer.AnswerReference(
        document_reference=dk.Answer.DocumentReference(document_chunk=chunk)
    )


def offline(**kwargs: object) -> DeveloperKnowledgeConnection:
    return DeveloperKnowledgeConnection(emulator_host="localhost:1", **kwargs)


# -- answer_from_developer_knowledge -----------------------------------------------------------


def test_an_answer_keeps_every_field(caplog):
    answer = dk.Answer(
        answer_text="✓ Yes. 日本",
        citations=[
            dk.Answer.AnswerCitation(
                start_index=0, end_index=7, sources=[dk.Answer.CitationSource(reference_index=0)]
            ),
            dk.Answer.AnswerCitation(start_index=10, end_index=12),
        ],
        references=[
            reference(
                "Bucket ✓",
                id="c1",
                uri="https://docs.example.com/d",
                title="D",
                description="About d",
                data_source="docs.example.com",
                update_time={"seconds": 60},
            )
        ],
    )
    with caplog.at_level(logging.WARNING, logger=SPAN_LOGGER):
        result = answer_from_developer_knowledge(pb(answer))
    record = SourceChunk(
        name="documents/d/chunks/c1",
        content="Bucket ✓",
        id="c1",
        document_id="d",
        document_name="documents/d",
        uri="https://docs.example.com/d",
        title="D",
        description="About d",
        data_source="docs.example.com",
        update_time=dt.datetime(1970, 1, 1, 0, 1, tzinfo=dt.timezone.utc),
    )
    assert result == GroundedAnswer(
        answer_text="✓ Yes. 日本",
        citations=(
            AnswerCitation(0, 5, 0, 7, "✓ Yes", (0,), (record,)),
            # Bytes [10, 12) end inside "本": widened to the whole character.
            AnswerCitation(7, 8, 9, 12, "日", (), ()),
        ),
        references=(record,),
        state="SUCCEEDED",
    )
    (warning,) = [r.getMessage() for r in caplog.records if r.name == SPAN_LOGGER]
    assert warning.startswith("citations[1]: the service sent bytes [10, 12)")


def test_citations_slice_the_answer_and_resolve_their_references():
    text = "Créez un bucket avec gcloud. ✅ Done."
    parts = ["Créez un bucket avec gcloud.", "✅ Done."]
    citations = []
    for part in parts:
        start = len(text[: text.index(part)].encode())
        citations.append(
            dk.Answer.AnswerCitation(
                start_index=start,
                end_index=start + len(part.encode()),
                sources=[dk.Answer.CitationSource(reference_index=0)],
            )
        )
    parent = "documents/docs.cloud.google.com/storage/docs/creating-buckets"
    answer = dk.Answer(
        answer_text=text,
        citations=citations,
        references=[reference("gcloud storage buckets create", parent=parent)],
    )
    result = answer_from_developer_knowledge(pb(answer))
    assert [c.text for c in result.citations] == parts
    for citation in result.citations:
        assert text[citation.start : citation.end] == citation.text
        assert text.encode()[citation.byte_start : citation.byte_end].decode() == citation.text
        # No chunk id in answer references: the document and the digest of the content.
        assert citation.references[0].name == f"{parent}#55e511bb759dba8b"
        assert citation.references[0].id == ""


def test_references_are_named_by_document_and_content():
    answer = dk.Answer(
        answer_text="A. B.",
        references=[
            reference("A."),
            reference("B."),
            reference("A."),
            reference("A.", id="c9"),
            reference("A."),
        ],
    )
    names = [r.name for r in answer_from_developer_knowledge(pb(answer)).references]
    a, b = f"documents/d#{digest('A.')}", f"documents/d#{digest('B.')}"
    # The same content thrice: numbered on its later occurrences; a chunk id wins.
    assert names == [a, b, f"{a}~2", "documents/d/chunks/c9", f"{a}~3"]


@pytest.mark.parametrize(
    ("text", "expected"), [("", ("EMPTY_ANSWER",)), (" \n", ("EMPTY_ANSWER",)), ("Yes.", ())]
)
def test_an_answer_without_text_is_declined_as_empty(text, expected):
    result = answer_from_developer_knowledge(pb(dk.Answer(answer_text=text)))
    assert result == GroundedAnswer(text, state="SUCCEEDED", skipped_reasons=expected)


# -- the component -----------------------------------------------------------------------------


def test_the_component_keeps_its_connection_and_filter():
    connection = offline()
    answering = DeveloperKnowledgeAnswerQuery(connection, filter="f" * 500)
    assert (answering.connection, answering.filter) == (connection, "f" * 500)
    assert DeveloperKnowledgeAnswerQuery(connection).filter == ""
    assert repr(answering) == "DeveloperKnowledgeAnswerQuery(endpoint='localhost:1')"


@pytest.mark.parametrize(
    ("value", "limit", "words"),
    [
        ("f" * 501, 500, "filter has 501 characters"),
        (None, None, "filter must be a string, got NoneType"),
        ("\ud800", None, "lone surrogate"),
    ],
)
def test_a_filter_that_cannot_be_sent_is_refused(value, limit, words):
    with pytest.raises(InputError) as info:
        DeveloperKnowledgeAnswerQuery(offline(), filter=value)
    assert (info.value.field, info.value.limit) == ("filter", limit)
    assert words in str(info.value)


def test_a_replaced_component_has_another_filter_checked_again():
    answering = DeveloperKnowledgeAnswerQuery(offline(), filter="a")
    variant = answering.replace(filter='data_source = "web.dev"')
    assert (variant.connection, variant.filter) == (answering.connection, 'data_source = "web.dev"')
    assert answering.filter == "a"
    with pytest.raises(InputError, match="501 characters"):
        answering.replace(filter="f" * 501)


@pytest.fixture
def knowledge(connections):
    return DeveloperKnowledgeAnswerQuery(connections[1])


@pytest.mark.parametrize("asynchronous", [False, True])
@pytest.mark.parametrize(
    ("query", "limit", "words"),
    [("q" * 501, 500, "query has 501 characters"), (" ", None, "query is empty")],
)
async def test_a_query_that_cannot_be_sent_is_refused_before_any_call(
    knowledge, emulator, asynchronous, query, limit, words
):
    emulator.faults.fail("AnswerQuery", code="NOT_FOUND", times=1)
    with pytest.raises(InputError, match=words) as info:
        await result_of(knowledge.aanswer if asynchronous else knowledge.answer, query)
    assert (info.value.field, info.value.limit) == ("query", limit)
    assert emulator.faults.pending == 1


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_an_answer_cites_google_developer_documentation(knowledge, asynchronous):
    answer = await result_of(knowledge.aanswer if asynchronous else knowledge.answer, YIELD)
    assert (answer.state, answer.skipped_reasons, answer.session, answer.name) == (
        "SUCCEEDED",
        (),
        "",
        "",
    )
    encoded = answer.answer_text.encode()
    assert answer.citations
    for citation in answer.citations:
        assert answer.answer_text[citation.start : citation.end] == citation.text
        assert encoded[citation.byte_start : citation.byte_end].decode() == citation.text
        assert " ".join(citation.text.split()) in " ".join(citation.references[0].content.split())
    assert answer.references[0].document_name.startswith("documents/docs.python.org/")
    assert answer.references[0].data_source == "docs.python.org"
    assert answer.references[0].uri.startswith("https://docs.python.org/")
    # The same answer, sync or async.
    assert answer == knowledge.answer(YIELD)


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_the_filter_narrows_the_documents(knowledge, asynchronous):
    python = knowledge.replace(filter='data_source = "docs.python.org"')
    answer = await result_of(python.aanswer if asynchronous else python.answer, KNOWLEDGE)
    assert answer.citations
    assert {r.data_source for r in answer.references} == {"docs.python.org"}
    nowhere = knowledge.replace(filter='data_source = "nowhere"')
    declined = await result_of(nowhere.aanswer if asynchronous else nowhere.answer, KNOWLEDGE)
    assert declined.citations == ()


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_a_failed_answer_names_the_corpus(knowledge, emulator, asynchronous):
    call = knowledge.aanswer if asynchronous else knowledge.answer
    emulator.faults.fail("AnswerQuery", code="NOT_FOUND", times=1)
    with pytest.raises(NotFoundError, match=CORPUS):
        await result_of(call, KNOWLEDGE)
    # No retries on this connection: one quota fault is the answer.
    emulator.faults.fail("AnswerQuery", code="RESOURCE_EXHAUSTED", times=1)
    with pytest.raises(ServiceUnavailableError, match=CORPUS):
        await result_of(call, KNOWLEDGE)


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_an_answer_uses_the_connections_retry_policy(emulator, asynchronous):
    retrying = DeveloperKnowledgeConnection(emulator_host=emulator.address, **RETRYING)
    knowledge = DeveloperKnowledgeAnswerQuery(retrying)
    emulator.faults.fail("AnswerQuery", code="RESOURCE_EXHAUSTED", times=1)
    answer = await result_of(knowledge.aanswer if asynchronous else knowledge.answer, KNOWLEDGE)
    assert answer.citations
    assert emulator.faults.pending == 0
    if asynchronous:
        await retrying.aclose()
    retrying.close()


async def test_a_stream_gives_the_whole_text_then_the_answer(knowledge):
    whole = knowledge.answer(KNOWLEDGE)
    assert whole.answer_text
    assert list(knowledge.stream(KNOWLEDGE)) == [whole.answer_text, whole]
    assert [item async for item in knowledge.astream(KNOWLEDGE)] == [whole.answer_text, whole]


# -- one document, two chunks (its own emulator) ----------------------------------------------


@pytest.fixture
def two_chunks(two_chunk_emulator):
    connection = DeveloperKnowledgeConnection(emulator_host=two_chunk_emulator.address)
    yield DeveloperKnowledgeAnswerQuery(connection)
    connection.close()


def test_two_chunks_of_one_document_have_two_names(two_chunks):
    answer = two_chunks.answer(BOTH)
    assert answer.answer_text == f"{CREATE} {REMOVE}"
    first, second = answer.references
    assert (first.document_name, second.document_name) == (PARENT, PARENT)
    assert first.name == f"{PARENT}#{digest(first.content)}"
    assert second.name == f"{PARENT}#{digest(second.content)}"
    assert first.name != second.name
    assert (first.id, second.id) == ("", "")  # Google sends no chunk id in references
    # Each citation resolves to the chunk it cites, told apart by name.
    assert [c.text for c in answer.citations] == [CREATE, REMOVE]
    assert [c.references for c in answer.citations] == [(first,), (second,)]
    assert CREATE in first.content
    assert REMOVE in second.content


async def test_the_names_are_the_same_in_every_answer(two_chunks):
    again = await two_chunks.aanswer(BOTH)
    once = two_chunks.answer(BOTH)
    assert [r.name for r in again.references] == [r.name for r in once.references]
    await two_chunks.connection.aclose()


async def test_a_declined_answer_says_so_and_streams_only_its_record(two_chunks):
    answer = two_chunks.answer(NOTHING)
    assert answer == GroundedAnswer("", state="SUCCEEDED", skipped_reasons=("EMPTY_ANSWER",))
    assert answer.skipped
    assert list(two_chunks.stream(NOTHING)) == [answer]
    assert [item async for item in two_chunks.astream(NOTHING)] == [answer]
    await two_chunks.connection.aclose()
