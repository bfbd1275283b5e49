"""Many idle Server-Sent Events streams from one small process, for the
live-streams benchmark (benchmarks/live_streams.py), which runs it as

    python -m benchmarks.sse_client HOST PORT

and talks to it in JSON lines: on stdin, what to do; on stdout, the answer.

    {"open": [[cookie, path], ...], "at_once": 50}  -> {"opened": n, "statuses": ..., ...}
    {"report": true}                                  -> {"open": n, "heartbeats": ..., ...}
    {"mark": true}     the report, and "fewest_since_mark" counts from here
    {"feed": "<author>", "since": <monotonic s>}      -> {"arrivals": [s, ...]}
    {"close": true}                                   -> {"closed": n, "cpu_seconds": ...}

Each stream is one socket with an asyncio protocol: no thread, no buffered
reader, a few counters. It reads the HTTP head (status, Content-Type), then
the chunked body, and counts per stream the heartbeats (`: ping` comments)
and the events by name, keeping for `feed` events their author and when
they arrived (time.monotonic, the same clock in every process of the
machine). Its own CPU is reported with each answer, so the benchmark can
say what the client took from the server's cores.
"""

import asyncio
import json
import resource
import sys
import time
from collections import Counter
from typing import Any


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Stream(asyncio.Protocol):
    def __init__(self, opened: asyncio.Future) -> None:
        self.opened = opened  # set with the status once the head is read
        self.transport: asyncio.Transport | None = None
        self.buffer = b""
        self.head_done = False
        self.status = 0
        self.content_type = ""
        self.chunk_left = 0  # bytes of the current chunk still to come
        self.body = b""  # de-chunked, not yet a whole frame
        self.closed = False
        self.heartbeats = 0
        self.marked = 0  # heartbeats when the benchmark last said "mark"
        self.last_heard = 0.0  # a heartbeat or an event: the stream is alive
        self.events: Counter[str] = Counter()
        self.feeds: list[tuple[str, float]] = []  # (author, arrived)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.opened.done():
            self.opened.set_result(0)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if not self.head_done:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head, self.buffer = self.buffer[:end].decode("latin-1"), self.buffer[end + 4 :]
            lines = head.split("\r\n")
            self.status = int(lines[0].split()[1])
            for line in lines[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-type":
                    self.content_type = value.strip()
            self.head_done = True
            self.opened.set_result(self.status)
        self._dechunk()

    def _dechunk(self) -> None:
        while self.buffer:
            if self.chunk_left == 0:
                end = self.buffer.find(b"\r\n")
                if end < 0:
                    return
                size = self.buffer[:end].split(b";")[0].strip()
                if not size:  # the CRLF that ends the previous chunk
                    self.buffer = self.buffer[end + 2 :]
                    continue
                self.chunk_left = int(size, 16)
                self.buffer = self.buffer[end + 2 :]
                if self.chunk_left == 0:  # the last chunk: the server ended the stream
                    self.buffer = b""
                    return
            take = self.buffer[: self.chunk_left]
            self.buffer = self.buffer[len(take) :]
            self.chunk_left -= len(take)
            self.body += take
        self._frames()

    def _frames(self) -> None:
        now = time.monotonic()
        while (end := self.body.find(b"\n\n")) >= 0:
            block, self.body = self.body[:end], self.body[end + 2 :]
            self.last_heard = now
            if block.startswith(b":"):
                self.heartbeats += 1
                continue
            name, data = "message", ""
            for line in block.decode().split("\n"):
                if line.startswith("event:"):
                    name = line[6:].strip()
                elif line.startswith("data:"):
                    data += line[5:].strip()
            if name == "message" and not data:
                continue  # `retry:` alone
            self.events[name] += 1
            if name == "feed":
                self.feeds.append((json.loads(data).get("author") or "", now))


class Client:
    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.streams: list[Stream] = []

    async def open(self, targets: list[list[str]], at_once: int) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        gate = asyncio.Semaphore(at_once)
        started = time.monotonic()

        async def one(cookie: str, path: str) -> None:
            async with gate:
                opened: asyncio.Future = loop.create_future()
                stream = Stream(opened)
                self.streams.append(stream)
                try:
                    await loop.create_connection(lambda: stream, self.host, self.port)
                except OSError:
                    stream.closed = True
                    return
                head = (
                    f"GET {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                    f"Accept: text/event-stream\r\nCookie: {cookie}\r\n\r\n"
                )
                assert stream.transport is not None
                stream.transport.write(head.encode())
                try:
                    await asyncio.wait_for(opened, 60)
                except TimeoutError:  # counted as status 0
                    stream.transport.close()

        await asyncio.gather(*(one(cookie, path) for cookie, path in targets))
        return {
            "opened": sum(1 for s in self.streams if s.status == 200 and not s.closed),
            "statuses": dict(Counter(str(s.status) for s in self.streams)),
            "content_types": dict(Counter(s.content_type for s in self.streams)),
            "seconds": time.monotonic() - started,
            "cpu_seconds": cpu_seconds(),
        }

    def report(self) -> dict[str, Any]:
        now = time.monotonic()
        beats = [s.heartbeats for s in self.streams]
        # A stream that hears events hears no heartbeat meanwhile: the
        # server sends one after a quiet spell (live/streams.py).
        silent = [now - s.last_heard if s.last_heard else None for s in self.streams]
        events: Counter[str] = Counter()
        for s in self.streams:
            events.update(s.events)
        return {
            "streams": len(self.streams),
            "open": sum(1 for s in self.streams if not s.closed),
            "heartbeats": sum(beats),
            "fewest_heartbeats": min(beats, default=0),
            "fewest_since_mark": min((s.heartbeats - s.marked for s in self.streams), default=0),
            "never_heard": sum(1 for quiet in silent if quiet is None),
            "longest_silence": max((q for q in silent if q is not None), default=None),
            "events": dict(events),
            "now": now,
            "cpu_seconds": cpu_seconds(),
        }

    def mark(self) -> dict[str, Any]:
        for s in self.streams:
            s.marked = s.heartbeats
        return self.report()

    def feed_arrivals(self, author: str, since: float) -> dict[str, Any]:
        """When each stream first got a `feed` event by `author` after `since`."""
        arrivals = []
        for s in self.streams:
            times = [at for by, at in s.feeds if by == author and at >= since]
            if times:
                arrivals.append(min(times))
        return {"arrivals": arrivals}

    def close(self) -> dict[str, Any]:
        for s in self.streams:
            if s.transport is not None:
                s.transport.close()
        return {"closed": len(self.streams), "cpu_seconds": cpu_seconds()}


async def serve(host: str, port: int) -> None:
    loop = asyncio.get_running_loop()
    client = Client(host, port)
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            client.close()
            return
        order = json.loads(line)
        if "open" in order:
            answer = await client.open(order["open"], int(order.get("at_once", 50)))
        elif "report" in order:
            answer = client.report()
        elif "mark" in order:
            answer = client.mark()
        elif "feed" in order:
            answer = client.feed_arrivals(order["feed"], float(order["since"]))
        else:
            answer = client.close()
            await asyncio.sleep(0.1)  # the FINs go out before the process ends
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
        if "close" in order:
            return


if __name__ == "__main__":
    asyncio.run(serve(sys.argv[1], int(sys.argv[2])))
