"""GroundingChecker in langchain-google-community's call shape (issues #17, #38): the answer
alone, the documents in ``config["configurable"]["documents"]``, the peer's
``CheckGroundingResponse`` back, on the emulator."""

from __future__ import annotations

import copy
import pickle

import grpc
import pytest
from google.cloud import discoveryengine_v1alpha
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.runnables import RunnableLambda

from grounding_core import ConfigurationError, UngroundedAnswerError
from langchain_grounding import GroundingChecker
from langchain_grounding.grounding_checker import CheckGroundingResponse

from .conftest import PROMPT, ContextEchoChatModel, format_docs

PROJECT = "test-project"
PARIS = "Paris is the capital of France."
LYON = "Lyon is a city in France."
MOON = "The moon is made of cheese."
# An empty document in the middle: it is not sent, and shifts no citation.
DOCS = [
    Document(id="doc-paris", page_content=PARIS, metadata={"title": "Paris", "rank": 1}),
    Document(page_content=""),
    Document(id="doc-lyon", page_content=LYON, metadata={"title": "Lyon"}),
]
# Lyon (source 2) is cited first: Google's citation_indices would say [0] for it.
ANSWER = f"{LYON}  {MOON}\n{PARIS}"
MARKED = f"{LYON}[2]  {MOON}\n{PARIS}[0]"


@pytest.fixture
def checker(emulator):
    return GroundingChecker(project_id=PROJECT, emulator_host=emulator.address)


@pytest.fixture
def peer_style(checker):
    # LangChain also puts its own keys in configurable: only "documents" is read.
    return checker.with_config(configurable={"documents": DOCS, "thread_id": "t-1", "user": 7})


def claim(text, start, citations, answer=ANSWER):
    """A peer claim of ``text`` at char ``start`` of the ASCII ``answer`` (bytes = chars)."""
    assert answer[start : start + len(text)] == text
    return {
        "start_pos": start,
        "end_pos": start + len(text),
        "claim_text": text,
        "citation_indices": citations,
    }


EXPECTED = CheckGroundingResponse(
    support_score=2 / 3,
    # Lyon cited first; each source the document given, past the skipped empty one.
    cited_chunks=[
        {"chunk_text": LYON, "source": DOCS[2]},
        {"chunk_text": PARIS, "source": DOCS[0]},
    ],
    claims=[
        claim(LYON, 0, [0]),
        claim(MOON, len(LYON) + 2, []),
        claim(PARIS, len(LYON) + 2 + len(MOON) + 1, [1]),
    ],
    answer_with_citations=MARKED,
)


def assert_response(response, expected=EXPECTED):
    assert isinstance(response, GroundingChecker.CheckGroundingResponse)
    assert response.support_score == pytest.approx(expected.support_score)
    assert response == expected.model_copy(update={"support_score": response.support_score})
    assert response.cited_chunks[0]["source"] is DOCS[2]


def test_invoke_returns_the_peers_response(peer_style):
    assert_response(peer_style.invoke(ANSWER))


def test_the_response_is_the_reports_check(checker, peer_style):
    report = checker.check(ANSWER, DOCS)
    assert CheckGroundingResponse.of(report) == peer_style.invoke(ANSWER)


def test_config_given_to_invoke_works_as_with_config(checker):
    assert_response(checker.invoke(ANSWER, config={"configurable": {"documents": DOCS}}))


def test_an_aimessage_answer(peer_style):
    assert_response(peer_style.invoke(AIMessage(content=ANSWER)))


def test_strings_as_documents(checker):
    answer = f"{PARIS} {LYON}"
    response = checker.with_config(configurable={"documents": (PARIS, LYON)}).invoke(answer)
    assert response == CheckGroundingResponse(
        support_score=response.support_score,
        cited_chunks=[{"chunk_text": PARIS, "source": PARIS}, {"chunk_text": LYON, "source": LYON}],
        claims=[claim(PARIS, 0, [0], answer), claim(LYON, len(PARIS) + 1, [1], answer)],
        answer_with_citations=f"{PARIS}[0] {LYON}[1]",
    )
    assert response.support_score == pytest.approx(1.0)


def test_claim_positions_are_utf8_bytes_as_google_sends_them(checker):
    zurich = "Einstein studied in Zürich."
    answer = f"Zürich ✓ is in Switzerland. {zurich}"
    docs = [Document(page_content=zurich), Document(page_content="Zürich ✓ is in Switzerland.")]
    response = checker.with_config(configurable={"documents": docs}).invoke(answer)
    encoded = answer.encode()
    for item in response.claims:
        assert encoded[item["start_pos"] : item["end_pos"]].decode() == item["claim_text"]
    # The second claim starts after "ü" (2 bytes) and "✓" (3 bytes): 3 bytes past its char index.
    assert [c["start_pos"] for c in response.claims] == [0, answer.index(zurich) + 3]
    assert response.answer_with_citations == f"Zürich ✓ is in Switzerland.[1] {zurich}[0]"


async def test_ainvoke_returns_the_peers_response(peer_style):
    assert_response(await peer_style.ainvoke(ANSWER))


