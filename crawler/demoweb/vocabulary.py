"""Word lists and the topical prose generator of the demo web."""

from __future__ import annotations

import random

KINDS = ("news", "blog", "shop", "wiki")
SITE_NAMES = {
    "news": ("The Daily Ledger", "Harbour Times", "Metro Dispatch"),
    "blog": ("Field Notes", "Slow Kitchen", "Byte Journal"),
    "shop": ("Cobalt Outfitters", "Maple Hardware", "Northwind Goods"),
    "wiki": ("OpenAtlas", "Lexicon Commons", "Terra Encyclopedia"),
}
SECTIONS = {
    "news": ("politics", "economy", "city"),
    "blog": ("travel", "cooking", "notes"),
    "shop": ("outdoor", "kitchen", "tools"),
    "wiki": ("science", "history", "geography"),
}
TOPIC_WORDS = {
    "news": "council budget minister election harbour tenants inflation rates court ruling mayor transit strike "
    "union reform policy vote parliament tariffs exports housing market inquiry report districts police "
    "schools hospital funding pension ministry coalition opposition",
    "blog": "journey trail coastline village recipe bread sourdough garden morning notebook weekend train "
    "harbour museum festival coffee kitchen spices market compiler script library debugging laptop "
    "sketch mountains lantern letters autumn",
    "shop": "jacket boots tent backpack kettle skillet knife drill hammer lantern stove blanket cotton "
    "leather warranty shipping discount catalogue model fabric steel handle battery charger cushion "
    "waterproof season bundle colour sizes",
    "wiki": "species glacier empire dynasty treaty river delta plateau climate fossil element isotope "
    "orbit theorem census migration parish cathedral manuscript archive expedition volcano estuary "
    "reactor enzyme protein galaxy telescope basin",
}
TOPICS = (
    "climate glacier drought rainfall emissions carbon ocean heatwave forecast monsoon wildfire coastline",
    "election ballot campaign parliament coalition senator referendum candidate polling minister debate veto",
    "football stadium league striker tournament coach penalty season trophy midfield goalkeeper referee",
    "cuisine sourdough recipe spices bakery vineyard harvest cheese noodles pastry ferment orchard",
    "software compiler database algorithm server encryption browser kernel debugging startup robotics chipset",
    "medicine vaccine hospital surgeon clinic therapy nutrition virus diagnosis patients genome pharmacy",
    "railway tramline airport motorway cyclists commuters harbour ferry timetable freight tunnel bridge",
    "painting sculpture gallery orchestra novel poetry theatre cinema festival museum opera ballet",
)
LINK_TOPICS = (0.7, 0.15, 0.15)  # shares of prose links to the same topic, a neighbouring one, anywhere
NEIGHBOUR_WORDS = 0.2             # share of an article's topic words taken from neighbouring topics
FUNCTION_WORDS = (
    "the the the of of and and to to a a in in that is was for on with as it by at from this be "
    "are which or were an but not had have has their its after more than when into also about"
).split()
COMMON_WORDS = (
    "people year city work first new time part local group public several early later report "
    "small large number within during between following since under while many most other "
    "years week months made found described showed remained became began continued across "
    "according recent further important significant long short open final central northern "
    "southern western eastern river road street house market plan project service system "
    "history period area region level change support effect result order course"
).split()
AUTHORS = ("Ana Ruiz", "Tom Becker", "Mei Lin", "Sam Okafor", "Lena Fischer", "Ravi Nair", "Joan Ellis")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")

def related_topics(topic: int) -> tuple[int, int, int]:
    """The topic and its two neighbours on the ring of topics."""
    n = len(TOPICS)
    return topic, (topic + 1) % n, (topic - 1) % n


class Prose:
    """Generated English-like prose with realistic word and sentence lengths.

    Without a topic, words come from the host kind's vocabulary; with one, mostly from the
    topic's terms (``TOPICS[topic]``) and a little from the kind's.
    """

    def __init__(self, rng: random.Random, kind: str) -> None:
        self.rng = rng
        self.kind = TOPIC_WORDS[kind].split()

    def word(self, topic: int | None = None) -> str:
        roll = self.rng.random()
        if roll < 0.42:
            return self.rng.choice(FUNCTION_WORDS)
        if roll < 0.7:
            if topic is None or roll >= 0.64:
                return self.rng.choice(self.kind)
            if self.rng.random() < NEIGHBOUR_WORDS:
                topic = self.rng.choice(related_topics(topic)[1:])
            return self.rng.choice(TOPICS[topic].split())
        return self.rng.choice(COMMON_WORDS)

    def sentence(self, words: int | None = None, topic: int | None = None) -> str:
        n = words or max(5, min(34, round(self.rng.gauss(17, 6))))
        tokens = [self.word(topic) for _ in range(n)]
        if n > 10 and self.rng.random() < 0.5:
            tokens[self.rng.randrange(3, n - 3)] += ","
        return " ".join(tokens).capitalize() + "."

    def title(self, topic: int) -> str:
        terms = TOPICS[topic].split()
        words = [self.rng.choice(terms), self.rng.choice(COMMON_WORDS), self.rng.choice(terms)]
        joiner = self.rng.choice(("of the", "and the", "after", "in", "for"))
        return f"{words[0].capitalize()} {words[1]} {joiner} {words[2]}".title()
