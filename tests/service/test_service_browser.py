"""The web page in a real headless Chromium (Debian's chromium + chromium-driver via selenium)
against a live `docqa serve` on 127.0.0.1 with the fake model. Screenshots go to /tmp/service/."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from service_helpers import KEYS, UNANSWERABLE, Server, serving

CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
SHOTS = Path("/tmp/service")
REPLY = "Acme charges ten cents a day [acme/fines#overdue-fines] [made/up#nowhere]."
ACME = next(iter(KEYS))

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="chromium and chromium-driver are not installed (.ci/setup.d/20-chromium.sh installs them)",
)


@pytest.fixture(scope="module")
def server(tenant_index: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    log = tmp_path_factory.mktemp("browser") / "serve.log"
    with serving(
        "--index", str(tenant_index), "--backend", "fake", "--fake-reply", REPLY, log=log
    ) as s:
        yield s


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--window-size=1000,1200",
        "--disable-dev-shm-usage",
        f"--user-data-dir={tmp_path_factory.mktemp('chrome')}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(DRIVER)), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def _ask(browser: Any, server: Server, question: str, key: str) -> None:
    from selenium.webdriver.common.by import By

    browser.get(server.url + "/")
    if key:
        browser.find_element(By.ID, "key").send_keys(key)
    box = browser.find_element(By.ID, "question")
    box.send_keys(question)
    browser.find_element(By.ID, "go").click()


def _wait_for(browser: Any, condition: Any) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 20, poll_frequency=0.05).until(condition)


def test_answer_streams_in_with_sources_and_checked_citations(browser: Any, server: Server) -> None:
    from selenium.webdriver.common.by import By

    _ask(browser, server, "How much is the overdue fine for a book?", ACME)
    _wait_for(browser, lambda b: b.find_element(By.ID, "status").text == "done")
    SHOTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(SHOTS / "browser-answer.png"))
    assert browser.find_element(By.ID, "answer").text == REPLY
    sources = browser.find_elements(By.CSS_SELECTOR, "#sources li")
    assert sources and "acme/fines#overdue-fines" in sources[0].text
    assert "Fines › Overdue fines" in sources[0].text and "acme/fines.md" in sources[0].text
    assert all("globex" not in s.text for s in sources)
    items = browser.find_elements(By.CSS_SELECTOR, "#citations li")
    marks = {
        li.find_element(By.CLASS_NAME, "id").text: li.find_element(By.CLASS_NAME, "mark").text
        for li in items
        if li.find_elements(By.CLASS_NAME, "id")
    }
    assert marks == {"acme/fines#overdue-fines": "retrieved", "made/up#nowhere": "not retrieved"}
    said = [li.text for li in items if not li.find_elements(By.CLASS_NAME, "id")]
    assert said[0].startswith("not supported by") and "made/up#nowhere" in said[0]
    assert said[-1].startswith("0 of 1 claim supported")


def test_unanswerable_question_shows_a_calm_refusal(browser: Any, server: Server) -> None:
    from selenium.webdriver.common.by import By

    _ask(browser, server, UNANSWERABLE, ACME)
    _wait_for(browser, lambda b: b.find_element(By.ID, "status").text == "refused")
    browser.save_screenshot(str(SHOTS / "browser-refused.png"))
    answer = browser.find_element(By.ID, "answer")
    assert answer.get_attribute("class") == "refused"
    assert "No passage in these documents answers that" in answer.text
    assert browser.find_element(By.ID, "sources-box").is_displayed() is False


def test_errors_are_shown_in_words(browser: Any, server: Server) -> None:
    from selenium.webdriver.common.by import By

    _ask(browser, server, "How much is the overdue fine?", "not-a-valid-key-at-all")
    _wait_for(browser, lambda b: b.find_element(By.ID, "status").text.startswith("Error:"))
    browser.save_screenshot(str(SHOTS / "browser-error.png"))
    status = browser.find_element(By.ID, "status")
    assert status.text == "Error: missing or invalid API key; send Authorization: Bearer KEY"
    assert browser.find_element(By.ID, "answer").text == ""


CODE = "# Setup\n\n## Install\n\nInstall the tool with these commands:\n\n```\nmake venv\nmake install\n```\n"


@pytest.fixture(scope="module")
def open_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A service without keys over a page with a code block, named on the command line."""
    from docqa.build import build_index

    root = tmp_path_factory.mktemp("open")
    (root / "docs").mkdir()
    (root / "docs" / "setup.md").write_text(CODE)
    build_index([root / "docs"], root / "ix")
    with serving(
        "--index", str(root / "ix"), "--name", "Team <handbook>", log=root / "serve.log",
        keyed=False,
    ) as s:  # fmt: skip
        yield s


def test_the_page_names_the_collection_keeps_code_lines_and_has_no_key_field_without_keys(
    browser: Any, open_server: Server
) -> None:
    from selenium.webdriver.common.by import By

    _ask(browser, open_server, "How do I install the tool?", "")
    _wait_for(browser, lambda b: b.find_element(By.ID, "status").text == "done")
    SHOTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(SHOTS / "browser-open.png"))
    assert browser.title == "Team <handbook> · docqa"
    assert browser.find_element(By.TAG_NAME, "h1").text == "Ask Team <handbook>"
    assert not browser.find_element(By.ID, "key").is_displayed()
    (source,) = browser.find_elements(By.CSS_SELECTOR, "#sources li")
    assert "make venv\nmake install" in source.find_element(By.CLASS_NAME, "text").text
    assert source.find_element(By.CLASS_NAME, "source").text == "setup.md"