def test_batch(peer_style):
    responses = peer_style.batch([ANSWER, PARIS, ""])
    assert_response(responses[0])
    assert responses[1].answer_with_citations == f"{PARIS}[0]"
    assert responses[1].support_score == pytest.approx(1.0)
    # An empty answer: nothing sent, nothing checked.
    assert responses[2] == CheckGroundingResponse(support_score=None)


async def test_abatch(peer_style):
    responses = await peer_style.abatch([ANSWER, LYON])
    assert_response(responses[0])
    assert responses[1].answer_with_citations == f"{LYON}[2]"


def test_at_the_end_of_a_chain(checker):
    # The peer's documented chain: prompt | llm | StrOutputParser() | checker.with_config(...).
    chain = (
        RunnableLambda(lambda question: {"context": format_docs(DOCS[::2]), "question": question})
        | PROMPT
        | ContextEchoChatModel(documents=2, extra=MOON)
        | StrOutputParser()
        | checker.with_config(configurable={"documents": DOCS})
    )
    response = chain.invoke("Where is Paris?")
    assert [c["claim_text"] for c in response.claims] == [PARIS, LYON, MOON]
    assert response.answer_with_citations == f"{PARIS}[0] {LYON}[2] {MOON}"
    assert [c["citation_indices"] for c in response.claims] == [[0], [1], []]


async def test_at_the_end_of_a_chain_async(checker):
    chain = StrOutputParser() | checker.with_config(configurable={"documents": DOCS})
    assert_response(await chain.ainvoke(AIMessage(content=ANSWER)))


class Ends(BaseCallbackHandler):
    def __init__(self):
        self.outputs = []

    def on_chain_end(self, outputs, **kwargs):
        self.outputs.append(outputs)


def test_the_run_machinery_sees_the_response(peer_style):
    ends = Ends()
    response = peer_style.invoke(ANSWER, config={"callbacks": [ends]})
    assert ends.outputs == [response]


def test_raise_policy_raises_with_the_report(emulator):
    raising = GroundingChecker(
        project_id=PROJECT, emulator_host=emulator.address, on_ungrounded="raise"
    ).with_config(configurable={"documents": DOCS})
    with pytest.raises(UngroundedAnswerError, match=r"1 claim\(s\) unsupported: 'The moon") as info:
        raising.invoke(ANSWER)
    assert info.value.result.answer_with_citations == MARKED  # our report, as for a dict
    # A grounded answer passes and comes back.
    assert raising.invoke(PARIS).answer_with_citations == f"{PARIS}[0]"


def test_fallback_policy_is_refused_before_any_call(emulator):
    fallback = GroundingChecker(
        project_id=PROJECT, emulator_host=emulator.address, on_ungrounded="fallback"
    )
    emulator.faults.fail("CheckGrounding", code="UNAVAILABLE")  # consumed by any call
    with pytest.raises(ConfigurationError, match="has no answer to replace: pass a dict"):
        fallback.with_config(configurable={"documents": DOCS}).invoke(ANSWER)
    assert emulator.faults.pending == 1
    # The dict shape keeps its fallback answer.
    emulator.faults.clear()
    out = fallback.invoke({"answer": ANSWER, "documents": DOCS})
    assert (out["answer"], out["original_answer"]) == (fallback.fallback_answer, ANSWER)


def test_a_dict_input_keeps_its_documents_and_its_dict_output(peer_style):
    out = peer_style.invoke({"answer": PARIS, "documents": [Document(page_content=LYON)]})
    assert set(out) == {"answer", "documents", "grounding"}
    assert out["grounding"].answer_with_citations == PARIS  # checked against Lyon alone
    assert out["grounding"].claims[0].status == "unsupported"


def test_the_answer_with_citations_in_an_aimessage_dict(checker):
    out = checker.invoke({"answer": AIMessage(content=ANSWER), "documents": DOCS})
    assert out["grounding"].answer_with_citations == MARKED
    # Not in the metadata: it is the answer again, derived from the claims' spans.
    assert "answer_with_citations" not in out["answer"].response_metadata["grounding"]


def peers_client(emulator):
    """The peer's own client, as its tests build it: discoveryengine_v1alpha's."""
    cls = discoveryengine_v1alpha.GroundedGenerationServiceClient
    channel = grpc.insecure_channel(emulator.address)
    return cls(transport=cls.get_transport_class("grpc")(channel=channel))


async def test_a_google_client_of_the_peers_version_is_called(emulator):
    client = peers_client(emulator)
    # No emulator_host: only the given client reaches the emulator.
    checker = GroundingChecker(project_id=PROJECT, client=client)
    peer_style = checker.with_config(configurable={"documents": DOCS})
    assert_response(peer_style.invoke(ANSWER))
    assert_response(await peer_style.ainvoke(ANSWER))
    assert checker.check(ANSWER, DOCS).support_score == pytest.approx(2 / 3)


def test_a_copy_shares_the_given_client_and_a_pickle_names_it(emulator):
    client = peers_client(emulator)
    checker = GroundingChecker(project_id=PROJECT, client=client)
    copied = copy.deepcopy(checker)
    assert copied.client is client
    assert_response(copied.with_config(configurable={"documents": DOCS}).invoke(ANSWER))
    with pytest.raises(ConfigurationError, match=r"^client \(GroundedGenerationServiceClient\) "):
        pickle.dumps(checker)
    assert "client" not in repr(checker)
