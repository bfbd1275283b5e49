"""Browser tests: Playwright (sync API) driving Debian's Chromium against `live_server`.

Without /usr/bin/chromium (or Playwright) these tests are skipped on a
developer machine, but fail under CI (`CI=true`): there a silently skipped
browser suite would be a green build that tested nothing.

The live server thread shares the in-process database with the test, so
`tests/conftest.py`'s per-test cleanup and fast hashing apply to it as well.
"""

import os
import re
from pathlib import Path

import pytest
from django.test import Client

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
E2E_DIR = Path(__file__).resolve().parent
# Fail in seconds, not Playwright's default 30, when something is missing.
TIMEOUT_MS = 10_000


def pytest_collection_modifyitems(config, items):
    for item in items:
        if E2E_DIR in Path(item.path).parents:
            item.add_marker(pytest.mark.e2e)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    # Read by the page fixtures' teardown to decide whether to take a screenshot.
    setattr(item, f"rep_{report.when}", report)
    return report


def _unavailable(reason: str):
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"Browser tests cannot run under CI: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        _unavailable(f"{CHROMIUM} is missing (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture(autouse=True)
def _live_server_helper(request):
    """Replaces pytest-django's helper, which asks for `transactional_db`.

    There is no SQL database (`DATABASES = {}`): flushing one after the test
    fails. The data lives in MongoDB, which `tests/conftest.py` empties.
    """
    if "live_server" not in request.fixturenames:
        yield
        return
    live_server = request.getfixturevalue("live_server")
    live_server._live_server_modified_settings.enable()
    yield
    live_server._live_server_modified_settings.disable()


def _artifact_name(item) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", item.name)


@pytest.fixture
def new_page(request, browser, live_server):
    """`new_page()` opens a page in a fresh browser context (its own cookies: one user).

    Relative URLs resolve against the live server. When the test fails, every
    page it opened is saved as test-artifacts/<test name>[-n].png.
    """
    yield from pages_of(request, browser, live_server.url)


def pages_of(request, browser, base_url: str):
    """`new_page`'s maker for any server (tests/e2e/test_live_journey.py
    opens pages on the ASGI one)."""
    contexts = []
    name = _artifact_name(request.node)
    for stale in [*ARTIFACTS.glob(f"{name}.png"), *ARTIFACTS.glob(f"{name}-[0-9]*.png")]:
        stale.unlink()

    def make():
        context = browser.new_context(base_url=base_url)
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        return context.new_page()

    yield make

    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        ARTIFACTS.mkdir(exist_ok=True)
        for n, context in enumerate(contexts, start=1):
            for page in context.pages:
                suffix = "" if n == 1 else f"-{n}"
                try:
                    page.screenshot(path=str(ARTIFACTS / f"{name}{suffix}.png"), full_page=True)
                except Exception as exc:  # a crashed page must not hide the test's own error
                    print(f"screenshot of {page.url} failed: {exc}")
    for context in contexts:
        context.close()


def screenshot_if_failed(request, contexts) -> None:
    """When the test failed, save every page of `contexts` as
    test-artifacts/<test name>[-n].png (n: the context's place, from 2)."""
    report = getattr(request.node, "rep_call", None)
    if report is None or not report.failed:
        return
    name = _artifact_name(request.node)
    ARTIFACTS.mkdir(exist_ok=True)
    for n, context in enumerate(contexts, start=1):
        for page in context.pages:
            suffix = "" if n == 1 else f"-{n}"
            try:
                page.screenshot(path=str(ARTIFACTS / f"{name}{suffix}.png"), full_page=True)
            except Exception as exc:  # a crashed page must not hide the test's own error
                print(f"screenshot of {page.url} failed: {exc}")


@pytest.fixture
def page(new_page):
    """A page in a new browser context for this test."""
    return new_page()


@pytest.fixture
def artifacts_dir() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def sign_in():
    """`sign_in(page, handle)`: log in through the login form, landing on the feed."""
    from playwright.sync_api import expect

    from tests.conftest import PASSWORD

    def log_in(page, handle: str) -> None:
        page.goto("/accounts/login/")
        page.locator("[name=username]").fill(handle)
        page.locator("[name=password]").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
        expect(page).to_have_url(re.compile(r"/feed/$"))

    return log_in


@pytest.fixture(scope="session")
def browser_user_agent(browser) -> str:
    """The User-Agent the browser sends, for sessions started outside it."""
    page = browser.new_page()
    try:
        return page.evaluate("navigator.userAgent")
    finally:
        page.context.close()


@pytest.fixture
def sign_in_by_cookie(live_server, browser_user_agent):
    """`sign_in_by_cookie(context, handle)`: the browser context is signed in
    as `handle`, with the cookies of a login through the same login view,
    posted by Django's test client with the browser's User-Agent (the session
    records it: the sessions page shows the browser). `sign_in`'s end state,
    without a form's page loads, for tests about what comes after; the form
    itself is test_accounts_journey.py's."""
    from tests.conftest import PASSWORD

    def log_in(context, handle: str) -> None:
        client = Client(HTTP_USER_AGENT=browser_user_agent)
        response = client.post("/accounts/login/", {"username": handle, "password": PASSWORD})
        assert response.status_code == 302, f"{handle} could not log in: {response.status_code}"
        context.add_cookies(
            [
                {"name": name, "value": morsel.value, "url": live_server.url}
                for name, morsel in client.cookies.items()
            ]
        )

    return log_in


@pytest.fixture(scope="session")
def axe():
    """axe-core as vendored by axe-playwright-python: `axe.run(page).response`."""
    try:
        from axe_playwright_python.sync_playwright import Axe
    except ImportError:
        _unavailable("the axe-playwright-python package is not installed")
    return Axe()


@pytest.fixture
def ad_campaign():
    """`ad_campaign(owner, zone, title, ...)`: an active campaign with one unit on
    Socialsite's own site, made through the ad services; returns its id."""
    from decimal import Decimal

    from django.conf import settings

    from ads import services

    def make(owner, zone, title, *, keywords=(), ecpm="3.00", url="https://example.org/ad"):
        campaign = services.campaign_create(
            owner=owner,
            advertiser=owner.replace("_", "-"),
            name=title,
            ecpm=Decimal(ecpm),
            keywords=list(keywords),
        )
        services.unit_add(
            campaign_id=campaign.id,
            ad_unit_id=f"{zone}-unit",
            site=settings.ADS_SITE_ID,
            zone=zone,
            title=title,
            text="A short line about it, as advertisers write them.",
            url=url,
        )
        services.campaign_activate(campaign_id=campaign.id)
        return campaign.id

    return make
