"""Serving ads: choosing them for a page view (`choosing`), recording the
impressions, offers, views and clicks that follow (`recording`), knowing the
viewer (`viewer`) and the bots not to count (`bots`). See docs/ads-api.md."""
