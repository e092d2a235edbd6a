"""The offline web corpus built with a catalog: fact pages tying fictional people, teams and places to values that
the catalog's own products carry (for web tasks), and filler pages that compete for the same search terms."""

from __future__ import annotations

from typing import Any, NamedTuple

from arena.catalog.generator import CHUNK, World, _leaves, generate_chunk
from arena.catalog.rng import Rng
from arena.catalog.vocab import SYLLABLES_A, SYLLABLES_B

_FIRST = [
    "Ilsa",
    "Marco",
    "Teodora",
    "Rafael",
    "Amihan",
    "Lukas",
    "Corazon",
    "Dmitri",
    "Ysabel",
    "Kenji",
    "Marisol",
    "Alon",
    "Bettina",
    "Joaquin",
    "Priya",
    "Tomas",
    "Liwayway",
    "Nikolai",
    "Soledad",
    "Emeka",
    "Perla",
    "Hugo",
    "Mayumi",
    "Crisanto",
    "Freya",
    "Dalisay",
    "Oskar",
    "Rosalind",
    "Tala",
    "Evander",
]
_LAST = [
    "Marrow",
    "Quenby",
    "Dalisay",
    "Verhoeven",
    "Santillan",
    "Okonkwo",
    "Halvorsen",
    "Ibarra",
    "Castellano",
    "Lindqvist",
    "Mabini",
    "Thornbury",
    "Arceo",
    "Villafuerte",
    "Nakashima",
    "Bautista",
    "Kowalczyk",
    "Ferrand",
    "Abellana",
    "Rosales",
    "Dimaculangan",
    "Ashgrove",
    "Penhallow",
    "Magbanua",
    "Strand",
    "Oyelaran",
]
_PLACES = [
    "Port Caldera",
    "San Isidro de Malaya",
    "Velmont",
    "Lake Orvane",
    "Ostrava Vale",
    "Bukid Hills",
    "Marisca",
    "Tanaw Bay",
    "Kalinaw",
    "Northwick",
    "Sitio Liwanag",
    "Estrella Norte",
    "Harrowgate",
    "Pulo Verde",
    "Dunmore Cove",
    "Bantay Ridge",
    "Aguila Point",
    "Silverfen",
    "Mahalta",
    "Corvin Springs",
]
_TEAM_NOUNS = [
    "Rovers",
    "Mariners",
    "Falcons",
    "Tamaraws",
    "Comets",
    "Stallions",
    "Herons",
    "Typhoons",
    "Wolves",
    "Voyagers",
    "Eagles",
    "Sharks",
]
_ENSEMBLES = [
    "Northwind Chamber Ensemble",
    "Harbor Lights Quartet",
    "Silverfen Philharmonic",
    "Kalinaw Folk Collective",
    "Aguila Street Band",
    "Lake Orvane Symphony",
    "Bantay Jazz Trio",
]
_EVENTS = [
    "Harvest Lantern Festival",
    "Tanaw Bay Regatta",
    "Velmont Winter Fair",
    "Sitio Liwanag Fiesta",
    "Marisca Craft Week",
    "Northwick Founders' Day",
]


#: Values too generic to be the answer to a world-knowledge question.
_BLAND = frozenset(
    {
        "original",
        "plain",
        "assorted",
        "unflavored",
        "mixed",
        "regular",
        "classic",
        "others",
        "other",
        "multicolor",
        "clear",
        "natural",
    }
)

#: How many leading products of a catalog the web corpus draws its facts from.
WEB_SAMPLE = 8192


