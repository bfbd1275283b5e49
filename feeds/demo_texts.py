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
import re
from collections.abc import Callable

from socialsite.zipf import Zipf

# A status is built from parts (docs/features.md#the-demo): an activity, often
# a detail (when, where, with whom) from the same theme unless the activity
# ends its own sentence, often a reaction (the theme's or any); `{slot}`s are
# filled from SLOTS. Tens of thousands of sentences, so none is posted twice
# (`Words.status` checks).
THEMES = [
    (  # work and code
        [
            "Shipped the new release",
            "Finally closed ticket {ticket}",
            "Paired with {colleague} on the search page",
            "Fixed a bug that turned out to be a typo",
            "Replaced a cron job with a proper queue",
            "Benchmarked the old query against the new one: {times}.",
            "Deleted {lines} lines of dead code",
            "Migrated the last service off the old cluster",
            "Wrote the design doc for the notifications rework",
            "Gave a lightning talk at the {meetup} meetup",
            "Restored last night's backup just to prove it works",
            "Reviewed {count} pull requests",
            "Got the flaky test to fail on purpose, at last.",
            "Cleared my inbox down to zero",
            "Learned that $slice works inside $push.",
            "Rewrote the onboarding guide",
            "Finally read the paper everyone keeps citing.",
            "Untangled a {count}-year-old spreadsheet macro",
        ],
        [
            "before lunch",
            "on a Friday afternoon",
            "after a week of false starts",
            "on the first try",
            "with {colleague} watching over my shoulder",
            "while everyone else was in meetings",
            "after three coffees",
            "with the office all to myself",
            "from the kitchen table",
            "an hour before the deadline",
        ],
        [
            "Ship it.",
            "The on-call phone stayed quiet.",
            "Code review tomorrow will be fun.",
            "Retro material, for sure.",
            "Don't tell the product team yet.",
        ],
    ),
    (  # food and kitchens
        [
            "Baked {bake}",
            "Made {dish} for {who}",
            "Tried the {dish} at {place}",
            "Cooked {dish} from scratch",
            "Sourdough attempt number {big}.",
            "Queued {mins} minutes for {dish} at {place}",
            "Made pancakes for the whole street.",
            "Started my first batch of kimchi",
            "Burnt the garlic bread, again.",
            "Learned to fold dumplings properly",
            "Found a new favourite: {dish} at {place}.",
            "Made {bake} with the last of the plums.",
            "Ate far too much {dish}",
            "Hosted dinner for {count} people",
        ],
        [
            "on a Tuesday night",
            "with {who}",
            "from a recipe on the back of a packet",
            "with whatever was left in the fridge",
            "for the first time",
            "after work",
            "in our tiny kitchen",
            "with the windows wide open",
            "before the rain came",
            "at the market's closing hour",
        ],
        [
            "Half of it went to the neighbours.",
            "Mostly an excuse for cake.",
            "Recipe in the comments if anyone asks.",
            "The kitchen is a disaster zone.",
            "Seconds were had.",
        ],
    ),
    (  # outside
        [
            "Ran {km} km along the river",
            "Cycled out to {spot}",
            "Sent the {colour} route at the climbing gym",
            "Swam in the lake",
            "Walked the dog up to {spot}",
            "Watched the sunrise from {spot}",
            "Had my first sailing lesson",
            "Counted {count} herons along the canal",
            "Half marathon training, week {week}.",
            "Fixed a flat tyre by the roadside.",
            "Planted {plant} on the balcony",
            "Picked the first tomatoes of the year",
            "Watched the meteor shower from the roof.",
            "Hiked the coast path to {spot}",
            "Took the long way home through the park",
        ],
        [
            "before breakfast",
            "in the pouring rain",
            "with {who}",
            "in shorts, in March",
            "against a headwind the whole way",
            "at dawn",
            "in brand-new shoes",
            "for the first time this year",
            "with a flask of tea",
            "while the town was still asleep",
        ],
        [
            "My legs disagree.",
            "The photos don't do it justice.",
            "Soaked, but happy.",
            "Sore tomorrow, no doubt.",
            "Sun cream next time.",
        ],
    ),
    (  # at home
        [
            "Finished a {pieces}-piece puzzle",
            "Put up shelves without a single extra hole.",
            "Reorganised the spice rack",
            "Taught {who} to play chess",
            "Started learning the {instrument}",
            "Found my old notebook from university.",
            "Deleted {lines} blurry photos from my phone",
            "Painted the hallway {paint}",
            "Repotted every plant in the flat",
            "Fixed the dripping tap",
            "Knitted a scarf for {who}",
            "Played {game} with {who}",
            "Built a flat-pack bookcase",
            "Did the whole crossword",
            "Sorted {count} years of receipts",
        ],
        [
            "in one evening",
            "while it rained all day",
            "with the radio on",
            "with {who} supervising",
            "on a lazy Sunday",
            "instead of doing the laundry",
            "while the cat watched",
            "in my pyjamas",
            "before the guests arrived",
            "with far too much tea",
        ],
        [
            "The cat was unimpressed.",
            "The neighbours are very patient.",
            "The flat looks twice the size.",
            "Tomorrow: the other room.",
            "Nobody touch anything.",
        ],
    ),
    (  # books, music, town
        [
            "Finished {book}",
            "Started {book}",
            "Reread {book}",
            "Heard {band} play at {venue}",
            "Found a battered copy of {book} in a tiny bookshop.",
            "Spent the afternoon at the {museum}",
            "Listened to the jazz trio at {place}",
            "Picked {book} for the book club.",
            "Heard a busker play {piece} at the station.",
            "Saw the new exhibition at the {museum}",
            "Got tickets for {band} at {venue}.",
            "Sketched the first ideas for a new logo",
            "Wrote {count} pages of the short story",
        ],
        [
            "on the train home",
            "in one sitting",
            "with {who}",
            "for the third time",
            "on a rainy afternoon",
            "in the library's new reading room",
            "on my lunch break",
            "instead of sleeping",
            "at last",
            "on a whim",
        ],
        [
            "No spoilers, please.",
            "The last chapter!",
            "Encore, twice.",
            "Adding it to the list of favourites.",
            "My to-read pile grows again.",
        ],
    ),
]
# Endings that suit any theme, a sentence each; none ends as an afterthought
# does (`base_sentence` relies on it).
REACTIONS = [
    "Ten out of ten.",
    "Why did nobody tell me sooner?",
    "Has anyone else tried this?",
    "Not sure how I feel about it yet.",
    "Recommended, with caveats.",
    "Already planning the next one.",
    "Is it always this hard?",
    "Three stars, generously.",
    "Twice as good as last time.",
    "I regret nothing.",
    "Any tips?",
    "Feeling oddly proud.",
    "That's my weekend sorted.",
    "Best decision this month.",
    "It took 40 minutes longer than planned.",
    "Should I be worried?",
    "Tomorrow I rest.",
    "Not my finest hour.",
    "Honestly better than expected.",
    "Can't stop grinning.",
    "The neighbours clapped.",
    "Somebody stop me.",
    "Worth every penny.",
    "My grandmother would approve.",
    "Still not sure how.",
    "Sleeping well tonight.",
    "Recommendations welcome.",
    "What should I try next?",
    "Who's coming next time?",
    "Day made.",
    "I may have overdone it.",
    "Worth the early alarm.",
    "There's a lesson in there somewhere.",
    "5/5, no notes.",
    "Is that normal?",
    "Going again on Saturday.",
    "Nobody believed me at first.",
    "It only took {count} tries.",
    "Ask me how it went.",
    "Cheaper than therapy.",
    "Back to normal tomorrow.",
]
# Now and then a thought of its own, with nothing added to it.
MUSINGS = [
    "Hot take: most feeds should be cached, not computed.",
    "Coffee, then schema design, then more coffee.",
    "A whole day without meetings. I wrote so much code.",
    "Is it just me, or are Mondays getting longer?",
    "The bakery ran out of croissants before eight. Again.",
    "Went to bed early and woke up with a plan.",
    "The train was late, but the view made up for it.",
    "My cat has decided the keyboard is her bed now.",
    "Two hours of board games and nobody flipped the table.",
    "Bike tyre flat twice in one week. The universe is telling me something.",
    "Unpopular opinion: the second album was better.",
    "How do people keep houseplants alive? Asking for a fern.",
    "If you need me, I'll be at the allotment.",
    "Three alarms and I still overslept.",
    "Who else writes their to-do lists on the back of envelopes?",
    "The first cold morning of autumn always surprises me.",
    "Small joy: a library book nobody else has borrowed since 1987.",
    "Rain all morning, so I reorganised the spice rack.",
]
SLOTS = {
    "ticket": ["#4012", "#1187", "#2290", "#3521", "#977", "#5003"],
    "colleague": ["Priya", "Tomasz", "Ana from the data team", "our new intern", "Kenji"],
    "times": ["three times faster", "twice as fast", "ten times faster", "40% faster"],
    "lines": ["400", "1,200", "2,300", "600", "3,000"],
    "meetup": ["Python", "MongoDB", "Django", "Rust", "data engineering"],
    "count": ["three", "four", "six", "seven", "nine", "twelve"],
    "who": [
        "my sister",
        "my nephew",
        "Grandma",
        "the twins",
        "my flatmate",
        "my dad",
        "an old school friend",
        "the neighbours' kids",
        "my brother",
        "my running club",
    ],
    "bake": [
        "banana bread",
        "focaccia",
        "a lemon tart",
        "cinnamon buns",
        "a Victoria sponge",
        "rye bread",
        "a rhubarb crumble",
        "scones",
        "a plum cake",
        "ginger biscuits",
        "a cheesecake",
    ],
    "dish": [
        "dumplings",
        "shakshuka",
        "lasagne",
        "pho",
        "pad thai",
        "mushroom risotto",
        "falafel",
        "gnocchi",
        "ramen",
        "chickpea curry",
        "paella",
        "tacos",
        "borscht",
        "laksa",
        "bibimbap",
    ],
    "place": [
        "the Blue Door café",
        "Kettle & Crumb",
        "the Marlow Street market",
        "the noodle bar by the station",
        "Luigi's",
        "the bakery on Mill Lane",
        "the Copper Pot",
        "the harbour kiosk",
        "the night market",
        "Café Olé",
    ],
    "big": ["fourteen", "nine", "twenty-two", "seven", "eleven"],
    "mins": ["20", "35", "45", "50", "25"],
    "km": ["5", "7", "10", "12", "16", "21"],
    "spot": [
        "Castle Hill",
        "the old lighthouse",
        "Ridge Point",
        "the reservoir",
        "Beacon Hill",
        "the botanical gardens",
        "the ferry landing",
        "Heron Bay",
    ],
    "colour": ["blue", "orange", "purple", "black", "yellow"],
    "week": ["three", "four", "six", "nine", "eleven"],
    "plant": ["basil", "strawberries", "sweet peas", "chillies", "mint", "lavender"],
    "pieces": ["500", "1,000", "1,500", "2,000"],
    "instrument": ["cello", "ukulele", "piano", "trumpet", "drums"],
    "paint": ["sage green", "a very brave yellow", "off-white", "deep blue"],
    "game": ["Carcassonne", "Scrabble", "Catan", "chess", "cards", "Ticket to Ride"],
    "book": [
        "Middlemarch",
        "Moby-Dick",
        "The Left Hand of Darkness",
        "Persuasion",
        "Dune",
        "The Remains of the Day",
        "Piranesi",
        "Anna Karenina",
        "Never Let Me Go",
        "The Hobbit",
        "Station Eleven",
        "Jane Eyre",
        "Gödel, Escher, Bach",
        "The Pragmatic Programmer",
        "Stoner",
        "The Name of the Rose",
    ],
    "band": ["a string quartet", "a brass band", "an indie band from Leeds", "a folk duo"],
    "venue": ["the old town hall", "the Crown", "the park bandstand", "the student union"],
    "museum": ["science museum", "maritime museum", "city gallery", "museum of childhood"],
    "piece": ["Bach", "a Beatles medley", "Clair de Lune", "the Star Wars theme"],
}
LEADS = ["Today: ", "Small win: ", "Confession: ", "Update: ", "Well, ", "So, "]
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


