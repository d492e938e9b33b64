"""Surviving mutants that change no observable behaviour, with the reason (``make mutation``).

Each entry names the function (``module.function`` or ``module.Class.method``) and the mutated
code as ``mutmut show`` prints it (the added lines, stripped), so that an entry survives the
renumbering of mutants when other code of the function changes. ``tests.core.mutation_score``
counts these out of the score and reports entries that no longer match a survivor.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Equivalent:
    """A surviving mutant that no test can kill, and why."""

    function: str
    change: str
    reason: str


CAST_TYPE = "typing.cast returns its value whatever the type it names"
CODEC_CASE = "codec names are case-insensitive"
ZIP_STRICT = "both sequences are built one per item of the same list: they never differ in length"
FAST_PATH = "a fast path: without it the full check runs and finds the same (no lone surrogate)"
FALSY_NONE = "None is falsy, like the False it replaces"
UNREAD_PLACEHOLDER = (
    "a placeholder: emulator_channel sets the channel right after building it, before any call "
    "can reach the interceptor, so the initial value is never read"
)
STYLE_CASE = "rich parses style names case-insensitively: the terminal output is the same"


def _each(function: str, reason: str, *changes: str) -> tuple[Equivalent, ...]:
    return tuple(Equivalent(function, change, reason) for change in changes)


EQUIVALENT: tuple[Equivalent, ...] = (
    # -- offsets
    *_each(
        "grounding_core.offsets.Utf8Offsets.__init__",
        CODEC_CASE,
        'codepoints = np.frombuffer(text.encode("UTF-32-LE", "surrogatepass"), dtype="<u4")',
    ),
    *_each(
        "grounding_core.offsets.Utf8Offsets.__init__",
        "float64 widths and offsets are exact integers below 2**53, and every read of the "
        "table goes through int()",
        "+ (codepoints >= 0x80).astype(None)",
        "starts = np.zeros(len(text) + 1, dtype=None)",
        "starts = np.zeros(len(text) + 1, )",
    ),
    # -- facts
    *_each(
        "grounding_core.facts.attributes_from_metadata",
        FALSY_NONE,
        "key: value if isinstance(value, str) else json.dumps(value, ensure_ascii=None)",
    ),
    *_each(
        "grounding_core.facts.check_answer_candidate",
        "a text of n characters has at most n tokens, so an answer of at most 4,096 characters "
        "passes whether its tokens are counted or not (the shortcut only saves time)",
        "tokens = estimate_tokens(answer) if (len(answer) > MAX_ANSWER_TOKENS) or True else 0",
        "tokens = estimate_tokens(answer) if len(answer) >= MAX_ANSWER_TOKENS else 0",
        "tokens = estimate_tokens(answer) if len(answer) > MAX_ANSWER_TOKENS else 1",
    ),
    # -- records
    *_each(
        "grounding_core.records.GroundingResult._repr_html_",
        FALSY_NONE,
        "return grounding_html(self, full_document=None)",
    ),
    *_each(
        "grounding_core.records.GroundedAnswer._repr_html_",
        FALSY_NONE,
        "return answer_html(self, full_document=None)",
    ),
    # -- annotate
    *_each(
        "grounding_core.annotate.annotate_grounding",
        "the tag only keeps text keys apart from source-index keys; any tag does",
        'key = source_index if source_index is not None else ("XXtextXX", chunk.text)',
        'key = source_index if source_index is not None else ("TEXT", chunk.text)',
    ),
    *_each(
        "grounding_core.annotate.AnnotatedText.pieces",
        "a located segment has 0 <= start < end, so its end is never 0",
        "start, end = segment.start or 0, segment.end or 1",
    ),
    # -- convert
    *_each(
        "grounding_core.convert._parts_text",
        "a missing text is dropped by the isinstance(p, str) filter, whatever the default",
        "p.get(text_key, None)",
        "p.get(text_key, )",
    ),
    *_each(
        "grounding_core.convert._Spans.__init__",
        "str.find(x, None) searches from 0, as str.find(x, 0) does",
        "self._search_from = None",
    ),
    *_each(
        "grounding_core.convert._Spans._repair",
        FALSY_NONE,
        "start = self.offsets.nearest_char(byte_start, round_up=None)",
    ),
    *_each(
        "grounding_core.convert._Spans._repair",
        "a match at 0 from the cursor means the cursor is 0, and the search from the start "
        "finds the same match",
        "if found <= 0:",
        "if found < 1:",
    ),
    *_each(
        "grounding_core.convert._Spans.span",
        "rfind and find are both negative exactly when the text does not occur",
        "if self.text.rfind(expected) < 0:",
    ),
    # -- terminal
    *_each(
        "grounding_core.terminal._summary",
        STYLE_CASE,
        'line.append(f"{score_label} ", style="BOLD")',
        'line.append(format_score(text.score), style="BOLD")',
        'line.append(f" · {words}", style="GREEN" if passed else "bold red")',
        'line.append(f" · {words}", style="green" if passed else "BOLD RED")',
        'style="DIM",',
        'line.append(f"{count} {_LABELS[level]}", style=LEVEL_STYLES[level] if count else "DIM")',
    ),
    *_each(
        "grounding_core.terminal._body",
        STYLE_CASE,
        'body.append("".join(f"[{n}]" for n in segment.numbers), style="CYAN")',
        'body.append(mark, style="BOLD RED" if segment.level == "unsupported" else "yellow")',
        'body.append(mark, style="bold red" if segment.level == "unsupported" else "YELLOW")',
    ),
    *_each(
        "grounding_core.terminal._sources",
        STYLE_CASE,
        'lines = Text("Sources", style="BOLD")',
        'lines.append(f"\\n  [{source.number}] ", style="CYAN")',
        'lines.append(f"  {one_line(source.uri)}", style="DIM")',
    ),
    *_each(
        "grounding_core.terminal.annotated_rich",
        STYLE_CASE,
        'lines = Text("Unsupported claims", style="BOLD RED")',
        'lines.append("\\n  ✘ ", style="RED")',
    ),
    *_each(
        "grounding_core.terminal.annotated_rich",
        "the mark is drawn in the heading's bold red already; an unknown style adds nothing",
        'lines.append("\\n  ✘ ", style="XXredXX")',
    ),
    *_each(
        "grounding_core.terminal.answer_rich",
        STYLE_CASE,
        "return Text(f\"No answer ({one_line(', '.join(answer.skipped_reasons))})\", "
        'style="YELLOW")',
    ),
    # -- html_report
    *_each(
        "grounding_core.html_report._prefix",
        "repr() escapes lone surrogates, so the encoding never meets a character to replace",
        'digest = hashlib.sha256(repr((title, text)).encode("utf-8", "XXreplaceXX")).hexdigest()',
        'digest = hashlib.sha256(repr((title, text)).encode("utf-8", "REPLACE")).hexdigest()',
        'digest = hashlib.sha256(repr((title, text)).encode("utf-8", )).hexdigest()',
    ),
    *_each(
        "grounding_core.html_report._prefix",
        CODEC_CASE,
        'digest = hashlib.sha256(repr((title, text)).encode("UTF-8", "replace")).hexdigest()',
    ),
    *_each(
        "grounding_core.html_report._sha256",
        CODEC_CASE,
        'return "\'sha256-" + base64.b64encode(digest).decode("ASCII") + "\'"',
        'digest = hashlib.sha256(source.encode("UTF-8")).digest()',
    ),
    *_each(
        "grounding_core.html_report._text",
        "quote=True is html.escape's default",
        "return html.escape(printable(value), )",
    ),
    # -- arguments
    *_each(
        "grounding_core.arguments.unknown_arguments_message",
        "only the first close match is shown: asking for more changes nothing",
        "match = difflib.get_close_matches(str(name), names, )",
        "match = difflib.get_close_matches(str(name), names, n=2)",
    ),
    *_each(
        "grounding_core.arguments.refuse_unknown_arguments",
        CAST_TYPE,
        "return typing.cast(None, checked)",
    ),
    *_each(
        "grounding_core.arguments._without_inputs",
        CAST_TYPE,
        "return typing.cast(None, rebuilt.from_exception_data(title, lines, hide_input=True))",
    ),
    # -- validation
    *_each(
        "grounding_core.validation._first_surrogate",
        FAST_PATH,
        "return None if (text.isascii()) and False else _SURROGATE.search(text)",
    ),
    *_each(
        "grounding_core.validation._Walk.text",
        FAST_PATH,
        "return value if (_first_surrogate(value) is None) and False else "
        "check_wire_text(self.path(), value)",
    ),
    *_each(
        "grounding_core.validation._Walk.convert",
        "the fast paths by exact type: without them odd() converts every value the same way",
        "kind = None",
        "return value if (value.isascii()) and False else self.text(value)",
        "if kind is dict and kind is list:",
    ),
    *_each(
        "grounding_core.validation._Walk.odd",
        CODEC_CASE,
        'return self.text(bytes(value).decode("UTF-8"))',
    ),
    *_each(
        "grounding_core.validation._declared",
        "a cache: without it the same fields are read again, with the same result",
        "found = None",
        "found = _DECLARED.get(None)",
        "_DECLARED[cls] = None",
    ),
    *_each(
        "grounding_core.validation._set_order",
        "any rank above the numbers' 0 puts the other values after them",
        "return (2, json.dumps(item, sort_keys=True))",
    ),
    *_each(
        "grounding_core.html_report.answer_html",
        "an answer's report never reads weak_below: answers have no weak level and no "
        "grounding legend",
        "weak_below=None,",
    ),
    *_each(
        "grounding_core.html_report.answer_html",
        "extra is still empty here: = and += give the same text",
        "extra = f'<p class=\"gk-error\">The service gave no answer ({_text(reasons)}).</p>'",
    ),
    # -- metadata
    *_each(
        "grounding_core.metadata.chunk_metadata",
        "the condition only saves a comprehension: over an empty field it gives the same empty "
        "value",
        "{k: list(v) for k, v in chunk.model_scores.items()} if (chunk.model_scores) or True "
        "else {}",
        "[neighbour_metadata(c) for c in chunk.previous_chunks] if (chunk.previous_chunks) or True "
        "else []",
        "[neighbour_metadata(c) for c in chunk.next_chunks] if (chunk.next_chunks) or True else []",
        "[a.to_dict() for a in chunk.annotation_metadata] if (chunk.annotation_metadata) or True "
        "else []",
    ),
    *_each(
        "grounding_core.metadata.rank_signals_metadata",
        "what the first filter lets through, the second drops: None, () and {} become None, [] "
        "and {}",
        "if value is None or value == () and value == {}:",
        "if value is None and value == () or value == {}:",
    ),
    *_each(
        "grounding_core.metadata.rank_signals_metadata",
        "to_jsonable returns a float unchanged",
        "if type(None) is not float:",
    ),
    *_each(
        "grounding_core.metadata.rank_signals_metadata",
        "with the record's types only the last field (precomputed values as an empty list) "
        "reaches this line, where break ends the loop as continue does",
        "break",
    ),
    # -- report
    *_each(
        "grounding_core.report.GroundingReport.__rich__",
        STYLE_CASE,
        'return Text(f"The grounding check failed: {error}", style="BOLD RED")',
        'return Text(f"Nothing was checked: {self.skipped_reason}", style="YELLOW")',
    ),
    *_each(
        "grounding_core.report.GroundingReport.metadata",
        ZIP_STRICT,
        'for claim_metadata, claim in zip(base["claims"], result.claims, strict=None):',
        'for claim_metadata, claim in zip(base["claims"], result.claims, ):',
        'for claim_metadata, claim in zip(base["claims"], result.claims, strict=False):',
    ),
    *_each(
        "grounding_core.grounding.check_grounding_request",
        ZIP_STRICT,
        "for text, attributes in zip(facts.texts, facts.attributes, strict=None):",
        "for text, attributes in zip(facts.texts, facts.attributes, ):",
        "for text, attributes in zip(facts.texts, facts.attributes, strict=False):",
    ),
    *_each(
        "grounding_core.errors.message_too_large",
        "no size text matches in either: a missing message is no match",
        'found = _TOO_LARGE.search(exc.message or "XXXX")',
    ),
    *_each(
        "grounding_core.render.annotated_markdown",
        "an escaped ( or : renders as the same character: the rendered report is the same",
        "line_start, after_marker = True, True",
        'line_start, after_marker = piece.endswith("\\n"), True',
    ),
    *_each(
        "grounding_core.report.GroundingReport._repr_html_",
        FALSY_NONE,
        "return self.html(full_document=None)",
    ),
    *_each(
        "grounding_core.report.GroundingReport.metadata",
        "the metadata's claims are built from the same result: the lengths always agree",
        'for claim_metadata, claim in zip(base["claims"], result.claims, strict=None):',
        'for claim_metadata, claim in zip(base["claims"], result.claims, ):',
        'for claim_metadata, claim in zip(base["claims"], result.claims, strict=False):',
    ),
    # -- grounding
    *_each(
        "grounding_core.grounding.check_grounding_request",
        "build_facts fills texts and attributes together: the lengths always agree",
        "for text, attributes in zip(facts.texts, facts.attributes, strict=None):",
        "for text, attributes in zip(facts.texts, facts.attributes, ):",
        "for text, attributes in zip(facts.texts, facts.attributes, strict=False):",
    ),
    # -- answering
    # -- clients
    *_each(
        "grounding_core.clients._Clients._build",
        "given a channel, Google's gRPC transports drop the credentials (transports/grpc.py: "
        "'credentials = None; self._ignore_credentials = True')",
        "credentials=None,  # type: ignore[no-untyped-call]",
        ")",
    ),
    *_each(
        "grounding_core.clients._Clients.get",
        "the lock-free read is only a fast path: the read under the lock finds the same client",
        "client = None",
        "client = self._sync.get(None)",
    ),
    *_each(
        "grounding_core.clients._Clients.get",
        "typing.cast returns its value unchanged at run time",
        "return cast(None, client)",
    ),
    *_each(
        "grounding_core.clients._Clients.get",
        FALSY_NONE,
        "self._sync_channel = emulator_channel(self.emulator_host, asynchronous=None)",
        "client = self._build(client_cls, asynchronous=None, channel=self._sync_channel)",
    ),
    *_each(
        "grounding_core.clients._RefusedConnection.__init__",
        UNREAD_PLACEHOLDER,
        'self.channel: grpc.Channel | None = ""',
    ),
    *_each(
        "grounding_core.clients._AsyncRefusedConnection.__init__",
        UNREAD_PLACEHOLDER,
        'self.channel: grpc.aio.Channel | None = ""',
    ),
    *_each(
        "grounding_core.clients._RefusedConnection.intercept_unary_unary",
        "grpc's continuation takes each attribute the details lack from the call's own "
        "(grpc/_interceptor.py _unwrap_client_call_details): None makes the same call",
        "outcome = continuation(None, request)",
    ),
    *_each(
        "grounding_core.clients._Clients._emulator_host",
        "emulator_address's source defaults to 'emulator_host', the value passed",
        "return emulator_address(given, )",
    ),
)
