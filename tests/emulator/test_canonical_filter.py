"""``SearchRequest.canonical_filter`` through Google's SearchServiceClient (v1 and v1beta):
under query expansion ``AUTO`` the exact query's matches are counted under the canonical
filter, not ``filter``, to decide whether to expand ("this filter will be used to determine
whether or not to enable the query expansion flow"); the results still pass ``filter`` ("The
original filter will still be used for the query expanded search"); a malformed canonical
filter is ``INVALID_ARGUMENT`` naming ``canonical_filter``.

The query: "lighthouse" is in every paging chunk (250), "markerz" in no chunk but widens to
"marker", which only the six chunks of the ``sequence`` document have."""

from __future__ import annotations

import pytest
from google.api_core import exceptions
from google.cloud import discoveryengine_v1 as de
from google.cloud import discoveryengine_v1beta as de_beta

from tests.conftest import PAGING_DOCUMENTS, SECTIONS
from tests.emulator.conftest import ONCE, assert_error, serving_config, versioned_client

QUERY = "lighthouse markerz"
PAGING = PAGING_DOCUMENTS * SECTIONS
SEQUENCE_CHUNKS = 6
SEQUENCE = 'group: ANY("sequence")'
ENGLISH = 'lang: ANY("en")'
EVEN_OR_SEQUENCE = 'group: ANY("even", "sequence")'


@pytest.fixture(params=[de, de_beta], ids=["v1", "v1beta"])
def api(request, emulator):
    """``(module, client)``: Google's v1 or v1beta types and SearchServiceClient."""
    module = request.param
    return module, versioned_client(module, "SearchServiceClient", emulator.address)


def search(api, *, expansion: str | None = "AUTO", mode: str = "CHUNKS", **fields):
    """The first page of ``QUERY`` (spell correction only suggested: "markerz" stays)."""
    module, client = api
    request = module.SearchRequest(
        serving_config=serving_config(),
        query=QUERY,
        page_size=10,
        spell_correction_spec={"mode": "SUGGESTION_ONLY"},
        content_search_spec={"search_result_mode": mode},
        **fields,
    )
    if expansion is not None:
        request.query_expansion_spec.condition = expansion
    return next(iter(client.search(request=request, **ONCE).pages))


def expansion_of(response) -> tuple[int, bool, int]:
    info = response.query_expansion_info
    return response.total_size, info.expanded_query, info.pinned_result_count


def test_a_narrow_canonical_filter_turns_expansion_on(api):
    # Without it: 250 exact matches fill the page of 10, nothing to expand.
    assert expansion_of(search(api)) == (PAGING, False, 0)
    # Under the canonical filter the exact query matches nothing: the query is widened, and
    # the widened search runs without a filter (the original one: none).
    response = search(api, canonical_filter=SEQUENCE)
    assert expansion_of(response) == (PAGING + SEQUENCE_CHUNKS, True, 0)


def test_a_broad_canonical_filter_turns_expansion_off(api):
    # Without it: under the filter the exact query matches nothing, the widened one six chunks.
    response = search(api, filter=SEQUENCE)
    assert expansion_of(response) == (SEQUENCE_CHUNKS, True, 0)
    assert {r.chunk.document_metadata.title for r in response.results} == {"Sequence"}
    # Under the canonical filter the exact query has 250 matches: enough, no expansion.
    response = search(api, filter=SEQUENCE, canonical_filter=ENGLISH)
    assert expansion_of(response) == (0, False, 0)
    assert list(response.results) == []


