"""``grounding_core._settings``: what to talk to, how long to wait, and where from.

Covers ``DiscoveryEngineTarget`` (every field, every resource name: location, parent, serving
config, grounding config, ``data_store_path``, ``session_path``; the three serving-config
forms parsed back; ``replace``; each refusal naming the field), the three documented locations
(``LOCATIONS``, ``check_location``) refused everywhere else a location enters, ``config_path``,
``emulator_address`` (the forms users write, and what it refuses without echoing a password),
``is_transient``, ``RetryPolicy`` (its bounds; ``to_retry``/``to_async_retry`` observed by running
a function through them: which errors are retried, the backoff from ``initial`` by ``multiplier``
up to ``maximum``, the ``deadline``), ``CallOptions``, ``resolve_project`` (argument, environment,
credentials, the emulator's project), ``default_data_store`` and the environment variable names.
On the emulator: which injected failures the retry policy retries and which are tried once.
"""

from __future__ import annotations

import json

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from google.api_core import exceptions as core_exceptions
from google.api_core import retry as retries
from google.api_core import retry_async
from google.api_core.retry import retry_base, retry_unary, retry_unary_async

from grounding_core import (
    DEFAULT_COLLECTION,
    DEFAULT_GROUNDING_CONFIG,
    DEFAULT_LOCATION,
    DEFAULT_RANKING_CONFIG,
    DEFAULT_RETRY,
    DEFAULT_SERVING_CONFIG,
    DEFAULT_TIMEOUT,
    DEVELOPERKNOWLEDGE_EMULATOR_HOST,
    DISCOVERYENGINE_EMULATOR_HOST,
    GROUNDING_DATA_STORE,
    ConfigurationError,
    DiscoveryEngineChunkSearch,
    DiscoveryEngineConnection,
    DiscoveryEngineTarget,
    GroundingCheck,
    GroundingSource,
    InputError,
    InvalidRequestError,
    PermissionDeniedError,
    RetryPolicy,
    ServiceUnavailableError,
)
from grounding_core._settings import (
    EMULATOR_PROJECT,
    LOCATIONS,
    PROJECT_ENV_VARS,
    CallOptions,
    check_location,
    config_path,
    default_data_store,
    emulator_address,
    is_transient,
    resolve_project,
)

from .emulated import PROJECT

BASE = "projects/p/locations/global"
ID_RULE = "is not a valid resource id"


def refusal(call, *args, **kwargs) -> ConfigurationError:
    with pytest.raises(ConfigurationError) as info:
        call(*args, **kwargs)
    assert isinstance(info.value, ValueError)
    return info.value


# -- the constants ---------------------------------------------------------------------------------


def test_the_defaults_and_the_environment_variable_names():
    assert (DEFAULT_LOCATION, LOCATIONS) == ("global", ("global", "us", "eu"))
    assert (DEFAULT_COLLECTION, DEFAULT_SERVING_CONFIG) == ("default_collection", "default_search")
    assert (DEFAULT_GROUNDING_CONFIG, DEFAULT_RANKING_CONFIG) == (
        "default_grounding_config",
        "default_ranking_config",
    )
    assert DEFAULT_TIMEOUT == 30.0
    assert (DEFAULT_RETRY.initial, DEFAULT_RETRY.maximum) == (0.1, 10.0)
    assert (DEFAULT_RETRY.multiplier, DEFAULT_RETRY.deadline) == (2.0, 60.0)
    assert DISCOVERYENGINE_EMULATOR_HOST == "DISCOVERYENGINE_EMULATOR_HOST"
    assert DEVELOPERKNOWLEDGE_EMULATOR_HOST == "DEVELOPERKNOWLEDGE_EMULATOR_HOST"
    assert GROUNDING_DATA_STORE == "GROUNDING_DATA_STORE"
    assert PROJECT_ENV_VARS == ("GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT")
    assert EMULATOR_PROJECT == "emulator-project"


# -- DiscoveryEngineTarget -------------------------------------------------------------------------


def test_a_data_store_target_has_the_defaults_and_builds_every_name():
    t = DiscoveryEngineTarget(project="p", data_store="docs")
    assert (t.project, t.data_store, t.engine, t.location, t.collection) == (
        "p",
        "docs",
        None,
        "global",
        "default_collection",
    )
    assert (t.serving_config, t.grounding_config) == ("default_search", "default_grounding_config")
    assert t.location_path == BASE
    assert t.parent_path == f"{BASE}/collections/default_collection/dataStores/docs"
    assert t.serving_config_path == f"{t.parent_path}/servingConfigs/default_search"
    assert t.grounding_config_path == f"{BASE}/groundingConfigs/default_grounding_config"
    assert t.session_path() == f"{t.parent_path}/sessions/-"


