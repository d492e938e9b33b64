"""Conversations (Google's "multi-turn search") through Google's clients, sync and async:
CreateConversation, ConverseConversation, GetConversation, ListConversations,
UpdateConversation, DeleteConversation."""

from __future__ import annotations

import datetime as _dt
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de
from google.cloud import discoveryengine_v1beta
from google.protobuf import field_mask_pb2

from grounding_emulator.answer.rephrase import rephrase
from tests.emulator.conftest import ONCE, assert_error, versioned_client

BASE = "projects/test-project/locations/global"
BARE_DATA_STORE = f"{BASE}/dataStores/test-docs"
DATA_STORE = f"{BASE}/collections/default_collection/dataStores/test-docs"
TEST_ENGINE = f"{BASE}/collections/default_collection/engines/test-app"
PYTHON_ENGINE = f"{BASE}/collections/default_collection/engines/python-docs-app"
DOCUMENTS = f"{DATA_STORE}/branches/default_branch/documents"
FIRST = "Where do rockets launch from?"
FOLLOW_UP = "and how often?"
ROCKETS = "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month."
CREW = "The astronaut crew 👩‍🚀👨‍🚀 trains for years before a flight."
SUMMARY_SPEC = {"summary_result_count": 3, "include_citations": True}


@pytest.fixture(scope="module")
def conversations(emulator):
    """``ConversationalSearchServiceClient`` on the emulator."""
    client = versioned_client(de, "ConversationalSearchServiceClient", emulator.address)
    yield client
    client.transport.close()


def user() -> str:
    """A user pseudo id of its own, so that listings see only this test's conversations."""
    return f"user-{uuid.uuid4().hex[:12]}"


def converse(client, name, text, **fields):
    request = de.ConverseConversationRequest(name=name, query={"input": text}, **fields)
    return client.converse_conversation(request=request, **ONCE)


def utf8_span(text: str, start: int, end: int) -> str:
    return text.encode("utf-8")[start:end].decode("utf-8")


