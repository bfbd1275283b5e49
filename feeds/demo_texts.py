"""The demo's words (docs/features.md#the-demo): what people post, put
together from a few pools so that no text is posted twice, by one person or
by two, and a visitor reads a crowd rather than a script.

A status is a sentence and sometimes an afterthought, a hashtag or a
mention of someone else; link captions, check-in notes, photo captions and
poll questions come from pools of their own and are made unique the same
way. Hashtags are few and drawn Zipf-wise, so several people use each and
the trends and tag pages have something to show. Everything is drawn from
the caller's seeded generator: the same seed, the same words.
"""

import random

from socialsite.zipf import Zipf

SENTENCES = [
    "Shipped the new release today. Thanks to everyone who tested it",
    "Reading the social-networking patterns again: load the fewest documents per page",
    "Sourdough attempt fourteen went better than thirteen",
    "Today I learned that $slice works inside $push. Capped arrays for free",
    "Coffee, then schema design, then more coffee",
    "Hot take: most feeds should be cached, not computed",
    "Finally finished that book. The ending!",
    "Rain all morning, so I reorganised the spice rack",
    "First run of the year along the river",
    "Our team just moved to trunk-based development",
    "Spent the evening fixing a bug that was a typo all along",
    "The tomatoes on the balcony are finally turning red",
    "Two hours of board games and nobody flipped the table",
    "Tried the new ramen place around the corner",
    "Took the long way home and found a tiny bookshop",
    "My cat has decided the keyboard is her bed now",
    "Learning to sail. Mostly learning to get wet",
    "The conference talk is written; now to cut it in half",
    "Wrote my first index hint and then deleted it again",
    "Planted the herbs; the basil already looks nervous",
    "A quiet Sunday with a crossword and too much tea",
    "Moving the blog to a static site generator, again",
    "Finished a 1,000-piece puzzle. Missing exactly one piece",
    "Our code review queue is finally empty",
    "Climbing gym after work: sent the blue route at last",
    "Made pancakes for the whole street",
    "Watched the meteor shower from the roof",
    "Benchmarked the old and the new query: three times faster",
    "Replaced a cron job with a queue and slept better",
    "The bakery ran out of croissants before eight",
    "Cleaned up three years of photos on my phone",
    "Bike tyre flat twice in one week",
    "Started learning the cello. The neighbours are patient",
    "Put up shelves without a single extra hole",
    "Taught my nephew chess; he beat me in the second game",
    "Finally read the paper everyone keeps citing",
    "The train was late, but the view made up for it",
    "A whole day without meetings. I wrote so much code",
    "Tested the backups by restoring them. They work",
    "The jazz trio at the corner café was wonderful tonight",
    "Migrated the last service off the old cluster",
    "Went to bed early and woke up with a plan",
    "Drew the first sketch for the new logo",
    "The library's new reading room is gorgeous",
    "Found my old notebook from university",
    "Half marathon training, week three",
]
AFTERTHOUGHTS = [
    "Worth it.",
    "Small wins.",
    "More soon.",
    "Not bad for a Tuesday.",
    "Highly recommended.",
    "Still smiling.",
    "Would do again.",
    "Ask me anything.",
    "Photos later.",
    "Long story.",
    "Lesson learned.",
    "Who else?",
    "Pure joy.",
    "Still thinking about it.",
    "Notes on my blog soon.",
    "No regrets.",
    "Tell me I'm not the only one.",
    "Next time with friends.",
]
# Few tags, each used by several people (trends need repeats).
HASHTAGS = [
    "mongodb",
    "coffee",
    "baking",
    "weekend",
    "running",
    "books",
    "django",
    "photography",
    "music",
    "gardening",
    "travel",
    "opensource",
    "boardgames",
    "climbing",
]
ASKS = ["@{who} you in?", "Thanks @{who}!", "cc @{who}", "@{who} was right.", "Right, @{who}?"]
LINKS = [
    ("https://www.mongodb.com/docs/manual/", "The MongoDB manual"),
    ("https://docs.djangoproject.com/", "Django documentation"),
    ("https://en.wikipedia.org/wiki/Zipf%27s_law", "Zipf's law"),
    ("https://www.python.org/dev/peps/pep-0020/", "The Zen of Python"),
    ("https://en.wikipedia.org/wiki/Sourdough", "Sourdough"),
    ("https://www.openstreetmap.org/", "OpenStreetMap"),
    ("https://en.wikipedia.org/wiki/Perseids", "The Perseids"),
    ("https://www.gutenberg.org/", "Project Gutenberg"),
]
LINK_CAPTIONS = [
    "Bookmarking this.",
    "Still the best docs around.",
    "Why a few accounts get most followers.",
    "Read this on the train, loved it.",
    "Everyone should read this once.",
    "Found this while looking for something else.",
    "Saving for the weekend.",
    "This explains a lot.",
    "Old but gold.",
    "Sharing because someone asked.",
    "A rabbit hole, in the best way.",
    "Exactly what I needed today.",
]
PLACE_NOTES = [
    "Here now.",
    "Finally made it here.",
    "Meeting friends, come say hi.",
    "Best spot in town.",
    "Back again, couldn't resist.",
    "Working from here today.",
    "First time here!",
    "The queue was worth it.",
    "Sun's out.",
    "Quick stop on the way home.",
]
PHOTO_CAPTIONS = [
    "Today's colours.",
    "Sky over the rooftops.",
    "Evening light.",
    "Caught this on the walk home.",
    "No filter needed.",
    "The view from the office.",
    "Colours of the market.",
    "Sunday morning.",
    "Straight out of the camera.",
    "Light through the window.",
]
POLLS = [
    ("Tabs or spaces?", ["Tabs", "Spaces", "Whatever the formatter says"]),
    ("Best time to post?", ["Morning", "Lunch", "Evening", "3 a.m."]),
    ("Coffee or tea?", ["Coffee", "Tea", "Both", "Neither"]),
    ("Which should I read next?", ["A novel", "A biography", "A tech book"]),
    ("Weekend plans?", ["Hiking", "Sofa", "Cooking", "Work, sadly"]),
    ("Best way to learn a language?", ["Apps", "Classes", "Travel", "Films"]),
    ("Dark mode or light mode?", ["Dark", "Light", "Follows the sun"]),
    ("How do you take notes?", ["Paper", "An app", "I don't"]),
    ("Favourite season?", ["Spring", "Summer", "Autumn", "Winter"]),
    ("Standing desk: worth it?", ["Yes", "No", "Only for a week"]),
]
POLL_LEADS = ["", "Settle this: ", "Honest question: ", "Quick poll: ", "Help me decide: "]
POLL_TAILS = ["", " Be honest.", " Asking for a friend.", " Results on Friday.", " Vote below!"]