def test_every_field_of_a_target_reaches_its_names():
    t = DiscoveryEngineTarget(
        project="p",
        data_store="d",
        location="eu",
        collection="c",
        serving_config="s",
        grounding_config="g",
    )
    assert (t.project, t.data_store, t.engine, t.location, t.collection) == (
        "p",
        "d",
        None,
        "eu",
        "c",
    )
    assert (t.serving_config, t.grounding_config) == ("s", "g")
    assert t.location_path == "projects/p/locations/eu"
    assert t.parent_path == "projects/p/locations/eu/collections/c/dataStores/d"
    assert t.serving_config_path == f"{t.parent_path}/servingConfigs/s"
    assert t.grounding_config_path == "projects/p/locations/eu/groundingConfigs/g"
    assert t.session_path("s1") == f"{t.parent_path}/sessions/s1"


def test_an_engine_target_and_its_sessions():
    t = DiscoveryEngineTarget(project="p", engine="app", location="us", serving_config="cfg")
    assert t.parent_path == "projects/p/locations/us/collections/default_collection/engines/app"
    assert t.serving_config_path == f"{t.parent_path}/servingConfigs/cfg"
    assert t.session_path() == f"{t.parent_path}/sessions/-"
    assert t.session_path("s1") == f"{t.parent_path}/sessions/s1"


def test_the_collection_less_data_store_form():
    t = DiscoveryEngineTarget(project="p", data_store="docs", collection=None)
    assert t.parent_path == f"{BASE}/dataStores/docs"
    assert t.serving_config_path == f"{BASE}/dataStores/docs/servingConfigs/default_search"
    # Google names sessions under data stores too (projects.locations.dataStores.sessions).
    assert t.session_path() == f"{BASE}/dataStores/docs/sessions/-"


@pytest.mark.parametrize(
    ("target", "data_store", "path"),
    [
        (
            DiscoveryEngineTarget(project="p", engine="e", location="eu", collection="c"),
            "docs",
            "projects/p/locations/eu/collections/c/dataStores/docs",
        ),
        (
            DiscoveryEngineTarget(project="p", data_store="d", collection=None),
            "docs",
            f"{BASE}/dataStores/docs",
        ),
        (
            DiscoveryEngineTarget(project="p", data_store="d"),
            "projects/q/locations/us/collections/x/dataStores/y",
            "projects/q/locations/us/collections/x/dataStores/y",
        ),
    ],
    ids=["id-in-the-collection", "id-without-collection", "resource-name-kept"],
)
def test_data_store_path_names_a_data_store_beside_the_target(target, data_store, path):
    assert target.data_store_path(data_store) == path


def test_a_session_resource_name_is_kept_when_it_belongs_to_the_target():
    engine = DiscoveryEngineTarget(project="p", engine="e", location="us", collection="c")
    # As a response gives it: the project may be its number.
    named = "projects/42/locations/us/collections/c/engines/e/sessions/7"
    assert engine.session_path(named) == named
    other = "projects/42/locations/us/collections/c/engines/other/sessions/7"
    error = refusal(engine.session_path, other)
    assert f"session {other!r} is not a session of {engine.parent_path}" in str(error)
    assert str(error).endswith(": continue it with the engine or data store that created it")
    error = refusal(engine.session_path, f"{named}/answers/1")
    assert str(error).startswith(f"session {named + '/answers/1'!r} {ID_RULE}")
    error = refusal(engine.session_path, "a b")
    assert str(error).startswith(f"session 'a b' {ID_RULE}")
    assert str(error).endswith("(for example '-')")


def test_a_data_store_keeps_its_sessions_named_in_either_form():
    # Session.name is "Fully qualified name projects/{project}/locations/global/collections/
    # {collection}/...": a collection-less data store is the one in default_collection.
    bare = DiscoveryEngineTarget(project="p", data_store="d", collection=None)
    in_default = bare.replace(collection="default_collection")
    named = f"{in_default.parent_path}/sessions/7"
    collection_less = f"{bare.parent_path}/sessions/7"
    for target in (bare, in_default):
        assert target.session_path(named) == named
        assert target.session_path(collection_less) == collection_less
    elsewhere = f"{bare.replace(collection='c').parent_path}/sessions/7"
    error = refusal(bare.session_path, elsewhere)
    assert f"session {elsewhere!r} is not a session of {bare.parent_path}" in str(error)


