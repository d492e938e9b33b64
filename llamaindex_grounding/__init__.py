"""LlamaIndex adapters over grounding_core: Vertex AI Search chunks as nodes, grounding checks
as a query-engine wrapper and an evaluator, grounded answers from answerQuery as query engines
and chat engines.

>>> from llamaindex_grounding import DiscoveryEngineRetriever, GroundedQueryEngine  # doctest: +SKIP
"""

import lazy_loader

# Each public name is imported at its first use (PEP 562), so that a program loads only the
# modules it uses; the names, and the modules they come from, are in __init__.pyi.
__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
