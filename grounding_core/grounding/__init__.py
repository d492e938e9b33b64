"""Grounding: checkGrounding (``check``: the spec, the facts, the ``GroundingCheck`` component
and its policies), its report tied to the caller's sources (``report``), and the claims of a
streamed answer checked as it streams (``claim_stream``)."""
