"""Connection settings of every LlamaIndex component: ``grounding_core.connection``.

LlamaIndex retrievers and query engines are plain classes, so the settings are checked when
the component is built: a bad project, location, timeout or retry policy raises
``ConfigurationError`` (a ``ValueError``) from the constructor, not at the first query.
"""

from grounding_core.connection import (
    DEFAULT_RETRY,
    DEFAULT_TIMEOUT,
    ClientOptionsArg,
    DeveloperKnowledgeConnection,
    DiscoveryEngineConnection,
)

__all__ = [
    "DEFAULT_RETRY",
    "DEFAULT_TIMEOUT",
    "ClientOptionsArg",
    "DeveloperKnowledgeConnection",
    "DiscoveryEngineConnection",
]
