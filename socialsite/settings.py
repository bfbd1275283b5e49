"""Socialsite settings: twelve-factor, everything from the environment or `.env`.

There is no SQL database: `DATABASES` stays empty and no ORM app is installed.
The data lives in MongoDB (`MONGODB_URI`), or, when that is unset, in an
in-process mongomock database seeded with demo data ("demo mode").
"""

import importlib.util
import sys
from pathlib import Path
from typing import Any

import environ
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent
# templates/ and static/: at the top of a checkout (and of an editable
# install); a wheel ships them inside this package, in site_files/ (setup.py,
# docs/operations.md#installing-the-package), site-packages having no folder of ours.
SITE_FILES_DIR = Path(__file__).resolve().parent / "site_files"
if not SITE_FILES_DIR.is_dir():
    SITE_FILES_DIR = BASE_DIR

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DEBUG", default=False)
# Under pytest the suite runs on mongomock, or on a real server from MONGODB_TEST_URI.
TESTING = "pytest" in sys.modules
# A checkout's own key, made on first use (docs/operations.md#the-secret-key):
# `./scripts/run` and every `manage.py` command work in a checkout with
# nothing set, and the key stays out of the repository (.gitignore).
LOCAL_SECRET_KEY_FILE = BASE_DIR / ".secret_key"


def _local_secret_key() -> str:
    """The checkout's key, made once (0600) by the first process that needs
    it; "" outside a checkout (an installed package): there SECRET_KEY must
    be set."""
    if not (BASE_DIR / "manage.py").is_file():
        return ""
    if not LOCAL_SECRET_KEY_FILE.is_file():
        import os
        import secrets

        try:
            # O_EXCL: two processes starting at once keep the first one's key.
            fd = os.open(LOCAL_SECRET_KEY_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        except OSError:
            return ""  # a read-only checkout: SECRET_KEY must be set
        else:
            with os.fdopen(fd, "w") as out:
                out.write(secrets.token_urlsafe(50) + "\n")
    return LOCAL_SECRET_KEY_FILE.read_text().strip()


_DEV_ONLY_KEY = "dev-only-insecure-key-change-me-0123456789abcdefghijklmnopqrstuvwxyz"
# Set, else the suite's fixed key, else the checkout's own, else (an installed
# package with DEBUG on, a developer's) the fixed key; else start-up stops.
SECRET_KEY = env.str("SECRET_KEY", default=_DEV_ONLY_KEY if TESTING else "")
if not SECRET_KEY:
    SECRET_KEY = _local_secret_key() or (_DEV_ONLY_KEY if DEBUG else "")
if not SECRET_KEY:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(
        "SECRET_KEY must be set: an installed site with DEBUG off has no checkout to keep one in."
    )
ALLOWED_HOSTS = env.list(
    "ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]", "testserver"]
)
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

# --- MongoDB ---------------------------------------------------------------
MONGODB_URI = env.str("MONGODB_URI", default="")
# Database name used when the URI names none (and in demo mode).
MONGODB_DB = env.str("MONGODB_DB", default="socialsite")
if TESTING:
    MONGODB_URI = env.str("MONGODB_TEST_URI", default="")
    MONGODB_DB = env.str("MONGODB_TEST_DB", default="socialsite_test")
# The database time one page may take (GET and HEAD), in ms: pymongo sends the
# rest of it to the server as maxTimeMS on each operation; 0 turns it off.
MONGODB_REQUEST_TIMEOUT_MS = env.int("MONGODB_REQUEST_TIMEOUT_MS", default=5000)
# Demo mode seeds this many users at start-up (`manage.py demo`).
DEMO_USERS = env.int("DEMO_USERS", default=200)
DEMO_MAXFOLLOWS = env.int("DEMO_MAXFOLLOWS", default=40)

INSTALLED_APPS = [
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "socialsite",
    "profiles",
    "feeds",
    "timelines",
    "explore",
    "comments",
    "messaging",
    "moderation",
    "ads",
    "notifications",
    "devlens",
    # Live updates (docs/live.md): streams of what the apps below announce.
    "live",
    # The Mastodon client API (docs/api.md): on top of every other app.
    "api",
    # Federation over ActivityPub (docs/federation.md): beside live, under the API.
    "federation",
    "corsheaders",
]

