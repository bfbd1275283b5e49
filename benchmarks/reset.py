"""The password reset's answer for known and unknown addresses, side by side.

    .venv/bin/python -m benchmarks.reset                 # 50 known, 50 unknown
    .venv/bin/python -m benchmarks.reset --addresses 200

Makes `--addresses` accounts with verified addresses, then posts
`/accounts/password/reset/` once for each of them and once for as many
addresses no account has, interleaved, through Django's in-process client.
The request only queues one task (docs/accounts.md#password-reset), so the
two kinds of answer should cost the same: it prints, per kind, the median
and spread of the answer's time, its round trips and documents, and, apart,
what the queued task then costs (that is where the known address's work
went: finding the account, minting a link, sending the mail). Tasks are
queued on Django's dummy backend while answers are timed, then run. The
database is emptied first (against MONGODB_URI: pass --wipe).
"""

import argparse
import logging
import statistics
import sys
import time

from benchmarks.common import add_common_arguments, announce_database, empty_database, table

DUMMY_TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
LOCMEM_MAIL = {"default": {"BACKEND": "django.core.mail.backends.locmem.EmailBackend"}}


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.reset", description=__doc__)
    parser.add_argument("--addresses", type=int, default=50, help="of each kind")
    add_common_arguments(parser)
    args = parser.parse_args(argv)
    if args.addresses < 1:
        parser.error("--addresses must be >= 1")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    from benchmarks.common import setup_django

    setup_django()
    from django.test import override_settings

    if not announce_database(args, "The two kinds share it."):
        return 2
    overrides = {
        "TASKS": DUMMY_TASKS,
        "MAILERS": LOCMEM_MAIL,
        # The limits stay on (their two counters are part of the answer's
        # work), wide enough for the run; each request has its own IP.
        "RATELIMIT_PASSWORD_RESET": "1000000/3600",
        "METER_PUBLIC": False,
        "ALLOWED_HOSTS": ["testserver"],
    }
    with override_settings(**overrides):
        return run(args)


def _people(n: int) -> list[str]:
    from profiles import services
    from profiles.documents import User

    addresses = []
    for i in range(n):
        handle = f"reset_{i:04d}"
        services.user_create(handle=handle, name=f"Reset {i}", password="zq8!vLx#2pRt")
        address = f"{handle}@example.org"
        User._get_collection().update_one(
            {"_id": handle}, {"$set": {"email": address, "email_verified": True}}
        )
        addresses.append(address)
    return addresses


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def run(args) -> int:
    empty_database()
    # Quiet: a line a request would bury the table. Put back after, for a
    # caller in the same process (the test suite's check of this benchmark).
    request_log = logging.getLogger("socialsite.requests")
    level = request_log.level
    request_log.setLevel(logging.WARNING)
    try:
        return _measure(args)
    finally:
        request_log.setLevel(level)


def _measure(args) -> int:
    from django.core import mail
    from django.tasks import default_task_backend
    from django.test import Client

    from socialsite import roundtrips

    known = _people(args.addresses)
    # A first request loads templates and code: neither kind pays for it.
    Client().post("/accounts/password/reset/", {"email": "warm@example.org"})
    unknown = [f"nobody_{i:04d}@example.org" for i in range(args.addresses)]
    mail.outbox = []
    answers: dict[str, list[tuple[float, int, int, tuple]]] = {"known": [], "unknown": []}
    queued: dict[str, list] = {"known": [], "unknown": []}
    # Interleaved, so that a warming cache or a growing collection favours neither.
    for n, pair in enumerate(zip(known, unknown, strict=True)):
        for kind, address in zip(("known", "unknown"), pair, strict=True):
            client = Client(REMOTE_ADDR=f"10.{n // 250}.{n % 250}.{1 + (kind == 'known')}")
            default_task_backend.clear()
            with roundtrips.count() as trips:
                started = time.perf_counter()
                response = client.post("/accounts/password/reset/", {"email": address})
                ms = (time.perf_counter() - started) * 1000
            headers = tuple(sorted(k for k in response.headers if k != "X-Request-ID"))
            answers[kind].append((ms, trips.total, trips.docs, (response.status_code, headers)))
            queued[kind] += list(default_task_backend.results)

    task_ms: dict[str, list[float]] = {"known": [], "unknown": []}
    task_trips: dict[str, list[int]] = {"known": [], "unknown": []}
    for kind, results in queued.items():
        for result in results:
            with roundtrips.count() as trips:
                started = time.perf_counter()
                result.task.call(*result.args, **result.kwargs)
                task_ms[kind].append((time.perf_counter() - started) * 1000)
            task_trips[kind].append(trips.total)

    rows = [("", "answer ms, median (min-max)", "round trips", "docs", "task ms", "task trips")]
    for kind in ("known", "unknown"):
        measured = answers[kind]
        rows.append(
            (
                f"{kind} ({len(measured)})",
                _ms([m[0] for m in measured]),
                "/".join(sorted({str(m[1]) for m in measured})),
                "/".join(sorted({str(m[2]) for m in measured})),
                _ms(task_ms[kind]),
                "/".join(sorted({str(t) for t in task_trips[kind]})),
            )
        )
    print()
    print(table(rows))
    print()
    same = {m[1:] for kind in answers for m in answers[kind]}
    print(
        f"{len(mail.outbox)} mails sent by the tasks, "
        f"{'one answer shape' if len(same) == 1 else f'{len(same)} DIFFERENT answer shapes'} "
        "(status, header names, round trips, documents) for both kinds."
    )
    return 0 if len(same) == 1 and len(mail.outbox) == args.addresses else 1


if __name__ == "__main__":
    sys.exit(main())
