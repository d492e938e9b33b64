"""The HTML report in a real headless Chromium: highlighting, hover and click, hostile content,
no JavaScript, notebook fragments. Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

from pathlib import Path

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from grounding_core import answer_html
from tests.core.reports import grounded_answer, hostile_report, levels_report

GREEN, YELLOW, RED, NONE = (
    "rgba(218, 251, 225, 1)",
    "rgba(255, 248, 197, 1)",
    "rgba(255, 235, 233, 1)",
    "rgba(0, 0, 0, 0)",
)


def load(browser, path: Path, html: str) -> None:
    path.write_text(html, encoding="utf-8")
    browser.get_log("browser")  # forget what earlier pages logged
    browser.get(path.as_uri())


def console_errors(browser) -> list[str]:
    return [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def claims(browser):
    return browser.find_elements(By.CSS_SELECTOR, ".gk-answer .gk-claim")


def detail(browser, number: int):
    return browser.find_element(By.CSS_SELECTOR, f'.gk-detail[data-claim="{number}"]')


def shown_details(browser) -> list[str]:
    details = browser.find_elements(By.CSS_SELECTOR, ".gk-detail")
    return [d.get_attribute("data-claim") for d in details if d.is_displayed()]


def screenshot(browser, path: Path) -> None:
    assert browser.save_screenshot(str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_claims_are_highlighted_by_support(browser, tmp_path):
    load(browser, tmp_path / "report.html", levels_report().html(question="About Paris?"))
    root = browser.find_element(By.CSS_SELECTOR, ".gk-report")
    # The report's script ran: the Content-Security-Policy allows it (and only it).
    assert "gk-js" in root.get_attribute("class").split()
    found = claims(browser)
    assert [c.get_attribute("data-level") for c in found] == [
        "supported",
        "weak",
        "unsupported",
        "not_checked",
    ]
    assert [c.value_of_css_property("background-color") for c in found] == [
        GREEN,
        YELLOW,
        RED,
        NONE,
    ]
    assert found[2].value_of_css_property("text-decoration-style") == "wavy"
    assert found[1].value_of_css_property("border-bottom-style") == "dashed"
    assert found[3].value_of_css_property("border-bottom-style") == "dotted"
    summary = browser.find_element(By.CSS_SELECTOR, ".gk-summary").text
    assert "Support score\n0.67\npassed (minimum 0.60)" in summary
    assert shown_details(browser) == []
    assert browser.find_element(By.CSS_SELECTOR, ".gk-placeholder").is_displayed()
    assert console_errors(browser) == []


def test_hover_and_click_show_the_cited_sources(browser, tmp_path, artifacts):
    load(browser, tmp_path / "report.html", levels_report().html(question="About Paris?"))
    supported, weak, unsupported, _ = claims(browser)

    ActionChains(browser).move_to_element(supported).perform()
    assert shown_details(browser) == ["0"]
    assert "Paris is the capital and largest city of France." in detail(browser, 0).text

    weak.click()  # pins the weak claim's sources
    assert shown_details(browser) == ["1"]
    assert weak.get_attribute("aria-expanded") == "true"
    assert "gk-active" in weak.get_attribute("class").split()
    panel = detail(browser, 1)
    assert "WEAK" in panel.text
    assert "score 0.70" in panel.text
    assert "The Eiffel Tower was completed in 1889 for the World's Fair." in panel.text
    link = panel.find_element(By.CSS_SELECTOR, "a.gk-link")
    assert link.text == "Eiffel Tower"
    assert link.get_attribute("href") == "https://en.wikipedia.org/wiki/Eiffel_Tower"
    assert link.get_attribute("rel") == "noopener noreferrer nofollow"
    assert browser.current_url.endswith("report.html")  # the click did not navigate
    screenshot(browser, artifacts / "grounding-report.png")

    ActionChains(browser).move_to_element(unsupported).perform()
    assert shown_details(browser) == ["1"]  # pinned: hovering elsewhere does not change it

    unsupported.click()
    assert shown_details(browser) == ["2"]
    assert "No source supports this claim." in detail(browser, 2).text
    screenshot(browser, artifacts / "grounding-report-unsupported.png")

    unsupported.send_keys(Keys.ESCAPE)
    assert shown_details(browser) == []
    assert console_errors(browser) == []


def test_hostile_content_does_not_run(browser, tmp_path, artifacts):
    load(browser, tmp_path / "hostile.html", hostile_report().html())
    assert browser.execute_script("return window.__pwned === undefined") is True
    for claim in claims(browser):
        ActionChains(browser).move_to_element(claim).perform()
        claim.click()
    assert browser.execute_script("return window.__pwned === undefined") is True
    assert browser.find_elements(By.CSS_SELECTOR, "img, iframe, object, embed, form") == []
    assert len(browser.find_elements(By.TAG_NAME, "script")) == 1
    hrefs = [a.get_attribute("href") for a in browser.find_elements(By.CSS_SELECTOR, "a[href]")]
    assert hrefs
    assert all(h.startswith(("https://", "http://", "file://")) for h in hrefs), hrefs
    assert not [h for h in hrefs if "javascript" in h.lower() or "data:" in h]
    answer = browser.find_element(By.CSS_SELECTOR, ".gk-answer").text
    assert "Safe <script>window.__pwned = 1</script> claim." in answer
    assert '<img src=x onerror="window.__pwned = 1">' in answer
    claims(browser)[0].click()
    panel = detail(browser, 0)
    assert '"><script>window.__pwned = 1</script>' in panel.text  # the title, as text
    assert panel.find_elements(By.CSS_SELECTOR, "a.gk-link") == []  # javascript: -> no link
    screenshot(browser, artifacts / "grounding-report-hostile.png")
    assert console_errors(browser) == []


def test_without_javascript_every_claim_lists_its_sources(browser, tmp_path):
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        load(browser, tmp_path / "report.html", levels_report().html())
        root = browser.find_element(By.CSS_SELECTOR, ".gk-report")
        assert "gk-js" not in root.get_attribute("class").split()
        assert shown_details(browser) == ["0", "1", "2", "3"]
        claims(browser)[1].click()  # a plain link to the claim's entry
        assert browser.current_url.endswith(f"#{detail(browser, 1).get_attribute('id')}")
    finally:
        browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})


def test_notebook_fragments_work_side_by_side(browser, tmp_path):
    # What a notebook does with _repr_html_: fragments inserted in its own page.
    page = (
        "<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>"
        f"{levels_report()._repr_html_()}<p>between</p>{grounded_answer()._repr_html_()}"
        "</body></html>"
    )
    load(browser, tmp_path / "notebook.html", page)
    roots = browser.find_elements(By.CSS_SELECTOR, ".gk-report")
    assert [r.get_attribute("data-kind") for r in roots] == ["grounding", "answer"]
    assert all("gk-js" in r.get_attribute("class").split() for r in roots)
    answer_claims = roots[1].find_elements(By.CSS_SELECTOR, ".gk-claim")
    answer_claims[1].click()
    assert shown_details(browser) == ["1"]  # in the answer's report only
    opened = roots[1].find_element(By.CSS_SELECTOR, ".gk-detail.gk-open")
    assert "Generators <em>pause</em>." in opened.text
    assert roots[0].find_elements(By.CSS_SELECTOR, ".gk-detail.gk-open") == []


def test_answer_report(browser, tmp_path, artifacts):
    html = answer_html(grounded_answer(), question="What does yield do?")
    load(browser, tmp_path / "answer.html", html)
    first = claims(browser)[0]
    assert first.value_of_css_property("background-color") == GREEN
    first.click()
    panel = detail(browser, 0)
    assert "CITED" in panel.text
    assert "A yield statement is equivalent to a yield expression." in panel.text
    screenshot(browser, artifacts / "grounded-answer.png")
    assert console_errors(browser) == []


@pytest.mark.parametrize("width", [420])
def test_narrow_screens_stack_the_panel_under_the_answer(browser, tmp_path, width):
    size = browser.get_window_size()
    browser.set_window_size(width, 900)
    try:
        load(browser, tmp_path / "report.html", levels_report().html())
        answer = browser.find_element(By.CSS_SELECTOR, ".gk-answer")
        panel = browser.find_element(By.CSS_SELECTOR, ".gk-panel")
        assert panel.location["y"] > answer.location["y"] + answer.size["height"]
    finally:
        browser.set_window_size(size["width"], size["height"])
