"""No credential, token or key appears in logs, reprs, errors or metadata."""

import json
import logging

import pytest
from google.auth.credentials import Credentials

from grounding_core import (
    DiscoveryEngineChunkSearch,
    DiscoveryEngineConnection,
    GroundingCheck,
    GroundingError,
)
from langchain_grounding import (
    DeveloperKnowledgeRetriever,
    DiscoveryEngineAnswer,
    DiscoveryEngineRetriever,
    GroundingCallbackHandler,
    GroundingChecker,
)

MARKER = "SECRET-MARKER-7f3a"


class MarkedCredentials(Credentials):
    """Credentials whose token, repr and attributes all carry the marker."""

    def __init__(self):
        super().__init__()
        self.token = f"ya29.{MARKER}"
        self.private_key = f"-----BEGIN {MARKER}-----"

    def refresh(self, request):
        self.token = f"ya29.{MARKER}"

    @property
    def expired(self):
        return False

    @property
    def valid(self):
        return True

    def __repr__(self):
        return f"MarkedCredentials(token={self.token})"


def assert_clean(*texts):
    for text in texts:
        assert MARKER not in text


@pytest.fixture
def debug_logs(caplog):
    caplog.set_level(logging.DEBUG)
    return caplog


def test_components_with_credentials_leak_nothing(emulator, debug_logs):
    secrets = {"credentials": MarkedCredentials(), "client_options": {"api_key": MARKER}}
    retriever = DiscoveryEngineRetriever(project_id="p", data_store_id="test-docs", k=2, **secrets)
    components = [
        retriever,
        DeveloperKnowledgeRetriever(**secrets),
        GroundingChecker(project_id="p", **secrets),
        DiscoveryEngineAnswer(project_id="p", engine_id="test-app", **secrets),
    ]
    for component in components:
        assert_clean(
            repr(component),
            str(component),
            json.dumps(component.model_dump(mode="json"), default=str),
            repr(component.connection),
        )
        assert "credentials" not in component.model_dump()
        assert "client_options" not in component.model_dump()
    handler = GroundingCallbackHandler(project_id="p", **secrets)
    assert_clean(repr(handler.checker))


def test_calls_and_errors_against_an_emulator_leak_nothing(emulator, debug_logs):
    secrets = {"credentials": MarkedCredentials(), "emulator_host": emulator.address}
    retriever = DiscoveryEngineRetriever(project_id="p", data_store_id="test-docs", k=2, **secrets)
    docs = retriever.invoke("lighthouse keeper number 131")
    checker = GroundingChecker(project_id="p", **secrets)
    out = checker.invoke({"answer": docs[0].page_content[:60] + ".", "documents": docs})
    missing = DiscoveryEngineRetriever(project_id="p", data_store_id="missing", **secrets)
    with pytest.raises(GroundingError) as info:
        missing.invoke("x")
    assert_clean(
        debug_logs.text,
        json.dumps([d.metadata for d in docs]),
        json.dumps(out["grounding"].metadata()),
        str(info.value),
        repr(info.value.__cause__),
    )


def test_errors_reaching_google_with_credentials_leak_nothing(debug_logs):
    # An endpoint that refuses connections: the call fails after sending nothing useful.
    connection = DiscoveryEngineConnection(
        project_id="p",
        credentials=MarkedCredentials(),
        client_options={"api_endpoint": "127.0.0.1:1"},
        timeout=2,
        retry=None,
    )
    errors = []
    for call in (
        lambda: DiscoveryEngineChunkSearch(connection, data_store_id="d").search("q"),
        lambda: GroundingCheck(connection).check("a.", ["b"], ["b"]),
    ):
        with pytest.raises(GroundingError) as info:
            call()
        errors.append(info.value)
    connection.close()
    for error in errors:
        assert_clean(str(error), repr(error), repr(error.__cause__), str(error.__cause__))
    assert_clean(debug_logs.text, repr(connection))
