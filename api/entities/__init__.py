"""The Mastodon entities, as plain functions from our documents to JSON
data, one module per entity (docs/api.md#entities). Every documented field
is present; `null` (None) where we have nothing. `checks.py` lists the
documented fields of each, for tests to hold every answer to."""
