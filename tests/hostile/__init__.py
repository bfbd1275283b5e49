"""Helpers of the hostile-input test: the routes it knows, the small world it
probes, the hostile values it sends and the record of what broke."""
