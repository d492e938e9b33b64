"""A real headless Chromium for the HTML report tests: Debian's ``chromium`` driven by Selenium
through Debian's ``chromedriver`` (same package version as the browser).

``.ci/run`` installs both. Elsewhere, without them, the browser tests are skipped with the
reason; under CI (``CI=true``) a missing browser is an error instead.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,900",
    "--force-device-scale-factor=1",
)


def _missing() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    for name, package in (("chromium", "chromium"), ("chromedriver", "chromium-driver")):
        if shutil.which(name) is None:
            return f"{name} is not installed (apt-get install {package}; .ci/run does it)"
    return None


@pytest.fixture(scope="session")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """A headless Chromium (a Selenium ``WebDriver``) for the whole session."""
    reason = _missing()
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the browser tests must run in CI: {reason}")
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(
        service=Service(shutil.which("chromedriver") or "chromedriver"), options=options
    )
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def artifacts() -> Path:
    """``test-artifacts/`` (git-ignored): screenshots for a person to look at."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