def test_create_then_converse_two_turns(conversations):
    pseudo = user()
    created = conversations.create_conversation(
        parent=BARE_DATA_STORE, conversation={"user_pseudo_id": pseudo}, **ONCE
    )
    # Conversation.name: "Fully qualified name projects/{project}/locations/global/
    # collections/{collection}/dataStore/*/conversations/*", whatever form the parent had.
    assert created.name.startswith(f"{DATA_STORE}/conversations/")
    conversation_id = created.name.rsplit("/", 1)[1]
    assert conversation_id.isdigit()
    assert len(conversation_id) == 19
    assert created.state == de.Conversation.State.IN_PROGRESS
    assert created.user_pseudo_id == pseudo
    assert list(created.messages) == []
    now = _dt.datetime.now(_dt.timezone.utc)
    assert abs((now - created.start_time).total_seconds()) < 60
    assert "end_time" not in created

    serving_config = f"{BARE_DATA_STORE}/servingConfigs/default_config"
    first = converse(
        conversations, created.name, FIRST, serving_config=serving_config, summary_spec=SUMMARY_SPEC
    )
    summary = first.reply.summary
    assert summary.summary_text == f"{ROCKETS[:-1]} [1]. {CREW[:-1]} [1]."
    metadata = summary.summary_with_metadata
    assert metadata.summary == f"{ROCKETS} {CREW}"
    assert [
        utf8_span(metadata.summary, c.start_index, c.end_index)
        for c in metadata.citation_metadata.citations
    ] == [ROCKETS, CREW]
    assert [
        [s.reference_index for s in c.sources] for c in metadata.citation_metadata.citations
    ] == [[0], [0]]
    [reference] = metadata.references
    assert (reference.title, reference.document, reference.uri) == (
        "Rockets 🚀",
        f"{DOCUMENTS}/emoji",
        "https://example.com/rockets",
    )
    assert [c.content for c in reference.chunk_contents] == [f"Rockets 🚀\n\n{ROCKETS} {CREW}"]
    assert list(summary.summary_skipped_reasons) == []

    [result] = first.search_results
    assert result.id == "emoji"
    assert result.document.name == f"{DOCUMENTS}/emoji"
    assert result.document.id == "emoji"
    assert dict(result.document.struct_data) == {"lang": "en", "script": "emoji"}
    derived = result.document.derived_struct_data
    assert derived["link"] == "https://example.com/rockets"
    assert derived["title"] == "Rockets 🚀"
    assert [dict(s) for s in derived["snippets"]] == [
        {
            # Hit highlighting, as Google's "Get snippets and extracted content" shows it.
            "snippet": "<b>Rockets</b> 🚀 <b>Rockets</b> 🚀 <b>launch from</b> Cape Canaveral 🇺🇸 "
            f"every month. {CREW}",
            "snippet_status": "SUCCESS",
        }
    ]
    assert [dict(a) for a in derived["extractive_answers"]] == [
        {"content": ROCKETS, "pageNumber": ""}
    ]
    assert "extractive_segments" not in derived
    assert result.rank_signals.default_rank == 1.0
    assert result.rank_signals.keyword_similarity_score > 0

    stored = first.conversation
    assert stored.name == created.name
    assert (stored.state, stored.user_pseudo_id) == (created.state, pseudo)
    assert stored.start_time == created.start_time
    assert [m.WhichOneof("message") for m in de.Conversation.pb(stored).messages] == [
        "user_input",
        "reply",
    ]
    assert stored.messages[0].user_input.input == FIRST
    assert stored.messages[1].reply.summary == summary
    assert stored.messages[0].create_time == stored.messages[1].create_time
    assert stored.messages[0].create_time.timestamp() >= created.start_time.timestamp()

    # The follow-up is elliptical: alone it finds nothing about rockets; in the conversation
    # it is rephrased with the first question and finds the first turn's subject.
    second = converse(conversations, created.name, FOLLOW_UP, summary_spec=SUMMARY_SPEC)
    assert second.search_results[0].id == "emoji"
    assert second.reply.summary.summary_text.startswith(f"{ROCKETS[:-1]} [1].")
    assert [m.user_input.input for m in second.conversation.messages[::2]] == [FIRST, FOLLOW_UP]
    assert second.conversation.messages[3].reply.summary == second.reply.summary
    alone = converse(conversations, f"{BARE_DATA_STORE}/conversations/-", FOLLOW_UP)
    assert "emoji" not in [r.id for r in alone.search_results]
    assert "Cape Canaveral" not in alone.reply.summary.summary_text

    fetched = conversations.get_conversation(name=created.name, **ONCE)
    assert fetched == second.conversation
    # The collection-less form names the same data store, so the same conversation.
    same = created.name.replace(DATA_STORE, BARE_DATA_STORE)
    assert same != created.name
    assert conversations.get_conversation(name=same, **ONCE) == fetched


async def test_two_turns_async(emulator):
    client = versioned_client(
        de, "ConversationalSearchServiceAsyncClient", emulator.address, asynchronous=True
    )
    first = await client.converse_conversation(
        request={
            "name": f"{PYTHON_ENGINE}/conversations/-",
            "query": {"input": "What is the with statement?"},
            "conversation": {"user_pseudo_id": "async-user"},
        },
        **ONCE,
    )
    name = first.conversation.name
    assert name.startswith(f"{PYTHON_ENGINE}/conversations/")
    assert first.conversation.user_pseudo_id == "async-user"
    assert first.search_results[0].id == "with"
    second = await client.converse_conversation(
        request={"name": name, "query": {"input": "and how does it handle exceptions?"}}, **ONCE
    )
    assert '"with" statement' in second.reply.summary.summary_text
    assert "with" in [r.id for r in second.search_results]
    fetched = await client.get_conversation(name=name, **ONCE)
    assert [m.user_input.input for m in fetched.messages[::2]] == [
        "What is the with statement?",
        "and how does it handle exceptions?",
    ]
    await client.delete_conversation(name=name, **ONCE)
    with pytest.raises(core_exceptions.NotFound):
        await client.get_conversation(name=name, **ONCE)
    await client.transport.close()