MIDDLEWARE = [
    # First: its time and round trips include every other middleware.
    "socialsite.middleware.RequestLogMiddleware",
    # Next: the deadline covers every database read of the page below it.
    "socialsite.middleware.DatabaseTimeoutMiddleware",
    "socialsite.middleware.StartupGuard",  # start-up only: see socialsite/checks.py
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # CORS for the client API only (CORS_URLS_REGEX); before anything that answers.
    "corsheaders.middleware.CorsMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # JSON, never an HTML page, under /api/; before MethodMiddleware (api/middleware.py).
    "api.middleware.ApiMiddleware",
    # ActivityPub documents at the pages' own URLs, by Accept (federation/negotiation.py).
    "federation.negotiation.ActivityPubMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    # 405 for a method the view does not take, 400 for a form not in UTF-8.
    "socialsite.methods.MethodMiddleware",
    "profiles.middleware.AuthenticationMiddleware",
    # An admin's session may read through other models (/dev/, docs/developer-lens.md).
    "devlens.middleware.LensMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    # Sets the anonymous `ad_viewer` cookie when an ad was chosen (ads/serving/viewer.py).
    "ads.middleware.AdViewerCookieMiddleware",
]

# django-debug-toolbar (the `dev` extras) with a MongoDB panel (socialsite/
# debug_panel.py): asked for with DEBUG_TOOLBAR=true, with DEBUG on and the
# package installed, never under the test suite, whose routes and middleware
# stay production's. Opt-in because it records every request (a /healthz
# answers in ~75 ms instead of ~1 ms): the footer meter is the everyday view.
DEBUG_TOOLBAR = (
    env.bool("DEBUG_TOOLBAR", default=False)
    and DEBUG
    and not TESTING
    and importlib.util.find_spec("debug_toolbar") is not None
)
if DEBUG_TOOLBAR:
    INSTALLED_APPS.append("debug_toolbar")
    # Inside the request log, so the meter counts the toolbar's time as the app's.
    MIDDLEWARE.insert(
        MIDDLEWARE.index("socialsite.middleware.RequestLogMiddleware") + 1,
        "debug_toolbar.middleware.DebugToolbarMiddleware",
    )
    INTERNAL_IPS = env.list("INTERNAL_IPS", default=["127.0.0.1", "::1"])
    # No SQL panel: there is no SQL database.
    DEBUG_TOOLBAR_PANELS = [
        "debug_toolbar.panels.history.HistoryPanel",
        "debug_toolbar.panels.timer.TimerPanel",
        "socialsite.debug_panel.MongoPanel",
        "debug_toolbar.panels.request.RequestPanel",
        "debug_toolbar.panels.headers.HeadersPanel",
        "debug_toolbar.panels.templates.TemplatesPanel",
        "debug_toolbar.panels.settings.SettingsPanel",
        "debug_toolbar.panels.versions.VersionsPanel",
        "debug_toolbar.panels.staticfiles.StaticFilesPanel",
        "debug_toolbar.panels.signals.SignalsPanel",
        "debug_toolbar.panels.alerts.AlertsPanel",
    ]

# The round-trip meter (docs/developer-lens.md): `Server-Timing` on every
# answer of the embedded demo, whose point is showing it; on a real database
# only on staff's and lens sessions' answers unless METER_PUBLIC is set, since
# its figures could tell an anonymous visitor what exists. The suite reads
# the header on both of its passes; the tests of the rule turn it off.
METER_PUBLIC = env.bool("METER_PUBLIC", default=not MONGODB_URI or TESTING)

ROOT_URLCONF = "socialsite.urls"
WSGI_APPLICATION = "socialsite.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [SITE_FILES_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.csp",
                "django.contrib.messages.context_processors.messages",
                "socialsite.context_processors.site",
                "notifications.context_processors.unread",
                "messaging.context_processors.unread",
            ],
        },
    }
]

DATABASES: dict = {}

