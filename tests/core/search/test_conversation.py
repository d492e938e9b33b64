"""``grounding_core.search.conversation``: Google's multi-turn search (ConverseConversation).

- ``DiscoveryEngineConversation``'s settings (refused before any call, naming the field), the
  request it sends (the conversation's name in each target form, the serving config, filter
  and boost spec, the query checked);
- ``converse``/``aconverse`` against the session emulator over gRPC: ``"-"`` makes a new
  conversation, its id carries on with it (the second turn is searched with the first in mind),
  the results as chunks with the chosen text, the reply's summary, Google's errors translated;
  langchain-google-community's boost spec (condition ``"true"``, a freshness
  ``boost_control_spec``) accepted.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from google.cloud import discoveryengine_v1 as de

from grounding_core import (
    ConfigurationError,
    DiscoveryEngineConnection,
    InputError,
    NotFoundError,
)
from grounding_core.search.conversation import (
    NEW_CONVERSATION,
    ConversationTurn,
    DiscoveryEngineConversation,
)
from tests.core.emulated import PROJECT, result_of
from tests.emulator.test_boost_control import LANGCHAIN_BOOST_SPEC

DATA_STORE = f"projects/{PROJECT}/locations/global/collections/default_collection/dataStores"
QUERY = "lighthouse keeper"


@pytest.fixture
def connection(emulator: Any) -> Iterator[DiscoveryEngineConnection]:
    connection = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=emulator.address)
    yield connection
    connection.close()


def conversation(connection: DiscoveryEngineConnection, **options: Any) -> Any:
    return DiscoveryEngineConversation(connection, data_store_id="test-docs", **options)


# -- settings and the request -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "name"),
    [
        ({"data_store_id": "test-docs"}, f"{DATA_STORE}/test-docs/conversations/-"),
        (
            {"data_store_id": "test-docs", "collection": None},
            f"projects/{PROJECT}/locations/global/dataStores/test-docs/conversations/-",
        ),
        (
            {"engine_id": "test-app"},
            f"projects/{PROJECT}/locations/global/collections/default_collection/engines/"
            "test-app/conversations/-",
        ),
    ],
    ids=["data-store", "collection-less", "engine"],
)
def test_the_conversation_is_named_under_its_data_store_or_engine(connection, target, name):
    built = DiscoveryEngineConversation(connection, **target)
    assert built.name == name
    assert built.conversation_id == NEW_CONVERSATION == "-"
    assert repr(built) == (
        f"DiscoveryEngineConversation(name={name!r}, endpoint={connection.endpoint!r})"
    )


def test_the_request_carries_the_turn_and_the_search_options(connection):
    built = conversation(
        connection,
        conversation_id="c-1",
        filter='group: ANY("odd")',
        boost_spec=LANGCHAIN_BOOST_SPEC,
    )
    request = built.request("Wie geht's? 東京")
    assert request.name == f"{DATA_STORE}/test-docs/conversations/c-1"
    assert request.query.input == "Wie geht's? 東京"
    assert request.serving_config == f"{DATA_STORE}/test-docs/servingConfigs/default_search"
    assert request.filter == 'group: ANY("odd")'
    assert (
        de.SearchRequest.BoostSpec.to_dict(request.boost_spec)["condition_boost_specs"][0][
            "condition"
        ]
        == "true"
    )
    assert not conversation(connection).request(QUERY).boost_spec.condition_boost_specs


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"conversation_id": ""}, "conversation_id"),
        ({"conversation_id": " "}, "conversation_id"),
        ({"conversation_id": "a/b"}, "conversation_id"),
        ({"conversation_id": 3}, "conversation_id"),
        ({"filter": 3}, "filter"),
        ({"document_text": "answers"}, "document_text"),
        ({"boost_spec": {"condition_boost_specs": [{"nope": 1}]}}, "boost_spec"),
        ({"boost_spec": "lang"}, "boost_spec"),
    ],
)
def test_a_bad_setting_is_refused_naming_it(connection, options, field):
    with pytest.raises(ConfigurationError) as info:
        conversation(connection, **options)
    assert info.value.field == field


@pytest.mark.parametrize("query", ["", "   "])
def test_an_empty_query_is_refused_before_any_call(connection, query):
    with pytest.raises(InputError, match=r"^query is empty") as info:
        conversation(connection).converse(query)
    assert info.value.field == "query"


# -- turns on the emulator ------------------------------------------------------------------------


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
async def test_a_new_conversation_and_its_next_turn(connection, asynchronous):
    first = conversation(connection)
    turn = await result_of(first.aconverse if asynchronous else first.converse, QUERY)
    assert isinstance(turn, ConversationTurn)
    parent, _, conversation_id = turn.conversation.rpartition("/conversations/")
    assert parent == f"{DATA_STORE}/test-docs"
    assert conversation_id not in ("", "-")
    assert turn.chunks
    assert turn.summary
    for chunk in turn.chunks:
        answers = chunk.derived_struct_data["extractive_answers"]
        assert chunk.content == "\n\n".join(a["content"] for a in answers if a["content"])
        assert chunk.document_name.startswith(f"{DATA_STORE}/test-docs/branches/")
    # Its id carries on with it: the follow-up alone says too little, the first turn says what.
    carried = conversation(connection, conversation_id=conversation_id)
    follow_up = await result_of(
        carried.aconverse if asynchronous else carried.converse, "and number 131?"
    )
    assert follow_up.conversation == turn.conversation
    assert "lighthouse keeper number 131" in follow_up.chunks[0].content
    fresh = conversation(connection).converse("and number 131?")
    assert fresh.conversation != turn.conversation


def test_the_chosen_text_of_each_result(connection):
    snippets = conversation(connection, document_text="snippets").converse(QUERY)
    for chunk in snippets.chunks:
        (snippet,) = chunk.derived_struct_data["snippets"]
        assert chunk.content == snippet["snippet"].replace("<b>", "").replace("</b>", "")


def test_the_peers_boost_spec_is_accepted(connection):
    # langchain-google-community's integration test sends it to its multi-turn retriever.
    turn = conversation(connection, boost_spec=LANGCHAIN_BOOST_SPEC).converse(QUERY)
    assert turn.chunks


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
async def test_errors_name_the_conversation(connection, asynchronous):
    missing = DiscoveryEngineConversation(connection, data_store_id="no-such-store")
    with pytest.raises(NotFoundError, match=f"^ConverseConversation on {missing.name} failed"):
        await result_of(missing.aconverse if asynchronous else missing.converse, QUERY)
    unknown = conversation(connection, conversation_id="never-made")
    with pytest.raises(NotFoundError):
        unknown.converse(QUERY)
