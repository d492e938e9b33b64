"""A Google client of the caller's (``client=``, as langchain-google-community takes one) in
place of the connection's: any API version's ``GroundedGenerationServiceClient`` or
``RankServiceClient``, or a stand-in with its method, for the check and the ranking, sync and
async, on the emulator; anything else refused naming ``client``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from unittest.mock import Mock

import grpc
import pytest
from google.auth.credentials import AnonymousCredentials
from google.cloud import discoveryengine_v1 as v1
from google.cloud import discoveryengine_v1alpha as v1alpha
from google.cloud import discoveryengine_v1beta as v1beta

from grounding_core import (
    ConfigurationError,
    DiscoveryEngineConnection,
    DiscoveryEngineRanking,
    GroundingCheck,
    GroundingSource,
    RankingRecord,
)
from grounding_core._clients import GivenClient
from tests.core.emulated import PROJECT, result_of

PARIS = "Paris is the capital of France."
ANSWER = "Paris is the capital of France. The moon is made of cheese."
RECORDS = [
    RankingRecord(title="Birds", content="Birds sing in the morning."),
    RankingRecord(title="Files", content="Use open() to open a file."),
]
VERSIONS = [v1, v1beta, v1alpha]


@pytest.fixture
def connection() -> Iterator[DiscoveryEngineConnection]:
    # The connection's own clients would go nowhere: only the given client can answer.
    connection = DiscoveryEngineConnection(project_id=PROJECT, emulator_host="127.0.0.1:9")
    yield connection
    connection.close()


def client_of(version: Any, name: str, address: str) -> Any:
    """``version``'s client ``name`` on the emulator at ``address``, as a caller builds one."""
    cls = getattr(version, name)
    transport = cls.get_transport_class("grpc")(
        channel=grpc.insecure_channel(address), credentials=AnonymousCredentials()
    )
    return cls(transport=transport)


def check(connection: DiscoveryEngineConnection, client: Any) -> GroundingCheck:
    return GroundingCheck(connection, client=client)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: v.__name__.rpartition("_")[2])
async def test_a_check_calls_the_given_client_of_any_version(
    emulator, connection, version, asynchronous
):
    given = check(
        connection, client_of(version, "GroundedGenerationServiceClient", emulator.address)
    )
    call = given.acheck if asynchronous else given.check
    report = await result_of(call, ANSWER, [PARIS], [GroundingSource(PARIS)])
    assert [c.status for c in report.claims] == ["supported", "unsupported"]
    assert report.claims[0].sources == (PARIS,)
    assert report.support_score == pytest.approx(0.5)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: v.__name__.rpartition("_")[2])
async def test_a_ranking_calls_the_given_client_of_any_version(
    emulator, connection, version, asynchronous
):
    ranking = DiscoveryEngineRanking(
        connection, client=client_of(version, "RankServiceClient", emulator.address)
    )
    call = ranking.arank if asynchronous else ranking.rank
    ranked = await result_of(call, "How do I open a file?", RECORDS)
    assert [r.index for r in ranked] == [1, 0]
    assert ranked[0].score > ranked[1].score


def test_a_stand_in_gets_its_versions_request_and_its_response_is_read(connection):
    # The peer's unit test: a Mock with the v1alpha client's spec and a canned response.
    client = Mock(spec=v1alpha.GroundedGenerationServiceClient)
    client.check_grounding.return_value = v1alpha.CheckGroundingResponse(
        support_score=0.75,
        cited_chunks=[v1alpha.FactChunk(chunk_text=PARIS, source="0")],
        claims=[
            v1alpha.CheckGroundingResponse.Claim(
                start_pos=0, end_pos=31, claim_text=PARIS, citation_indices=[0]
            )
        ],
    )
    report = check(connection, client).check(PARIS, ["doc"], [GroundingSource(PARIS)])
    (request,) = [c.kwargs["request"] for c in client.check_grounding.call_args_list]
    assert isinstance(request, v1alpha.CheckGroundingRequest)
    assert (request.answer_candidate, request.facts[0].fact_text) == (PARIS, PARIS)
    assert request.grounding_config.endswith("/groundingConfigs/default_grounding_config")
    assert report.support_score == 0.75
    assert report.claims[0].sources == ("doc",)
    assert (report.claims[0].start, report.claims[0].end) == (0, 31)


def test_a_client_of_our_version_gets_our_request_as_it_is(connection):
    client = Mock(spec=v1.RankServiceClient)
    client.rank.return_value = v1.RankResponse(records=[v1.RankingRecord(id="0", score=0.5)])
    ranked = DiscoveryEngineRanking(connection, client=client).rank("q", RECORDS[:1])
    request = client.rank.call_args.kwargs["request"]
    assert type(request) is v1.RankRequest
    assert [(r.index, r.score) for r in ranked] == [(0, 0.5)]


def test_a_stand_in_without_a_google_package_gets_our_request():
    class Stub:
        def rank(self, request: Any, **kwargs: Any) -> Any:
            self.request = request
            return v1.RankResponse.pb(v1.RankResponse())  # a raw message is read too

    stub = Stub()
    given = GivenClient(stub, "rank")
    assert given.call(v1.RankRequest(query="q"), v1.RankResponse) == v1.RankResponse.pb()()
    assert type(stub.request) is v1.RankRequest


@pytest.mark.parametrize("client", [object(), Mock(spec=v1.RankServiceClient), "client"])
def test_a_client_without_the_method_is_refused_naming_client(connection, client):
    with pytest.raises(ConfigurationError, match=r"^client must be a Google client with a check_"):
        check(connection, client)


def test_a_replaced_check_keeps_its_client(emulator, connection):
    client = client_of(v1, "GroundedGenerationServiceClient", emulator.address)
    replaced = check(connection, client).replace(citation_threshold=0.9)
    assert replaced.client is not None
    assert replaced.client.client is client
    assert replaced.spec.citation_threshold == 0.9
    assert repr(replaced.client) == "GivenClient(GroundedGenerationServiceClient.check_grounding)"
