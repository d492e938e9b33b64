from .corpus.builtin import BUILTIN_DATA_STORE, BUILTIN_ENGINE
from .corpus.datastore import DataStore
from .corpus.resources import ResourceStore
from .corpus.store import CorpusStore
from .errors import (
    CorpusError,
    EmulatorError,
    FailedPrecondition,
    InvalidArgument,
    JudgeError,
    JudgeScriptError,
    NotFound,
)
from .grounding.judge import Claim, Fact, Judge, Verdict
from .grounding.lexical.judge import LexicalJudge
from .grounding.scripted import ScriptedJudge
from .wire.address import DEFAULT_PORT
from .wire.faults import Fault, FaultInjector
from .wire.server import EmulatorServer

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
    "ResourceStore",
    "ScriptedJudge",
    "Verdict",
]
