"""Pickling and copying every public component of the core and both connections.

Each row (``copies.Row``) survives ``pickle`` (the default protocol and 5) and ``copy.deepcopy``:
the copy has the same settings, gives the same results (sync and async) on the emulator and builds
clients of its own (closing it leaves the original working); ``copy.copy`` of a component shares
its connection, of a connection builds its own clients. A copy keeps what it was given (an
emulator address read from the environment is not read again, a key goes into the pickle and never
into the repr), async clients stay with the copy that built them, credentials or client options
that cannot be pickled are named, and a component works in a process that only got its pickle.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest
from google.api_core.client_options import ClientOptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import discoveryengine_v1 as de

import grounding_core
from grounding_core import (
    DISCOVERYENGINE_EMULATOR_HOST,
    ConfigurationError,
    DeveloperKnowledgeAnswerQuery,
    DeveloperKnowledgeChunkSearch,
    DeveloperKnowledgeConnection,
    DiscoveryEngineAnswerQuery,
    DiscoveryEngineChunkSearch,
    DiscoveryEngineConnection,
    DiscoveryEngineRanking,
    DiscoveryEngineSearchSummary,
    GroundingCheck,
    GroundingSource,
    GroundingSpec,
    RankingRecord,
    RetryPolicy,
)

from .copies import (
    WHOLE_COPIES,
    LockedCredentials,
    Row,
    check_a_shallow_copy,
    check_a_whole_copy,
    settings_of,
)
from .emulated import PROJECT

QUESTION = "lighthouse keeper number 131"
ANSWER = "Section 1 of document 13 talks about the lighthouse keeper number 131."
SOURCES = [GroundingSource(ANSWER + " It describes the lamp.", {"title": "Paging document 13"})]
RETRY = RetryPolicy(initial=0.01, maximum=0.02, deadline=9.0)
RANKED = [RankingRecord(content="Birds sing."), RankingRecord(title="Keeper", content=ANSWER)]


def de_connection(emulator: Any) -> DiscoveryEngineConnection:
    # Not the defaults: a copy must keep each setting, not fall back to one.
    return DiscoveryEngineConnection(
        project_id=PROJECT,
        emulator_host=emulator.address,
        timeout=7.5,
        retry=RETRY,
        credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]
        client_options={"quota_project_id": "billing"},
    )


def dk_connection(emulator: Any) -> DeveloperKnowledgeConnection:
    return DeveloperKnowledgeConnection(emulator_host=emulator.address, timeout=6.5)


def chunks(found: list[Any]) -> list[tuple[str, str]]:
    return [(c.name, c.content) for c in found]


def answered(answer: Any) -> Any:
    """An answer without its resource name (a new one each call)."""
    return dataclasses.replace(answer, name="")


async def _asearch(search: Any) -> Any:
    return chunks(await search.asearch(QUESTION, k=3))


async def _aanswer(answering: Any) -> Any:
    return answered(await answering.aanswer(QUESTION))


async def _acheck(check: GroundingCheck) -> Any:
    return (await check.acheck(ANSWER, SOURCES, SOURCES)).result


async def _arank(ranking: Any) -> Any:
    return await ranking.arank(QUESTION, RANKED)


def _de_search(connection: DiscoveryEngineConnection) -> DiscoveryEngineChunkSearch:
    return DiscoveryEngineChunkSearch(connection, data_store_id="test-docs")


ROWS: dict[str, Row] = {
    "DiscoveryEngineChunkSearch": Row(
        lambda e: DiscoveryEngineChunkSearch(
            de_connection(e), data_store_id="test-docs", k=3, filter='group: ANY("odd")'
        ),
        lambda s: chunks(s.search(QUESTION)),
        _asearch,
    ),
    "DeveloperKnowledgeChunkSearch": Row(
        lambda e: DeveloperKnowledgeChunkSearch(dk_connection(e), k=2),
        lambda s: chunks(s.search("python generators")),
        _asearch,
    ),
    "DiscoveryEngineAnswerQuery": Row(
        lambda e: DiscoveryEngineAnswerQuery(
            de_connection(e), data_store_id="test-docs", include_grounding_supports=True
        ),
        lambda a: answered(a.answer(QUESTION)),
        _aanswer,
    ),
    "DeveloperKnowledgeAnswerQuery": Row(
        lambda e: DeveloperKnowledgeAnswerQuery(dk_connection(e), filter=""),
        lambda a: answered(a.answer("What does yield do?")),
        _aanswer,
    ),
    "DiscoveryEngineSearchSummary": Row(
        lambda e: DiscoveryEngineSearchSummary(
            de_connection(e), data_store_id="test-docs", result_count=2
        ),
        lambda a: answered(a.answer(QUESTION)),
        _aanswer,
    ),
    "DiscoveryEngineRanking": Row(
        lambda e: DiscoveryEngineRanking(de_connection(e), top_n=2, user_labels={"team": "docs"}),
        lambda r: r.rank(QUESTION, RANKED),
        _arank,
    ),
    "GroundingCheck": Row(
        lambda e: GroundingCheck(
            de_connection(e),
            citation_threshold=0.5,
            enable_claim_level_score=True,
            user_labels={"team": "docs"},
            on_ungrounded="raise",
        ),
        lambda c: c.check(ANSWER, SOURCES, SOURCES).result,
        _acheck,
    ),
    "DiscoveryEngineConnection": Row(
        de_connection,
        lambda c: chunks(_de_search(c).search(QUESTION, k=3)),
        lambda c: _asearch(_de_search(c)),
    ),
    "DeveloperKnowledgeConnection": Row(
        dk_connection,
        lambda c: chunks(DeveloperKnowledgeChunkSearch(c).search(QUESTION, k=3)),
        lambda c: _asearch(DeveloperKnowledgeChunkSearch(c)),
    ),
}
CONNECTIONS = ["DiscoveryEngineConnection", "DeveloperKnowledgeConnection"]


def holds_a_connection(value: Any) -> bool:
    """A connection class, or a class built over one (its first parameter)."""
    if not inspect.isclass(value):
        return False
    if issubclass(value, DiscoveryEngineConnection | DeveloperKnowledgeConnection):
        return True
    parameters = list(inspect.signature(value.__init__).parameters)
    return parameters[1:2] == ["connection"]


def test_every_exported_component_and_connection_has_a_row():
    exported = {n for n in grounding_core.__all__ if holds_a_connection(getattr(grounding_core, n))}
    assert exported == set(ROWS)


@pytest.mark.parametrize("how", list(WHOLE_COPIES))
@pytest.mark.parametrize("name", list(ROWS))
async def test_a_copy_keeps_the_settings_works_and_builds_its_own_clients(emulator, name, how):
    await check_a_whole_copy(ROWS[name], emulator, WHOLE_COPIES[how])


@pytest.mark.parametrize("name", sorted(set(ROWS) - set(CONNECTIONS)))
async def test_a_shallow_copy_of_a_component_shares_the_connection(emulator, name):
    await check_a_shallow_copy(ROWS[name], emulator)


@pytest.mark.parametrize("name", CONNECTIONS)
async def test_a_shallow_copy_of_a_connection_builds_its_own_clients(emulator, name):
    await check_a_whole_copy(ROWS[name], emulator, copy.copy)


@pytest.mark.parametrize("how", list(WHOLE_COPIES))
def test_a_copied_connection_keeps_what_it_was_given(emulator, how):
    original = de_connection(emulator)
    copied = WHOLE_COPIES[how](original)
    assert (copied.project, copied.location, copied.endpoint, copied.uses_emulator) == (
        PROJECT,
        "global",
        emulator.address,
        True,
    )
    assert copied.call_options == original.call_options
    assert copied.call_options.retry == RETRY
    assert copied.call_options.timeout == 7.5
    assert repr(copied) == repr(original)
    assert settings_of(copied) == settings_of(original)


def test_the_emulator_address_is_kept_not_read_again(emulator, monkeypatch):
    monkeypatch.setenv(DISCOVERYENGINE_EMULATOR_HOST, emulator.address)
    connection = DiscoveryEngineConnection()
    monkeypatch.setenv(DISCOVERYENGINE_EMULATOR_HOST, "127.0.0.1:1")
    assert pickle.loads(pickle.dumps(connection)).endpoint == emulator.address
    monkeypatch.delenv(DISCOVERYENGINE_EMULATOR_HOST)
    copied = copy.deepcopy(connection)
    assert (copied.endpoint, copied.project) == (emulator.address, "emulator-project")


async def test_async_clients_stay_with_the_copy_that_built_them(emulator):
    search = ROWS["DiscoveryEngineChunkSearch"].build(emulator)
    expected = chunks(await search.asearch(QUESTION))
    mine = search.connection.async_client(de.SearchServiceAsyncClient)
    for how, copy_ in WHOLE_COPIES.items():
        copied = copy_(search)
        assert chunks(await copied.asearch(QUESTION)) == expected, how
        theirs = copied.connection.async_client(de.SearchServiceAsyncClient)
        assert theirs is not mine
        assert theirs.transport.grpc_channel is not mine.transport.grpc_channel
        await copied.connection.aclose()
        assert chunks(await search.asearch(QUESTION)) == expected  # its channel is open
        assert search.connection.async_client(de.SearchServiceAsyncClient) is mine
    await search.connection.aclose()


@pytest.mark.parametrize("how", [*WHOLE_COPIES, "copy"])
def test_credentials_that_cannot_be_pickled_are_named(emulator, how):
    connection = DiscoveryEngineConnection(
        project_id=PROJECT, emulator_host=emulator.address, credentials=LockedCredentials()
    )
    copy_ = WHOLE_COPIES.get(how, copy.copy)
    values = [connection]
    if how != "copy":  # a shallow copy of a component shares the connection: nothing to pickle
        values.append(DiscoveryEngineChunkSearch(connection, data_store_id="test-docs"))
    for value in values:
        with pytest.raises(ConfigurationError) as caught:
            copy_(value)
        message = str(caught.value)
        assert message.startswith("credentials (LockedCredentials) cannot be pickled (")
        assert "cannot pickle '_thread.lock' object" in message
        assert "Application Default Credentials" in message
        assert isinstance(caught.value.__cause__, TypeError)


def test_client_options_that_cannot_be_pickled_are_named():
    options = ClientOptions(client_cert_source=lambda: (b"cert", b"key"))
    connection = DiscoveryEngineConnection(project_id="p", client_options=options)
    with pytest.raises(ConfigurationError) as caught:
        pickle.dumps(connection)
    assert str(caught.value).startswith("client_options (ClientOptions) cannot be pickled (")
    assert "module-level function" in str(caught.value)
    assert caught.value.__cause__ is not None


def test_a_key_goes_into_the_pickle_never_into_the_repr():
    connection = DiscoveryEngineConnection(project_id="p", client_options={"api_key": "s3cr3t-key"})
    assert "s3cr3t-key" not in repr(connection)
    assert b"s3cr3t-key" in pickle.dumps(connection)
    copied = pickle.loads(pickle.dumps(connection))
    assert "s3cr3t-key" not in repr(copied)
    assert b"s3cr3t-key" in pickle.dumps(copied)


def test_a_grounding_spec_round_trips_with_read_only_labels():
    spec = GroundingSpec(
        citation_threshold=0.3, enable_claim_level_score=True, user_labels={"é": "1"}
    )
    for copy_ in (*WHOLE_COPIES.values(), copy.copy):
        copied = copy_(spec)
        assert copied == spec
        assert dict(copied.user_labels) == {"é": "1"}
        with pytest.raises(TypeError):
            copied.user_labels["x"] = "2"  # type: ignore[index]
    assert pickle.loads(pickle.dumps(GroundingSpec())) == GroundingSpec()


def _search_in_a_child(search: DiscoveryEngineChunkSearch) -> list[tuple[str, str]]:
    try:
        return chunks(search.search(QUESTION))
    finally:
        search.connection.close()


def test_a_component_works_in_another_process(emulator):
    search = ROWS["DiscoveryEngineChunkSearch"].build(emulator)
    expected = chunks(search.search(QUESTION))
    spawn = multiprocessing.get_context("spawn")  # no state inherited: only the pickle
    with ProcessPoolExecutor(1, mp_context=spawn) as pool:
        assert pool.submit(_search_in_a_child, search).result(timeout=120) == expected
    assert chunks(search.search(QUESTION)) == expected
    search.connection.close()