def test_auto_session_takes_the_requests_conversation(conversations):
    pseudo = user()
    earlier = {"user_input": {"input": FIRST}}
    response = converse(
        conversations,
        f"{TEST_ENGINE}/conversations/-",
        FOLLOW_UP,
        # The name is ignored ("we automatically assign new name"); the earlier message counts.
        conversation={"name": "ignored", "user_pseudo_id": pseudo, "messages": [earlier]},
    )
    conversation = response.conversation
    assert conversation.name.startswith(f"{TEST_ENGINE}/conversations/")
    assert conversation.user_pseudo_id == pseudo
    assert [m.WhichOneof("message") for m in de.Conversation.pb(conversation).messages] == [
        "user_input",
        "user_input",
        "reply",
    ]
    assert [m.user_input.input for m in conversation.messages[:2]] == [FIRST, FOLLOW_UP]
    assert response.search_results[0].id == "emoji"
    listed = conversations.list_conversations(
        request={"parent": TEST_ENGINE, "filter": f"user_pseudo_id = {pseudo}"}, **ONCE
    )
    assert [c.name for c in listed] == [conversation.name]


def test_converse_filter_boost_and_summary_spec(conversations):
    name = f"{DATA_STORE}/conversations/-"
    japanese = converse(conversations, name, "東京", filter='lang: ANY("ja")')
    assert [r.id for r in japanese.search_results] == ["cjk-ja"]
    none = converse(conversations, name, "rockets", filter='lang: ANY("ja")')
    assert list(none.search_results) == []
    assert list(none.reply.summary.summary_skipped_reasons) == [
        de.SearchResponse.Summary.SummarySkippedReason.OUT_OF_DOMAIN_QUERY_IGNORED
    ]
    boost_spec = {"condition_boost_specs": [{"condition": 'group: ANY("odd")', "boost": 1.0}]}
    unboosted = converse(conversations, name, "lighthouse keeper")
    boosted = converse(conversations, name, "lighthouse keeper", boost_spec=boost_spec)
    assert len(unboosted.search_results) == len(boosted.search_results) == 10
    assert unboosted.search_results[0].document.struct_data["group"] == "even"
    assert "boosting_factor" not in unboosted.search_results[0].rank_signals
    assert {r.document.struct_data["group"] for r in boosted.search_results} == {"odd"}
    assert boosted.search_results[0].rank_signals.boosting_factor == 2.0  # 1 + boost
    plain = converse(conversations, name, FIRST, summary_spec={"include_citations": False})
    assert plain.reply.summary.summary_text == f"{ROCKETS} {CREW}"
    skipped = converse(
        conversations, name, "hello", summary_spec={"ignore_non_summary_seeking_query": True}
    )
    assert list(skipped.reply.summary.summary_skipped_reasons) == [
        de.SearchResponse.Summary.SummarySkippedReason.NON_SUMMARY_SEEKING_QUERY_IGNORED
    ]


def test_converse_errors(conversations):
    created = conversations.create_conversation(parent=DATA_STORE, conversation={}, **ONCE)
    cases = [
        (
            {"name": created.name, "query": {"input": "  "}},
            core_exceptions.InvalidArgument,
            ["query.input is required"],
        ),
        (
            {"name": created.name, "query": {"input": FIRST}, "filter": "colour = red"},
            core_exceptions.InvalidArgument,
            ["filter"],
        ),
        (
            {
                "name": created.name,
                "query": {"input": FIRST},
                "serving_config": f"{TEST_ENGINE}/servingConfigs/default_search",
            },
            core_exceptions.InvalidArgument,
            ["serving_config", "is not a serving config of", "leave it unset"],
        ),
        (
            {
                "name": created.name,
                "query": {"input": FIRST},
                "summary_spec": {"summary_result_count": 11},
            },
            core_exceptions.InvalidArgument,
            ["summary_spec.summary_result_count must be between 0 and 10"],
        ),
        (
            {"name": created.name, "query": {"input": FIRST}, "user_labels": {"Bad": "x"}},
            core_exceptions.InvalidArgument,
            ["user_labels", "'Bad'"],
        ),
        (
            {"name": f"{DATA_STORE}/sessions/-", "query": {"input": FIRST}},
            core_exceptions.InvalidArgument,
            ["is not a conversation name", "conversations/-"],
        ),
        (
            {"name": f"{BASE}/dataStores/nowhere/conversations/-", "query": {"input": FIRST}},
            core_exceptions.NotFound,
            ["'nowhere'"],
        ),
        (
            {"name": f"{DATA_STORE}/conversations/1234567890123456789", "query": {"input": FIRST}},
            core_exceptions.NotFound,
            ["conversations/1234567890123456789", "not found"],
        ),
    ]
    for request, error, fragments in cases:
        with pytest.raises(error) as excinfo:
            conversations.converse_conversation(request=request, **ONCE)
        assert_error(excinfo, error, *fragments)
    # A failed turn leaves the conversation as it was.
    assert list(conversations.get_conversation(name=created.name, **ONCE).messages) == []


