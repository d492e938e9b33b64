"""The local emulator: Google's Discovery Engine and Developer Knowledge services over a local
corpus, as a real gRPC server that Google's unmodified clients talk to.

>>> from grounding_emulator import EmulatorServer, ScriptedJudge
>>> judge = ScriptedJudge()  # verdicts a test sets; the lexical judge for the rest
>>> with EmulatorServer(judge=judge) as server:  # doctest: +SKIP
...     address = server.address  # give it to a client over grpc.insecure_channel
...     server.judge.unsupported_if_contains("Penguins")

A package of its own: it imports Google's protos and client types, never the client side
(``grounding_core``) or the adapters, so that it is checked against the client, not built
from it. Its parts:

- ``wire``: the gRPC server, one servicer per Google service that registers itself (the method
  table is built from the registry), faults, and the one place where engine errors become gRPC
  statuses;
- ``corpus``: reading, chunking, tokens, indexes, data stores and their persisted store;
- ``search``, ``answer``: the pure engines behind Search and AnswerQuery;
- ``grounding``: CheckGrounding's flow (limits, the claim splitter) and the judges that give each
  claim its verdict (``judge``: the ``Judge`` Protocol and its records; ``lexical``:
  ``LexicalJudge``, the default; ``scripted``: ``ScriptedJudge``, verdicts a test sets). Any
  callable of the Protocol can be given as ``EmulatorServer(judge=...)``;
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
    JudgeError,
    JudgeScriptError,
    NotFound,
)
from grounding_emulator.grounding.judge import Claim, Fact, Judge, Verdict
from grounding_emulator.grounding.lexical.judge import LexicalJudge
from grounding_emulator.grounding.scripted import ScriptedJudge
from grounding_emulator.wire.faults import Fault, FaultInjector
from grounding_emulator.wire.server import DEFAULT_PORT, EmulatorServer

__all__ = [
    "BUILTIN_DATA_STORE",
    "BUILTIN_ENGINE",
    "DEFAULT_PORT",
    "Claim",
    "CorpusError",
    "CorpusStore",
    "DataStore",
    "EmulatorError",
    "EmulatorServer",
    "Fact",
    "FailedPrecondition",
    "Fault",
    "FaultInjector",
    "InvalidArgument",
    "Judge",
    "JudgeError",
    "JudgeScriptError",
    "LexicalJudge",
    "NotFound",
    "ScriptedJudge",
    "Verdict",
]
