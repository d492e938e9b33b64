"""The local emulator: Google's Discovery Engine and Developer Knowledge services over a local
corpus, as a real gRPC server that Google's unmodified clients talk to.

>>> from grounding_emulator import EmulatorServer
>>> with EmulatorServer() as server:  # doctest: +SKIP
...     address = server.address  # give it to a client over grpc.insecure_channel

A package of its own: it imports Google's protos and client types, never the client side
(``grounding_core``) or the adapters, so that it is checked against the client, not built
from it. Its parts:

- ``wire``: the gRPC server, the method table, one servicer per Google service, faults, and the
  one place where engine errors become gRPC statuses;
- ``corpus``: reading, chunking, tokens, indexes, data stores and their persisted store;
- ``search``, ``answer``: the pure engines behind Search and AnswerQuery;
- ``grounding``: CheckGrounding's limits, the claim splitter and the judges (``judge``: the
  Protocol; ``lexical``: the default; ``scripted``: verdicts a test sets);
- ``limits``: Google's documented limits and defaults, once; ``errors``: the engines' errors.
"""

from grounding_emulator.corpus.builtin import BUILTIN_DATA_STORE, BUILTIN_ENGINE
from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.corpus.store import CorpusStore
from grounding_emulator.errors import (
    CorpusError,
    EmulatorError,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
)
from grounding_emulator.wire.faults import Fault, FaultInjector
from grounding_emulator.wire.server import DEFAULT_PORT, EmulatorServer

__all__ = [
    "BUILTIN_DATA_STORE",
    "BUILTIN_ENGINE",
    "DEFAULT_PORT",
    "CorpusError",
    "CorpusStore",
    "DataStore",
    "EmulatorError",
    "EmulatorServer",
    "FailedPrecondition",
    "Fault",
    "FaultInjector",
    "InvalidArgument",
    "NotFound",
]
