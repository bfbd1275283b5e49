"""Known crawlers, by user agent (issue 11, item 10).

A crawler is served ads like anyone (a page must not look different to a
search engine), but what it is served, views and clicks are not counted:
they would bill advertisers for impressions nobody saw. The list names the
crawlers that announce themselves; a browser pretending otherwise is
counted, as EthicalAds and every other network must accept. Headless
Chrome is not on the list: it is also how people's own tools and this
project's browser tests browse.
"""

import re

from django.http import HttpRequest

# Named crawlers and fetchers that identify themselves, plus the generic
# words crawlers use ("bot", "crawler", "spider") as whole words or product
# tokens, so that "Cubot" (a phone maker) is not taken for one.
_CRAWLERS = re.compile(
    r"googlebot|google-inspectiontool|googleother|adsbot-google|mediapartners-google"
    r"|apis-google|feedfetcher-google|bingbot|bingpreview|msnbot|slurp|duckduckbot"
    r"|baiduspider|yandex(?:bot|images|metrika)?/|sogou|exabot|seznambot|naverbot|yeti/"
    r"|facebookexternalhit|facebookcatalog|facebot|meta-externalagent|twitterbot"
    r"|linkedinbot|pinterestbot|slackbot|discordbot|telegrambot|whatsapp|skypeuripreview"
    r"|embedly|applebot|petalbot|semrushbot|ahrefsbot|mj12bot|dotbot|rogerbot|blexbot"
    r"|bytespider|gptbot|chatgpt-user|oai-searchbot|ccbot|claudebot|claude-web"
    r"|anthropic-ai|perplexitybot|amazonbot|ia_archiver|archive\.org_bot|heritrix"
    r"|phantomjs|chrome-lighthouse|pingdom|uptimerobot"
    r"|curl/|wget/|python-requests|python-urllib|aiohttp|httpx|go-http-client"
    r"|libwww-perl|scrapy"
    r"|\b(?:bot|crawler|spider)\b|(?:bot|crawler|spider)[/;)_-]",
    re.IGNORECASE,
)
# A user agent is read only this far: enough for every name above, and a
# hostile 10k-character header costs no more than a short one.
_READ_CHARS = 512


def is_bot(user_agent: object) -> bool:
    """True for a known crawler's user agent (header value, or None)."""
    if not isinstance(user_agent, str) or not user_agent:
        return False
    return _CRAWLERS.search(user_agent[:_READ_CHARS]) is not None


def request_is_bot(request: HttpRequest) -> bool:
    return is_bot(request.META.get("HTTP_USER_AGENT"))
