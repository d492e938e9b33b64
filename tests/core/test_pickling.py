"""Every core component, connection and client set survives ``pickle`` (default protocol and 5),
``copy.copy`` and ``copy.deepcopy``: same settings, working calls (sync and async) on the
emulator, its own clients built at its first call (nothing shared with the original, closing one
leaves the other alone). A shallow copy shares the connection, as ``dataclasses.replace`` does.
Credentials that cannot be pickled give an error naming ``credentials``."""

from __future__ import annotations

import asyncio
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

import grounding_core
from grounding_core import (
    CallOptions,
    ConfigurationError,
    DeveloperKnowledgeAnswerQuery,
    DeveloperKnowledgeChunkSearch,
    DeveloperKnowledgeClients,
    DeveloperKnowledgeConnection,
    DiscoveryEngineAnswerQuery,
    DiscoveryEngineChunkSearch,
    DiscoveryEngineClients,
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
)

PROJECT = "test-project"
QUESTION = "lighthouse keeper number 131"
ANSWER = "Section 1 of document 13 talks about the lighthouse keeper number 131."
SOURCES = [GroundingSource(ANSWER + " It describes the lamp.", {"title": "Paging document 13"})]
RETRY = RetryPolicy(initial=0.01, maximum=0.02, deadline=9.0)
OPTIONS = CallOptions(timeout=5.0, retry=None)


def de_connection(emulator: Any) -> DiscoveryEngineConnection:
    # Not the defaults: a copy must keep each setting, not fall back to one.
    return DiscoveryEngineConnection.create(
        project_id=PROJECT,
        emulator_host=emulator.address,
        timeout=7.5,
        retry=RETRY,
        credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]
        client_options={"quota_project_id": "billing"},
    )


def dk_connection(emulator: Any) -> DeveloperKnowledgeConnection:
    return DeveloperKnowledgeConnection.create(emulator_host=emulator.address, timeout=6.5)


def chunks(found: list[Any]) -> list[tuple[str, str]]:
    return [(c.name, c.content) for c in found]


async def _asearch(search: Any) -> Any:
    return chunks(await search.asearch(QUESTION, k=3))


def answered(answer: Any) -> Any:
    """An answer without its resource name (a new one each call)."""
    return dataclasses.replace(answer, name="")


async def _aanswer(answering: Any) -> Any:
    return answered(await answering.aanswer(QUESTION))


async def _acheck(check: GroundingCheck) -> Any:
    return (await check.acheck(ANSWER, SOURCES, SOURCES)).result


async def _aconnection_search(connection: DiscoveryEngineConnection) -> Any:
    return await _asearch(DiscoveryEngineChunkSearch.create(connection, data_store_id="test-docs"))


async def _adk_connection_search(connection: DeveloperKnowledgeConnection) -> Any:
    return await _asearch(DeveloperKnowledgeChunkSearch.create(connection))


def _over_clients(clients: Any) -> Any:
    """A search over bare clients (a connection of the tests' own)."""
    if isinstance(clients, DeveloperKnowledgeClients):
        return DeveloperKnowledgeChunkSearch.create(DeveloperKnowledgeConnection(clients, OPTIONS))
    connection = DiscoveryEngineConnection(clients, PROJECT, "global", OPTIONS)
    return DiscoveryEngineChunkSearch.create(connection, data_store_id="test-docs")


RANKED = [RankingRecord(content="Birds sing."), RankingRecord(title="Keeper", content=ANSWER)]


async def _arank(ranking: Any) -> Any:
    return await ranking.arank(QUESTION, RANKED)