# --- Email (socialsite/mail.py) ----------------------------------------------
# Email (docs/operations.md#email): EMAIL_URL as django-environ parses it
# (smtp://user:pass@host:587, smtp+tls://..., consolemail://). Without it,
# on the embedded demo database only, the mailbox keeps every message for
# admins on /dev/mail/ and prints it to the run command's output; with a real
# database and no EMAIL_URL no mail is kept or logged anywhere (a reset link
# is a key to an account) and the start-up check refuses to run
# (socialsite/checks.py, socialsite.E006).
SITE_NAME = env.str("SITE_NAME", default="Socialsite")
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Socialsite <noreply@socialsite.test>")
MAILERS: dict[str, dict[str, Any]] = {
    "default": {
        "BACKEND": "socialsite.mail.MailboxBackend"
        if not MONGODB_URI
        else "socialsite.mail.UnsentBackend"
    }
}
if env.str("EMAIL_URL", default=""):
    # Django 6.1's MAILERS from what django-environ parses (EMAIL_BACKEND, EMAIL_HOST, ...).
    _email = env.email_url("EMAIL_URL")
    _options = {
        "host": _email.get("EMAIL_HOST"),
        "port": _email.get("EMAIL_PORT"),
        "username": _email.get("EMAIL_HOST_USER"),
        "password": _email.get("EMAIL_HOST_PASSWORD"),
        "use_tls": _email.get("EMAIL_USE_TLS"),
        "use_ssl": _email.get("EMAIL_USE_SSL"),
    }
    _smtp = _email["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    MAILERS = {
        "default": {
            "BACKEND": _email["EMAIL_BACKEND"],
            "OPTIONS": {k: v for k, v in _options.items() if v not in (None, "")} if _smtp else {},
        }
    }

# --- Background work (socialsite/durable.py, socialsite/periodic.py) -------
# Background tasks (django.tasks). "thread" runs them on a worker thread of
# the web process, so a request never waits for a fan-out (the demo's and
# runserver's default: the embedded database lives in that process);
# "immediate" runs them inside the request, as the tests do; "rq" queues them
# in Redis for `manage.py run_worker` (docs/operations.md#background-work).
TASKS_BACKEND = env.str("TASKS_BACKEND", default="immediate" if TESTING else "thread")
# How often the worker loop runs the sweepers and periodic jobs, in seconds
# (socialsite/periodic.py; docs/operations.md#sweepers-run-by-themselves);
# 0 turns the loop off, as under the test suite, whose tests run it themselves.
TASKS_SWEEP_SECONDS = env.float("TASKS_SWEEP_SECONDS", default=0 if TESTING else 60)
# A durable task's mark older than this lost its run: the sweeper queues it
# again; after TASKS_MAX_ATTEMPTS runs it is `failed` (socialsite/durable.py,
# docs/operations.md#durable-background-work).
TASKS_LEASE_SECONDS = env.float("TASKS_LEASE_SECONDS", default=300)
TASKS_MAX_ATTEMPTS = env.int("TASKS_MAX_ATTEMPTS", default=5)
REDIS_URL = env.str("REDIS_URL", default="redis://127.0.0.1:6379/0")
# Live updates (docs/live.md): "local" delivers events to the streams of the
# process that wrote them (the embedded demo: one process); "redis" carries
# them over Redis pub/sub to every process that serves streams (use it with
# workers of their own, several web processes or a separate stream server).
LIVE_BROKER = env.str("LIVE_BROKER", default="local")
LIVE_BROKERS = {
    "local": "live.brokers.local.LocalTransport",
    "redis": "live.brokers.redis.RedisTransport",
}
LIVE_REDIS_URL = env.str("LIVE_REDIS_URL", default=REDIS_URL)
# Events each process keeps for a stream that reconnects with Last-Event-ID;
# one that missed more is told to read afresh (`resync`).
LIVE_REPLAY_EVENTS = env.int("LIVE_REPLAY_EVENTS", default=2000)
# Events waiting for one slow stream before it is told to resync instead.
LIVE_QUEUE_MAX = env.int("LIVE_QUEUE_MAX", default=256)
# A comment line this often keeps proxies from closing an idle stream.
LIVE_HEARTBEAT_SECONDS = env.float("LIVE_HEARTBEAT_SECONDS", default=15)
# The browser's wait before it reconnects a dropped stream; under a WSGI
# server, which holds no streams, the wait before it asks again.
LIVE_RETRY_MS = env.int("LIVE_RETRY_MS", default=1000)
LIVE_WSGI_RETRY_MS = env.int("LIVE_WSGI_RETRY_MS", default=60_000)
ASGI_APPLICATION = "socialsite.asgi.application"
# WebSocket paths of the ASGI application and what serves each (socialsite/asgi.py).
# Mastodon's multiplexed streams (api/streaming/websocket.py); its web client
# asks the path with a trailing slash.
ASGI_WEBSOCKETS: dict[str, str] = {
    "/api/v1/streaming": "api.streaming.websocket.application",
    "/api/v1/streaming/": "api.streaming.websocket.application",
}
TASKS = {
    "default": {
        "BACKEND": {
            "thread": "socialsite.thread_backend.ThreadBackend",
            "immediate": "django.tasks.backends.immediate.ImmediateBackend",
            "dummy": "django.tasks.backends.dummy.DummyBackend",
            "rq": "socialsite.rq_backend.RQBackend",
        }[TASKS_BACKEND],
        "OPTIONS": {"REDIS_URL": REDIS_URL} if TASKS_BACKEND == "rq" else {},
    }
}

