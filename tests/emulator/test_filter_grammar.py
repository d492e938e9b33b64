"""Google's filter grammar through Google's clients: every form of "Filter generic search for
structured or unstructured data" (cloud.google.com/generative-ai-app-builder/docs/
filter-search-metadata) over a data store of typed struct data, and the forms it lacks refused
with INVALID_ARGUMENT naming the request field."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de
from google.cloud import discoveryengine_v1beta

from grounding_emulator import CorpusStore, EmulatorServer
from tests.emulator.conftest import ONCE, assert_error, serving_config, versioned_client

STORE = "offices"
# The page's example fields: a text list, numbers, a boolean, a datetime, a geolocation.
OFFICES = [
    ("mountain-view", ["persona_A"], 50, True, "2024-04-16T10:00:00Z", (37.4220, -122.0841)),
    ("palo-alto", ["persona_A", "persona_B"], 100, False, "2023-06-01", (37.4419, -122.1430)),
    ("paris", ["persona_C"], 150, True, "2024-01-31", (48.8566, 2.3522)),
    ("tokyo", ["persona_B"], 99.5, False, "2022-12-31T23:30:00+09:00", (35.6762, 139.6503)),
]


@pytest.fixture(scope="module")
def address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A private emulator serving the ``offices`` data store (and engine ``offices-app``)."""
    path = tmp_path_factory.mktemp("offices") / "offices.jsonl"
    rows = [
        {
            "id": name,
            "title": f"The {name} office",
            "uri": f"https://example.com/{name}",
            "content": f"# The {name} office\n\nThe office of {name} has a lighthouse view.",
            "mime_type": "text/markdown",
            "struct_data": {
                "category": category,
                "score": score,
                "pet-friendly": pets,
                "opened": opened,
                "office": {"location": {"latitude": lat, "longitude": lng}},
            },
        }
        for name, category, score, pets, opened, (lat, lng) in OFFICES
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    store = CorpusStore()
    store.ingest(STORE, path)
    store.add_engine("offices-app", STORE)
    with EmulatorServer(store) as server:
        yield server.address


@pytest.fixture(scope="module")
def client(address: str) -> de.SearchServiceClient:
    return versioned_client(de, "SearchServiceClient", address)


def ids(client: de.SearchServiceClient, filter_: str, **fields: object) -> set[str]:
    request = de.SearchRequest(
        serving_config=serving_config(STORE),
        query=fields.pop("query", ""),
        filter=filter_,
        page_size=50,
        **fields,
    )
    return {r.id for r in client.search(request=request, **ONCE)}


ALL = {name for name, *_ in OFFICES}


@pytest.mark.parametrize(
    ("filter_", "expected"),
    [
        ('category: ANY("persona_A")', {"mountain-view", "palo-alto"}),
        ('category: ANY("persona_B", "persona_C")', {"palo-alto", "paris", "tokyo"}),
        ("score: IN(*, 100.0e)", {"mountain-view", "tokyo"}),
        ("score: IN(*, 100)", {"mountain-view", "tokyo"}),
        ("score: IN(99.5e, 100i)", {"palo-alto"}),
        ("score: IN(100, *)", {"palo-alto", "paris"}),
        ("score >= 100", {"palo-alto", "paris"}),
        ("score = 99.5", {"tokyo"}),
        ('pet-friendly = "true"', {"mountain-view", "paris"}),
        ('pet-friendly = "false"', {"palo-alto", "tokyo"}),
        ('opened = "2024"', {"mountain-view", "paris"}),
        ('opened >= "2024-04-16"', {"mountain-view"}),
        ('opened < "2024-04-16T12:00:00-07:00"', ALL),
        ('opened < "2023"', {"tokyo"}),  # 2022-12-31T14:30Z
        ('opened <= "2024-01-31"', {"palo-alto", "paris", "tokyo"}),
        ('opened > "2024-01-31"', {"mountain-view"}),
        ("office.location: GEO_DISTANCE(37.4220, -122.0841, 500)", {"mountain-view"}),
        ("office.location:GEO_DISTANCE(37.4220, -122.0841, 10000)", {"mountain-view", "palo-alto"}),
        ("NOT office.location: GEO_DISTANCE(37.4220, -122.0841, 10000)", {"paris", "tokyo"}),
        ('-category: ANY("persona_A")', {"paris", "tokyo"}),
        ('category: ANY("persona_A") AND score: IN(*, 100.0e)', {"mountain-view"}),
        (
            '(score<175 AND pet-friendly = "true") OR (score<125 AND pet-friendly = "false")',
            ALL,
        ),
        ('score < 60 OR score > 120 AND pet-friendly = "true"', {"mountain-view", "paris"}),
        ('(score < 60 OR score > 120) AND pet-friendly = "false"', set()),
    ],
)
def test_every_form_of_the_page(client, filter_, expected):
    assert ids(client, filter_) == expected


def test_boost_conditions_take_the_same_grammar(client):
    request = de.SearchRequest(
        serving_config=serving_config(STORE),
        query="lighthouse",
        page_size=4,
        boost_spec={
            "condition_boost_specs": [
                {"condition": "office.location: GEO_DISTANCE(48.8566, 2.3522, 1000)", "boost": 1}
            ]
        },
    )
    assert next(iter(client.search(request=request, **ONCE))).id == "paris"


# Each message follows the request field's name.
REFUSED = [
    ('category != "persona_A"', ": != is not in the filter grammar: use NOT category: ANY(...)"),
    ('category = "persona_A"', ": category is a text field of data store 'offices'"),
    ('score: ANY("50")', ": score is a number field of data store 'offices' and ANY()"),
    ("pet-friendly = true", ': a boolean is written as a string: pet-friendly = "true"'),
    ('opened > "soon"', ": opened is a datetime field: compare it with an ISO 8601 date"),
    (
        'office.location: GEO_DISTANCE("Palo Alto, CA", 1000)',
        ": office.location: GEO_DISTANCE with an address needs geocoding, which the emulator "
        "cannot do offline: write office.location: GEO_DISTANCE(latitude, longitude, meters)",
    ),
    ("NOT (" * 300 + "score = 1" + ")" * 300, " nests parentheses 300 levels deep"),
    ("NOT (a = 1 AND " * 60 + "a = 1" + ")" * 60, " nests NOT, AND and OR more than 100 levels"),
]


@pytest.mark.parametrize(("filter_", "fragment"), REFUSED)
def test_search_filter_refusals_name_the_field(client, filter_, fragment):
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        ids(client, filter_)
    assert_error(excinfo, core_exceptions.InvalidArgument, f"filter{fragment}")


@pytest.mark.parametrize(("filter_", "fragment"), REFUSED[:3])
def test_boost_condition_refusals_name_the_condition(client, filter_, fragment):
    request = de.SearchRequest(
        serving_config=serving_config(STORE),
        query="office",
        boost_spec={
            "condition_boost_specs": [
                {"condition": 'category: ANY("persona_A")', "boost": 0.5},
                {"condition": filter_, "boost": 0.5},
            ]
        },
    )
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        client.search(request=request, **ONCE)
    assert_error(
        excinfo,
        core_exceptions.InvalidArgument,
        f"boost_spec.condition_boost_specs[1].condition{fragment}",
    )


@pytest.mark.parametrize(("filter_", "fragment"), REFUSED[:2])
def test_answer_query_filter_refusals_name_the_search_params(address, filter_, fragment):
    answers = versioned_client(de, "ConversationalSearchServiceClient", address)
    request = de.AnswerQueryRequest(
        serving_config=serving_config("offices-app", kind="engines"),
        query={"text": "Which office has a lighthouse view?"},
        search_spec={"search_params": {"filter": filter_}},
    )
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        answers.answer_query(request=request, **ONCE)
    assert_error(
        excinfo, core_exceptions.InvalidArgument, f"search_spec.search_params.filter{fragment}"
    )


def test_answer_query_filters_its_search(address):
    answers = versioned_client(de, "ConversationalSearchServiceClient", address)
    request = de.AnswerQueryRequest(
        serving_config=serving_config("offices-app", kind="engines"),
        query={"text": "Which office has a lighthouse view?"},
        search_spec={
            "search_params": {"filter": "office.location: GEO_DISTANCE(35.7, 139.7, 9e3)"}
        },
    )
    response = answers.answer_query(request=request, **ONCE)
    documents = {r.chunk_info.document_metadata.uri for r in response.answer.references}
    documents |= {r.unstructured_document_info.uri for r in response.answer.references}
    assert documents - {""} == {"https://example.com/tokyo"}


def test_v1beta_client_gets_the_same_grammar(address):
    beta = versioned_client(discoveryengine_v1beta, "SearchServiceClient", address)
    request = discoveryengine_v1beta.SearchRequest(
        serving_config=serving_config(STORE), filter="score: IN(100e, *)", page_size=10
    )
    assert {r.id for r in beta.search(request=request, **ONCE)} == {"paris"}
