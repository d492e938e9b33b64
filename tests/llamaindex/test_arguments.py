"""Every LlamaIndex component refuses an unknown keyword argument by name, and keeps its
signature (IDEs and ``help`` still show the arguments)."""

import inspect

import pytest

import llamaindex_grounding
from llamaindex_grounding import DiscoveryEngineRetriever, ExtractiveLLM

# Records, errors and events: built by the adapter, not from a user's arguments.
NOT_COMPONENTS = {
    "AgentGroundingEvent",
    "ClaimVerdictEvent",
    "GroundedAgentOutput",
    "GroundingCheckEndEvent",
    "GroundingCheckStartEvent",
    "GroundingEvaluationResult",
    "GroundingReport",
    "SearchResponseEvent",
    "UngroundedAnswerError",
}
COMPONENTS = [
    getattr(llamaindex_grounding, name)
    for name in llamaindex_grounding.__all__
    if inspect.isclass(getattr(llamaindex_grounding, name)) and name not in NOT_COMPONENTS
]


def test_every_component_checks_its_arguments():
    names = {component.__name__ for component in COMPONENTS}
    assert len(names) == 16, names
    for component in COMPONENTS:
        if component is ExtractiveLLM:
            continue  # a pydantic model: its own __init__ checks the names
        assert component.__init__.__wrapped__, component


def test_the_signature_is_kept():
    parameters = inspect.signature(DiscoveryEngineRetriever).parameters
    assert list(parameters) == [
        "similarity_top_k",
        "callback_manager",
        "verbose",
        "metadata_layout",
        "arguments",
    ]


def test_an_unknown_name_is_refused_before_anything_is_built():
    with pytest.raises(TypeError, match=r"'simlarity_top_k' \(did you mean 'similarity_top_k'\?\)"):
        DiscoveryEngineRetriever(project_id="p", data_store_id="d", simlarity_top_k=2)


def test_the_llm_refuses_unknown_names():
    # LlamaIndex's LLMs ignore them (extra="ignore" would build ExtractiveLLM(sentences=2)).
    with pytest.raises(TypeError, match=r"'sentence' \(did you mean 'sentences'\?\)"):
        ExtractiveLLM(sentence=1)
    assert ExtractiveLLM(sentences=1, invent="x").sentences == 1
