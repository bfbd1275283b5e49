"""The developer's lens (docs/developer-lens.md): switch the storage models per session
and compare them side by side on the site's own pages."""
