"""Settings: every refusal's whole message, every resource name, the retry and call options
(what ``make mutation`` found unasserted in ``grounding_core.settings``)."""

import json

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from google.api_core import exceptions as core_exceptions

from grounding_core import (
    CallOptions,
    ConfigurationError,
    DiscoveryEngineTarget,
    RetryPolicy,
    grounding_config_path,
    resolve_project,
)
from grounding_core.settings import emulator_address

ID_RULE = "use letters, digits, '-' and '_' only, up to 127 characters"


def refused(call, *args, **kwargs) -> str:
    with pytest.raises(ConfigurationError) as info:
        call(*args, **kwargs)
    return str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"project": 7, "data_store": "d"},
            "project must be a string, got int (for example 'my-project')",
        ),
        (
            {"project": " ", "data_store": "d"},
            "project is empty: give the project (for example 'my-project')",
        ),
        (
            {"project": "p/q", "data_store": "d"},
            f"project 'p/q' is not a valid resource id: {ID_RULE} (for example 'my-project')",
        ),
        (
            {"project": "p", "data_store": "d", "location": "x.y"},
            f"location 'x.y' is not a valid resource id: {ID_RULE} (for example 'global')",
        ),
        (
            {"project": "p", "data_store": "d", "location": None},
            "location must be a string, got NoneType (for example 'global')",
        ),
        (
            {"project": "p"},
            "no data store and no engine: give a data store id or an engine (app) id, "
            "exactly one of them",
        ),
        (
            {"project": "p", "data_store": "d", "engine": "e"},
            "both a data store ('d') and an engine ('e') were given: a search goes to one "
            "serving config, give exactly one of them",
        ),
        (
            {"project": "p", "data_store": "d.x"},
            f"data_store 'd.x' is not a valid resource id: {ID_RULE} (for example 'my-docs-store')",
        ),
        (
            {"project": "p", "engine": "e.x"},
            f"engine 'e.x' is not a valid resource id: {ID_RULE} (for example 'my-search-app')",
        ),
        (
            {"project": "p", "engine": "e", "collection": None},
            "collection=None is only valid for data stores: engines live in a collection "
            "(use the default 'default_collection')",
        ),
        (
            {"project": "p", "data_store": "d", "collection": "c.x"},
            f"collection 'c.x' is not a valid resource id: {ID_RULE} "
            "(for example 'default_collection')",
        ),
        (
            {"project": "p", "engine": "e", "collection": "c.x"},
            f"collection 'c.x' is not a valid resource id: {ID_RULE} "
            "(for example 'default_collection')",
        ),
        (
            {"project": "p", "data_store": "d", "serving_config": "s.x"},
            f"serving_config 's.x' is not a valid resource id: {ID_RULE} "
            "(for example 'default_search')",
        ),
        (
            {"project": "p", "data_store": "d", "grounding_config": "g.x"},
            f"grounding_config 'g.x' is not a valid resource id: {ID_RULE} "
            "(for example 'default_grounding_config')",
        ),
        (
            {"project": "p", "data_store": "d", "branch": "b.x"},
            f"branch 'b.x' is not a valid resource id: {ID_RULE} (for example 'default_branch')",
        ),
    ],
)
def test_every_refusal_names_the_field_and_an_example(kwargs, message):
    assert refused(DiscoveryEngineTarget, **kwargs) == message


def test_project_ids_may_be_domain_scoped_but_other_ids_may_not():
    t = DiscoveryEngineTarget(project="example.com:p-1", data_store="A-b_9")
    assert t.location_path == "projects/example.com:p-1/locations/global"
    longest = "a" * 127
    assert DiscoveryEngineTarget(project="p", data_store=longest).data_store == longest
    assert "not a valid resource id" in refused(
        DiscoveryEngineTarget, project="p", data_store="a" * 128
    )
    assert "not a valid resource id" in refused(DiscoveryEngineTarget, project="p", data_store="-a")