# --- Sessions and accounts (profiles) --------------------------------------
SESSION_ENGINE = "socialsite.sessions"
SESSION_COOKIE_AGE = env.int("SESSION_COOKIE_AGE", default=60 * 60 * 24 * 14)
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
# Messages ("You follow Ann.") ride in a signed cookie: a session storage
# would cost every form post one more write (docs/performance.md).
MESSAGE_STORAGE = "django.contrib.messages.storage.cookie.CookieStorage"
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/feed/"

PASSWORD_HASHERS = env.list(
    "PASSWORD_HASHERS",
    default=[
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
        "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    ],
)
AUTH_PASSWORD_VALIDATORS = [
    {
        "NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator",
        "OPTIONS": {"user_attributes": ("handle", "name")},
    },
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Rate limits, "<count>/<seconds>", counted per IP and per handle.
RATELIMIT_ENABLED = env.bool("RATELIMIT_ENABLED", default=True)
RATELIMIT_SIGNUP = env.str("RATELIMIT_SIGNUP", default="10/3600")
RATELIMIT_LOGIN = env.str("RATELIMIT_LOGIN", default="30/300")  # failed logins per IP
# Failed logins only (a success costs nothing). Tight per (handle, IP), loose per
# handle: a stranger at one address cannot lock the owner out of their account.
RATELIMIT_LOGIN_FAILURES = env.str("RATELIMIT_LOGIN_FAILURES", default="5/300")
RATELIMIT_LOGIN_HANDLE = env.str("RATELIMIT_LOGIN_HANDLE", default="100/3600")
# Per signed-in user. Each follow/unfollow/block also backfills or prunes feeds.
RATELIMIT_FOLLOW = env.str("RATELIMIT_FOLLOW", default="30/300")
RATELIMIT_PROFILE_EDIT = env.str("RATELIMIT_PROFILE_EDIT", default="20/300")
RATELIMIT_CIRCLES = env.str("RATELIMIT_CIRCLES", default="60/300")
RATELIMIT_MUTE = env.str("RATELIMIT_MUTE", default="30/300")  # mutes and unmutes
RATELIMIT_FILTERS = env.str("RATELIMIT_FILTERS", default="30/300")  # keyword filters
RATELIMIT_PASSWORD = env.str("RATELIMIT_PASSWORD", default="5/900")  # wrong old passwords
# Reset requests, per IP and per address; address changes (each sends a mail), per user.
RATELIMIT_PASSWORD_RESET = env.str("RATELIMIT_PASSWORD_RESET", default="5/3600")
RATELIMIT_EMAIL = env.str("RATELIMIT_EMAIL", default="5/3600")
# Wrong two-factor codes per account from anywhere (per (account, IP) it is
# RATELIMIT_LOGIN_FAILURES): a million codes cannot be tried.
RATELIMIT_LOGIN_2FA = env.str("RATELIMIT_LOGIN_2FA", default="20/3600")
# Wrong passwords (or codes) on the delete-account page, per account.
RATELIMIT_ACCOUNT_DELETE = env.str("RATELIMIT_ACCOUNT_DELETE", default="5/900")

# Export and erasure (docs/accounts.md#export-and-erasure).
EXPORT_EVERY_HOURS = env.int("EXPORT_EVERY_HOURS", default=24)
EXPORT_KEEP_DAYS = env.int("EXPORT_KEEP_DAYS", default=7)
# The largest export built (the zip's bytes): past it the build stops, and
# the export page says the account is too large to export at once.
EXPORT_MAX_BYTES = env.int("EXPORT_MAX_BYTES", default=2 * 1024**3)
ERASURE_BATCH = env.int("ERASURE_BATCH", default=200)
HANDLE_HOLD_DAYS = env.int("HANDLE_HOLD_DAYS", default=30)

# Profiles and the follower graph.
GRAPH_PAGE_SIZE = env.int("GRAPH_PAGE_SIZE", default=50)
SEARCH_PAGE_SIZE = env.int("SEARCH_PAGE_SIZE", default=20)
# last_seen is refreshed at most this often (seconds), not on every request.
LAST_SEEN_RESOLUTION = env.int("LAST_SEEN_RESOLUTION", default=300)

# --- Posts (feeds) ---------------------------------------------------------
FEED_PAGE_SIZE = env.int("FEED_PAGE_SIZE", default=20)
# Rendered post cards, comments and composers kept in each process's memory
# (socialsite/fragments.py): keys are digests of everything a fragment shows, so
# nothing is ever invalidated; the least recently used go past this many.
FRAGMENT_CACHE_ENTRIES = env.int("FRAGMENT_CACHE_ENTRIES", default=5000)
RATELIMIT_POST = env.str("RATELIMIT_POST", default="30/300")
RATELIMIT_POST_EDIT = env.str("RATELIMIT_POST_EDIT", default="30/300")  # per user
RATELIMIT_VOTE = env.str("RATELIMIT_VOTE", default="60/300")  # per user
RATELIMIT_LIKE = env.str("RATELIMIT_LIKE", default="120/300")  # likes and unlikes, per user
RATELIMIT_BOOKMARK = env.str("RATELIMIT_BOOKMARK", default="120/300")  # bookmarks kept and dropped
RATELIMIT_PIN = env.str("RATELIMIT_PIN", default="30/300")  # pins and unpins, per user
RATELIMIT_REPOST = env.str("RATELIMIT_REPOST", default="30/300")  # reposts and undos, per user
PHOTO_MAX_BYTES = env.int("PHOTO_MAX_BYTES", default=5 * 1024 * 1024)
# Checked on the image header, before decoding: bounds an upload's memory.
PHOTO_MAX_PIXELS = env.int("PHOTO_MAX_PIXELS", default=25_000_000)
DATA_UPLOAD_MAX_MEMORY_SIZE = 6 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 6 * 1024 * 1024

# --- Timelines (see timelines/stores/__init__.py) ---------------------------
FEED_MODEL = env.str("FEED_MODEL", default="cache")  # cache | month | size | read
FEED_EMBED = env.bool("FEED_EMBED", default=False)  # entries embed a copy of the post
# Timeline models kept current besides FEED_MODEL (docs/storage-models.md#shadow-models,
# timelines/stores/__init__.py `write_stores`): "" none, "all" every stored model, or a comma list
# ("cache,size"). On in the demo (DEBUG, or no MONGODB_URI) so that /dev/ can
# switch models live; off in production and, unless a test turns it on, in tests.
_DEMO_DEFAULTS = (DEBUG or not MONGODB_URI) and not TESTING
FEED_SHADOW_MODELS = env.str("FEED_SHADOW_MODELS", default="all" if _DEMO_DEFAULTS else "")
# A copy past this many BSON bytes is not embedded (the entry links instead), so
# FEED_CACHE_SIZE (or FEED_MONTH_CAP) copies stay well under the 16 MB limit.
FEED_EMBED_MAX_BYTES = env.int("FEED_EMBED_MAX_BYTES", default=8192)
# The embedded copies of a post follow its counts, votes and comment previews
# at most once per this many seconds: every like, vote or comment of that
# while joins one refresh (timelines/tasks.py `refresh_post_copies`). 0 in
# tests, whose immediate backend runs it at once anyway.
FEED_COPIES_REFRESH_SECONDS = env.float("FEED_COPIES_REFRESH_SECONDS", default=0 if TESTING else 3)
FEED_CACHE_SIZE = env.int("FEED_CACHE_SIZE", default=800)
FEED_BUCKET_SIZE = env.int("FEED_BUCKET_SIZE", default=50)
# `month`: entries per month document; a fuller month rolls over into a new part.
FEED_MONTH_CAP = env.int("FEED_MONTH_CAP", default=1000)
# Followers per fan-out write (one `update_many` with `$in`). A server yields
# between the documents of one write; the embedded database holds its one
# lock for the whole call, so the demo writes smaller batches and page reads
# never wait long behind a fan-out (docs/benchmarks.md#the-site-over-http).
FEED_FANOUT_BATCH = env.int(
    "FEED_FANOUT_BATCH", default=50 if not MONGODB_URI and not TESTING else 500
)
FEED_ACTIVE_LOOKUP = env.int("FEED_ACTIVE_LOOKUP", default=10000)
FEED_ACTIVE_DAYS = env.int("FEED_ACTIVE_DAYS", default=7)
FEED_BACKFILL = env.int("FEED_BACKFILL", default=100)
FEED_REBUILD_LIMIT = env.int("FEED_REBUILD_LIMIT", default=800)
# How often an open feed asks /feed/new/ for "n new posts" (milliseconds).
FEED_NEW_POLL_MS = env.int("FEED_NEW_POLL_MS", default=30000)
FEED_PENDING_SECONDS = env.int("FEED_PENDING_SECONDS", default=300)
# Authors with more followers are pulled into news pages when read, not pushed
# (docs/performance.md#celebrities-are-pulled). The demo's graph is small:
# there its most followed few are pulled, so that both ways are in use.
FEED_PULL_THRESHOLD = env.int("FEED_PULL_THRESHOLD", default=100 if _DEMO_DEFAULTS else 10000)
# How often each process reads the list of pulled authors again, and how long
# after an author is pulled their posts are still pushed (no post in neither).
FEED_PULL_GRACE_SECONDS = env.int("FEED_PULL_GRACE_SECONDS", default=30)
# Deliveries tried this many times are given up ("failed", on the moderation dashboard).
FEED_DELIVERY_MAX_ATTEMPTS = env.int("FEED_DELIVERY_MAX_ATTEMPTS", default=5)

# --- Explore (docs/discovery.md) -------------------------------------------
# Trending tags (docs/discovery.md#trends): the days counted, and how many shown.
TREND_DAYS = env.int("TREND_DAYS", default=7)
TREND_LIMIT = env.int("TREND_LIMIT", default=10)
# How long the ranked list the periodic job keeps serves `/explore/` before
# a page ranks again itself (explore/selectors/trends.py); 0 ranks on every
# page, as under the test suite, whose trends tests post and look at once.
TRENDS_CACHE_SECONDS = env.int("TRENDS_CACHE_SECONDS", default=0 if TESTING else 300)

# --- Comments (see comments/stores/__init__.py) ----------------------------
COMMENTS_STORE = env.str("COMMENTS_STORE", default="documents")  # documents | embedded | buckets
# Comment stores kept current besides COMMENTS_STORE: "" none, "all", or a comma
# list (comments/stores/shadows.py). Same default as FEED_SHADOW_MODELS.
COMMENTS_SHADOW_STORES = env.str("COMMENTS_SHADOW_STORES", default="all" if _DEMO_DEFAULTS else "")
COMMENTS_BUCKET_SIZE = env.int("COMMENTS_BUCKET_SIZE", default=100)  # buckets: soft size
COMMENTS_MAX_DEPTH = env.int("COMMENTS_MAX_DEPTH", default=8)  # deepest indent shown
# Deepest reply stored (top level is 0): MongoDB nests documents at most 100
# levels, and the embedded store spends 2 levels per reply (it lowers this).
COMMENTS_MAX_STORED_DEPTH = env.int("COMMENTS_MAX_STORED_DEPTH", default=40)
# embedded: bytes of comments a post may hold, well under the 16 MB document limit.
COMMENTS_EMBEDDED_MAX_BYTES = env.int("COMMENTS_EMBEDDED_MAX_BYTES", default=8_000_000)
COMMENTS_PAGE_SIZE = env.int("COMMENTS_PAGE_SIZE", default=50)
FEED_COMMENTS_SHOWN = env.int("FEED_COMMENTS_SHOWN", default=3)  # latest comments on a card
RATELIMIT_COMMENT = env.str("RATELIMIT_COMMENT", default="20/300")
RATELIMIT_COMMENT_EDIT = env.str("RATELIMIT_COMMENT_EDIT", default="20/300")  # per user
RATELIMIT_COMMENT_VOTE = env.str("RATELIMIT_COMMENT_VOTE", default="120/300")  # per user

# --- Messages (docs/messages.md) ------------------------------------------
# Direct messages: about this many a bucket, and at most
# about this many bytes (a page of MESSAGES_PAGE_SIZE fits in two buckets).
MESSAGES_BUCKET_SIZE = env.int("MESSAGES_BUCKET_SIZE", default=100)
MESSAGES_BUCKET_MAX_BYTES = env.int("MESSAGES_BUCKET_MAX_BYTES", default=1_000_000)
MESSAGES_PAGE_SIZE = env.int("MESSAGES_PAGE_SIZE", default=30)
MESSAGES_INBOX_PAGE_SIZE = env.int("MESSAGES_INBOX_PAGE_SIZE", default=20)
RATELIMIT_CONVERSATION = env.str("RATELIMIT_CONVERSATION", default="10/3600")  # new ones, per user
RATELIMIT_MESSAGE = env.str("RATELIMIT_MESSAGE", default="60/300")  # messages, per user

# --- Notifications (see notifications/documents.py) -----------------------
NOTIFICATIONS_BUCKET_SIZE = env.int("NOTIFICATIONS_BUCKET_SIZE", default=100)  # items per bucket
NOTIFICATIONS_GROUP_ACTORS = env.int("NOTIFICATIONS_GROUP_ACTORS", default=10)  # names in a group
NOTIFICATIONS_PAGE_SIZE = env.int("NOTIFICATIONS_PAGE_SIZE", default=30)
NOTIFICATIONS_MAX_MENTIONS = env.int("NOTIFICATIONS_MAX_MENTIONS", default=10)  # told per text

# --- The client API (docs/api.md) ---------------------------------------
# Apps registered per client IP (`POST /api/v1/apps`, open to anyone).
RATELIMIT_API_APPS = env.str("RATELIMIT_API_APPS", default="30/3600")
# CORS (django-cors-headers): open to every origin on the API and the token
# endpoints, which a cookie never authenticates; never on pages.
CORS_URLS_REGEX = r"^/(api/|oauth/token|oauth/revoke|\.well-known/)"
CORS_ALLOW_ALL_ORIGINS = True
CORS_ALLOW_CREDENTIALS = False
CORS_EXPOSE_HEADERS = ["Link", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"]

# --- Moderation ------------------------------------------------------------
RATELIMIT_REPORT = env.str("RATELIMIT_REPORT", default="20/600")  # per user

# --- Ads (docs/ads-api.md) -----------------------------------------------------
# Socialsite's own site id in the ad network: its feed, search and profile zones.
ADS_SITE_ID = env.str("ADS_SITE_ID", default="socialsite")
# Ad clicks per client IP, each rule "<count>/<seconds>" (EthicalAds' defaults:
# 1 a minute, 10 an hour). A click past a limit still redirects; it is not counted.
RATELIMIT_AD_CLICK = env.list("RATELIMIT_AD_CLICK", default=["1/60", "10/3600"])
# Ad decisions billed per client IP for viewers who sent no cookie of ours (a
# script, another site's visitor), one rule "<count>/<seconds>" (one write per
# decision). Past it the ads are still served, but not counted or billed.
RATELIMIT_AD_IMPRESSION = env.str("RATELIMIT_AD_IMPRESSION", default="100/600")
# Billed impressions per viewer who has a profile (a signed-in person, a kept
# cookie), "<count>/<seconds>", count at most 50 (the impressions a profile keeps).
RATELIMIT_AD_VIEWER = env.str("RATELIMIT_AD_VIEWER", default="40/600")
# Bytes of serving copies one ad zone may hold: every decision reads the whole
# zone document, which can never pass 16 MB. A full zone refuses activation.
AD_ZONE_MAX_BYTES = env.int("AD_ZONE_MAX_BYTES", default=2 * 1024 * 1024)
# Active campaigns per advertiser, so one advertiser cannot fill a shared zone.
ADS_MAX_ACTIVE_CAMPAIGNS = env.int("ADS_MAX_ACTIVE_CAMPAIGNS", default=20)
# Seconds after which the pacing sweep finishes a campaign's half-done zone change.
ADS_ZONES_PENDING_SECONDS = env.int("ADS_ZONES_PENDING_SECONDS", default=60)

# --- Static files ----------------------------------------------------------
STATIC_URL = "/static/"
STATICFILES_DIRS = [SITE_FILES_DIR / "static"]
STATIC_ROOT = Path(env.str("STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))
STORAGES = {
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG or TESTING
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_MANIFEST_STRICT = False

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

# --- Security --------------------------------------------------------------
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "object-src": [CSP.NONE],
}
if not DEBUG:
    # The test suite runs with DEBUG off over plain http (test client, live server).
    SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=not TESTING)
    CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=not TESTING)
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not TESTING)
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 365)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # JSON lines, one per record (socialsite/logging.py); a refused request
    # (4xx) logs its request line only, without a traceback.
    "formatters": {"json": {"()": "socialsite.logging.JsonFormatter"}},
    "filters": {"refused": {"()": "socialsite.logging.RefusedRequestFilter"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "json", "filters": ["refused"]}
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        # Django's default handlers (plain text, and under DEBUG a second copy
        # of every record) give way to the root's JSON lines.
        "django": {"handlers": [], "level": "INFO"},
        # runserver's access line repeats the request line; errors still show.
        "django.server": {"handlers": [], "level": "ERROR", "propagate": True},
        # Django's line per task state change repeats socialsite.tasks' line per
        # run; failures still show, with their traceback.
        "django.tasks": {"level": env.str("TASKS_LOG_LEVEL", default="WARNING")},
    },
}

