"""The views of a checked answer and of a grounded answer: Markdown, self-contained HTML and the
terminal (rich), all drawn from one ``AnnotatedText`` (``annotate``) so their ``[n]`` numbers
agree, and every piece of answer, title and URI shown as the untrusted text it is
(``untrusted``). ``docs/reports.md`` shows each.

>>> from rich.console import Console
>>> from grounding_core import CitedChunk, Claim, GroundingResult, GroundingSource
>>> fact = CitedChunk("Paris is the capital of France.", source_index=0, fact_index=0)
>>> result = GroundingResult(
...     "Paris is the capital. It has [90] million people.",
...     0.5,
...     (Claim("Paris is the capital.", 0, 21, citation_indices=(0,), citations=(fact,)),
...      Claim("It has [90] million people.", 22, 49)),
... )
>>> sources = [GroundingSource("...", {"title": "Paris", "source": "https://example.org/p"})]
>>> print(grounding_markdown(result, sources))
Paris is the capital.[1] It has \\[90\\] million people. **[unsupported]**
<BLANKLINE>
**Sources**
<BLANKLINE>
1. [Paris](https://example.org/p)
>>> console = Console(width=80, color_system=None)
>>> console.print(grounding_rich(result, sources, min_support_score=0.6))
Support score 0.50 · below the minimum 0.60
1 supported · 0 weak · 1 unsupported · 0 not checked
<BLANKLINE>
Paris is the capital.[1] It has [90] million people. [unsupported]
<BLANKLINE>
Unsupported claims
  ✘ It has [90] million people.
<BLANKLINE>
Sources
  [1] Paris  https://example.org/p
"""

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
