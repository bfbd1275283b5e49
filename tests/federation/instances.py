"""Whole Socialsite instances for federation tests: each `manage.py demo`
in a process of its own on the loopback, with its own in-memory demo
database, driven over real HTTP with Mastodon.py as a person's app would.

    from tests.federation.instances import two_instances  # noqa: F401 (a fixture)

    pytestmark = pytest.mark.no_test_db(reason="the instances run in subprocesses")

    def test_something(two_instances):
        a, b = two_instances
        alice = a.client("alice")          # mastodon.Mastodon, logged in on a
        alice.status_post("hello")
        b.client("dennis_turing").account_search("alice@127.0.0.1:%d" % a.port)

Or, for one instance of your own: `start_instance(port)` and `.stop()` it.
Each instance's demo has alice, dennis_turing and guido_backus (`--users 3`:
profiles/demo.py's seeded names), moderator and admin, all with the password
"socialsite-demo". A start takes about 4 s (seeding, static files,
gunicorn), two side by side about 4.5 s, a stop under a second. The server
is `--server wsgi` by default (it starts and stops faster; the API, tasks
and deliveries run the same); pass server="asgi" for streaming.
"""

import contextlib
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests
from mastodon import Mastodon

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "socialsite-demo"  # profiles.demo.DEMO_PASSWORD
SCOPES = "read write follow push"
OOB = "urn:ietf:wg:oauth:2.0:oob"  # api/oauth.py: the code is shown on a page
PORTS = range(9120, 9150)
START_TIMEOUT = 90  # seconds: seeding on a busy machine (tests/test_run_command.py)
CODE = re.compile(r'class="authorization-code"[^>]*>([^<]+)<')


@dataclass
class Instance:
    """One running `manage.py demo`: its address, its output, its people's tokens."""

    port: int
    process: subprocess.Popen
    logs: Path
    handles: list[str]
    tokens: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log(self) -> str:
        """Everything the process wrote so far: stdout, then stderr (JSON lines)."""
        return "".join(
            f"--- {name} ---\n{(self.logs / name).read_text(errors='replace')}"
            for name in ("stdout", "stderr")
            if (self.logs / name).exists()
        )

    def stop(self) -> None:
        """The whole process group (gunicorn's arbiter and its worker); twice is fine."""
        self.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        except ProcessLookupError:
            pass

    def terminate(self) -> None:
        """SIGTERM to the group, without waiting: gunicorn's graceful stop takes
        about a second, so `stop_all` signals every instance first."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)

    def token(self, handle: str, password: str = PASSWORD, scopes: str = SCOPES) -> str:
        """A real OAuth access token for `handle`, got as a person gets one
        (docs/api.md#apps-and-tokens): the app registers, the person logs in
        with the site's form, authorizes on the consent page, and the app
        trades the out-of-band code shown there for a token. Kept per handle
        and scopes: the site rate-limits logins."""
        key = (handle, scopes)
        if key not in self.tokens:
            self.tokens[key] = self._new_token(handle, password, scopes.split())
        return self.tokens[key]

    def client(self, handle: str, *, scopes: str = SCOPES) -> Mastodon:
        """A Mastodon.py client logged in as `handle` on this instance."""
        return Mastodon(
            api_base_url=self.url,
            access_token=self.token(handle, scopes=scopes),
            version_check_mode="none",
            ratelimit_method="throw",  # a limit hit fails the test, it never waits
            request_timeout=30,
        )

    def web(self, handle: str, password: str = PASSWORD) -> requests.Session:
        """A browser's session, signed in through the login form."""
        web = requests.Session()
        # A browser's form posts carry its Origin; Django's CSRF check reads it.
        web.headers["Origin"] = self.url
        page = web.get(f"{self.url}/accounts/login/", timeout=30)
        page.raise_for_status()
        logged_in = web.post(
            f"{self.url}/accounts/login/",
            data={
                "username": handle,
                "password": password,
                "csrfmiddlewaretoken": web.cookies["csrftoken"],
            },
            allow_redirects=False,
            timeout=30,
        )
        if logged_in.status_code != 302:
            raise AssertionError(f"{handle} could not log in: {logged_in.status_code}")
        return web

    def _new_token(self, handle: str, password: str, scopes: list[str]) -> str:
        client_id, client_secret = Mastodon.create_app(
            "Federation test", scopes=scopes, redirect_uris=OOB, api_base_url=self.url
        )
        web = self.web(handle, password)
        app = Mastodon(
            client_id=client_id,
            client_secret=client_secret,
            api_base_url=self.url,
            version_check_mode="none",
        )
        authorize = app.auth_request_url(redirect_uris=OOB, scopes=scopes, allow_http=True)
        consent = web.get(authorize, allow_redirects=False, timeout=30)
        if consent.status_code != 200 or 'value="authorize"' not in consent.text:
            raise AssertionError(f"no consent page for {handle}: {consent.status_code}")
        # The page posts back to its own URL, query and all (api/views/oauth.py).
        shown = web.post(
            authorize,
            data={"decision": "authorize", "csrfmiddlewaretoken": web.cookies["csrftoken"]},
            allow_redirects=False,
            timeout=30,
        )
        code = CODE.search(shown.text)
        if shown.status_code != 200 or not code:
            raise AssertionError(f"no authorization code for {handle}: {shown.status_code}")
        return app.log_in(code=code[1].strip(), redirect_uri=OOB, scopes=scopes, allow_http=True)


def demo_handles(users: int) -> list[str]:
    """The people `manage.py demo --users N` seeds (its fixed seed, 42), alice
    first, then the demo's moderator and admin (moderation/demo.py)."""
    import random

    from profiles.demo import demo_people

    seeded = [handle for handle, _ in demo_people(users, random.Random(42))]
    return [*seeded, "moderator", "admin"]


def start_instance(
    port: int,
    *,
    users: int = 3,
    extra_env: dict | None = None,
    server: str = "wsgi",
    logs: Path | None = None,
) -> Instance:
    """`manage.py demo 127.0.0.1:<port> --users <users>` in a new process
    group, served at SITE_URL http://127.0.0.1:<port> with loopback
    federation allowed and, as scripts/run does, DEBUG off over plain
    HTTP; returns once `/healthz` answers. The server's output goes to
    `logs` (a new temporary folder by default): RuntimeError with its end
    if the process exits or is not ready within START_TIMEOUT. `extra_env`
    is applied last (it can override any of the above)."""
    logs = logs or Path(tempfile.mkdtemp(prefix=f"instance-{port}-"))
    url = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "MONGODB_URI": "",  # "" reads as unset: the in-memory demo database
        "SITE_URL": url,
        "FEDERATION_ALLOW_LOOPBACK": "true",
        "DEBUG": "false",
        "SECURE_SSL_REDIRECT": "false",
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
        "SECURE_HSTS_SECONDS": "0",
        # Its own key and static files: no .secret_key written into the
        # checkout, and two instances never collect into one folder at once.
        "SECRET_KEY": secrets.token_urlsafe(40),
        "STATIC_ROOT": str(logs / "static"),
        **(extra_env or {}),
    }
    manage = [sys.executable, str(ROOT / "manage.py"), "demo", f"127.0.0.1:{port}"]
    command = [*manage, "--users", str(users), "--server", server]
    with (logs / "stdout").open("w") as out, (logs / "stderr").open("w") as err:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=out, stderr=err, start_new_session=True
        )
    instance = Instance(port=port, process=process, logs=logs, handles=demo_handles(users))
    wait_ready(instance)
    return instance


