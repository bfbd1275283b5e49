"""The keys a page adds to the post documents it reads: posts travel as the
raw documents their read projected (no document objects for a page of
twenty), and these name what a page learnt about each beside the document.
"""

# What a page's lookups found beside a post (feeds/selectors/lookups.py): the
# reader's like, vote, bookmark and edges, so the page asks no query of its
# own for them.
FOUND = "_found"
# On a news page, a post read from a pulled author's posts rather than the
# stored timeline (timelines/selectors/beside.py): its card says so.
PULLED_IN = "_pulled_in"