_SLOT = re.compile(r"\{(\w+)\}")
# What `Words.status` adds after the sentence, last first: a hashtag, a
# mention, an afterthought.
_TAIL = re.compile(r" #\w+$")
_ASK = re.compile(" (?:" + "|".join(re.escape(a).replace(r"\{who\}", r"\w+") for a in ASKS) + ")$")


def base_sentence(status: str) -> str:
    """A status's own sentence: its text without the afterthought, mention and
    hashtag `Words.status` may have added."""
    text = _ASK.sub("", _TAIL.sub("", status))
    for after in AFTERTHOUGHTS:
        if text.endswith(" " + after):
            return text[: -len(after) - 1]
    return text


class Words:
    """Unique texts for one demo: every text it gives is new."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.used: set[str] = set()
        self.sentences: set[str] = set()  # base sentences given so far
        self.tags = Zipf(len(HASHTAGS), theta=0.8, rng=rng)

    def _tag(self, chance: float) -> str:
        if self.rng.random() >= chance:
            return ""
        return f" #{HASHTAGS[self.tags.rank() - 1]}"

    def _new(self, make: Callable[[], str]) -> str:
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

    def _fill(self, template: str) -> str:
        return _SLOT.sub(lambda slot: self.rng.choice(SLOTS[slot[1]]), template)

    def _sentence(self) -> tuple[str, bool]:
        """A sentence no status has had yet, if 30 draws find one, and whether
        it already ends in a reaction."""
        for _ in range(30):
            reacted = False
            if self.rng.random() < 0.06:
                text = self.rng.choice(MUSINGS)
            else:
                activities, details, reactions = self.rng.choice(THEMES)
                text = self.rng.choice(activities)
                if not text.endswith(".") and self.rng.random() < 0.7:
                    text += " " + self.rng.choice(details)
                if ":" not in text and self.rng.random() < 0.12:
                    text = self.rng.choice(LEADS) + text[0].lower() + text[1:]
                text = self._fill(text.removesuffix(".")) + "."
                if self.rng.random() < 0.6:
                    pool = reactions if self.rng.random() < 0.35 else REACTIONS
                    text += " " + self._fill(self.rng.choice(pool))
                    reacted = True
            if text not in self.sentences:
                break
        self.sentences.add(text)
        return text, reacted

    def status(self, others: list[str]) -> str:
        """A status update; `others`: whom it may mention (never the author).
        Its `base_sentence` is new too, so nobody repeats one."""

        def make() -> str:
            text, reacted = self._sentence()
            if self.rng.random() < (0.15 if reacted else 0.5):
                text += " " + self.rng.choice(AFTERTHOUGHTS)
            if others and self.rng.random() < 0.15:
                text += " " + self.rng.choice(ASKS).format(who=self.rng.choice(others))
            return text + self._tag(0.45)

        return self._new(make)

    def _caption(self, pool: list[str], tagged: float) -> str:
        def make() -> str:
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

        def make() -> str:
            lead, tail = self.rng.choice(POLL_LEADS), self.rng.choice(POLL_TAILS)
            return f"{lead}{question}{tail}{self._tag(0.2)}"

        return self._new(make), list(options)
