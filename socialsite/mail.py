"""Email through Django's email API (docs/operations.md#email).

`send(to, template, context)` queues a task that renders
`templates/mail/<template>_subject.txt`, `<template>.txt` and
`<template>.html` with the site's name and sends one message, plain text
with an HTML alternative; a request never waits for a mail server. The
backend comes from `EMAIL_URL` (django-environ's parser: `smtp://user:pass@host:587`,
`consolemail://`, ...). Without it, on the embedded demo database only,
`MailboxBackend` keeps every message sent in the process, lists it on
`/dev/mail/` for admins and prints it to the run command's output, so a
reset or a verification can be finished on the demo alone. With a real
database and no `EMAIL_URL`, `UnsentBackend` sends, keeps and logs nothing
(a reset link is a key to an account) and the start-up check is an error.
"""

import itertools
import logging
import sys
import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.core.mail import EmailMessage, EmailMultiAlternatives
from django.core.mail.backends.base import BaseEmailBackend
from django.template.loader import render_to_string

from socialsite.clock import now
from socialsite.durable import durable_task

log = logging.getLogger(__name__)

# The newest messages the mailbox keeps: enough for a demo, bounded.
MAILBOX_SIZE = 200


@dataclass(frozen=True)
class Kept:
    """One message as the mailbox kept it."""

    number: int
    to: tuple[str, ...]
    subject: str
    text: str
    html: str | None
    sent: datetime


_kept: deque[Kept] = deque(maxlen=MAILBOX_SIZE)
_numbers = itertools.count(1)
_lock = threading.Lock()


class MailboxBackend(BaseEmailBackend):
    """Keeps what it is given (newest first, at most MAILBOX_SIZE) and prints
    it; sends nothing anywhere."""

    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        sent = 0
        for message in email_messages:
            html = next(
                (
                    body
                    for body, kind in getattr(message, "alternatives", [])
                    if kind == "text/html"
                ),
                None,
            )
            with _lock:
                kept = Kept(
                    next(_numbers),
                    tuple(message.to),
                    message.subject,
                    message.body,
                    html,
                    now(),
                )
                _kept.appendleft(kept)
            print(
                f"\n--- mail #{kept.number} to {', '.join(kept.to)}: {kept.subject}\n"
                f"{kept.text.rstrip()}\n--- end of mail #{kept.number}\n",
                file=sys.stdout,
                flush=True,
            )
            sent += 1
        return sent


class UnsentBackend(BaseEmailBackend):
    """A real database with no mail server configured: the message is
    dropped, and only that is logged, never its address or its text."""

    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        log.error("mail not sent: EMAIL_URL is not set (docs/operations.md#email)")
        return 0


def unconfigured() -> bool:
    """Whether mail goes nowhere: a real database without EMAIL_URL."""
    return backend() == f"{UnsentBackend.__module__}.UnsentBackend"


def mailbox() -> list[Kept]:
    """The messages the mailbox kept, newest first."""
    with _lock:
        return list(_kept)


def backend() -> str:
    """The dotted path of the default mailer's backend."""
    return settings.MAILERS["default"]["BACKEND"]


def keeps_mail() -> bool:
    """Whether the configured backend is the mailbox (the demo's)."""
    return backend() == f"{MailboxBackend.__module__}.MailboxBackend"


def send(to: str, template: str, context: dict) -> None:
    """Queue one message to `to`. `context` crosses a queue: plain values.
    The task is durable (socialsite/durable.py): a process that dies with it
    queued sends it a lease later. Mail is sent at least once: a run that
    died between the server's acceptance and the mark's deletion sends it
    again, which a person prefers to a reset link that never comes."""
    deliver.enqueue(to, template, context)


@durable_task
def deliver(to: str, template: str, context: dict) -> int:
    values = {"site_name": settings.SITE_NAME, **context}
    subject = " ".join(render_to_string(f"mail/{template}_subject.txt", values).split())
    message = EmailMultiAlternatives(
        subject=f"[{settings.SITE_NAME}] {subject}",
        body=render_to_string(f"mail/{template}.txt", values),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[to],
    )
    message.attach_alternative(render_to_string(f"mail/{template}.html", values), "text/html")
    return message.send()
