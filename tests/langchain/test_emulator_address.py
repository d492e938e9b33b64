"""A stopped emulator from LangChain: the retriever fails within seconds with the core's one
clear error (sync and async), and an ``http://`` address reaches a running emulator."""

from __future__ import annotations

import socket
import time

import pytest
from google.api_core import exceptions as core_exceptions

from grounding_core import DEFAULT_RETRY, ServiceUnavailableError
from langchain_grounding import DiscoveryEngineRetriever, GroundingChecker

WELL_BEFORE_THE_RETRY_DEADLINE = DEFAULT_RETRY.deadline / 3


@pytest.fixture
def closed_port() -> str:
    with socket.socket() as sock:  # bound, then released: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"127.0.0.1:{port}"


def _check(excinfo: pytest.ExceptionInfo[ServiceUnavailableError], address: str) -> None:
    message = str(excinfo.value)
    assert message.startswith(f"no emulator answers on {address} (Search: ")
    assert "start one with `grounding serve`" in message
    assert isinstance(excinfo.value.__cause__, core_exceptions.ServiceUnavailable)


def test_the_retriever_fails_at_once(closed_port):
    retriever = DiscoveryEngineRetriever(data_store_id="python-docs", emulator_host=closed_port)
    started = time.monotonic()
    with pytest.raises(ServiceUnavailableError) as excinfo:
        retriever.invoke("with statement")
    _check(excinfo, closed_port)
    assert time.monotonic() - started < WELL_BEFORE_THE_RETRY_DEADLINE


async def test_the_async_retriever_fails_at_once(closed_port):
    retriever = DiscoveryEngineRetriever(
        data_store_id="python-docs", emulator_host=f"grpc://{closed_port}"
    )
    started = time.monotonic()
    with pytest.raises(ServiceUnavailableError) as excinfo:
        await retriever.ainvoke("with statement")
    _check(excinfo, closed_port)
    assert time.monotonic() - started < WELL_BEFORE_THE_RETRY_DEADLINE


def test_an_http_address_reaches_the_emulator(emulator):
    retriever = DiscoveryEngineRetriever(
        data_store_id="python-docs", k=2, emulator_host=f"http://{emulator.address}/"
    )
    assert len(retriever.invoke("with statement")) == 2
    checker = GroundingChecker(emulator_host=f"http://{emulator.address}")
    assert checker.connection.endpoint == emulator.address
