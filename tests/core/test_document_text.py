"""``ChunkSearchSpec.document_text``: which content of a documents-mode result becomes its text,
against the emulator's responses (Google's clients, a real gRPC channel), Unicode included."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from grounding_core import (
    ChunkSearchSpec,
    DiscoveryEngineClients,
    DiscoveryEngineTarget,
    InputError,
    SummarySpec,
    asearch_results,
    search_chunks,
    search_results,
)
from grounding_core.summaries import search_summary_request
from grounding_emulator import EmulatorServer
from tests.content_corpus import (
    CONTENT_DATA_STORE,
    MANUAL_STRUCT,
    QUERY,
    TITLE_ONLY_STRUCT,
    TOKYO_STRUCT,
    content_server_fixture,
)

TARGET = DiscoveryEngineTarget(project="test-project", data_store=CONTENT_DATA_STORE)
# Every content asked for: two answers and two segments a result, snippets (the default).
ALL_CONTENT: dict[str, object] = {
    "search_mode": "documents",
    "max_extractive_answer_count": 2,
    "max_extractive_segment_count": 2,
}
ORDER = ["keeper-manual", "title-only", "no-struct", "tokyo-tower"]

MANUAL_SEGMENTS = (
    "Keeper manual\n\nLamp\n\nThe keeper trims the lamp wick at dusk.",
    "Log\n\nThe keeper writes the logbook at dawn.",
)
TOKYO_SEGMENT = (
    "東京タワー 🗼\n\n東京タワーは一九五八年に完成しました。"
    "The keeper 👩‍🚀 waves a flag 🇯🇵 at night."
)
TOKYO_ANSWER = "The keeper 👩‍🚀 waves a flag 🇯🇵 at night."
TOKYO_SNIPPET = (
    "東京タワー 🗼 東京タワーは一九五八年に完成しました。The keeper 👩‍🚀 waves a flag 🇯🇵 at night."
)

# What each choice gives each document (in ORDER): the emulator's content, verbatim.
EXPECTED = {
    "extractive_segments": [
        "\n\n".join(MANUAL_SEGMENTS),
        "Lamps burn oil every night.",
        "A keeper climbs the stairs.",
        TOKYO_SEGMENT,
    ],
    "extractive_answers": [
        "Keeper manual\n\nThe keeper trims the lamp wick at dusk.",
        "",  # matched through its title: no sentence holds the query, so no answer
        "A keeper climbs the stairs.",
        TOKYO_ANSWER,
    ],
    "snippets": [
        "Keeper manual Lamp The keeper trims the lamp wick at dusk.",
        "Lamps burn oil every night.",
        "A keeper climbs the stairs.",
        TOKYO_SNIPPET,
    ],
    "struct_data": [
        "category: manual\nid: struct-id\nnested: {'level': 2}\nsource: struct-source\n"
        "struct_data: a key named like ours\ntags: ['lamp', 'log']\ntitle: Struct title\n"
        "year: 2024",
        "shelf: 3",
        "",  # no struct data
        "city: 東京\nicon: 🗼\n名前: タワー 👩‍🚀",
    ],
}
EXPECTED["auto"] = EXPECTED["extractive_segments"]  # segments first, when there are any


server = content_server_fixture()


@pytest.fixture(scope="module")
def clients(server: EmulatorServer) -> Iterator[DiscoveryEngineClients]:
    made = DiscoveryEngineClients(emulator_host=server.address)
    yield made
    made.close()


def _search(clients: DiscoveryEngineClients, **options: object):
    return search_chunks(clients, TARGET, QUERY, ChunkSearchSpec(**options))  # type: ignore[arg-type]


@pytest.mark.parametrize("choice", sorted(EXPECTED))
def test_each_choice_is_that_content_of_the_response(clients, choice):
    chunks = _search(clients, **ALL_CONTENT, document_text=choice)
    assert [c.document_id for c in chunks] == ORDER  # one result each, in the search's order
    assert [c.content for c in chunks] == EXPECTED[choice]


def test_the_text_is_the_content_the_response_carries(clients):
    # The texts above are what the response's derived struct data holds, part by part.
    chunks = {c.document_id: c for c in _search(clients, **ALL_CONTENT)}
    manual = chunks["keeper-manual"].derived_struct_data
    assert [s["content"] for s in manual["extractive_segments"]] == list(MANUAL_SEGMENTS)
    assert [a["content"] for a in manual["extractive_answers"]] == [
        "Keeper manual",
        "The keeper trims the lamp wick at dusk.",
    ]
    tokyo = chunks["tokyo-tower"].derived_struct_data
    assert tokyo["extractive_segments"] == [{"content": TOKYO_SEGMENT, "pageNumber": ""}]
    assert tokyo["extractive_answers"] == [{"content": TOKYO_ANSWER, "pageNumber": ""}]
    assert tokyo["snippets"] == [{"snippet": TOKYO_SNIPPET, "snippet_status": "SUCCESS"}]
    assert "extractive_answers" not in chunks["title-only"].derived_struct_data
    assert chunks["keeper-manual"].struct_data == MANUAL_STRUCT
    assert chunks["tokyo-tower"].struct_data == TOKYO_STRUCT
    assert chunks["title-only"].struct_data == TITLE_ONLY_STRUCT
    assert chunks["no-struct"].struct_data == {}


def test_every_choice_keeps_every_other_field(clients):
    base = _search(clients, **ALL_CONTENT)
    for choice in EXPECTED:
        chosen = _search(clients, **ALL_CONTENT, document_text=choice)
        for auto, other in zip(base, chosen, strict=True):
            assert other.derived_struct_data == auto.derived_struct_data  # all the content
            assert other == dataclasses.replace(auto, content=other.content)


def test_auto_falls_back_in_order(clients):
    # Without segments: the answers, then the snippets for the result that has none.
    answers = _search(clients, search_mode="documents", max_extractive_answer_count=2)
    assert [c.content for c in answers] == [
        EXPECTED["extractive_answers"][0],
        EXPECTED["snippets"][1],
        EXPECTED["extractive_answers"][2],
        TOKYO_ANSWER,
    ]
    # Neither snippets nor extractive content asked for: the struct data.
    bare = _search(clients, search_mode="documents", return_snippet=False)
    assert [c.content for c in bare] == EXPECTED["struct_data"]


def test_the_chosen_content_only_needs_to_be_asked_for(clients):
    # Snippets come by default: document_text="snippets" alone is enough.
    only = _search(clients, search_mode="documents", document_text="snippets")
    assert [c.content for c in only] == EXPECTED["snippets"]
    struct = _search(
        clients, search_mode="documents", return_snippet=False, document_text="struct_data"
    )
    assert [c.content for c in struct] == EXPECTED["struct_data"]


def test_search_results_and_k_apply_the_choice(clients):
    spec = ChunkSearchSpec(k=2, **ALL_CONTENT, document_text="extractive_answers")  # type: ignore[arg-type]
    results = search_results(clients, TARGET, QUERY, spec)
    assert [c.content for c in results.chunks] == EXPECTED["extractive_answers"][:2]
    assert results.total_size == 4


async def test_the_async_search_applies_the_choice(server):
    clients = DiscoveryEngineClients(emulator_host=server.address)
    try:
        spec = ChunkSearchSpec(**ALL_CONTENT, document_text="snippets")  # type: ignore[arg-type]
        results = await asearch_results(clients, TARGET, QUERY, spec)
    finally:
        await clients.aclose()
    assert [c.content for c in results.chunks] == EXPECTED["snippets"]


def test_chunk_mode_text_is_the_chunk_content(clients):
    chunks = _search(clients)
    assert {c.name.rpartition("/")[0].endswith("/chunks") for c in chunks} == {True}
    plain = [c.content for c in chunks if c.document_id == "no-struct"]
    assert plain == ["A keeper climbs the stairs."]


def test_the_spec_keeps_the_choice():
    spec = ChunkSearchSpec(search_mode="documents", document_text="struct_data")
    assert spec.document_text == "struct_data"
    assert ChunkSearchSpec().document_text == "auto"
    assert ChunkSearchSpec(search_mode="documents").document_text == "auto"


def test_a_summary_refuses_a_document_text_it_would_not_use():
    # A summary's references are the cited chunk contents, never a result's chosen text.
    search = ChunkSearchSpec(search_mode="documents", document_text="snippets")
    with pytest.raises(InputError) as info:
        search_summary_request(TARGET, QUERY, SummarySpec(), search)
    assert (str(info.value), info.value.field) == (
        "search.document_text='snippets' does not apply to a summary: its references carry "
        "the cited chunk contents; leave document_text 'auto'",
        "search.document_text",
    )
    plain = search_summary_request(TARGET, QUERY, SummarySpec(), ChunkSearchSpec())
    assert plain.content_search_spec.summary_spec.summary_result_count == SummarySpec().result_count