def test_unknown_conversations_and_parents_are_not_found(conversations):
    made_up = f"{DATA_STORE}/conversations/1234567890123456789"
    calls = [
        lambda: conversations.get_conversation(name=made_up, **ONCE),
        lambda: conversations.delete_conversation(name=made_up, **ONCE),
        lambda: conversations.update_conversation(
            conversation={"name": made_up, "user_pseudo_id": "u"}, **ONCE
        ),
    ]
    for call in calls:
        with pytest.raises(core_exceptions.NotFound) as excinfo:
            call()
        assert_error(excinfo, core_exceptions.NotFound, made_up, "not found")
    nowhere = f"{BASE}/dataStores/nowhere"
    with pytest.raises(core_exceptions.NotFound) as excinfo:
        conversations.create_conversation(parent=nowhere, conversation={}, **ONCE)
    assert_error(excinfo, core_exceptions.NotFound, "'nowhere'")
    with pytest.raises(core_exceptions.NotFound) as excinfo:
        list(conversations.list_conversations(parent=nowhere, **ONCE))
    assert_error(excinfo, core_exceptions.NotFound, "'nowhere'")
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        conversations.get_conversation(name=f"{DATA_STORE}/conversations/-", **ONCE)
    assert_error(excinfo, core_exceptions.InvalidArgument, "is not a conversation name")
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        conversations.create_conversation(
            parent=f"{BASE}/engines/test-app", conversation={}, **ONCE
        )
    assert_error(excinfo, core_exceptions.InvalidArgument, "engines live in a collection")


@pytest.mark.parametrize(
    ("parent", "canonical"),
    [
        (DATA_STORE, DATA_STORE),
        (BARE_DATA_STORE, DATA_STORE),  # what Google's multi_turn_search_sample.py sends
        (TEST_ENGINE, TEST_ENGINE),
    ],
)
def test_a_conversation_is_named_in_its_collection(conversations, parent, canonical):
    """``Conversation.name``: "Fully qualified name ``projects/{project}/locations/global/
    collections/{collection}/dataStore/*/conversations/*``": created, conversed with, listed
    and read back by either form of its parent."""
    created = conversations.create_conversation(parent=parent, conversation={}, **ONCE)
    assert created.name == f"{canonical}/conversations/{created.name.rsplit('/', 1)[1]}"
    turn = converse(conversations, created.name, FIRST)
    assert turn.conversation.name == created.name
    new = converse(conversations, f"{parent}/conversations/-", FIRST)
    assert new.conversation.name.startswith(f"{canonical}/conversations/")
    listed = {c.name for c in conversations.list_conversations(parent=parent, **ONCE)}
    assert {created.name, new.conversation.name} <= listed
    assert all(name.startswith(f"{canonical}/conversations/") for name in listed)
    bare = created.name.replace(DATA_STORE, BARE_DATA_STORE)
    assert conversations.get_conversation(name=bare, **ONCE).name == created.name


def test_create_with_a_chosen_name_and_a_state(conversations):
    name = f"{DATA_STORE}/conversations/chosen-{uuid.uuid4().hex[:8]}"
    done = conversations.create_conversation(
        parent=DATA_STORE,
        conversation={
            "name": name,
            "state": "COMPLETED",
            "messages": [{"user_input": {"input": FIRST, "context": {"active_document": "d"}}}],
        },
        **ONCE,
    )
    assert done.name == name
    assert done.state == de.Conversation.State.COMPLETED
    assert done.end_time == done.start_time
    [message] = done.messages
    assert message.user_input.input == FIRST
    assert message.user_input.context.active_document == "d"
    assert message.create_time == done.start_time
    with pytest.raises(core_exceptions.AlreadyExists) as excinfo:
        conversations.create_conversation(parent=DATA_STORE, conversation={"name": name}, **ONCE)
    assert_error(excinfo, core_exceptions.AlreadyExists, name, "already exists")
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        conversations.create_conversation(parent=TEST_ENGINE, conversation={"name": name}, **ONCE)
    assert_error(excinfo, core_exceptions.InvalidArgument, "conversation.name", "not under parent")
    # A completed conversation still takes turns (Google does not say otherwise) and stays so.
    turn = converse(conversations, name, FOLLOW_UP)
    assert turn.search_results[0].id == "emoji"
    assert turn.conversation.state == de.Conversation.State.COMPLETED
    assert turn.conversation.end_time == done.end_time


