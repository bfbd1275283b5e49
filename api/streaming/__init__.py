"""Mastodon's streaming API (docs/api.md#streaming): the live core's events
(live/) as Mastodon's streams, over Server-Sent Events (views.py) and one
multiplexed WebSocket (websocket.py), both from the same stream
definitions (streams.py) and the same per-reader rules (rules.py) as the
REST timelines."""
