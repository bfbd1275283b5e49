"""Serving, view beacons and clicks (DESIGN.md §8)."""