def test_a_collection_named_locations_keeps_its_sessions():
    target = DiscoveryEngineTarget(project="p", engine="e", collection="locations")
    name = "projects/p/locations/global/collections/locations/engines/e/sessions/5"
    assert target.session_path("5") == name
    assert target.session_path(name) == name


D = {"project": "p", "data_store": "d"}
E = {"project": "p", "engine": "e"}
ONE_OF_THEM = "give a data store id or an engine (app) id, exactly one of them"
GIVEN_BOTH = "were given: a search goes to one serving config, give exactly one of them"
IN_A = "engines live in a collection (use the default 'default_collection')"


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({**D, "project": 7}, "project must be a string, got int (for example 'my-project')"),
        ({**D, "project": " "}, "project is empty: give the project (for example 'my-project')"),
        ({**D, "project": ""}, "project is empty"),
        ({**D, "project": "p/q"}, f"project 'p/q' {ID_RULE}"),
        ({**D, "location": "x.y"}, f"location 'x.y' {ID_RULE}"),
        ({**D, "location": None}, "location must be a string, got NoneType"),
        ({**D, "location": ""}, "location is empty"),
        ({"project": "p"}, f"no data store and no engine: {ONE_OF_THEM}"),
        ({**D, "engine": "e"}, f"both a data store ('d') and an engine ('e') {GIVEN_BOTH}"),
        ({**D, "data_store": "d.x"}, f"data_store 'd.x' {ID_RULE}"),
        ({**D, "data_store": "a/b"}, f"data_store 'a/b' {ID_RULE}"),
        ({**E, "engine": "e.x"}, f"engine 'e.x' {ID_RULE}"),
        ({**E, "collection": None}, f"collection=None is only valid for data stores: {IN_A}"),
        ({**D, "collection": "c.x"}, f"collection 'c.x' {ID_RULE}"),
        ({**E, "collection": "c.x"}, f"collection 'c.x' {ID_RULE}"),
        ({**D, "serving_config": "s.x"}, f"serving_config 's.x' {ID_RULE}"),
        ({**D, "serving_config": "x y"}, f"serving_config 'x y' {ID_RULE}"),
        ({**D, "grounding_config": "g.x"}, f"grounding_config 'g.x' {ID_RULE}"),
    ],
)
def test_each_refusal_names_the_field(kwargs, words):
    assert words in str(refusal(DiscoveryEngineTarget, **kwargs))


@pytest.mark.parametrize(
    ("field", "example"),
    [
        ("data_store", "my-docs-store"),
        ("collection", "default_collection"),
        ("serving_config", "default_search"),
        ("grounding_config", "default_grounding_config"),
    ],
)
def test_an_invalid_id_is_refused_with_an_example(field, example):
    error = refusal(DiscoveryEngineTarget, project="p", **{"data_store": "d", field: "x.y"})
    assert f"{field} 'x.y' {ID_RULE}" in str(error)
    assert f"(for example {example!r})" in str(error)


def test_an_engine_id_refusal_gives_its_example():
    assert "(for example 'my-search-app')" in str(
        refusal(DiscoveryEngineTarget, project="p", engine="e.x")
    )


def test_ids_up_to_127_characters_and_domain_scoped_projects():
    t = DiscoveryEngineTarget(project="example.com:p-1", data_store="A-b_9")
    assert t.location_path == "projects/example.com:p-1/locations/global"
    longest = "a" * 127
    assert DiscoveryEngineTarget(project="p", data_store=longest).data_store == longest
    assert DiscoveryEngineTarget(project="1234", data_store="9").project == "1234"
    for bad in ("a" * 128, "-a", "_a", "a:b"):
        error = refusal(DiscoveryEngineTarget, project="p", data_store=bad)
        assert f"{ID_RULE}: use letters, digits, '-' and '_' only, up to 127 characters (" in (
            str(error)
        )
    assert ID_RULE in str(refusal(DiscoveryEngineTarget, project="-p", data_store="d"))


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "projects/p/locations/eu/collections/c/dataStores/d/servingConfigs/s",
            DiscoveryEngineTarget(
                project="p", location="eu", collection="c", data_store="d", serving_config="s"
            ),
        ),
        (
            "projects/p/locations/eu/collections/c/engines/e/servingConfigs/s",
            DiscoveryEngineTarget(
                project="p", location="eu", collection="c", engine="e", serving_config="s"
            ),
        ),
        (
            "projects/p/locations/eu/dataStores/d/servingConfigs/s",
            DiscoveryEngineTarget(
                project="p", location="eu", collection=None, data_store="d", serving_config="s"
            ),
        ),
        (
            "projects/example.com:proj/locations/us/collections/c/engines/e/servingConfigs/s",
            DiscoveryEngineTarget(
                project="example.com:proj",
                location="us",
                collection="c",
                engine="e",
                serving_config="s",
            ),
        ),
    ],
)
def test_from_serving_config_fills_every_field_and_round_trips(name, expected):
    parsed = DiscoveryEngineTarget.from_serving_config(name)
    assert parsed == expected
    assert parsed.serving_config_path == name