def test_list_conversations_pages(conversations):
    pseudo = user()
    names = [
        conversations.create_conversation(
            parent=BARE_DATA_STORE, conversation={"user_pseudo_id": pseudo}, **ONCE
        ).name
        for _ in range(5)
    ]
    request = {"parent": BARE_DATA_STORE, "filter": f'user_pseudo_id = "{pseudo}"', "page_size": 2}
    pages = list(conversations.list_conversations(request=request, **ONCE).pages)
    assert [[c.name for c in p.conversations] for p in pages] == [names[:2], names[2:4], names[4:]]
    assert [bool(p.next_page_token) for p in pages] == [True, True, False]
    assert [c.name for c in conversations.list_conversations(request=request, **ONCE)] == names
    everything = conversations.list_conversations(request={**request, "page_size": 5000}, **ONCE)
    assert [c.name for c in next(iter(everything.pages)).conversations] == names
    same = conversations.list_conversations(request={**request, "parent": DATA_STORE}, **ONCE)
    assert [c.name for c in same] == names
    other = conversations.list_conversations(request={**request, "parent": TEST_ENGINE}, **ONCE)
    assert list(other) == []

    token = pages[0].next_page_token
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        conversations.list_conversations(
            request={**request, "order_by": "create_time desc", "page_token": token}, **ONCE
        )
    assert_error(excinfo, core_exceptions.InvalidArgument, "page_token does not belong")
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        conversations.list_conversations(request={**request, "page_size": -1}, **ONCE)
    assert_error(excinfo, core_exceptions.InvalidArgument, "page_size must be >= 0, got -1")


def test_list_conversations_filter_and_order_by(conversations):
    pseudo = user()

    def make(**fields):
        conversation = {"user_pseudo_id": pseudo, **fields}
        return conversations.create_conversation(
            parent=DATA_STORE, conversation=conversation, **ONCE
        )

    first, second, third = make(), make(state="COMPLETED"), make()

    def listed(filter_, order_by=""):
        request = {
            "parent": DATA_STORE,
            "filter": f"user_pseudo_id = {pseudo} AND ({filter_})",
            "order_by": order_by,
        }
        return [c.name for c in conversations.list_conversations(request=request, **ONCE)]

    assert listed("state = IN_PROGRESS") == [first.name, third.name]
    assert listed('state != "IN_PROGRESS"') == [second.name]
    assert listed("NOT state = COMPLETED OR state = COMPLETED") == [
        first.name,
        second.name,
        third.name,
    ]
    assert listed("user_pseudo_id = someone-else") == []
    assert listed("state = IN_PROGRESS", "create_time desc") == [third.name, first.name]
    by_name = sorted([first.name, second.name, third.name], reverse=True)
    assert listed("state = IN_PROGRESS OR state = COMPLETED", "conversation_name desc") == by_name
    converse(conversations, first.name, FIRST)
    assert listed("state = IN_PROGRESS", "update_time desc") == [first.name, third.name]

    for filter_, fragment in [
        ("colour = red", "'colour' is not a field to filter conversations by"),
        ("state > IN_PROGRESS", "state takes = or !="),
        ("state = OPEN", "state takes STATE_UNSPECIFIED, IN_PROGRESS, COMPLETED"),
        ("user_pseudo_id =", "is malformed"),
    ]:
        with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
            conversations.list_conversations(
                request={"parent": DATA_STORE, "filter": filter_}, **ONCE
            )
        assert_error(excinfo, core_exceptions.InvalidArgument, "filter:", fragment)
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        conversations.list_conversations(
            request={"parent": DATA_STORE, "order_by": "session_name"}, **ONCE
        )
    assert_error(
        excinfo,
        core_exceptions.InvalidArgument,
        "order_by: 'session_name' is not one of update_time, create_time, conversation_name",
    )