def test_every_field_and_name_of_a_target():
    t = DiscoveryEngineTarget(
        project="p",
        data_store="d",
        location="eu",
        collection="c",
        serving_config="s",
        grounding_config="g",
        branch="b",
    )
    assert (t.project, t.data_store, t.engine, t.location, t.collection) == (
        "p",
        "d",
        None,
        "eu",
        "c",
    )
    assert (t.serving_config, t.grounding_config, t.branch) == ("s", "g", "b")
    assert t.location_path == "projects/p/locations/eu"
    assert t.parent_path == "projects/p/locations/eu/collections/c/dataStores/d"
    assert t.serving_config_path == f"{t.parent_path}/servingConfigs/s"
    assert t.branch_path == f"{t.parent_path}/branches/b"
    assert t.grounding_config_path == "projects/p/locations/eu/groundingConfigs/g"
    engine = DiscoveryEngineTarget(project="p", engine="e", location="us", collection="c")
    assert engine.parent_path == "projects/p/locations/us/collections/c/engines/e"
    assert engine.session_path("s1") == f"{engine.parent_path}/sessions/s1"
    assert engine.session_path() == f"{engine.parent_path}/sessions/-"
    assert refused(lambda: engine.branch_path) == (
        "an engine has no branch: branches belong to data stores"
    )
    assert t.session_path("s1") == f"{t.parent_path}/sessions/s1"
    assert refused(t.session_path, "a b") == (
        "session 'a b' is not a valid resource id: use letters, digits, '-' and '_' only, up to "
        "127 characters (for example '-')"
    )
    # A session name as a response gives it (the project may be its number) is kept as it is.
    named = "projects/42/locations/us/collections/c/engines/e/sessions/7"
    assert engine.session_path(named) == named
    other = "projects/42/locations/us/collections/c/engines/other/sessions/7"
    assert refused(engine.session_path, other) == (
        f"session {other!r} is not a session of {engine.parent_path}: continue it with the "
        "engine or data store that created it"
    )
    assert refused(engine.session_path, f"{named}/answers/1").startswith(
        f"session {named + '/answers/1'!r} is not a valid resource id"
    )


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
    ],
)
def test_from_serving_config_fills_every_field(name, expected):
    assert DiscoveryEngineTarget.from_serving_config(name) == expected


def test_a_malformed_serving_config_name_lists_the_three_forms():
    assert refused(DiscoveryEngineTarget.from_serving_config, "x") == (
        "serving config name 'x' is not one of the three forms "
        "projects/{p}/locations/{l}/collections/{c}/dataStores/{d}/servingConfigs/{s}, "
        "projects/{p}/locations/{l}/collections/{c}/engines/{e}/servingConfigs/{s} or "
        "projects/{p}/locations/{l}/dataStores/{d}/servingConfigs/{s}"
    )


def test_replace_keeps_the_other_fields():
    t = DiscoveryEngineTarget(project="p", data_store="d", collection="c", branch="b")
    assert t.replace(location="us") == DiscoveryEngineTarget(
        project="p", data_store="d", collection="c", branch="b", location="us"
    )


def test_grounding_config_path_defaults_and_refusals():
    assert grounding_config_path("p") == (
        "projects/p/locations/global/groundingConfigs/default_grounding_config"
    )
    assert grounding_config_path("example.com:p", "eu") == (
        "projects/example.com:p/locations/eu/groundingConfigs/default_grounding_config"
    )
    assert refused(grounding_config_path, "p", "e.u") == (
        f"location 'e.u' is not a valid resource id: {ID_RULE} (for example 'global')"
    )
    assert refused(grounding_config_path, "p", "eu", "g.x") == (
        f"grounding_config 'g.x' is not a valid resource id: {ID_RULE} "
        "(for example 'default_grounding_config')"
    )
    assert refused(grounding_config_path, "p/q") == (
        f"project 'p/q' is not a valid resource id: {ID_RULE} (for example 'my-project')"
    )


# -- retry and call options -------------------------------------------------------------------


def test_retry_policy_defaults_and_boundaries():
    assert RetryPolicy() == RetryPolicy(initial=0.1, maximum=10.0, multiplier=2.0, deadline=60.0)
    assert RetryPolicy(multiplier=1).multiplier == 1
    for name in ("initial", "maximum", "deadline"):
        assert refused(RetryPolicy, **{name: 0}) == f"RetryPolicy.{name} must be > 0 seconds"
        assert getattr(RetryPolicy(**{name: 0.001}), name) == 0.001
    assert refused(RetryPolicy, multiplier=0.99) == "RetryPolicy.multiplier must be >= 1"
    for name in ("initial", "maximum", "multiplier", "deadline"):
        for bad in (float("nan"), float("inf")):
            assert refused(RetryPolicy, **{name: bad}) == (
                f"RetryPolicy.{name} must be a finite number, got {bad!r}"
            )
        assert refused(RetryPolicy, **{name: "1"}) == (
            f"RetryPolicy.{name} must be a finite number, got str"
        )
        assert refused(RetryPolicy, **{name: True}) == (
            f"RetryPolicy.{name} must be a finite number, got bool"
        )
        assert getattr(RetryPolicy(**{name: 3}), name) == 3  # an int is a number


def _retry_fields(retry):
    return (retry._initial, retry._maximum, retry._multiplier, retry._timeout)