@pytest.mark.parametrize(
    "name",
    ["", "x", "projects/p/servingConfigs/s", f"{BASE}/engines/e", f"{BASE}/x/d/servingConfigs/s"],
)
def test_a_malformed_serving_config_name_lists_the_three_forms(name):
    error = refusal(DiscoveryEngineTarget.from_serving_config, name)
    assert f"serving config name {name!r} is not one of the three forms" in str(error)
    first, second, third = (
        "projects/{p}/locations/{l}/collections/{c}/dataStores/{d}/servingConfigs/{s}",
        "projects/{p}/locations/{l}/collections/{c}/engines/{e}/servingConfigs/{s}",
        "projects/{p}/locations/{l}/dataStores/{d}/servingConfigs/{s}",
    )
    assert str(error).endswith(f" three forms {first}, {second} or {third}")


def test_replace_keeps_the_other_fields_and_validates_again():
    t = DiscoveryEngineTarget(project="p", data_store="d", collection="c", serving_config="s")
    assert t.replace(location="us") == DiscoveryEngineTarget(
        project="p", data_store="d", collection="c", serving_config="s", location="us"
    )
    assert "both a data store" in str(refusal(t.replace, engine="e"))


# -- locations and config paths --------------------------------------------------------------------


def test_the_documented_locations_are_accepted():
    assert [check_location(location) for location in LOCATIONS] == ["global", "us", "eu"]


SERVED_THERE_ONLY = (
    "use 'global', 'us' or 'eu' (Google serves Search, AnswerQuery and CheckGrounding there only"
)
MULTI_REGIONS = "created in 'US (multiple regions)' is in 'us', one in 'EU (multiple regions)' in"


@pytest.mark.parametrize(
    "build",
    [
        lambda: check_location("us-central1"),
        lambda: DiscoveryEngineTarget(project="p", data_store="d", location="us-central1"),
        lambda: DiscoveryEngineTarget(project="p", data_store="d").replace(location="us-central1"),
        lambda: DiscoveryEngineTarget.from_serving_config(
            "projects/p/locations/us-central1/collections/c/dataStores/d/servingConfigs/s"
        ),
        lambda: config_path("p", "us-central1", "grounding", "g"),
        lambda: DiscoveryEngineConnection(project_id="p", location="us-central1"),
        lambda: DiscoveryEngineConnection(location="us-central1", emulator_host="localhost:1"),
    ],
    ids=["check", "target", "replace", "serving-config", "config-path", "connection", "emulator"],
)
def test_other_locations_are_refused_everywhere_naming_the_three(build):
    error = refusal(build)
    assert error.field == "location"
    message = str(error)
    assert "location 'us-central1' is not a Vertex AI Search location" in message
    assert SERVED_THERE_ONLY in message
    assert MULTI_REGIONS in message
    assert message.endswith(" in 'eu', any other in 'global')")


@pytest.mark.parametrize("location", ["US", "Global", "europe-west1", "asia"])
def test_case_and_regions_matter(location):
    assert f"location {location!r} is not a Vertex AI" in str(refusal(check_location, location))


def test_malformed_locations_keep_their_own_refusals():
    assert "location is empty" in str(refusal(check_location, ""))
    assert "location must be a string, got NoneType" in str(refusal(check_location, None))
    error = refusal(check_location, "e.u")
    assert f"location 'e.u' {ID_RULE}" in str(error)
    assert str(error).endswith("(for example 'global')")


@pytest.mark.parametrize(
    ("arguments", "path"),
    [
        (("p", "global", "grounding", "g"), f"{BASE}/groundingConfigs/g"),
        (
            ("example.com:p", "eu", "ranking", "r"),
            "projects/example.com:p/locations/eu/rankingConfigs/r",
        ),
    ],
)
def test_config_path_builds_a_config_name(arguments, path):
    assert config_path(*arguments) == path


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (("", "global", "grounding", "g"), "project is empty"),
        (("p/q", "global", "grounding", "g"), f"project 'p/q' {ID_RULE}"),
        (("p/q", "global", "ranking", "r"), "(for example 'my-project')"),
        (("p", "e.u", "grounding", "g"), f"location 'e.u' {ID_RULE}"),
        (("p", "eu", "grounding", "g.x"), f"grounding_config 'g.x' {ID_RULE}"),
        (("p", "eu", "ranking", "r.x"), "(for example 'default_ranking_config')"),
    ],
)
def test_config_path_refuses_each_bad_part(arguments, words):
    assert words in str(refusal(config_path, *arguments))


