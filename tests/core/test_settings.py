import pytest
from google.api_core import exceptions as core_exceptions
from google.api_core import retry as retries
from google.api_core import retry_async

from grounding_core import (
    CallOptions,
    ConfigurationError,
    DiscoveryEngineTarget,
    RetryPolicy,
    grounding_config_path,
    resolve_project,
)

BASE = "projects/p/locations/global"


def test_data_store_target_builds_every_name():
    t = DiscoveryEngineTarget(project="p", data_store="docs")
    assert t.parent_path == f"{BASE}/collections/default_collection/dataStores/docs"
    assert t.serving_config_path == f"{t.parent_path}/servingConfigs/default_search"
    assert t.branch_path == f"{t.parent_path}/branches/default_branch"
    assert t.grounding_config_path == f"{BASE}/groundingConfigs/default_grounding_config"


def test_engine_target_and_sessions():
    t = DiscoveryEngineTarget(project="p", engine="app", location="eu", serving_config="cfg")
    assert t.serving_config_path == (
        "projects/p/locations/eu/collections/default_collection/engines/app/servingConfigs/cfg"
    )
    assert t.session_path() == (
        "projects/p/locations/eu/collections/default_collection/engines/app/sessions/-"
    )
    with pytest.raises(ConfigurationError, match="engine has no branch"):
        _ = t.branch_path


def test_collectionless_data_store_form():
    t = DiscoveryEngineTarget(project="p", data_store="docs", collection=None)
    assert t.serving_config_path == f"{BASE}/dataStores/docs/servingConfigs/default_search"
    # Google names sessions under data stores too (projects.locations.dataStores.sessions).
    assert t.session_path() == f"{BASE}/dataStores/docs/sessions/-"


@pytest.mark.parametrize(
    "name",
    [
        f"{BASE}/collections/c/dataStores/d/servingConfigs/s",
        f"{BASE}/collections/c/engines/e/servingConfigs/s",
        f"{BASE}/dataStores/d/servingConfigs/s",
        "projects/example.com:proj/locations/us/collections/c/engines/e/servingConfigs/s",
    ],
)
def test_serving_config_forms_round_trip(name):
    assert DiscoveryEngineTarget.from_serving_config(name).serving_config_path == name


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"project": "p"}, "no data store and no engine"),
        ({"project": "p", "data_store": "d", "engine": "e"}, r"both a data store \('d'\) and an"),
        ({"project": "", "data_store": "d"}, "project is empty"),
        ({"project": "  ", "data_store": "d"}, "project is empty"),
        ({"project": "p", "data_store": "a/b"}, "data_store 'a/b' is not a valid resource id"),
        ({"project": "p", "engine": "e", "collection": None}, "only valid for data stores"),
        ({"project": "p", "data_store": "d", "location": ""}, "location is empty"),
        ({"project": 42, "data_store": "d"}, "project must be a string, got int"),
        ({"project": "p", "data_store": "d", "serving_config": "x y"}, "serving_config 'x y'"),
    ],
)
def test_incomplete_or_contradictory_targets_are_refused(kwargs, message):
    with pytest.raises(ConfigurationError, match=message):
        DiscoveryEngineTarget(**kwargs)


def test_configuration_errors_are_value_errors():
    with pytest.raises(ValueError, match="no data store"):
        DiscoveryEngineTarget(project="p")


@pytest.mark.parametrize("name", ["", "projects/p/servingConfigs/s", f"{BASE}/engines/e"])
def test_malformed_serving_config_name(name):
    with pytest.raises(ConfigurationError, match="is not one of the three forms"):
        DiscoveryEngineTarget.from_serving_config(name)


def test_replace_validates_again():
    t = DiscoveryEngineTarget(project="p", data_store="d")
    assert t.replace(location="us").serving_config_path.startswith("projects/p/locations/us/")
    with pytest.raises(ConfigurationError, match="both"):
        t.replace(engine="e")


def test_grounding_config_path():
    assert grounding_config_path("p", "eu", "g") == "projects/p/locations/eu/groundingConfigs/g"
    with pytest.raises(ConfigurationError, match="project is empty"):
        grounding_config_path("")


def test_resolve_project_order(monkeypatch):
    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT", raising=False)
    monkeypatch.delenv("GCLOUD_PROJECT", raising=False)
    assert resolve_project("explicit", emulator=False) == "explicit"
    assert resolve_project(None, emulator=True) == "emulator-project"
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "from-env")
    assert resolve_project(None, emulator=True) == "from-env"
    assert resolve_project(None, emulator=False) == "from-env"


def test_resolve_project_without_any_source_is_a_clear_error(monkeypatch, tmp_path):
    for name in ("GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT", "GOOGLE_APPLICATION_CREDENTIALS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path))  # no gcloud ADC file
    monkeypatch.setenv("NO_GCE_CHECK", "True")
    with pytest.raises(ConfigurationError, match="no project id") as info:
        resolve_project(None, emulator=False)
    assert info.value.__cause__ is not None


def test_retry_policy_builds_google_retries():
    policy = RetryPolicy(initial=0.01, maximum=0.5, multiplier=3, deadline=7)
    sync, asynchronous = policy.to_retry(), policy.to_async_retry()
    assert isinstance(sync, retries.Retry)
    assert isinstance(asynchronous, retry_async.AsyncRetry)
    assert (sync._initial, sync._maximum, sync._multiplier, sync._timeout) == (0.01, 0.5, 3, 7)
    for transient in (
        core_exceptions.ServiceUnavailable("x"),
        core_exceptions.ResourceExhausted("quota exceeded"),
        core_exceptions.Cancelled("the server is stopping"),
        core_exceptions.DeadlineExceeded("x"),
    ):
        assert sync._predicate(transient)
        assert asynchronous._predicate(transient)
    for permanent in (
        core_exceptions.InvalidArgument("x"),
        core_exceptions.NotFound("x"),
        core_exceptions.PermissionDenied("x"),
        # Google's generated clients and AIP-194 do not retry INTERNAL.
        core_exceptions.InternalServerError("x"),
        # The same request is as large next time.
        core_exceptions.ResourceExhausted(
            "Received message larger than max (20971520 vs. 4194304)"
        ),
        core_exceptions.ResourceExhausted("Sent message larger than max (5 vs. 4)"),
        core_exceptions.InvalidArgument("Request payload size exceeds the limit: 10485760 bytes."),
        core_exceptions.Unknown("x"),
        core_exceptions.DataLoss("x"),
    ):
        assert not sync._predicate(permanent)
        assert not asynchronous._predicate(permanent)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"initial": 0}, "initial must be > 0"),
        ({"deadline": -1}, "deadline must be > 0"),
        ({"multiplier": 0.5}, "multiplier must be >= 1"),
    ],
)
def test_bad_retry_policy(kwargs, message):
    with pytest.raises(ConfigurationError, match=message):
        RetryPolicy(**kwargs)


def test_call_options():
    options = CallOptions()
    assert options.timeout == 30.0
    assert isinstance(options.call_kwargs()["retry"], retries.Retry)
    assert isinstance(options.async_call_kwargs()["retry"], retry_async.AsyncRetry)
    assert CallOptions(timeout=2, retry=None).call_kwargs() == {"retry": None, "timeout": 2}
    with pytest.raises(ConfigurationError, match="timeout must be > 0"):
        CallOptions(timeout=0)
    with pytest.raises(ConfigurationError, match=r"CallOptions\.timeout must be a finite number"):
        CallOptions(timeout="5")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="retry must be a RetryPolicy"):
        CallOptions(retry=3)  # type: ignore[arg-type]
