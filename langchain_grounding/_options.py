"""The option fields of the LangChain components: explicit pydantic fields (typed, documented,
completed by IDEs) whose defaults are read from the core's specs, so each default is defined
once, in the core (tests/langchain/test_options.py checks the fields against the specs).
"""

from __future__ import annotations

import inspect
from typing import Any

from pydantic import BaseModel

__all__ = ["option_values", "spec_default"]


def spec_default(spec: type[Any], name: str) -> Any:
    """The default of the keyword argument ``name`` of ``spec`` (a spec of the core, e.g.
    ``ChunkSearchSpec``, or a component), for a pydantic field:
    ``Field(default=spec_default(...))``.

    >>> from grounding_core import ChunkSearchSpec
    >>> spec_default(ChunkSearchSpec, "search_mode")
    'chunks'
    """
    return inspect.signature(spec).parameters[name].default


def option_values(model: BaseModel, options: Any) -> dict[str, Any]:
    """The values of ``model``'s fields named by the keys of the TypedDict ``options`` (e.g.
    ``SearchOptions``): keyword arguments of the core component."""
    return {name: getattr(model, name) for name in options.__optional_keys__}