def test_update_conversation_with_and_without_a_mask(conversations):
    created = conversations.create_conversation(
        parent=DATA_STORE, conversation={"user_pseudo_id": "before"}, **ONCE
    )
    turn = converse(conversations, created.name, FIRST)
    completed = conversations.update_conversation(
        conversation={"name": created.name, "state": "COMPLETED", "user_pseudo_id": "ignored"},
        update_mask=field_mask_pb2.FieldMask(paths=["state"]),
        **ONCE,
    )
    assert completed.state == de.Conversation.State.COMPLETED
    assert completed.user_pseudo_id == "before"
    assert list(completed.messages) == list(turn.conversation.messages)
    assert completed.start_time == created.start_time
    assert completed.end_time.timestamp() >= completed.start_time.timestamp()
    # An empty mask updates every supported field: the messages sent back keep their times.
    kept = turn.conversation.messages[0]
    replaced = conversations.update_conversation(
        conversation={"name": created.name, "state": "IN_PROGRESS", "messages": [kept]}, **ONCE
    )
    assert (replaced.state, replaced.user_pseudo_id) == (de.Conversation.State.IN_PROGRESS, "")
    assert list(replaced.messages) == [kept]
    assert "end_time" not in replaced
    assert conversations.get_conversation(name=created.name, **ONCE) == replaced
    # The remaining user input is what the next turn is rephrased with.
    follow_up = converse(conversations, created.name, FOLLOW_UP)
    assert follow_up.search_results[0].id == "emoji"
    for path, fragment in [
        ("name", "name cannot be updated"),
        ("start_time", "start_time cannot be updated"),
        ("colour", "'colour' is not a Conversation field that can be updated"),
    ]:
        with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
            conversations.update_conversation(
                conversation={"name": created.name},
                update_mask=field_mask_pb2.FieldMask(paths=[path]),
                **ONCE,
            )
        assert_error(excinfo, core_exceptions.InvalidArgument, "update_mask.paths", fragment)


def test_delete_conversation(conversations):
    created = conversations.create_conversation(parent=TEST_ENGINE, conversation={}, **ONCE)
    conversations.delete_conversation(name=created.name, **ONCE)
    for call in (conversations.get_conversation, conversations.delete_conversation):
        with pytest.raises(core_exceptions.NotFound) as excinfo:
            call(name=created.name, **ONCE)
        assert_error(excinfo, core_exceptions.NotFound, created.name)
    with pytest.raises(core_exceptions.NotFound):
        converse(conversations, created.name, FIRST)


def test_concurrent_turns_are_all_kept(conversations):
    created = conversations.create_conversation(parent=DATA_STORE, conversation={}, **ONCE)
    questions = [f"rockets question {n}" for n in range(8)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(lambda q: converse(conversations, created.name, q), questions))
    stored = conversations.get_conversation(name=created.name, **ONCE)
    assert len(stored.messages) == 16
    assert sorted(m.user_input.input for m in stored.messages[::2]) == questions
    assert all(
        m.WhichOneof("message") == "reply" for m in de.Conversation.pb(stored).messages[1::2]
    )


def test_conversations_are_served_under_v1beta(emulator):
    client = versioned_client(
        discoveryengine_v1beta, "ConversationalSearchServiceClient", emulator.address
    )
    response = client.converse_conversation(
        request={"name": f"{DATA_STORE}/conversations/-", "query": {"input": FIRST}}, **ONCE
    )
    assert response.search_results[0].id == "emoji"
    assert "Cape Canaveral" in response.reply.summary.summary_text
    assert client.get_conversation(name=response.conversation.name, **ONCE).name == (
        response.conversation.name
    )
    client.transport.close()


def test_rephrasing_draws_on_up_to_five_earlier_inputs():
    earlier = ["alpha?", "beta?", "gamma?", "delta?", "epsilon?", "zeta?"]
    assert rephrase("and?", earlier[:3], 5) == "and? gamma beta alpha"
    assert rephrase("and?", earlier[:4], 5) == "and? delta gamma beta alpha"
    assert rephrase("and?", earlier, 5) == "and? zeta epsilon delta gamma beta"
