"""Campaign management pages (DESIGN.md §8)."""