# -- emulator_address ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "address"),
    [
        ("127.0.0.1:8123", "127.0.0.1:8123"),
        ("http://127.0.0.1:8123", "127.0.0.1:8123"),
        ("grpc://localhost:8123/", "localhost:8123"),
        ("HTTP://localhost:1", "localhost:1"),
        ("GRPC://localhost:65535", "localhost:65535"),
        (" [::1]:8123 ", "[::1]:8123"),
        ("emulator.internal:80/", "emulator.internal:80"),
    ],
)
def test_plaintext_prefixes_and_a_trailing_slash_are_dropped(written, address):
    assert emulator_address(written) == address


@pytest.mark.parametrize(
    "written",
    ["127.0.0.1", "localhost:", "http://127.0.0.1:8123/v1", "a:0", "a:65536", "::1:80", "a b:1"],
)
def test_anything_but_host_port_is_refused_naming_the_setting_and_what_to_write(written):
    error = refusal(emulator_address, written, "--emulator-host")
    assert error.field == "--emulator-host"
    assert f"--emulator-host {written!r} is not HOST:PORT" in str(error)
    assert str(error).endswith(
        "for example 127.0.0.1:8123 (an http:// or grpc:// prefix is accepted)"
    )


@pytest.mark.parametrize(
    ("written", "suggested"),
    [("https://127.0.0.1:8123", "'127.0.0.1:8123'"), ("HTTPS://hostX/", "'hostX'")],
)
def test_https_is_refused_saying_what_to_write(written, suggested):
    error = refusal(emulator_address, written, "--emulator-host")
    assert error.field == "--emulator-host"
    assert f"--emulator-host {written!r} uses https://" in str(error)
    assert f"write {suggested}" in str(error)


def test_a_non_string_address_is_refused_by_its_type():
    error = refusal(emulator_address, 8123)
    assert error.field == "emulator_host"
    assert "emulator_host must be a string HOST:PORT (for example 127.0.0.1:8123), got int" in (
        str(error)
    )


def test_an_address_with_a_password_is_refused_without_echoing_it():
    error = refusal(emulator_address, "http://user:hunter2@127.0.0.1:8123", "--emulator-host")
    assert "--emulator-host has a user name or password" in str(error)
    assert "hunter2" not in str(error)


# -- is_transient and RetryPolicy ------------------------------------------------------------------

TRANSIENT = [
    core_exceptions.ServiceUnavailable("x"),
    core_exceptions.ResourceExhausted("quota exceeded"),
    core_exceptions.Cancelled("the server is stopping"),
    core_exceptions.DeadlineExceeded("x"),
]
PERMANENT = [
    core_exceptions.InvalidArgument("x"),
    core_exceptions.NotFound("x"),
    core_exceptions.PermissionDenied("x"),
    # Google's generated clients and AIP-194 do not retry INTERNAL.
    core_exceptions.InternalServerError("x"),
    # The same request is as large next time.
    core_exceptions.ResourceExhausted("Received message larger than max (20971520 vs. 4194304)"),
    core_exceptions.ResourceExhausted("Sent message larger than max (5 vs. 4)"),
    core_exceptions.InvalidArgument("Request payload size exceeds the limit: 10485760 bytes."),
    core_exceptions.Unknown("x"),
    core_exceptions.DataLoss("x"),
    core_exceptions.Aborted("x"),
    ValueError("not Google's"),
]


@pytest.mark.parametrize("error", TRANSIENT, ids=lambda e: type(e).__name__)
def test_transient_failures(error):
    assert is_transient(error) is True


@pytest.mark.parametrize("error", PERMANENT, ids=lambda e: f"{type(e).__name__}-{e}"[:40])
def test_permanent_failures(error):
    assert is_transient(error) is False


class Clock:
    """The clock and sleeps of Google's retry modules: what they wait, without waiting."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


class AsyncSleep:
    """``asyncio`` as Google's async retry module uses it: its ``sleep``, on a ``Clock``."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock

    async def sleep(self, seconds: float) -> None:
        self.clock.sleep(seconds)


class Widest:
    """Google's backoff waits a random time up to the current delay: here, all of it."""

    @staticmethod
    def uniform(low: float, high: float) -> float:
        return high


