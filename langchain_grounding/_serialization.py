"""LangChain's serialization of every component: ``dumpd``/``dumps`` give its constructor
arguments as JSON, ``load``/``loads`` build it again::

    from langchain_core.load import dumpd, load

    restored = load(dumpd(retriever), valid_namespaces=["langchain_grounding"],
                    allowed_objects=[DiscoveryEngineRetriever])

A component is known by ``["langchain_grounding", ClassName]``. Its connection objects are
LangChain secrets (``lc_secrets``), never written in a dump: ``credentials``, ``client_options``
(which may hold an API key) and a given ``client`` are each a marker naming its secret id
(``SECRET_IDS``), which ``load(..., secrets_map={id: value})`` fills (else the default:
application default credentials, no options, the connection's own clients). The core's
records among the arguments (``retry``'s ``RetryPolicy``, ``data_store_specs``) are written
as the dicts they are validated from.
"""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["SECRET_IDS", "Serialized"]

SECRET_IDS = {
    "credentials": "GROUNDING_CREDENTIALS",
    "client_options": "GROUNDING_CLIENT_OPTIONS",
    "client": "GROUNDING_CLIENT",
}
"""The secret id of each connection object a dump leaves out (``load``'s ``secrets_map`` keys)."""

_PACKAGE = "langchain_grounding"


def _plain(value: Any) -> Any:
    """A core record (or a tuple of them) as plain data; anything else as it is."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, tuple | list) and any(dataclasses.is_dataclass(v) for v in value):
        return [_plain(v) for v in value]
    return value


class Serialized:
    """LangChain serialization for a component: first among its bases, before LangChain's
    ``Serializable``, whose class methods and properties these replace."""

    @classmethod
    def is_lc_serializable(cls) -> bool:
        """Every component can be dumped and loaded."""
        return True

    @classmethod
    def get_lc_namespace(cls) -> list[str]:
        """``["langchain_grounding"]`` for our classes (the package exports them all), the
        module path for a subclass of yours."""
        module = cls.__module__
        return [_PACKAGE] if module.partition(".")[0] == _PACKAGE else module.split(".")

    @property
    def lc_secrets(self) -> dict[str, str]:
        """The connection objects of ``SECRET_IDS`` this component has."""
        fields = type(self).model_fields  # type: ignore[attr-defined]
        return {name: secret for name, secret in SECRET_IDS.items() if name in fields}

    @property
    def lc_attributes(self) -> dict[str, Any]:
        """The arguments that hold core records, as plain data."""
        values = {name: getattr(self, name) for name in type(self).model_fields}  # type: ignore[attr-defined]
        return {
            name: _plain(value)
            for name, value in values.items()
            if name not in SECRET_IDS and _plain(value) is not value
        }
