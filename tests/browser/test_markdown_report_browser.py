"""The Markdown of hostile reports, rendered by a CommonMark renderer (markdown-it-py, raw HTML
on, as CommonMark specifies) and opened in a real headless Chromium: no script runs.

Every payload would set ``document.title``; the page has no Content-Security-Policy, so only
the escaping stands between the payloads and the browser. A control page renders the same
payloads unescaped and shows that they do run there.
"""

from __future__ import annotations

from pathlib import Path

from markdown_it import MarkdownIt
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.core.hostile_text import ANSWERS, PWNED, TITLES, hostile_reports

TITLE = "markdown report"
# Our own harness, after the content: a broken image whose error handler says the page's
# images have failed (so that a payload's onerror would have run by then).
DONE = '<img src="x" onerror="window.__done = true">'


def page(markdown: str) -> str:
    body = MarkdownIt("commonmark").render(markdown)
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{TITLE}</title></head>'
        f"<body>{body}{DONE}</body></html>"
    )


def opened(browser, path: Path, markup: str) -> str:
    """The page's title once the page (and its broken images) have loaded."""
    path.write_text(markup, encoding="utf-8")
    browser.get(path.as_uri())
    WebDriverWait(browser, 10).until(lambda b: b.execute_script("return window.__done === true"))
    return str(browser.execute_script("return document.title"))


def test_unescaped_payloads_do_run_in_this_browser(browser, tmp_path):
    raw = f"Answer <script>{PWNED}</script>\n\n1. {TITLES[1]}"
    assert opened(browser, tmp_path / "control.html", page(raw)) == "pwned"


def test_hostile_markdown_reports_run_no_script(browser, tmp_path):
    for number, report in enumerate(hostile_reports()):
        markdown = report.markdown()
        path = tmp_path / f"hostile-{number}.html"
        assert opened(browser, path, page(markdown)) == TITLE, ANSWERS[number]
        assert browser.find_elements(By.CSS_SELECTOR, "script, iframe, object, embed, form") == []
        assert len(browser.find_elements(By.TAG_NAME, "img")) == 1  # the harness's own
        hrefs = [a.get_attribute("href") for a in browser.find_elements(By.TAG_NAME, "a")]
        assert hrefs
        assert all(h.startswith(("http://", "https://")) for h in hrefs), hrefs
        # The payloads are on the page, as text.
        text = browser.find_element(By.TAG_NAME, "body").text
        assert "<script>" in text
        assert f'<img src=x onerror="{PWNED}">' in text