@pytest.fixture
def clock(monkeypatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(retry_base, "random", Widest)
    for module in (retry_base, retry_unary, retry_unary_async):
        monkeypatch.setattr(module, "time", clock)
    monkeypatch.setattr(retry_unary_async, "asyncio", AsyncSleep(clock))
    return clock


def failing(errors: list[BaseException]):
    """A function that raises ``errors`` one per call, then returns ``"done"``; and its calls."""
    calls: list[int] = []

    def call() -> str:
        calls.append(1)
        if len(calls) <= len(errors):
            raise errors[len(calls) - 1]
        return "done"

    return call, calls


def afailing(errors: list[BaseException]):
    call, calls = failing(errors)

    async def acall() -> str:
        return call()

    return acall, calls


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_the_backoff_grows_from_initial_by_the_multiplier_up_to_the_maximum(clock, kind):
    policy = RetryPolicy(initial=0.25, maximum=1.0, multiplier=3.0, deadline=60.0)
    if kind == "sync":
        call, calls = failing(TRANSIENT)
        assert policy.to_retry()(call)() == "done"
    else:
        acall, calls = afailing(TRANSIENT)
        assert await policy.to_async_retry()(acall)() == "done"
    assert len(calls) == 5
    assert clock.slept == [0.25, 0.75, 1.0, 1.0]


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_the_retries_stop_at_the_deadline(clock, kind):
    policy = RetryPolicy(initial=0.25, maximum=10.0, multiplier=2.0, deadline=1.0)
    down = [core_exceptions.ServiceUnavailable("down")] * 10
    if kind == "sync":
        call, calls = failing(down)
        with pytest.raises(core_exceptions.RetryError) as info:
            policy.to_retry()(call)()
    else:
        acall, calls = afailing(down)
        with pytest.raises(core_exceptions.RetryError) as info:
            await policy.to_async_retry()(acall)()
    assert info.value.cause is down[0]
    assert clock.slept == [0.25, 0.5]  # a third wait (1.0 s) would pass the deadline
    assert len(calls) == 3


@pytest.mark.parametrize("error", PERMANENT[:5], ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_a_permanent_failure_is_raised_at_once(clock, kind, error):
    if kind == "sync":
        call, calls = failing([error])
        with pytest.raises(type(error)) as info:
            DEFAULT_RETRY.to_retry()(call)()
    else:
        acall, calls = afailing([error])
        with pytest.raises(type(error)) as info:
            await DEFAULT_RETRY.to_async_retry()(acall)()
    assert info.value is error
    assert (len(calls), clock.slept) == (1, [])


def test_the_retries_are_googles_with_the_deadline_as_timeout():
    policy = RetryPolicy(initial=0.25, maximum=4.0, multiplier=1.5, deadline=9.0)
    sync, asynchronous = policy.to_retry(), policy.to_async_retry()
    assert isinstance(sync, retries.Retry)
    assert isinstance(asynchronous, retry_async.AsyncRetry)
    assert (sync.timeout, asynchronous.timeout) == (9.0, 9.0)


def test_retry_policy_boundaries():
    assert RetryPolicy(multiplier=1).multiplier == 1
    for name in ("initial", "maximum", "deadline"):
        assert getattr(RetryPolicy(**{name: 0.001}), name) == 0.001
        assert getattr(RetryPolicy(**{name: 3}), name) == 3  # an int is a number
        for bad in (0, -1):
            error = refusal(RetryPolicy, **{name: bad})
            assert error.field == name
            assert f"RetryPolicy.{name} must be > 0 seconds" in str(error)
    error = refusal(RetryPolicy, multiplier=0.99)
    assert error.field == "multiplier"
    assert str(error).startswith("RetryPolicy.multiplier must be >= 1")


@pytest.mark.parametrize("name", ["initial", "maximum", "multiplier", "deadline"])
@pytest.mark.parametrize(
    ("bad", "shown"),
    [(float("nan"), "nan"), (float("inf"), "inf"), ("1", "str"), (True, "bool"), (None, "None")],
)
def test_retry_policy_fields_are_finite_numbers(name, bad, shown):
    error = refusal(RetryPolicy, **{name: bad})
    assert f"RetryPolicy.{name} must be a finite number, got {shown}" in str(error)
    assert isinstance(error.__cause__, InputError)


# -- CallOptions -----------------------------------------------------------------------------------


def test_call_options_default_to_the_default_timeout_and_retry():
    assert CallOptions() == CallOptions(timeout=DEFAULT_TIMEOUT, retry=DEFAULT_RETRY)
    assert CallOptions().call_kwargs()["timeout"] == 30.0


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_call_kwargs_carry_the_timeout_and_a_retry_of_the_policy(clock, kind):
    policy = RetryPolicy(initial=0.5, maximum=2.0, multiplier=3.0, deadline=5.0)
    options = CallOptions(timeout=7.5, retry=policy)
    if kind == "sync":
        kwargs = options.call_kwargs()
        assert isinstance(kwargs["retry"], retries.Retry)
        call, calls = failing(TRANSIENT[:3])
        assert kwargs["retry"](call)() == "done"
        assert len(calls) == 4
    else:
        kwargs = options.async_call_kwargs()
        assert isinstance(kwargs["retry"], retry_async.AsyncRetry)
        acall, calls = afailing(TRANSIENT[:3])
        assert await kwargs["retry"](acall)() == "done"
        assert len(calls) == 4
    assert sorted(kwargs) == ["retry", "timeout"]
    assert (kwargs["timeout"], kwargs["retry"].timeout) == (7.5, 5.0)
    assert clock.slept == [0.5, 1.5, 2.0]


def test_without_a_retry_policy_the_call_kwargs_have_none():
    options = CallOptions(timeout=2, retry=None)
    assert options.call_kwargs() == {"retry": None, "timeout": 2}
    assert options.async_call_kwargs() == {"retry": None, "timeout": 2}


def test_call_options_boundaries_and_refusals():
    assert CallOptions(timeout=0.01).timeout == 0.01
    assert CallOptions(timeout=3).timeout == 3
    for bad in (0, -1):
        error = refusal(CallOptions, timeout=bad)
        assert error.field == "timeout"
        assert f"timeout must be > 0 seconds, got {bad}" in str(error)
    for bad, shown in (
        (True, "bool"),
        ("5", "str"),
        (float("nan"), "nan"),
        (-float("inf"), "-inf"),
    ):
        error = refusal(CallOptions, timeout=bad)
        assert f"CallOptions.timeout must be a finite number, got {shown}" in str(error)
    error = refusal(CallOptions, retry=3)
    assert "retry must be a RetryPolicy or None, got int" in str(error)


# -- the project and the default data store --------------------------------------------------------


@pytest.fixture
def no_project(monkeypatch, tmp_path):
    for name in ("GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT", "GOOGLE_APPLICATION_CREDENTIALS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path))  # no gcloud ADC file
    monkeypatch.setenv("NO_GCE_CHECK", "True")
    return monkeypatch


def test_the_project_argument_wins_then_the_environment_then_the_emulator(no_project):
    assert resolve_project("explicit", emulator=False) == "explicit"
    assert resolve_project(None, emulator=True) == "emulator-project"
    assert resolve_project("", emulator=True) == "emulator-project"
    no_project.setenv("GCLOUD_PROJECT", "from-gcloud")
    assert resolve_project(None, emulator=False) == "from-gcloud"
    no_project.setenv("GOOGLE_CLOUD_PROJECT", "from-env")
    assert resolve_project(None, emulator=True) == "from-env"
    assert resolve_project(None, emulator=False) == "from-env"
    assert resolve_project("explicit", emulator=True) == "explicit"
    no_project.setenv("GOOGLE_CLOUD_PROJECT", "")  # empty: as if unset
    assert resolve_project("", emulator=True) == "from-gcloud"


def test_no_project_anywhere_is_a_clear_error(no_project):
    error = refusal(resolve_project, None, emulator=False)
    assert str(error).startswith("no project id")
    assert "GOOGLE_CLOUD_PROJECT" in str(error)
    assert str(error).endswith(
        "or run `gcloud auth application-default login` so that the default credentials name one"
    )
    assert error.__cause__ is not None


def test_credentials_that_name_no_project(no_project, tmp_path):
    # Real application default credentials of a user: they name no project.
    path = tmp_path / "user.json"
    user = {"type": "authorized_user", "client_id": "i", "client_secret": "s", "refresh_token": "r"}
    path.write_text(json.dumps(user), encoding="utf-8")
    no_project.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(path))
    error = refusal(resolve_project, None, emulator=False)
    assert str(error).startswith(
        "no project id: the default credentials name no project; pass project_id=... "
    )
    assert str(error).endswith(" or set GOOGLE_CLOUD_PROJECT")
    assert error.__cause__ is None


def test_the_project_of_the_credentials(no_project, tmp_path):
    key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    account = {
        "type": "service_account",
        "project_id": "from-credentials",
        "private_key_id": "1",
        "private_key": pem.decode(),
        "client_email": "a@from-credentials.iam.gserviceaccount.com",
        "client_id": "1",
        "token_uri": "https://oauth2.googleapis.com/token",
    }
    path = tmp_path / "account.json"
    path.write_text(json.dumps(account), encoding="utf-8")
    no_project.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(path))
    assert resolve_project(None, emulator=False) == "from-credentials"
    assert resolve_project(None, emulator=True) == "emulator-project"


@pytest.mark.parametrize(("value", "found"), [(None, None), ("", None), ("kb", "kb")])
def test_the_default_data_store_is_read_from_the_environment(monkeypatch, value, found):
    if value is None:
        monkeypatch.delenv(GROUNDING_DATA_STORE, raising=False)
    else:
        monkeypatch.setenv(GROUNDING_DATA_STORE, value)
    assert default_data_store() == found


def test_a_bad_default_data_store_is_named_as_the_variable(monkeypatch):
    monkeypatch.setenv(GROUNDING_DATA_STORE, "a/b")
    error = refusal(default_data_store)
    assert f"$GROUNDING_DATA_STORE 'a/b' {ID_RULE}" in str(error)
    assert "(for example 'my-docs-store')" in str(error)


# -- the retry policy on the emulator --------------------------------------------------------------

FAST = RetryPolicy(initial=0.01, maximum=0.05, deadline=5.0)


@pytest.fixture(scope="module")
def fast(emulator):
    """A sync connection retrying quickly (closed with the module: a connection closed right
    after retried UNAVAILABLEs is test_connections.py's)."""
    connection = DiscoveryEngineConnection(
        project_id=PROJECT, emulator_host=emulator.address, timeout=5.0, retry=FAST
    )
    yield connection
    connection.close()


def test_transient_failures_are_retried_until_the_call_succeeds(emulator, fast):
    emulator.faults.fail("Search", code="UNAVAILABLE", times=2)
    emulator.faults.fail("Search", code="CANCELLED", times=1)  # a server stopping gracefully
    emulator.faults.fail("Search", code="RESOURCE_EXHAUSTED", times=1, message="quota exceeded")
    emulator.faults.fail("Search", code="DEADLINE_EXCEEDED", times=1)
    injected = emulator.faults.injected
    search = DiscoveryEngineChunkSearch(fast, data_store_id="test-docs", k=3)
    assert len(search.search("lighthouse")) == 3
    assert emulator.faults.pending == 0
    assert emulator.faults.injected - injected == 5  # five failed attempts, then the sixth


@pytest.mark.parametrize(
    ("code", "message", "error", "words"),
    [
        ("INTERNAL", "boom", ServiceUnavailableError, "INTERNAL: boom"),
        ("INVALID_ARGUMENT", "bad", InvalidRequestError, "INVALID_ARGUMENT: bad"),
        ("PERMISSION_DENIED", "no", PermissionDeniedError, "PERMISSION_DENIED: no"),
        (
            "RESOURCE_EXHAUSTED",
            "Received message larger than max (20971530 vs. 16777216)",
            InvalidRequestError,
            "a message of 20,971,530 bytes is larger than the 16,777,216 bytes allowed",
        ),
        (
            "INVALID_ARGUMENT",
            "Request payload size exceeds the limit: 10485760 bytes.",
            InvalidRequestError,
            "a message is larger than the 10,485,760 bytes allowed",
        ),
    ],
    ids=["internal", "invalid-argument", "permission-denied", "grpc-size", "payload-size"],
)
def test_what_cannot_succeed_on_retry_is_tried_once(emulator, fast, code, message, error, words):
    emulator.faults.fail("Search", code=code, times=2, message=message)
    search = DiscoveryEngineChunkSearch(fast, data_store_id="test-docs")
    with pytest.raises(error, match=r"^Search on .* failed: ") as info:
        search.search("lighthouse")
    assert words in str(info.value)
    assert emulator.faults.pending == 1  # one attempt only


@pytest.mark.parametrize("code", ["CANCELLED", "RESOURCE_EXHAUSTED", "UNAVAILABLE"])
async def test_transient_failures_are_retried_on_the_async_client_too(emulator, code):
    connection = DiscoveryEngineConnection(
        project_id=PROJECT, emulator_host=emulator.address, timeout=5.0, retry=FAST
    )
    emulator.faults.fail("CheckGrounding", code=code, times=2)
    check = GroundingCheck(connection)
    fact = "Paris is in France."
    try:
        report = await check.acheck(fact, [fact], [GroundingSource(fact)])
    finally:
        await connection.aclose()
    assert report.result.support_score == 1.0
    assert emulator.faults.pending == 0
