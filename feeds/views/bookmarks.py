"""Bookmarks (docs/discovery.md#bookmarks): keep a post, drop it, and the list."""

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from feeds.selectors.bookmarks import bookmarks_page
from feeds.selectors.cards import cards
from feeds.services import bookmarks
from feeds.views.pages import cursor_param, visible_post_or_404
from socialsite import ratelimit
from socialsite.http import login_required, redirect_back
from socialsite.ids import object_id_or_404


@login_required
def bookmark_list(request: HttpRequest) -> HttpResponse:
    page = bookmarks_page(request.user, cursor_param(request), settings.FEED_PAGE_SIZE)
    page_cards = cards(page.posts, request.user)
    for card in page_cards:
        card.bookmarked = True  # the list of them: each has its Remove
    return render(request, "feeds/bookmarks.html", {"page": page, "cards": page_cards})


def _limited(request: HttpRequest) -> bool:
    try:
        ratelimit.hit("bookmark", [f"user:{request.user.handle}"], settings.RATELIMIT_BOOKMARK)
    except ratelimit.RateLimited as exc:
        messages.error(request, str(exc))
        return True
    return False


@login_required
@require_POST
def bookmark(request: HttpRequest, post_id: str) -> HttpResponse:
    post = visible_post_or_404(request, post_id)  # only a post one may see
    if not _limited(request):
        bookmarks.bookmark_create(owner=request.user.handle, post_id=post["_id"])
        messages.success(request, "Bookmarked. Your bookmarks are on /bookmarks/.")
    return redirect_back(request, reverse("feeds:post", args=[post_id]))


@login_required
@require_POST
def unbookmark(request: HttpRequest, post_id: str) -> HttpResponse:
    # Whether or not the post can still be seen: a bookmark is one's own.
    oid = object_id_or_404(post_id)
    if not _limited(request):
        bookmarks.bookmark_delete(owner=request.user.handle, post_id=oid)
        messages.success(request, "Bookmark removed.")
    return redirect_back(request, reverse("feeds:bookmarks"))
