"""Domain events: what happened, announced by the app that did it.

Dependencies point one way (docs/architecture.md): a lower app never imports
a higher one. So an app that writes something other apps care about sends
one of these signals after the write has landed, synchronously, and the
apps above connect receivers in their `AppConfig.ready()` (notifications
tells people, moderation audits, the feeds fan out). Receivers enqueue
tasks for anything slow. Arguments are plain values (handles, ids) or the
document just written, as each signal's comment says.
"""

from django.dispatch import Signal

# --- the follower graph and accounts (profiles) -------------------------

# follower: str, followee: str
followed = Signal()
# follower: str, followee: str
unfollowed = Signal()
# blocker: str, blocked: str
blocked = Signal()
# handle: str
user_created = Signal()
# user: User (as it is now) - their name or profile was edited
profile_changed = Signal()
# user: User, previous: datetime | None (last_seen before this visit)
user_seen = Signal()
# handle: str - every way into the account ends now: its sessions were
# ended by a password change or reset, an address change undone, erasure or
# a suspension (socialsite/sessions.py `end_sessions_of` sends it), and the
# apps that hand out other credentials (the client API's tokens) revoke them
sign_ins_revoked = Signal()
# muter: str, muted: str
muted = Signal()
# muter: str, muted: str
unmuted = Signal()
# owner: str, members: list[str] - their place in the owner's circles changed
circle_members_changed = Signal()
# owner: str, old: str, new: str
circle_renamed = Signal()
# owner: str - a keyword filter was added or deleted: what their pages show changed
filters_changed = Signal()

# --- posts and the marks people leave on them (feeds) -------------------

# post: Post (the saved document; its text may mention people), author: User
# (as the writer had it: some fields may not have been read)
post_created = Signal()
# post_id: ObjectId, post: dict (as it was: by, ts, tags, circles) - deleted
# by its author, gone for good
post_deleted = Signal()
# post_ids: list[ObjectId], posts: list[dict] - many deleted at once (an
# account's erasure): what post_deleted does for one, done for them all in a few writes
posts_deleted = Signal()
# post_id: ObjectId, post: dict (by, ts, tags, circles) - removed by a
# moderator (hidden, kept for a restore)
post_removed = Signal()
# post_id: ObjectId, post: dict (by, ts, tags, circles) - a moderator restored it
post_restored = Signal()
# post: dict (as it was before the edit), dropped: list[str], added:
# list[str] - an edit changed the post's tags
post_tags_changed = Signal()
# post_id: ObjectId - the post's `delivery` is marked pending (created,
# restored, its author's suspension lifted): whoever delivers queues it now;
# a sweeper finds the marks a dead process left (docs/operations.md#durable-background-work)
post_delivery_due = Signal()
# post_id: ObjectId, reposter: str - the same for a repost, marked on its `post_repost`
repost_delivery_due = Signal()
# ids: list[ObjectId] - posts or reposts being deleted, removed or undone.
# Sent before the write (a crash after it leaves no copy of what is gone in
# a timeline) and again after it (a delivery racing with the write)
entries_withdrawn = Signal()
# author: str - every post of theirs leaves every timeline (a suspension)
author_withdrawn = Signal()
# post_id: ObjectId, fields: list[str], at_once: bool - these fields of the
# post changed, and copies of it must follow: in a task, or before the
# request answers when `at_once` (a comment's count on the page it returns to)
post_changed = Signal()
# post_id: ObjectId - its likes or reposts count changed (`counts_v` stepped)
post_counts_changed = Signal()
# owner: str, circle: str - the owner's posts now name `circle` (a rename
# rewrote them): copies of their audience must follow
post_circles_renamed = Signal()
# limit: int - every post's `comments_shown` was cut to its newest `limit`:
# receivers cut their copies too and answer {collection: entries trimmed}
comments_shown_truncated = Signal()
# author: str, subject: str (the target's key), what: "post" | "comment",
# excerpt: str, reason: str - a
# moderator removed something of the author's (moderation); they are told why
removed_by_moderator = Signal()
# post_id: ObjectId, author: str (the poll's), voter: str, choice: str (the
# option's text) - a vote was counted
poll_voted = Signal()
# post_id: ObjectId, author: str (the post's), actor: str (who liked it)
post_liked = Signal()
# post_id: ObjectId, author: str, actor: str
post_unliked = Signal()
# post_id: ObjectId, author: str (the original's), actor: str (the reposter),
# user: User | None (the reposter's document, when the request has it)
post_reposted = Signal()
# post_id: ObjectId, actor: str (who took their repost back), user: User (theirs)
post_unreposted = Signal()

# --- timelines, notifications, messages: what a person's open pages learn live ---

# post_id: ObjectId, author: str, readers: list[str], repost_by: str | None -
# the entry of a post (or of `repost_by`'s repost of it) is now in these
# readers' news timelines: sent after the write, a batch at a time
news_delivered = Signal()
# post_id: ObjectId, author: str - a pulled author's public post: their
# followers' news pages read it when shown, no entry is written for them
news_pulled = Signal()
# recipient: str, item_id: ObjectId, kind: str, counted: bool - a
# notification was written (counted: it raised their unread count)
notified = Signal()
# conversation_id: ObjectId, message_id: ObjectId, sender_handle: str,
# told: list[str] (the others it reaches: not across a block) - a message
# was written
message_sent = Signal()

# --- comments -------------------------------------------------------------

# older_than_seconds: int | None - the sweeper's round (`redeliver_pending`):
# each app settles what a process that died mid-write left pending, and
# answers a line for the command to print
pending_swept = Signal()

# post: dict (the commented post: _id, by), comment: Comment,
# replying_to: str | None (the author of the comment it answers)
comment_created = Signal()
# post_id: ObjectId, slug: str, by: str (a DELETED_BY value: its author, the
# post's author or a moderator), author: str | None (the comment's, when
# known) - soft-deleted, its replies stay
comment_deleted = Signal()
# post_id: ObjectId, slug: str, actor: str (the post's author), author: str
# (the comment's), text: str (what it said) - a post's author deleted
# someone else's comment on their post
comment_removed_by_post_author = Signal()
