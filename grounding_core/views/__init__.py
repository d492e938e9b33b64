"""The views of a checked answer and of a grounded answer: Markdown, self-contained HTML and the
terminal (rich), all drawn from one ``AnnotatedText`` (``annotate``) so their ``[n]`` numbers
agree, and every piece of answer, title and URI shown as the untrusted text it is
(``untrusted``). ``docs/reports.md`` shows each."""

from .annotate import DEFAULT_WEAK_BELOW, format_score, support_level
from .html import answer_html, grounding_html
from .markdown import answer_markdown, grounding_markdown
from .terminal import answer_rich, grounding_rich

__all__ = [
    "DEFAULT_WEAK_BELOW",
    "answer_html",
    "answer_markdown",
    "answer_rich",
    "format_score",
    "grounding_html",
    "grounding_markdown",
    "grounding_rich",
    "support_level",
]
