"""What the call-level mutant tests share: fast retries and one way to await a sync or an async
call (the ``connections`` fixture is in ``conftest.py``)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from grounding_core import RetryPolicy

PROJECT = "test-project"
# Retries quickly: a test that injects one UNAVAILABLE passes only when the options are used.
RETRYING = {"timeout": 5.0, "retry": RetryPolicy(initial=0.01, maximum=0.01, deadline=5.0)}


async def result_of(call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """The result of ``call``, awaited when it is a coroutine function's."""
    result = call(*args, **kwargs)
    return await result if inspect.isawaitable(result) else result