def _knowledge_values(world: World) -> dict[str, list[str]]:
    """Values a world-knowledge fact can point at, by kind, taken from the catalog's own leading products: each
    value appears in the title or description of at least one product, so a web task built on it is solvable."""
    by_path = {leaf.path: leaf for leaf in world.leaves}
    found: dict[str, set[str]] = {
        "instrument": set(),
        "sport": set(),
        "flavor": set(),
        "material": set(),
        "color_family": set(),
    }
    for chunk in range((min(world.size, WEB_SAMPLE) + CHUNK - 1) // CHUNK):
        for product, _ in generate_chunk(world, chunk):
            text = (product["title"] + " " + product["description"]).lower()
            leaf = by_path[product["category"]]
            if leaf.top == "Musical Instruments":
                found["instrument"].update(n for n in leaf.nouns if len(n.split()) <= 2 and n in text)
            for key, values in product["attributes"].items():
                if key not in found:
                    continue
                found[key].update(v for v in values if len(v) > 2 and v not in _BLAND and not v.isdigit() and v in text)
    return {kind: sorted(values) for kind, values in found.items()}


class FactKind(NamedTuple):
    """One kind of fact page: which attribute value it ties to which kind of entity, and the page's templates.

    A template's fields: ``{value}`` the attribute value the page states; ``{name}`` the entity (a person, a
    place), or ``{place} {team}`` for a team; the rest (``{year}``, ``{event}``, ...) filler that carries no answer.
    The page's title starts with the entity's name. A reader of the pages (`arena.tasks.shoppingbench.webreading`)
    matches a page against these templates to learn the value it states about the entity a question names."""

    kind: str  #: the kind of value (the key of the catalog's values a fact can be about)
    entity_type: str  #: musician, athlete, place or team (the page's URL folder)
    relation: str  #: how the entity relates to the value ("plays", "competes in", ...)
    attribute: str  #: the product attribute key the value belongs to
    templates: list[str]  #: the page texts, one picked per page


#: every kind of fact page the corpus writes (public: the web-page reader matches pages against their templates)
FACT_KINDS: list[FactKind] = [
    FactKind(
        "instrument",
        "musician",
        "plays",
        "instrument",
        [
            "{name} (born {year}) is a musician from {place}. {pron} best known for playing the {value} with the "
            "{ensemble}, with {n} albums recorded.",
            "Profile: {name}. Hometown: {place}. Instrument: {value}. {name} joined the {ensemble} in {year2} and "
            "became its principal {value} player.",
        ],
    ),
    FactKind(
        "sport",
        "athlete",
        "competes in",
        "sport",
        [
            "{name} is a professional athlete from {place} who competes in {value}. {pron} the "
            "national champion of {year2}.",
            "{name} ({year}) took up {value} at the age of {age} and now captains the {place} {team}.",
        ],
    ),
    FactKind(
        "flavor",
        "place",
        "is famous for the flavor",
        "flavor",
        [
            "{place} is a town known across the islands for its {value}. Every year during the {event}, visitors "
            "line up for {value} treats.",
            "Travel notes: the signature flavor of {place} is {value}; local bakeries have used it since {year}.",
        ],
    ),
    FactKind(
        "material",
        "place",
        "is known for crafts made of",
        "material",
        [
            "Artisans of {place} have worked with {value} for generations; the {event} showcases their {value} crafts.",
            "{place}'s main export is handmade goods of {value}, a tradition dating to {year}.",
        ],
    ),
    FactKind(
        "color_family",
        "team",
        "wears the home color",
        "color_family",
        [
            "The {place} {team} were founded in {year}. The club plays its home games in {value} jerseys.",
            "Fans of the {place} {team} are easy to spot: the team color has been {value} since {year2}.",
        ],
    ),
]

_FILLER = [
    (
        "Buying guide: how to choose a {noun}",
        "Before you buy a {noun}, compare the price, the seller's ratings and "
        "the options. Popular choices in {top} include {brand} and other trusted brands. Look for free shipping and "
        "cash on delivery to save money.",
    ),
    (
        "{top}: what is trending this month",
        "Shoppers in the Philippines are searching for {noun} deals in {mid}. "
        "Flash sales and vouchers make {top} more affordable; read the product details before checking out.",
    ),
    (
        "Review: the {brand} {noun}",
        "We tested the {brand} {noun} for two weeks. It is well made, although the "
        "price is higher than similar listings. Check the size options before ordering.",
    ),
]


def generate_web_pages(seed: object, size: object) -> list[dict[str, Any]]:
    """The offline web corpus of catalog ``(seed, size)``: fact pages tying entities to attribute values, plus
    filler pages (buying guides, trend notes, reviews) that compete for the same search terms."""
    return web_pages_of(World.build(seed, size))


def web_pages_of(world: World) -> list[dict[str, Any]]:
    """`generate_web_pages` of the catalog's world, built already (a generated build's)."""
    seed, size = world.seed, world.size  # Python ints (`validate_seed_size`)
    rng = Rng("web", seed, size)
    values = _knowledge_values(world)
    kinds = [k for k in FACT_KINDS if values.get(k.kind)]
    n_facts = max(40, min(5000, size // 200))
    pages: list[dict[str, Any]] = []
    used_names: set[str] = set()
    all_leaves = _leaves()
    for k in range(n_facts if kinds else 0):  # a tiny catalog may hold no value a fact can be about
        kind, entity_type, relation, attr_key, templates = kinds[k % len(kinds)]
        value = rng.pick(values[kind])
        place = rng.pick(_PLACES)
        team = rng.pick(_TEAM_NOUNS)
        if entity_type in ("musician", "athlete"):
            name = f"{rng.pick(_FIRST)} {rng.pick(_LAST)}"
            while name in used_names:
                name = f"{rng.pick(_FIRST)} {rng.pick(_LAST)} {rng.pick(_LAST)}"
        elif entity_type == "team":
            name = f"{place} {team}"
        else:
            name = place
        if name in used_names and entity_type in ("place", "team"):
            continue  # one fact per place or team per relation keeps questions unambiguous
        used_names.add(name)
        fields = {
            "name": name,
            "place": place,
            "team": team,
            "value": value,
            "year": 1950 + rng.below(55),
            "year2": 2000 + rng.below(24),
            "n": 2 + rng.below(9),
            "age": 6 + rng.below(12),
            "pron": rng.pick(["She is", "He is", "They are"]),
            "ensemble": rng.pick(_ENSEMBLES),
            "event": rng.pick(_EVENTS),
        }
        content = rng.pick(templates).format(**fields)
        slug = name.lower().replace(" ", "-").replace("'", "")
        pages.append(
            {
                "url": f"https://wiki.shoparena.example/{entity_type}/{slug}",
                "title": f"{name} - ShopArena Encyclopedia",
                "content": content,
                "fact": {
                    "entity": name,
                    "entity_type": entity_type,
                    "relation": relation,
                    "value": value,
                    "attribute_key": attr_key,
                },
            }
        )
    for k in range(n_facts):
        leaf = all_leaves[rng.below(len(all_leaves))]
        title_t, content_t = rng.pick(_FILLER)
        brand = rng.pick(SYLLABLES_A).capitalize() + rng.pick(SYLLABLES_B)
        fields = {"noun": rng.pick(leaf.nouns), "top": leaf.top, "mid": leaf.mid, "brand": brand}
        title = title_t.format(**fields)
        pages.append(
            {
                "url": f"https://blog.shoparena.example/{k}/{title.lower().replace(' ', '-').replace(':', '')[:60]}",
                "title": title,
                "content": content_t.format(**fields),
                "fact": None,
            }
        )
    return pages
