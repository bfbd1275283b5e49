"""The developer's lens (DESIGN.md §10): switch the storage models per session
and compare them side by side on the site's own pages."""
