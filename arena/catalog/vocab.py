"""Word lists of the synthetic catalog: brand syllables, shop names, series, marketing words, description lines."""

from __future__ import annotations

SYLLABLES_A = ["ar", "bel", "cor", "dan", "el", "fen", "gal", "hal", "is", "jor", "kal", "lum", "mar", "nor", "or",
                "pel", "quin", "ros", "sol", "tor", "ul", "val", "wen", "xan", "yor", "zen", "bri", "cle", "dra", "fla"]
SYLLABLES_B = ["ea", "ix", "on", "ora", "us", "ia", "ent", "ova", "ex", "ano", "ita", "ux", "ora", "ine", "ar", "io",
                "aro", "eon", "ity", "ana", "ev", "ic", "os", "um", "al"]
BRAND_SUFFIX = ["", "", "", "", " Pro", " Home", " Living", " Tech", " PH", " Co.", " Essentials", " Lab", " Plus"]
SHOP_WORDS = ["Store", "Shop", "Trading", "Mart", "Official Store", "Enterprises", "Depot", "Hub", "Outlet",
               "Corner", "Bazaar", "Supply", "Center", "Express", "Goods"]
SHOP_PREFIX = ["Manila", "Cebu", "Davao", "Luzon", "Visayas", "Mindanao", "Quezon", "Makati", "Pasig", "Iloilo",
                "Bacolod", "Baguio", "Taguig", "Laguna", "Cavite", "Bulacan", "Golden", "Happy", "Lucky", "Prime",
                "Star", "Sunrise", "Metro", "Island", "Bayani", "Mabuhay", "Sampaguita", "Tala", "Alon", "Bituin"]
SERIES = ["Pro", "Max", "Lite", "Plus", "Mini", "Ultra", "Air", "Neo", "Prime", "Classic", "Sport", "Eco", "Flex",
           "Smart", "Elite", "X", "S", "V2", "Go", "One"]
MARKETING = ["Original", "Hot Sale", "New Arrival", "2024 New", "Best Seller", "High Quality", "Premium",
              "Ready Stock", "Authentic", "Durable", "Limited Edition", "Korean Style", "Japan Quality", "Heavy Duty",
              "Portable", "Multi-purpose", "Waterproof", "Lightweight", "Sale", "Free Gift", "Local Seller",
              "Fast Delivery", "Cash on Delivery", "Imported", "Budget Friendly", "Trending"]
PREFIXES = ["[Ready Stock]", "【COD】", "[Local Seller]", "[Free Gift]", "✨", "[Authentic]",
             "[Spot +24hours delivery]", "(Original)", "[Buy 1 Take 1]", "🔥"]
HIGHLIGHTS = ["Brand new and high quality", "100% authentic", "Easy to use and clean", "Perfect gift for family and "
               "friends", "Ships within 24 hours", "Sturdy and long lasting", "Compact design saves space",
               "Satisfaction guaranteed", "Suitable for daily use", "Carefully packed for safe delivery",
               "Seller warranty included", "Eco-friendly packaging", "Stylish modern design"]
DESC_OPENERS = ["Introducing the {title}.", "Upgrade your everyday with the {title}.", "Meet the {title}.",
                 "The {title} is here.", "Looking for a reliable {noun}? The {title} has you covered."]
DESC_CLOSERS = ["Designed in the Philippines' favourite style and checked before shipping.",
               "Package includes: 1 x {noun}.", "Please allow 1-3 cm difference due to manual measurement.",
               "Colors may vary slightly due to screen settings.", "Message us for bulk orders."]
JUNK_ATTRS = ("no brand",)