def test_the_expanded_search_keeps_the_original_filter(api):
    # 125 even paging chunks match exactly: enough under the filter, but none under the
    # canonical filter, which decides.
    assert expansion_of(search(api, filter=EVEN_OR_SEQUENCE)) == (PAGING // 2, False, 0)
    response = search(
        api,
        expansion=None,
        filter=EVEN_OR_SEQUENCE,
        canonical_filter=SEQUENCE,
        query_expansion_spec={"condition": "AUTO", "pin_unexpanded_results": True},
    )
    # Pinned: the exact query's results under the original filter, all even paging chunks.
    assert expansion_of(response) == (PAGING // 2 + SEQUENCE_CHUNKS, True, PAGING // 2)
    titles = [r.chunk.document_metadata.title for r in response.results]
    assert len(titles) == 10
    assert all(t.startswith("Paging document ") and int(t[-2:]) % 2 == 0 for t in titles)


def test_documents_mode_counts_documents_under_the_canonical_filter(api):
    assert expansion_of(search(api, mode="DOCUMENTS")) == (PAGING_DOCUMENTS, False, 0)
    response = search(api, mode="DOCUMENTS", canonical_filter=SEQUENCE)
    assert expansion_of(response) == (PAGING_DOCUMENTS + 1, True, 0)


@pytest.mark.parametrize("expansion", [None, "DISABLED"])
def test_without_query_expansion_it_changes_nothing(api, expansion):
    plain = search(api, expansion=expansion, filter=SEQUENCE)
    response = search(api, expansion=expansion, filter=SEQUENCE, canonical_filter=ENGLISH)
    assert response.total_size == plain.total_size == 0
    narrow = search(api, expansion=expansion, canonical_filter=SEQUENCE)
    assert narrow.total_size == PAGING
    assert [r.id for r in narrow.results] == [
        r.id for r in search(api, expansion=expansion).results
    ]


@pytest.mark.parametrize("expansion", ["AUTO", None])
@pytest.mark.parametrize(
    ("canonical", "fragment"),
    [
        ('lang: ANY("en"', "canonical_filter is malformed: unexpected end of input at column 11"),
        ('nope: ANY("x")', "canonical_filter: 'nope' is not a struct_data field"),
        ('rank: ANY("1")', "canonical_filter: rank is a number field"),
    ],
    ids=["syntax", "unknown field", "wrong form for its type"],
)
def test_a_malformed_canonical_filter_is_invalid_argument(api, expansion, canonical, fragment):
    with pytest.raises(exceptions.InvalidArgument) as excinfo:
        search(api, expansion=expansion, canonical_filter=canonical)
    assert_error(excinfo, exceptions.InvalidArgument, fragment)


def test_a_malformed_filter_still_names_filter(api):
    with pytest.raises(exceptions.InvalidArgument) as excinfo:
        search(api, filter='lang: ANY("en"', canonical_filter=ENGLISH)
    assert_error(excinfo, exceptions.InvalidArgument, "filter is malformed")
    assert "canonical_filter" not in excinfo.value.message


def test_a_page_token_is_bound_to_the_canonical_filter(api):
    first = search(api, canonical_filter=SEQUENCE)
    assert first.next_page_token
    with pytest.raises(exceptions.InvalidArgument) as excinfo:
        search(api, canonical_filter=ENGLISH, page_token=first.next_page_token)
    assert_error(excinfo, exceptions.InvalidArgument, "page_token")
    again = search(api, canonical_filter=SEQUENCE, page_token=first.next_page_token)
    assert again.total_size == PAGING + SEQUENCE_CHUNKS


@pytest.mark.parametrize("module", [de, de_beta], ids=["v1", "v1beta"])
async def test_async_client(emulator, module):
    client = versioned_client(
        module, "SearchServiceAsyncClient", emulator.address, asynchronous=True
    )
    request = module.SearchRequest(
        serving_config=serving_config(),
        query=QUERY,
        page_size=10,
        filter=SEQUENCE,
        canonical_filter=ENGLISH,
        spell_correction_spec={"mode": "SUGGESTION_ONLY"},
        query_expansion_spec={"condition": "AUTO"},
        content_search_spec={"search_result_mode": "CHUNKS"},
    )
    pager = await client.search(request=request, **ONCE)
    assert (pager.total_size, pager.query_expansion_info.expanded_query) == (0, False)
    request.canonical_filter = ""
    pager = await client.search(request=request, **ONCE)
    assert (pager.total_size, pager.query_expansion_info.expanded_query) == (SEQUENCE_CHUNKS, True)