class Words:
    """Unique texts for one demo: every text it gives is new."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.used: set[str] = set()
        self.tags = Zipf(len(HASHTAGS), theta=0.8, rng=rng)

    def _tag(self, chance: float) -> str:
        if self.rng.random() >= chance:
            return ""
        return f" #{HASHTAGS[self.tags.rank() - 1]}"

    def _new(self, make) -> str:
        """`make()` until it gives an unused text; numbered if it never does."""
        for _ in range(30):
            text = make()
            if text not in self.used:
                break
        else:
            base, n = text, 2
            while text in self.used:
                text, n = f"{base} ({n})", n + 1
        self.used.add(text)
        return text

    def status(self, others: list[str]) -> str:
        """A status update; `others`: whom it may mention (never the author)."""

        def make():
            text = self.rng.choice(SENTENCES) + "."
            if self.rng.random() < 0.6:
                text += " " + self.rng.choice(AFTERTHOUGHTS)
            if others and self.rng.random() < 0.15:
                text += " " + self.rng.choice(ASKS).format(who=self.rng.choice(others))
            return text + self._tag(0.45)

        return self._new(make)

    def _caption(self, pool: list[str], tagged: float) -> str:
        def make():
            text = self.rng.choice(pool)
            if self.rng.random() < 0.4:
                text += " " + self.rng.choice(AFTERTHOUGHTS)
            return text + self._tag(tagged)

        return self._new(make)

    def link(self) -> dict:
        url, title = self.rng.choice(LINKS)
        return {"url": url, "title": title, "text": self._caption(LINK_CAPTIONS, 0.3)}

    def checkin(self) -> str:
        return self._caption(PLACE_NOTES, 0.3)

    def photo(self) -> str:
        return self._caption(PHOTO_CAPTIONS, 0.5)

    def poll(self) -> tuple[str, list[str]]:
        question, options = self.rng.choice(POLLS)

        def make():
            lead, tail = self.rng.choice(POLL_LEADS), self.rng.choice(POLL_TAILS)
            return f"{lead}{question}{tail}{self._tag(0.2)}"

        return self._new(make), list(options)
