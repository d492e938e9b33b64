"""Every pydantic component refuses unknown arguments and hides inputs in its errors, while the
fields of LangChain's own bases (tags, metadata, name, callbacks of a model...) keep working."""

import inspect

import pytest
from pydantic import BaseModel, ValidationError

import langchain_grounding
from langchain_grounding import (
    DiscoveryEngineRetriever,
    ExtractiveChatModel,
    GroundingChecker,
    QuestionCondenser,
)

MODELS = [
    getattr(langchain_grounding, name)
    for name in langchain_grounding.__all__
    if inspect.isclass(getattr(langchain_grounding, name))
    and issubclass(getattr(langchain_grounding, name), BaseModel)
]


def test_every_pydantic_component_is_strict():
    assert len(MODELS) == 16
    for model in MODELS:
        # LangChain's bases say extra="ignore": ours must win over them.
        config = model.model_config
        assert (config.get("extra"), config.get("hide_input_in_errors")) == ("forbid", True), model


def test_langchain_base_fields_still_work():
    retriever = DiscoveryEngineRetriever(
        project_id="p", data_store_id="d", tags=["t"], metadata={"m": 1}, k=2
    )
    assert (retriever.tags, retriever.metadata["m"], retriever.k) == (["t"], 1, 2)
    model = ExtractiveChatModel(
        name="offline", tags=["t"], cache=False, verbose=True, callbacks=None, sentences=1
    )
    assert (model.name, model.tags, model.cache, model.verbose) == ("offline", ["t"], False, True)
    assert QuestionCondenser(name="condense").name == "condense"
    assert GroundingChecker(project_id="p", name="check").name == "check"


def test_model_validate_refuses_unknown_names_too():
    with pytest.raises(ValidationError, match=r"'sentense' \(did you mean 'sentences'\?\)"):
        ExtractiveChatModel.model_validate({"sentense": 2})


def test_a_misspelt_name_no_longer_builds_a_default_retriever():
    # Before: DiscoveryEngineRetriever(..., kk=3) built a retriever with k=4.
    with pytest.raises(ValidationError, match=r"unknown argument 'kk' \(did you mean 'k'\?\)"):
        DiscoveryEngineRetriever(project_id="p", data_store_id="d", kk=3)


def test_a_configuration_error_inside_a_validator_shows_no_input():
    with pytest.raises(ValidationError) as info:
        DiscoveryEngineRetriever(
            project_id="p", data_store_id="d", engine_id="e", client_options={"api_key": "K-1"}
        )
    text = str(info.value)
    assert "give exactly one of them" in text
    assert "input_value" not in text
    assert "K-1" not in str(info.value.errors()) + info.value.json()
    assert info.value.errors()[0]["input"] is None
    assert info.value.__context__ is None
