"""The sentence templates of generated queries (at least 20 per task type) and their synonym sets."""

from __future__ import annotations

FIND = ("find", "look up", "track down", "locate", "search for")
WANT = ("need", "want", "would like")

#: (template, needs details). Slots: {item} the whole item, {head}/{details} for the split templates,
#: {find} and {want} synonyms.
PRODUCT_TEMPLATES: tuple[tuple[str, bool], ...] = (
    ("Looking for {item}.", False),
    ("I'm looking for {item}.", False),
    ("Show me {item}.", False),
    ("Find me {item}.", False),
    ("Can you {find} {item}?", False),
    ("Help me pick {item}.", False),
    ("I {want} {item}.", False),
    ("I want to buy {item}.", False),
    ("Could you help me {find} {item}?", False),
    ("Please recommend {item}.", False),
    ("Search for {item}, please.", False),
    ("I'm shopping for {item}.", False),
    ("Do you have {item}?", False),
    ("I'd like to order {item}.", False),
    ("Any good options for {item}?", False),
    ("Where can I get {item}?", False),
    ("I'm in the market for {item}.", False),
    ("Get me {item}.", False),
    ("I'm hunting for {item}.", False),
    ("Help me {find} {item}.", False),
    ("Can you show me {item}?", False),
    ("I'd love to get {item}.", False),
    ("Searching for {item}.", False),
    ("What are my options for {item}?", False),
    ("I need {head}. Requirements: {details}.", True),
    ("Find {head} for me. Must-haves: {details}.", True),
    ("Looking to buy {head}. Specs: {details}.", True),
    ("Please {find} {head} with these requirements: {details}.", True),
)

SHOP_INTROS: tuple[str, ...] = (
    "Find shops offering these {n} products:",
    "Find a shop that sells all of the following:",
    "I want to buy {n} items from a single shop:",
    "Looking for one store that carries these {n} products:",
    "Help me find a shop selling the following {n} items:",
    "Which shop offers all of these?",
    "Can you find a seller that has everything on this list?",
    "I'd like to get these {n} things from the same shop:",
    "Show me shops that stock these {n} products:",
    "Search for a store offering each of the following:",
    "I need a shop with all {n} of these products in its catalog:",
    "Please find a single seller for these {n} items:",
    "Is there a shop that sells all of the following?",
    "I'm looking for a shop that carries these {n} items:",
    "Find me one store where I can buy all {n} of these:",
    "Look for shops that have these {n} products:",
    "To save on shipping, I want a shop that sells every item below:",
    "Help me pick a shop that offers the following {n} products:",
    "Could you find a store with these {n} items?",
    "Which seller has all of these {n} products?",
    "I want one shop for my whole order of {n} items:",
    "Find stores that carry the following:",
)

#: The closing sentence of every shop query (each means "the shop should sell all these products").
SHOP_CLOSINGS: tuple[str, ...] = (
    "The shop should sell all these products.",
    "The same shop must sell all of them.",
    "All of these items should come from one shop.",
    "One shop has to carry every item on this list.",
    "Every product must be available from the same seller.",
    "They all need to be sold by a single shop.",
)

ORDINALS = ("First", "Second", "Third", "Fourth")
NUMBER_WORDS = ("zero", "one", "two", "three", "four")

#: (template, minimum number of items). Slots: {items} all items joined, or {first} and {rest}.
VOUCHER_TEMPLATES: tuple[tuple[str, int], ...] = (
    ("I'm looking for {items}.", 1),
    ("Looking for {items}.", 1),
    ("I need {items}.", 1),
    ("Help me buy {items}.", 1),
    ("I want to purchase {items}.", 1),
    ("Can you find {items}?", 1),
    ("Show me {items}.", 1),
    ("I'd like to get {items}.", 1),
    ("My shopping list: {items}.", 1),
    ("I plan to buy {items}.", 1),
    ("Help me pick {items}.", 1),
    ("Find me {items}.", 1),
    ("I'm shopping for {items}.", 1),
    ("Could you help me put together an order with {items}?", 1),
    ("I want to order {items} together.", 2),
    ("Please help me get {items}.", 1),
    ("I'm after {items}.", 1),
    ("Search for {items}.", 1),
    ("I'd like to check out with {items}.", 1),
    ("Build me a cart with {items}.", 1),
    ("I'm looking for {first}. Also, I need {rest}.", 2),
    ("First I need {first}. Then I also want {rest}.", 2),
    ("Find {first}. I also want {rest}.", 2),
)

WEB_TEMPLATES: tuple[str, ...] = (
    "{q} I'd like to buy {item}.",
    "{q} Find me {item}.",
    "{q} Then help me find {item}.",
    "{q} Once you know, show me {item}.",
    "{q} I want to purchase {item}.",
    "{q} Please look for {item}.",
    "{q} Can you find {item}?",
    "{q} After that, search for {item}.",
    "{q} I'm looking for {item}.",
    "{q} Help me pick {item}.",
    "{q} I need {item}.",
    "{q} Based on the answer, recommend {item}.",
    "{q} Find out, then get me {item}.",
    "{q} I would like to purchase {item}.",
    "{q} Show me {item}, please.",
    "{q} Knowing that, I want {item}.",
    "{q} Use the answer to find {item}.",
    "{q} I'm shopping for {item}.",
    "{q} Could you locate {item}?",
    "{q} My plan is to buy {item}.",
    "{q} Look it up and find me {item}.",
    "{q} Then I'd like to order {item}.",
    "Quick question first: {q} Then find me {item}.",
)

TEMPLATE_COUNTS: dict[str, int] = {
    "product": len(PRODUCT_TEMPLATES),
    "shop": len(SHOP_INTROS),
    "voucher": len(VOUCHER_TEMPLATES),
    "web": len(WEB_TEMPLATES),
}