def wait_ready(instance: Instance, *, timeout: float = START_TIMEOUT) -> None:
    """Until `/healthz` answers 200; the instance is stopped if it never does."""
    deadline = time.monotonic() + timeout
    while not _healthy(instance.url):
        if instance.process.poll() is not None:
            raise RuntimeError(
                f"the instance on {instance.port} exited with "
                f"{instance.process.returncode}:\n{instance.log()[-4000:]}"
            )
        if time.monotonic() > deadline:
            instance.stop()
            raise RuntimeError(
                f"the instance on {instance.port} was not ready in {timeout} s:\n"
                f"{instance.log()[-4000:]}"
            )
        time.sleep(0.1)


def _healthy(url: str) -> bool:
    try:
        return requests.get(f"{url}/healthz", timeout=5).status_code == 200
    except requests.ConnectionError:  # not listening yet: seeding comes first
        return False


def free_ports(n: int, *, ports: range = PORTS) -> list[int]:
    """`n` ports of `ports` that nothing listens on now."""
    found = []
    for port in ports:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        found.append(port)
        if len(found) == n:
            return found
    raise RuntimeError(f"fewer than {n} free ports in {ports}")


def start_instances(
    n: int, *, users: int = 3, extra_env: dict | None = None, logs: Path | None = None
) -> list[Instance]:
    """`n` instances on free ports, started side by side (each seeds on its
    own CPU), so n cost about what one does; each logs into `logs/<port>`
    when `logs` is given."""
    ports = free_ports(n)

    def start(port: int) -> Instance:
        folder = None
        if logs:
            folder = logs / str(port)
            folder.mkdir(parents=True, exist_ok=True)
        return start_instance(port, users=users, extra_env=extra_env, logs=folder)

    # Each start blocks until ready: run them in threads.
    with ThreadPoolExecutor(n) as pool:
        futures = [pool.submit(start, port) for port in ports]
    started, errors = [], []
    for future in futures:
        try:
            started.append(future.result())
        except RuntimeError as exc:
            errors.append(exc)
    if errors:
        stop_all(started)
        raise errors[0]
    return started


def stop_all(instances: list[Instance]) -> None:
    """Stop them side by side."""
    for instance in instances:
        instance.terminate()
    for instance in instances:
        instance.stop()


@pytest.fixture(scope="module")
def two_instances(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Instance, Instance]]:
    """Two instances for the module, both stopped after it. If a test of the
    module failed, the end of each one's log is written to the terminal
    (what the servers said is most of what explains a federation failure)."""
    try:
        a, b = start_instances(2, logs=tmp_path_factory.mktemp("instances"))
    except RuntimeError as exc:
        pytest.fail(str(exc))
    failed_before = request.session.testsfailed
    try:
        yield a, b
    finally:
        stop_all([a, b])
        if request.session.testsfailed > failed_before:
            report_logs(request, [a, b])


def report_logs(request: pytest.FixtureRequest, instances: list[Instance]) -> None:
    """Each instance's stdout and the end of its stderr, past pytest's capture
    (a module fixture's teardown output is otherwise shown with its last test only)."""
    text = "".join(
        f"\n=== instance {i.url} (logs in {i.logs}) ===\n{i.log()[-12000:]}" for i in instances
    )
    capture = request.config.pluginmanager.getplugin("capturemanager")
    if capture is None:
        print(text, file=sys.stderr)
        return
    with capture.global_and_fixture_disabled():
        print(text, file=sys.stderr)