ROWS: dict[str, Row] = {
    "DiscoveryEngineChunkSearch": Row(
        lambda e: DiscoveryEngineChunkSearch.create(
            de_connection(e), data_store_id="test-docs", k=3, filter='group: ANY("odd")'
        ),
        lambda s: chunks(s.search(QUESTION)),
        _asearch,
    ),
    "DeveloperKnowledgeChunkSearch": Row(
        lambda e: DeveloperKnowledgeChunkSearch.create(dk_connection(e), k=2),
        lambda s: chunks(s.search("python generators")),
        _asearch,
    ),
    "DiscoveryEngineAnswerQuery": Row(
        lambda e: DiscoveryEngineAnswerQuery.create(
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
        lambda e: DiscoveryEngineSearchSummary.create(
            de_connection(e), data_store_id="test-docs", result_count=2
        ),
        lambda a: answered(a.answer(QUESTION)),
        _aanswer,
    ),
    "DiscoveryEngineRanking": Row(
        lambda e: DiscoveryEngineRanking.create(
            de_connection(e), top_n=2, user_labels={"team": "docs"}
        ),
        lambda r: r.rank(QUESTION, RANKED),
        _arank,
    ),
    "GroundingCheck": Row(
        lambda e: GroundingCheck.create(
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
        lambda c: chunks(
            DiscoveryEngineChunkSearch.create(c, data_store_id="test-docs").search(QUESTION, k=3)
        ),
        _aconnection_search,
    ),
    "DeveloperKnowledgeConnection": Row(
        dk_connection,
        lambda c: chunks(DeveloperKnowledgeChunkSearch.create(c).search(QUESTION, k=3)),
        _adk_connection_search,
    ),
    "DiscoveryEngineClients": Row(
        lambda e: DiscoveryEngineClients(
            location="global",
            emulator_host=e.address,
            credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]
            client_options=ClientOptions(quota_project_id="billing"),
        ),
        lambda c: chunks(_over_clients(c).search(QUESTION, k=3)),
        lambda c: _asearch(_over_clients(c)),
    ),
    "DeveloperKnowledgeClients": Row(
        lambda e: DeveloperKnowledgeClients(emulator_host=e.address),
        lambda c: chunks(_over_clients(c).search(QUESTION, k=3)),
        lambda c: _asearch(_over_clients(c)),
    ),
}


CLIENTS = ["DiscoveryEngineClients", "DeveloperKnowledgeClients"]


def holds_a_connection(value: Any) -> bool:
    if value in (DiscoveryEngineClients, DeveloperKnowledgeClients):
        return True
    if not (inspect.isclass(value) and dataclasses.is_dataclass(value)):
        return False
    return any(f.name in ("connection", "clients") for f in dataclasses.fields(value))


def test_every_exported_component_has_a_row():
    exported = {n for n in grounding_core.__all__ if holds_a_connection(getattr(grounding_core, n))}
    assert exported == set(ROWS)


@pytest.mark.parametrize("how", list(WHOLE_COPIES))
@pytest.mark.parametrize("name", list(ROWS))
async def test_a_copy_keeps_the_settings_works_and_builds_its_own_clients(emulator, name, how):
    await check_a_whole_copy(ROWS[name], emulator, WHOLE_COPIES[how])


@pytest.mark.parametrize("name", sorted(set(ROWS) - set(CLIENTS)))
async def test_a_shallow_copy_shares_the_connection(emulator, name):
    await check_a_shallow_copy(ROWS[name], emulator)


@pytest.mark.parametrize("name", CLIENTS)
async def test_a_shallow_copy_of_clients_builds_its_own(emulator, name):
    await check_a_whole_copy(ROWS[name], emulator, copy.copy)


def test_the_pickle_holds_the_settings_not_what_was_built(emulator):
    search = ROWS["DiscoveryEngineChunkSearch"].build(emulator)
    search.search(QUESTION)
    state = search.connection.clients.__getstate__()
    assert state == {
        "location": "global",
        "emulator_host": emulator.address,
        "_credentials": search.connection.clients._credentials,
        "_client_options": search.connection.clients._client_options,
    }
    assert state["_client_options"].quota_project_id == "billing"
    copied = pickle.loads(pickle.dumps(search))
    clients = copied.connection.clients
    assert isinstance(clients._credentials, AnonymousCredentials)
    assert clients._client_options.quota_project_id == "billing"
    assert (clients.location, clients.emulator_host) == ("global", emulator.address)
    assert repr(clients) == repr(search.connection.clients)
    assert copied.connection.call_options == search.connection.call_options
    assert copied.connection.call_options.retry == RETRY
    search.connection.close()


def test_the_emulator_address_is_kept_not_read_again(emulator, monkeypatch):
    monkeypatch.setenv("DISCOVERYENGINE_EMULATOR_HOST", emulator.address)
    clients = DiscoveryEngineClients()
    monkeypatch.setenv("DISCOVERYENGINE_EMULATOR_HOST", "127.0.0.1:1")
    assert pickle.loads(pickle.dumps(clients)).emulator_host == emulator.address
    monkeypatch.delenv("DISCOVERYENGINE_EMULATOR_HOST")
    assert copy.deepcopy(clients).endpoint == emulator.address


async def test_async_clients_stay_with_their_event_loop(emulator):
    search = ROWS["DiscoveryEngineChunkSearch"].build(emulator)
    expected = chunks(await search.asearch(QUESTION))
    loop = asyncio.get_running_loop()
    assert loop in search.connection.clients._async
    for how, copy_ in WHOLE_COPIES.items():
        copied = copy_(search)
        assert len(copied.connection.clients._async) == 0, how
        assert chunks(await copied.asearch(QUESTION)) == expected
        mine = search.connection.clients._async[loop].channel
        assert copied.connection.clients._async[loop].channel is not mine
        await copied.connection.aclose()
        assert chunks(await search.asearch(QUESTION)) == expected  # its channel is open
        assert search.connection.clients._async[loop].channel is mine
    await search.connection.aclose()


def test_a_copy_made_while_a_client_is_built_gets_a_free_lock(emulator):
    clients = DiscoveryEngineClients(emulator_host=emulator.address)
    with clients._lock:  # another thread is building a client
        copied = pickle.loads(pickle.dumps(clients))
        deep = copy.deepcopy(clients)
    for other in (copied, deep):
        assert other._lock is not clients._lock
        assert other.search() is not None  # would wait for ever on a shared, held lock
        other.close()


@pytest.mark.parametrize("how", list(WHOLE_COPIES))
def test_credentials_that_cannot_be_pickled_are_named(emulator, how):
    search = DiscoveryEngineChunkSearch.create(
        DiscoveryEngineConnection.create(
            project_id=PROJECT, emulator_host=emulator.address, credentials=LockedCredentials()
        ),
        data_store_id="test-docs",
    )
    with pytest.raises(ConfigurationError) as caught:
        WHOLE_COPIES[how](search)
    message = str(caught.value)
    assert message.startswith("credentials (LockedCredentials) cannot be pickled (")
    assert "cannot pickle '_thread.lock' object" in message
    for fragment in (
        "give credentials that pickle",
        "Application Default Credentials",
        "build the component in the process that uses it",
    ):
        assert fragment in message
    assert isinstance(caught.value.__cause__, TypeError)


def test_the_whole_message_of_credentials_that_cannot_be_pickled():
    clients = DeveloperKnowledgeClients(credentials=LockedCredentials())
    with pytest.raises(ConfigurationError) as caught:
        clients.check_picklable()
    assert str(caught.value) == (
        "credentials (LockedCredentials) cannot be pickled (cannot pickle '_thread.lock' "
        "object): give credentials that pickle (google-auth's service account, user and "
        "Compute Engine credentials do), or leave credentials out so that each process finds "
        "Application Default Credentials, or build the component in the process that uses it"
    )


def test_client_options_that_cannot_be_pickled_are_named(emulator):
    options = ClientOptions(client_cert_source=lambda: (b"cert", b"key"))
    clients = DiscoveryEngineClients(client_options=options)
    with pytest.raises(ConfigurationError) as caught:
        pickle.dumps(clients)
    message = str(caught.value)
    assert message.startswith("client_options (ClientOptions) cannot be pickled (")
    assert message.endswith(
        "): give client_options that pickle (a client_cert_source must be a module-level "
        "function, not a lambda or a closure), or build the component in the process that uses it"
    )
    assert DiscoveryEngineClients().check_picklable() is None


def test_a_key_goes_into_the_pickle_never_into_the_repr():
    clients = DiscoveryEngineClients(client_options={"api_key": "s3cr3t-key"})
    assert "s3cr3t-key" not in repr(clients)
    assert b"s3cr3t-key" in pickle.dumps(clients)
    assert pickle.loads(pickle.dumps(clients))._client_options.api_key == "s3cr3t-key"


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


# A value per keyword-only argument of the errors (a new argument without one fails below).
ERROR_ARGUMENTS: dict[str, Any] = {"field": "k", "limit": 10, "result": ("a", 0.5), "cause": None}


@pytest.mark.parametrize(
    "error",
    [
        getattr(grounding_core, name)
        for name in grounding_core.__all__
        if inspect.isclass(getattr(grounding_core, name))
        and issubclass(getattr(grounding_core, name), grounding_core.GroundingError)
    ],
)
def test_every_error_pickles_with_its_attributes(error):
    keywords = {
        name: ERROR_ARGUMENTS[name]
        for name, parameter in inspect.signature(error.__init__).parameters.items()
        if parameter.kind is parameter.KEYWORD_ONLY
    }
    raised = error("a message", **keywords)
    for copy_ in (*WHOLE_COPIES.values(), copy.copy):
        copied = copy_(raised)
        assert type(copied) is error
        assert (copied.args, str(copied), vars(copied)) == (("a message",), "a message", keywords)


def test_a_service_error_pickles_without_the_grpc_call_of_its_cause(emulator):
    search = DiscoveryEngineChunkSearch.connect(
        project_id=PROJECT, data_store_id="missing", emulator_host=emulator.address, retry=None
    )
    with pytest.raises(grounding_core.NotFoundError) as caught:
        search.search(QUESTION)
    raised = caught.value
    assert raised.cause.response is not None  # the gRPC call, which cannot be pickled
    for copy_ in WHOLE_COPIES.values():
        copied = copy_(raised)
        assert type(copied) is grounding_core.NotFoundError
        assert str(copied) == str(raised)
        cause = copied.cause
        assert type(cause) is type(raised.cause)
        assert (cause.code, cause.message, cause.details) == (
            raised.cause.code,
            raised.cause.message,
            raised.cause.details,
        )
        assert (cause.response, cause.errors) == (None, [])
    assert raised.cause.response is not None  # the original keeps its cause whole
    assert len(raised.cause.errors) == 1
    search.connection.close()
