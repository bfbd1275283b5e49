"""Paging helpers shared by the stores.

- `keyset_in_memory`: a threaded page over comments already in memory, sorted
  by full slug (embedded's whole-document read, *Storing Comments*: "retrieve the whole
  document and paginate the comments within the application"; sub-discussions
  read by buckets).
- `offset_page`: a chronological page over a sequence addressed by position,
  oldest first (embedded's `$slice`, buckets' skip/limit). Positions are
  absolute, so new comments (always appended) never shift a cursor.
"""

from bisect import bisect_left, bisect_right
from collections.abc import Callable

from comments.stores import cursors
from comments.stores.base import Comment, CommentPage


def keyset_in_memory(
    comments: list[Comment], *, after: str | None, before: str | None, limit: int
) -> CommentPage:
    """`comments` sorted by full slug; cursors are threaded cursors."""
    after_key, before_key = cursors.decode_optional(cursors.decode_threaded, after, before)
    keys = [c.full_slug for c in comments]
    if before_key is not None:
        stop = bisect_left(keys, before_key)
        start = max(0, stop - limit)
    else:
        start = 0 if after_key is None else bisect_right(keys, after_key)
        stop = start + limit
    chosen = comments[start:stop]
    return CommentPage(
        comments=chosen,
        order="threaded",
        next=cursors.threaded(chosen[-1].full_slug) if chosen and stop < len(keys) else None,
        prev=cursors.threaded(chosen[0].full_slug) if chosen and start > 0 else None,
    )


Slice = Callable[[int, int], list[dict]]  # (start, n) -> up to n items, oldest first
Tail = Callable[[int], tuple[int, list[dict]]]  # n -> (total, the last n items)


def offset_page(
    *, newest: bool, after: str | None, before: str | None, limit: int, fetch: Slice, tail: Tail
) -> tuple[list[tuple[int, dict]], str | None, str | None]:
    """(items in display order with their positions, next cursor, prev cursor).

    A cursor is the position of the boundary item: `after` continues past it
    in display order, `before` goes back from it. At most one `fetch` or
    `tail` call, so a page costs what the store's slice costs.
    """
    after_pos, before_pos = cursors.decode_optional(cursors.decode_offset, after, before)
    if not newest:
        if before_pos is None:  # forward (towards newer)
            start = 0 if after_pos is None else after_pos + 1
            got = fetch(start, limit + 1)
            items, has_next, has_prev = got[:limit], len(got) > limit, start > 0
        else:  # back towards older
            start = max(0, before_pos - limit)
            items = fetch(start, before_pos - start) if before_pos > start else []
            has_next, has_prev = True, start > 0
        placed = list(enumerate(items, start))
    else:
        if after_pos is None and before_pos is None:  # the newest page
            total, items = tail(limit)
            start = total - len(items)
            has_next, has_prev = start > 0, False
        elif after_pos is not None:  # forward in display order: older
            start = max(0, after_pos - limit)
            items = fetch(start, after_pos - start) if after_pos > start else []
            has_next, has_prev = start > 0, True
        else:  # back in display order: newer
            assert before_pos is not None  # not both None, and after_pos is
            start = before_pos + 1
            got = fetch(start, limit + 1)
            items, has_next, has_prev = got[:limit], True, len(got) > limit
        placed = list(enumerate(items, start))[::-1]
    next_cursor = cursors.offset(placed[-1][0]) if placed and has_next else None
    prev_cursor = cursors.offset(placed[0][0]) if placed and has_prev else None
    return placed, next_cursor, prev_cursor