def test_retries_carry_every_setting_and_only_retry_transient_errors():
    policy = RetryPolicy(initial=0.25, maximum=4.0, multiplier=1.5, deadline=9.0)
    for retry in (policy.to_retry(), policy.to_async_retry()):
        assert _retry_fields(retry) == (0.25, 4.0, 1.5, 9.0)
        assert retry._predicate(core_exceptions.ResourceExhausted("x"))
        assert retry._predicate(core_exceptions.DeadlineExceeded("x"))
        assert not retry._predicate(core_exceptions.BadRequest("x"))


def test_call_kwargs_carry_the_policy_and_the_timeout():
    policy = RetryPolicy(initial=0.5, maximum=2.0, multiplier=3.0, deadline=5.0)
    options = CallOptions(timeout=7.5, retry=policy)
    for kwargs in (options.call_kwargs(), options.async_call_kwargs()):
        assert sorted(kwargs) == ["retry", "timeout"]
        assert kwargs["timeout"] == 7.5
        assert _retry_fields(kwargs["retry"]) == (0.5, 2.0, 3.0, 5.0)
    assert type(options.call_kwargs()["retry"]).__name__ == "Retry"
    assert type(options.async_call_kwargs()["retry"]).__name__ == "AsyncRetry"
    assert CallOptions(timeout=1, retry=None).async_call_kwargs() == {"retry": None, "timeout": 1}
    assert CallOptions().call_kwargs()["timeout"] == 30.0


def test_call_options_refusals():
    assert (
        refused(CallOptions, timeout=True)
        == "CallOptions.timeout must be a finite number, got bool"
    )
    assert (
        refused(CallOptions, timeout="5") == "CallOptions.timeout must be a finite number, got str"
    )
    assert refused(CallOptions, timeout=-1) == "timeout must be > 0 seconds, got -1"
    for bad in (float("nan"), float("inf"), -float("inf")):
        assert refused(CallOptions, timeout=bad) == (
            f"CallOptions.timeout must be a finite number, got {bad!r}"
        )
    assert refused(CallOptions, retry=3) == "retry must be a RetryPolicy or None, got int"
    assert CallOptions(timeout=0.01).timeout == 0.01
    assert CallOptions(timeout=3).timeout == 3


# -- the project --------------------------------------------------------------------------


@pytest.fixture
def no_project(monkeypatch, tmp_path):
    for name in ("GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT", "GOOGLE_APPLICATION_CREDENTIALS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path))  # no gcloud ADC file
    monkeypatch.setenv("NO_GCE_CHECK", "True")
    return monkeypatch


def test_the_second_variable_and_empty_values(no_project):
    no_project.setenv("GCLOUD_PROJECT", "from-gcloud")
    assert resolve_project(None, emulator=False) == "from-gcloud"
    no_project.setenv("GOOGLE_CLOUD_PROJECT", "")
    assert resolve_project("", emulator=True) == "from-gcloud"
    no_project.setenv("GCLOUD_PROJECT", "")
    assert resolve_project("", emulator=True) == "emulator-project"


def test_no_credentials_at_all(no_project):
    assert refused(resolve_project, None, emulator=False) == (
        "no project id: pass project_id=..., set GOOGLE_CLOUD_PROJECT, or run "
        "`gcloud auth application-default login` so that the default credentials name one"
    )


def test_credentials_that_name_no_project(no_project, tmp_path):
    # Real application default credentials of a user: they name no project.
    path = tmp_path / "user.json"
    user = {"type": "authorized_user", "client_id": "i", "client_secret": "s", "refresh_token": "r"}
    path.write_text(json.dumps(user), encoding="utf-8")
    no_project.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(path))
    assert refused(resolve_project, None, emulator=False) == (
        "no project id: the default credentials name no project; pass project_id=... "
        "or set GOOGLE_CLOUD_PROJECT"
    )


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


def test_a_collection_named_locations_keeps_its_sessions():
    target = DiscoveryEngineTarget(project="p", engine="e", collection="locations")
    name = "projects/p/locations/global/collections/locations/engines/e/sessions/5"
    assert target.session_path("5") == name
    assert target.session_path(name) == name


def test_emulator_address_refusals_say_what_to_write():
    with pytest.raises(ConfigurationError) as info:
        emulator_address("https://hostX/", "--emulator-host")
    assert str(info.value) == (
        "--emulator-host 'https://hostX/' uses https://, but the emulator speaks plaintext "
        "gRPC: write 'hostX' (or http://...)"
    )
    with pytest.raises(ConfigurationError) as info:
        emulator_address(8123)
    assert str(info.value) == (
        "emulator_host must be a string HOST:PORT (for example 127.0.0.1:8123), got int"
    )