# Federation over ActivityPub (docs/federation.md). SITE_URL is the public base
# URL: its host (with the port, when there is one) is the domain in `acct:`
# handles and in every actor and object id, so it must not change once other
# servers know the instance.
SITE_URL = env.str("SITE_URL", default="http://127.0.0.1:8000").rstrip("/")
FEDERATION_ENABLED = env.bool("FEDERATION_ENABLED", default=True)
# Outgoing fetches refuse loopback, private and link-local addresses (SSRF);
# this lets loopback through, for tests and two instances on one machine.
FEDERATION_ALLOW_LOOPBACK = env.bool("FEDERATION_ALLOW_LOOPBACK", default=False)
FEDERATION_FETCH_TIMEOUT = env.float("FEDERATION_FETCH_TIMEOUT", default=5)
FEDERATION_FETCH_MAX_BYTES = env.int("FEDERATION_FETCH_MAX_BYTES", default=1_000_000)
# An incoming activity's body, refused past this size (413).
FEDERATION_INBOX_MAX_BYTES = env.int("FEDERATION_INBOX_MAX_BYTES", default=256_000)
FEDERATION_PAGE_SIZE = env.int("FEDERATION_PAGE_SIZE", default=20)
# A delivery that fails is tried again after 1, 2, 4 ... minutes (at most
# FEDERATION_RETRY_MAX_SECONDS apart) until FEDERATION_DELIVERY_ATTEMPTS
# tries: with the defaults, about four days. Then it is `failed` and listed.
FEDERATION_DELIVERY_ATTEMPTS = env.int("FEDERATION_DELIVERY_ATTEMPTS", default=16)
FEDERATION_RETRY_SECONDS = env.float("FEDERATION_RETRY_SECONDS", default=60)
FEDERATION_RETRY_MAX_SECONDS = env.float("FEDERATION_RETRY_MAX_SECONDS", default=12 * 3600)
# A remote actor's document (name, inbox, key) is read again after this long.
FEDERATION_ACTOR_TTL_SECONDS = env.float("FEDERATION_ACTOR_TTL_SECONDS", default=24 * 3600)
