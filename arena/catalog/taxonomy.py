"""Category tree, attribute families and leaf schemas for the synthetic catalog. Fixed data: the same for every seed.

``FAMILIES`` maps a family name to attribute keys and their values. Every mid-level category names one family, and
each of its leaves adds 1-4 keys of its own (``attrs``; a leaf key with the same name as a family key replaces the
family's values for that leaf). ``sku`` lists the keys whose values differ between the SKU options of one listing.
``price`` is (median price in PHP, log-normal sigma); a leaf's own ``price`` overrides its mid category's. All
attribute values are lowercase. In "Musical Instruments", nouns of one or two words are instrument names and
accessory nouns have three or more words; in "Sports & Outdoors", only keys named ``sport`` hold sport names.
"""

from __future__ import annotations

# Attribute families: family name -> attribute key -> list of values.
FAMILIES: dict[str, dict[str, list[str]]] = {
    "apparel": {
        "material": [
            "cotton",
            "polyester",
            "spandex",
            "linen",
            "rayon",
            "denim",
            "nylon",
            "chiffon",
            "jersey",
            "fleece",
            "viscose",
            "cotton blend",
            "corduroy",
            "satin",
            "knit",
        ],
        "color_family": [
            "black",
            "white",
            "red",
            "navy blue",
            "sea blue",
            "pink",
            "beige",
            "multicolor",
            "green",
            "grey",
            "brown",
            "purple",
            "yellow",
            "orange",
            "khaki",
            "maroon",
            "olive",
            "cream",
        ],
        "size": ["xs", "s", "m", "l", "xl", "2xl", "3xl"],
        "fit_type": ["regular fit", "slim fit", "oversized", "relaxed fit", "loose fit", "skinny fit"],
        "pattern": [
            "plain",
            "striped",
            "floral",
            "checkered",
            "graphic print",
            "polka dots",
            "camouflage",
            "plaid",
            "animal print",
            "tie-dye",
            "embroidered",
        ],
        "occasion": ["casual", "office", "party", "beach", "sports", "formal", "lounge", "travel"],
    },
    "footwear": {
        "material": [
            "synthetic leather",
            "genuine leather",
            "canvas",
            "mesh",
            "rubber",
            "eva",
            "suede",
            "knit",
            "pu leather",
            "nubuck",
        ],
        "color_family": [
            "black",
            "white",
            "red",
            "navy blue",
            "pink",
            "beige",
            "multicolor",
            "grey",
            "brown",
            "green",
            "nude",
            "tan",
            "silver",
            "gold",
        ],
        "shoe_size": [
            "eu 35",
            "eu 36",
            "eu 37",
            "eu 38",
            "eu 39",
            "eu 40",
            "eu 41",
            "eu 42",
            "eu 43",
            "eu 44",
            "eu 45",
        ],
        "closure_type": ["lace-up", "slip-on", "velcro", "buckle", "zipper", "elastic"],
        "sole_material": ["rubber", "eva", "tpr", "pu", "leather"],
        "occasion": ["casual", "sports", "formal", "office", "beach", "outdoor", "party"],
    },
    "accessories": {
        "material": [
            "genuine leather",
            "pu leather",
            "canvas",
            "nylon",
            "polyester",
            "straw",
            "rattan",
            "abaca",
            "buri",
            "cotton",
            "acrylic",
            "alloy",
            "silk",
            "denim",
            "faux suede",
        ],
        "color_family": [
            "black",
            "white",
            "red",
            "navy blue",
            "pink",
            "beige",
            "multicolor",
            "silver",
            "gold",
            "green",
            "grey",
            "brown",
            "purple",
            "rose gold",
            "khaki",
            "tan",
            "clear",
        ],
        "style": ["casual", "vintage", "korean style", "minimalist", "luxury", "sporty", "bohemian", "classic"],
        "gender": ["women", "men", "unisex", "kids"],
        "size": ["mini", "small", "medium", "large", "free size"],
    },
    "watches_wearables": {
        "color_family": [
            "black",
            "white",
            "silver",
            "gold",
            "rose gold",
            "navy blue",
            "brown",
            "green",
            "pink",
            "grey",
            "blue",
        ],
        "strap_material": [
            "stainless steel",
            "genuine leather",
            "silicone",
            "nylon",
            "mesh",
            "resin",
            "ceramic",
            "titanium",
        ],
        "water_resistance": ["splash proof", "3 atm", "5 atm", "10 atm", "20 atm", "ip68"],
        "warranty_type": [
            "no warranty",
            "local supplier warranty",
            "local manufacturer warranty",
            "international manufacturer warranty",
        ],
        "gender": ["men", "women", "unisex", "kids"],
    },
    "beauty": {
        "skin_type": ["all skin types", "oily", "dry", "combination", "sensitive", "normal", "acne-prone"],
        "benefit": [
            "brightening",
            "moisturizing",
            "anti-aging",
            "acne care",
            "oil control",
            "soothing",
            "firming",
            "pore care",
            "long-lasting",
        ],
        "country_of_origin": ["philippines", "south korea", "japan", "thailand", "usa", "france", "china", "taiwan"],
        "pack_size": ["single", "pack of 2", "pack of 3", "pack of 6", "bundle"],
        "certification": ["fda registered", "cruelty-free", "vegan", "dermatologically tested", "halal certified"],
    },
    "personal_care": {
        "pack_size": ["single", "pack of 2", "pack of 3", "pack of 6", "pack of 12", "bundle"],
        "gender": ["women", "men", "unisex", "kids"],
        "country_of_origin": ["philippines", "south korea", "japan", "thailand", "usa", "france", "india", "indonesia"],
        "certification": ["fda registered", "halal certified", "cruelty-free", "dermatologically tested", "vegan"],
        "target_use": ["daily use", "travel size", "family size", "salon professional"],
    },
    "health": {
        "pack_size": ["1 pc", "pack of 2", "pack of 3", "box of 10", "bundle"],
        "target_group": ["adults", "kids", "seniors", "women", "men", "athletes", "whole family"],
        "country_of_origin": ["philippines", "usa", "japan", "south korea", "australia", "germany", "india"],
        "certification": ["fda registered", "halal certified", "gmp certified", "iso certified"],
        "packaging": ["bottle", "box", "blister pack", "pouch", "jar", "tub"],
    },
    "kitchen": {
        "material": [
            "stainless steel",
            "aluminum",
            "ceramic",
            "glass",
            "plastic",
            "bamboo",
            "wood",
            "silicone",
            "tempered glass",
            "melamine",
            "carbon steel",
            "porcelain",
        ],
        "color_family": [
            "black",
            "white",
            "red",
            "navy blue",
            "sea blue",
            "pink",
            "beige",
            "multicolor",
            "silver",
            "gold",
            "green",
            "grey",
            "brown",
            "purple",
            "yellow",
            "orange",
            "rose gold",
            "clear",
            "mint",
            "cream",
        ],
        "dishwasher_safe": ["dishwasher safe", "top rack dishwasher safe", "hand wash only", "wipe clean only"],
        "pack_size": ["1 pc", "set of 2", "set of 3", "set of 4", "set of 6", "set of 12"],
        "warranty_type": [
            "no warranty",
            "local supplier warranty",
            "local manufacturer warranty",
            "1 year",
            "lifetime warranty",
        ],
        "country_of_origin": ["philippines", "japan", "south korea", "china", "germany", "thailand", "usa"],
    },
    "home": {
        "material": [
            "wood",
            "rattan",
            "bamboo",
            "abaca",
            "capiz",
            "cotton",
            "polyester",
            "metal",
            "plastic",
            "glass",
            "ceramic",
            "microfiber",
            "velvet",
            "linen",
            "mdf",
            "narra wood",
            "acacia wood",
            "water hyacinth",
            "resin",
        ],
        "color_family": [
            "black",
            "white",
            "red",
            "navy blue",
            "sea blue",
            "pink",
            "beige",
            "multicolor",
            "silver",
            "gold",
            "green",
            "grey",
            "brown",
            "purple",
            "yellow",
            "orange",
            "khaki",
            "natural",
            "walnut",
            "cream",
        ],
        "size": ["small", "medium", "large", "extra large"],
        "style": [
            "modern",
            "minimalist",
            "scandinavian",
            "bohemian",
            "industrial",
            "vintage",
            "japandi",
            "tropical",
            "farmhouse",
            "classic",
        ],
        "pattern": [
            "plain",
            "striped",
            "floral",
            "geometric",
            "checkered",
            "abstract",
            "tropical leaves",
            "woven texture",
        ],
        "room_type": [
            "living room",
            "bedroom",
            "bathroom",
            "kitchen",
            "dining room",
            "home office",
            "outdoor",
            "kids room",
        ],
    },
    "household": {
        "scent": [
            "unscented",
            "lemon",
            "lavender",
            "floral",
            "fresh",
            "calamansi",
            "sakura",
            "baby powder",
            "ocean breeze",
            "pine",
            "rose",
            "sunshine fresh",
        ],
        "volume": ["250ml", "500ml", "750ml", "1l", "2l", "3.8l", "5l"],
        "pack_size": ["1 pc", "pack of 2", "pack of 3", "pack of 6", "box of 12", "bundle"],
        "packaging": ["bottle", "refill pouch", "box", "sachet", "tub", "spray can", "jerry can"],
        "eco_label": ["standard", "biodegradable", "plant-based", "hypoallergenic", "eco refill", "phosphate-free"],
        "country_of_origin": ["philippines", "japan", "thailand", "indonesia", "malaysia", "usa", "china"],
    },
    "mobile": {
        "storage_capacity": ["32gb", "64gb", "128gb", "256gb", "512gb", "1tb"],
        "ram_memory": ["3gb", "4gb", "6gb", "8gb", "12gb", "16gb"],
        "color_family": [
            "black",
            "white",
            "silver",
            "gold",
            "blue",
            "green",
            "purple",
            "pink",
            "grey",
            "titanium",
            "midnight",
            "starlight",
            "sea blue",
            "orange",
        ],
        "warranty_type": [
            "local supplier warranty",
            "local manufacturer warranty",
            "international manufacturer warranty",
            "7 days replacement",
            "1 year",
            "2 years",
        ],
        "box_contents": ["unit only", "with charger", "with charger and case", "complete accessories"],
    },
    "computing": {
        "ram_memory": ["4gb", "8gb", "16gb", "24gb", "32gb", "64gb"],
        "storage_capacity": ["256gb ssd", "512gb ssd", "1tb ssd", "2tb ssd", "1tb hdd"],
        "color_family": [
            "black",
            "silver",
            "space grey",
            "white",
            "blue",
            "gold",
            "midnight",
            "starlight",
            "green",
            "grey",
        ],
        "warranty_type": [
            "local supplier warranty",
            "local manufacturer warranty",
            "international manufacturer warranty",
            "1 year",
            "2 years",
            "3 years",
        ],
        "condition": ["brand new", "sealed", "open box", "refurbished"],
    },
    "electronics": {
        "color_family": [
            "black",
            "white",
            "silver",
            "grey",
            "blue",
            "red",
            "green",
            "pink",
            "purple",
            "beige",
            "navy blue",
            "gold",
            "clear",
            "multicolor",
        ],
        "warranty_type": [
            "no warranty",
            "local supplier warranty",
            "local manufacturer warranty",
            "international manufacturer warranty",
            "7 days replacement",
            "1 year",
            "2 years",
        ],
        "condition": ["brand new", "sealed", "open box", "refurbished", "pre-owned"],
        "model_year": ["2022", "2023", "2024", "2025"],
        "country_of_origin": ["china", "japan", "south korea", "taiwan", "vietnam", "usa", "thailand", "malaysia"],
    },
    "appliances": {
        "color_family": [
            "black",
            "white",
            "silver",
            "grey",
            "red",
            "pink",
            "beige",
            "green",
            "blue",
            "stainless",
            "cream",
            "mint",
        ],
        "warranty_type": [
            "no warranty",
            "local supplier warranty",
            "local manufacturer warranty",
            "1 year",
            "2 years",
            "5 years on parts",
        ],
        "control_type": ["manual knob", "push button", "digital display", "touch panel", "smart app"],
        "model_year": ["2022", "2023", "2024", "2025"],
        "country_of_origin": ["china", "japan", "south korea", "thailand", "philippines", "malaysia", "indonesia"],
        "certification": ["ps mark", "icc mark", "ce certified", "ul listed"],
    },
    "grocery": {
        "pack_size": ["1 pc", "pack of 3", "pack of 6", "pack of 10", "pack of 12", "box of 24", "bundle"],
        "dietary_need": [
            "regular",
            "sugar-free",
            "low sodium",
            "gluten-free",
            "vegan",
            "halal",
            "organic",
            "keto",
            "high protein",
        ],
        "origin": [
            "philippines",
            "japan",
            "south korea",
            "thailand",
            "usa",
            "indonesia",
            "vietnam",
            "malaysia",
            "australia",
            "taiwan",
            "new zealand",
        ],
        "packaging": ["pouch", "bottle", "can", "box", "jar", "sachet", "tetra pack", "bag", "tub", "tray"],
        "certification": ["fda registered", "halal certified", "organic certified", "haccp certified"],
    },
    "baby": {
        "recommended_age": [
            "newborn",
            "0-3 months",
            "3-6 months",
            "6-12 months",
            "1-2 years",
            "2-3 years",
            "3-4 years",
            "4-6 years",
        ],
        "material": [
            "cotton",
            "organic cotton",
            "bamboo fiber",
            "bpa-free plastic",
            "silicone",
            "polypropylene",
            "stainless steel",
            "muslin",
            "polyester",
            "aluminum",
            "wood",
        ],
        "color_family": [
            "white",
            "pink",
            "sea blue",
            "navy blue",
            "beige",
            "yellow",
            "mint",
            "grey",
            "multicolor",
            "lavender",
            "peach",
            "black",
        ],
        "print_design": ["plain", "animals", "floral", "stripes", "cartoon", "stars and moon"],
        "certification": [
            "bpa-free",
            "fda registered",
            "astm certified",
            "en 1888 certified",
            "dermatologically tested",
        ],
    },
    "toys": {
        "recommended_age": [
            "0-12 months",
            "1-3 years",
            "3-5 years",
            "6-8 years",
            "9-12 years",
            "13 years and up",
            "adults",
        ],
        "material": ["plastic", "wood", "abs", "metal", "foam", "rubber", "cardboard", "pvc", "fabric", "silicone"],
        "color_family": [
            "red",
            "blue",
            "pink",
            "yellow",
            "green",
            "purple",
            "orange",
            "multicolor",
            "black",
            "white",
            "brown",
            "sea blue",
            "rainbow",
        ],
        "certification": ["ps mark", "icc mark", "astm f963", "en71", "iso 8124"],
        "theme": [
            "animals",
            "vehicles",
            "dinosaurs",
            "space",
            "princess",
            "superheroes",
            "anime",
            "construction",
            "ocean",
            "farm",
            "fantasy",
        ],
        "play_type": ["pretend play", "educational", "active play", "creative", "collectible", "sensory"],
    },
    "sports": {
        "material": [
            "polyester",
            "nylon",
            "spandex",
            "rubber",
            "pu leather",
            "eva foam",
            "aluminum",
            "carbon fiber",
            "steel",
            "neoprene",
            "cotton",
            "tpe",
            "graphite",
            "fiberglass",
            "synthetic leather",
        ],
        "color_family": [
            "black",
            "white",
            "red",
            "navy blue",
            "sea blue",
            "pink",
            "multicolor",
            "green",
            "grey",
            "yellow",
            "orange",
            "purple",
            "neon green",
            "royal blue",
            "camo",
        ],
        "performance_features": [
            "quick dry",
            "breathable",
            "anti-slip",
            "lightweight",
            "waterproof",
            "shock absorbing",
            "uv protection",
            "sweat-wicking",
            "durable",
            "foldable",
        ],
        "skill_level": ["beginner", "intermediate", "advanced", "professional"],
        "gender": ["men", "women", "unisex", "kids"],
    },
    "automotive": {
        "make": [
            "toyota",
            "honda",
            "mitsubishi",
            "nissan",
            "suzuki",
            "ford",
            "hyundai",
            "kia",
            "isuzu",
            "mazda",
            "chevrolet",
            "geely",
            "universal",
        ],
        "vehicle_type": ["sedan", "hatchback", "suv", "mpv", "pickup", "van", "universal"],
        "material": [
            "abs plastic",
            "pu leather",
            "rubber",
            "aluminum",
            "stainless steel",
            "microfiber",
            "polyester",
            "silicone",
            "tpe",
            "carbon fiber",
            "steel",
        ],
        "color_family": [
            "black",
            "white",
            "red",
            "navy blue",
            "beige",
            "grey",
            "silver",
            "blue",
            "brown",
            "carbon black",
            "yellow",
            "chrome",
            "smoked",
        ],
        "warranty_type": [
            "no warranty",
            "local supplier warranty",
            "local manufacturer warranty",
            "6 months",
            "1 year",
            "2 years",
        ],
        "pack_size": ["1 pc", "pair", "set of 4", "set of 5", "bundle"],
    },
    "motorcycle": {
        "make": ["honda", "yamaha", "suzuki", "kawasaki", "rusi", "motorstar", "kymco", "skygo", "universal"],
        "motorcycle_type": ["scooter", "underbone", "standard", "sport bike", "dual sport", "big bike", "universal"],
        "material": [
            "abs plastic",
            "rubber",
            "aluminum",
            "stainless steel",
            "steel",
            "polyester",
            "nylon",
            "carbon fiber",
            "pu leather",
        ],
        "color_family": [
            "black",
            "white",
            "red",
            "blue",
            "grey",
            "silver",
            "yellow",
            "orange",
            "green",
            "carbon black",
            "chrome",
            "smoked",
            "neon",
        ],
        "warranty_type": [
            "no warranty",
            "local supplier warranty",
            "local manufacturer warranty",
            "6 months",
            "1 year",
        ],
    },
    "pets": {
        "pet_size": ["toy", "small", "medium", "large", "giant", "all sizes"],
        "life_stage": ["young", "adult", "senior", "all life stages"],
        "material": [
            "plastic",
            "nylon",
            "cotton",
            "stainless steel",
            "rubber",
            "plush",
            "wood",
            "sisal",
            "ceramic",
            "polyester",
            "silicone",
        ],
        "color_family": [
            "black",
            "white",
            "red",
            "navy blue",
            "pink",
            "beige",
            "multicolor",
            "green",
            "grey",
            "brown",
            "yellow",
            "sea blue",
            "purple",
        ],
        "country_of_origin": ["philippines", "thailand", "usa", "japan", "china", "australia", "france"],
    },
    "stationery": {
        "color_family": [
            "black",
            "blue",
            "red",
            "green",
            "pink",
            "purple",
            "yellow",
            "orange",
            "white",
            "pastel",
            "multicolor",
            "brown",
            "grey",
            "gold",
            "silver",
            "neon",
        ],
        "pack_size": ["1 pc", "pack of 3", "pack of 5", "pack of 10", "pack of 12", "box of 24"],
        "material": [
            "plastic",
            "paper",
            "wood",
            "metal",
            "cardboard",
            "pvc",
            "fabric",
            "kraft paper",
            "acrylic",
            "bamboo",
        ],
        "country_of_origin": ["philippines", "japan", "china", "germany", "south korea", "indonesia", "taiwan", "usa"],
        "recommended_for": ["students", "office", "artists", "kids", "hobbyists", "teachers"],
    },
    "media": {
        "language": [
            "english",
            "filipino",
            "tagalog",
            "cebuano",
            "ilocano",
            "japanese",
            "korean",
            "spanish",
            "bilingual",
        ],
        "condition": ["brand new", "sealed", "like new", "used - very good", "used - good"],
        "age_group": ["children", "teens", "young adult", "adults", "all ages"],
        "edition": ["standard", "special", "deluxe", "limited", "anniversary", "collector's", "reprint"],
        "release_region": ["philippines", "usa", "uk", "japan", "south korea", "asia"],
    },
    "tools": {
        "material": [
            "carbon steel",
            "stainless steel",
            "chrome vanadium",
            "aluminum",
            "plastic",
            "pvc",
            "brass",
            "copper",
            "fiberglass",
            "wood",
            "rubber",
            "cast iron",
        ],
        "warranty_type": [
            "no warranty",
            "local supplier warranty",
            "local manufacturer warranty",
            "6 months",
            "1 year",
            "2 years",
            "lifetime warranty",
        ],
        "color_family": ["black", "yellow", "red", "orange", "blue", "green", "grey", "silver", "white", "teal"],
        "tool_grade": ["diy grade", "professional grade", "industrial grade", "heavy duty"],
        "country_of_origin": ["china", "japan", "germany", "taiwan", "usa", "philippines", "vietnam"],
    },
    "instruments": {
        "color_family": ["natural", "black", "white", "red", "blue", "brown", "gold", "silver", "pink", "green"],
        "skill_level": ["beginner", "intermediate", "advanced", "professional"],
        "warranty_type": ["no warranty", "local supplier warranty", "local manufacturer warranty", "1 year", "2 years"],
        "package_type": ["instrument only", "with gig bag", "starter kit", "with hard case", "complete bundle"],
        "finish": ["gloss", "satin", "matte", "natural", "lacquered"],
        "country_of_origin": ["china", "indonesia", "japan", "philippines", "usa", "germany", "taiwan"],
    },
}

# Top-level -> mid-level -> spec: "family" (a key of FAMILIES), "price" (median PHP, log-normal sigma) and
# "leaves": leaf name -> {"nouns": title nouns, "attrs": leaf keys, "sku": SKU keys, optional "price"}.
TAXONOMY: dict[str, dict[str, dict]] = {
    "Home & Living": {
        "Kitchen & Dining": {
            "family": "kitchen",
            "price": (450.0, 0.8),
            "leaves": {
                "Cookware Sets": {
                    "nouns": ["cookware set", "pot and pan set", "casserole set"],
                    "sku": ["color_family"],
                    "price": (1800.0, 0.6),
                    "attrs": {
                        "number_of_pieces": ["3 pcs", "5 pcs", "8 pcs", "10 pcs", "12 pcs"],
                        "coating": ["non-stick", "granite", "ceramic", "uncoated", "marble"],
                        "stove_compatibility": ["gas stove", "induction ready", "all stovetops"],
                        "material": [
                            "stainless steel",
                            "aluminum",
                            "cast iron",
                            "carbon steel",
                            "granite coated aluminum",
                        ],
                    },
                },
                "Frying Pans & Woks": {
                    "nouns": ["frying pan", "wok", "skillet"],
                    "sku": ["pan_diameter"],
                    "price": (650.0, 0.6),
                    "attrs": {
                        "pan_diameter": ["20cm", "24cm", "26cm", "28cm", "30cm", "32cm"],
                        "coating": ["non-stick", "granite", "ceramic", "uncoated", "marble"],
                        "material": ["aluminum", "cast iron", "carbon steel", "stainless steel", "forged aluminum"],
                    },
                },
                "Kitchen Knives": {
                    "nouns": ["kitchen knife", "knife", "cooking knife"],
                    "sku": [],
                    "price": (380.0, 0.7),
                    "attrs": {
                        "blade_type": ["chef", "santoku", "paring", "bread", "cleaver", "utility"],
                        "blade_length": ["3.5 inches", "5 inches", "7 inches", "8 inches"],
                        "material": ["stainless steel", "high carbon steel", "damascus steel", "ceramic"],
                    },
                },
                "Cutting Boards": {
                    "nouns": ["cutting board", "chopping board", "sangkalan"],
                    "sku": ["board_size"],
                    "price": (250.0, 0.6),
                    "attrs": {
                        "board_size": ["small", "medium", "large", "extra large"],
                        "board_feature": ["juice groove", "non-slip feet", "double sided", "with handle"],
                        "material": ["wood", "bamboo", "acacia wood", "plastic", "tempered glass", "rubberwood"],
                    },
                },
                "Dinnerware": {
                    "nouns": ["dinnerware set", "dinner set", "plate and bowl set"],
                    "sku": ["color_family"],
                    "attrs": {
                        "number_of_pieces": ["4 pcs", "6 pcs", "12 pcs", "16 pcs", "24 pcs"],
                        "microwave_use": ["microwave safe", "not microwave safe"],
                        "material": ["ceramic", "porcelain", "stoneware", "melamine", "tempered glass", "bamboo fiber"],
                    },
                },
                "Drinkware & Tumblers": {
                    "nouns": ["tumbler", "insulated tumbler", "water bottle"],
                    "sku": ["capacity", "color_family"],
                    "attrs": {
                        "insulation": ["double wall vacuum", "single wall", "non-insulated"],
                        "lid_type": ["straw lid", "flip lid", "screw cap", "sip lid", "handle lid"],
                        "capacity": ["350ml", "500ml", "750ml", "1l", "1.2l", "2l"],
                        "material": ["stainless steel", "tritan", "glass", "plastic"],
                    },
                },
                "Food Storage Containers": {
                    "nouns": ["food container", "lunch box", "meal prep container"],
                    "sku": ["capacity"],
                    "attrs": {
                        "lid_seal": ["airtight", "leak-proof", "snap lock", "silicone seal"],
                        "compartments": ["1 compartment", "2 compartments", "3 compartments", "bento style"],
                        "capacity": ["350ml", "500ml", "800ml", "1l", "1.5l", "2.5l"],
                        "material": ["glass", "plastic", "stainless steel", "silicone"],
                    },
                },
                "Kitchen Utensils": {
                    "nouns": ["kitchen utensil", "cooking utensil set", "kitchen tool set"],
                    "sku": ["color_family"],
                    "price": (180.0, 0.6),
                    "attrs": {
                        "utensil_type": [
                            "spatula",
                            "ladle",
                            "tongs",
                            "whisk",
                            "peeler",
                            "grater",
                            "strainer",
                            "sandok",
                        ],
                        "heat_resistance": ["up to 200c", "up to 230c", "up to 260c"],
                        "material": ["silicone", "wood", "stainless steel", "nylon", "bamboo"],
                    },
                },
                "Bakeware": {
                    "nouns": ["baking pan", "cake mold", "baking tray"],
                    "sku": ["bakeware_shape"],
                    "price": (320.0, 0.6),
                    "attrs": {
                        "bakeware_shape": ["round", "square", "rectangular", "loaf", "bundt", "muffin", "llanera"],
                        "oven_safe_temp": ["up to 200c", "up to 230c", "up to 250c"],
                        "material": ["carbon steel", "aluminum", "silicone", "glass", "ceramic"],
                    },
                },
            },
        },
        "Bedding & Bath": {
            "family": "home",
            "price": (600.0, 0.7),
            "leaves": {
                "Bed Sheets": {
                    "nouns": ["bed sheet set", "fitted sheet", "bedsheet"],
                    "sku": ["bed_size", "color_family"],
                    "attrs": {
                        "bed_size": ["single", "double", "queen", "king", "super king"],
                        "thread_count": ["200 tc", "300 tc", "400 tc", "600 tc", "800 tc"],
                    },
                },
                "Pillows & Bolsters": {
                    "nouns": ["pillow", "bed pillow", "sleeping pillow"],
                    "sku": ["filling"],
                    "price": (350.0, 0.6),
                    "attrs": {
                        "filling": ["polyester fiber", "memory foam", "latex", "goose feather", "kapok", "buckwheat"],
                        "firmness": ["soft", "medium", "firm"],
                    },
                },
                "Blankets & Comforters": {
                    "nouns": ["comforter", "blanket", "throw blanket"],
                    "sku": ["bed_size", "color_family"],
                    "price": (900.0, 0.6),
                    "attrs": {
                        "blanket_weight": ["lightweight", "all season", "heavy"],
                        "bed_size": ["single", "double", "queen", "king", "super king"],
                    },
                },
                "Bath Towels": {
                    "nouns": ["towel", "absorbent towel", "hotel towel"],
                    "sku": ["color_family", "towel_size"],
                    "price": (300.0, 0.6),
                    "attrs": {
                        "towel_weight": ["300 gsm", "400 gsm", "500 gsm", "600 gsm", "700 gsm"],
                        "towel_size": ["face", "hand", "bath", "beach", "bath sheet"],
                    },
                },
                "Bath Mats": {
                    "nouns": ["bath mat", "bathroom rug", "floor mat"],
                    "sku": ["color_family"],
                    "price": (280.0, 0.6),
                    "attrs": {
                        "backing": ["anti-slip rubber", "pvc dots", "latex", "no backing"],
                        "water_absorbency": ["quick dry", "super absorbent", "waterproof"],
                    },
                },
                "Mosquito Nets": {
                    "nouns": ["mosquito net", "kulambo", "bed canopy"],
                    "sku": ["bed_size"],
                    "price": (400.0, 0.5),
                    "attrs": {
                        "net_style": ["foldable", "canopy", "square", "dome", "umbrella type"],
                        "bed_size": ["single", "double", "queen", "king", "super king"],
                    },
                },
            },
        },
        "Furniture": {
            "family": "home",
            "price": (3500.0, 0.8),
            "leaves": {
                "Sofas": {
                    "nouns": ["sofa", "couch", "sofa set"],
                    "sku": ["color_family"],
                    "price": (9000.0, 0.6),
                    "attrs": {
                        "seating_capacity": ["1 seater", "2 seater", "3 seater", "l-shape", "sectional"],
                        "upholstery": ["fabric", "leatherette", "velvet", "linen", "boucle"],
                    },
                },
                "Bed Frames": {
                    "nouns": ["bed frame", "bed", "bedframe"],
                    "sku": ["bed_size"],
                    "price": (6500.0, 0.6),
                    "attrs": {
                        "bed_style": ["platform", "storage", "headboard", "metal frame", "tatami"],
                        "bed_size": ["single", "double", "queen", "king"],
                    },
                },
                "Dining Tables": {
                    "nouns": ["dining table", "kitchen table", "dinner table"],
                    "sku": ["color_family"],
                    "attrs": {
                        "table_shape": ["round", "square", "rectangular", "oval"],
                        "seats": ["2 persons", "4 persons", "6 persons", "8 persons"],
                    },
                },
                "Chairs & Stools": {
                    "nouns": ["chair", "home chair", "chair set"],
                    "sku": ["color_family"],
                    "price": (1200.0, 0.7),
                    "attrs": {
                        "chair_type": ["dining", "accent", "folding", "monobloc", "rocking", "butaka"],
                        "stacking": ["stackable", "non-stackable"],
                    },
                },
                "Office Desks & Chairs": {
                    "nouns": ["computer desk", "study table", "office desk"],
                    "sku": ["color_family"],
                    "price": (3200.0, 0.7),
                    "attrs": {
                        "adjustable_height": ["fixed height", "manual adjustable", "electric standing"],
                        "desk_width": ["80cm", "100cm", "120cm", "140cm", "160cm"],
                    },
                },
                "Shelves & Cabinets": {
                    "nouns": ["bookshelf", "storage cabinet", "display shelf"],
                    "sku": ["color_family"],
                    "price": (2200.0, 0.7),
                    "attrs": {
                        "number_of_tiers": ["2 tiers", "3 tiers", "4 tiers", "5 tiers", "6 tiers"],
                        "assembly": ["diy assembly", "pre-assembled"],
                    },
                },
                "Wardrobes": {
                    "nouns": ["wardrobe", "closet cabinet", "clothes cabinet"],
                    "sku": ["color_family"],
                    "price": (4000.0, 0.8),
                    "attrs": {
                        "door_count": ["1 door", "2 doors", "3 doors", "4 doors", "sliding doors"],
                        "wardrobe_frame": ["steel tube", "wooden panel", "fabric cover"],
                    },
                },
            },
        },
        "Home Decor": {
            "family": "home",
            "price": (350.0, 0.8),
            "leaves": {
                "Curtains & Blinds": {
                    "nouns": ["curtain", "window curtain", "curtain panel"],
                    "sku": ["color_family", "curtain_length"],
                    "price": (450.0, 0.6),
                    "attrs": {
                        "light_blocking": ["sheer", "semi-blackout", "blackout"],
                        "curtain_length": ["150cm", "180cm", "210cm", "240cm", "270cm"],
                    },
                },
                "Wall Art & Frames": {
                    "nouns": ["wall art", "canvas painting", "wall decor"],
                    "sku": ["frame_size"],
                    "attrs": {
                        "frame_size": ["a4", "a3", "30x40cm", "40x60cm", "60x90cm"],
                        "art_subject": ["abstract", "botanical", "landscape", "religious", "quotes", "animals", "map"],
                    },
                },
                "Photo Frames": {
                    "nouns": ["photo frame", "picture frame", "collage frame"],
                    "sku": ["photo_size"],
                    "price": (180.0, 0.6),
                    "attrs": {
                        "photo_size": ["3r", "4r", "5r", "8r", "a4", "11x14 inches"],
                        "frame_mount": ["tabletop", "wall mounted", "tabletop or wall"],
                    },
                },
                "Lamps & Lighting": {
                    "nouns": ["table lamp", "floor lamp", "pendant lamp"],
                    "sku": ["light_color"],
                    "price": (800.0, 0.7),
                    "attrs": {
                        "bulb_type": ["led", "incandescent", "smart bulb", "e27 socket"],
                        "light_color": ["warm white", "cool white", "daylight", "rgb"],
                    },
                },
                "Fairy Lights": {
                    "nouns": ["fairy lights", "christmas lights", "string lights"],
                    "sku": ["light_color"],
                    "price": (250.0, 0.7),
                    "attrs": {
                        "string_length": ["3m", "5m", "10m", "20m", "50m"],
                        "light_color": ["warm white", "multicolor", "cool white", "rgb"],
                        "light_mode": ["steady", "8 modes", "twinkle", "remote controlled"],
                    },
                },
                "Parol & Christmas Lanterns": {
                    "nouns": ["parol", "christmas lantern", "star lantern"],
                    "sku": ["parol_diameter"],
                    "price": (650.0, 0.7),
                    "attrs": {
                        "material": ["capiz", "bamboo", "papel de japon", "plastic", "shell", "recycled materials"],
                        "parol_diameter": ["12 inches", "18 inches", "24 inches", "36 inches", "48 inches"],
                        "parol_lighting": ["unlit", "led", "blinking led", "solar led"],
                    },
                },
                "Vases & Plant Pots": {
                    "nouns": ["flower vase", "plant pot", "planter"],
                    "sku": ["pot_diameter"],
                    "attrs": {
                        "pot_diameter": ["10cm", "15cm", "20cm", "25cm", "30cm"],
                        "drainage": ["with drainage hole", "no drainage hole", "with saucer"],
                    },
                },
                "Artificial Plants & Flowers": {
                    "nouns": ["artificial plant", "faux plant", "artificial flower"],
                    "sku": ["plant_variety"],
                    "attrs": {
                        "plant_variety": [
                            "monstera",
                            "fiddle leaf fig",
                            "eucalyptus",
                            "rose",
                            "orchid",
                            "sampaguita",
                            "succulent",
                            "bougainvillea",
                            "bird of paradise",
                        ],
                        "plant_height": ["30cm", "60cm", "90cm", "120cm", "150cm"],
                    },
                },
                "Wall Clocks": {
                    "nouns": ["wall clock", "decorative clock", "modern wall clock"],
                    "sku": ["color_family"],
                    "attrs": {
                        "clock_display": ["analog", "digital", "roman numerals", "arabic numerals"],
                        "clock_movement": ["silent sweep", "ticking quartz", "radio controlled"],
                    },
                },
                "Native Handicrafts": {
                    "nouns": ["woven basket", "handwoven tray", "placemat set"],
                    "sku": ["size"],
                    "attrs": {
                        "material": [
                            "rattan",
                            "abaca",
                            "bamboo",
                            "capiz",
                            "buri",
                            "nito",
                            "pandan",
                            "water hyacinth",
                            "coconut shell",
                        ],
                        "craft_technique": ["hand-woven", "handmade", "hand-braided", "hand-painted"],
                        "craft_origin": [
                            "ilocos",
                            "cebu",
                            "bohol",
                            "pampanga",
                            "iloilo",
                            "palawan",
                            "antique",
                            "banaue",
                            "samar",
                        ],
                    },
                },
            },
        },
        "Laundry & Cleaning": {
            "family": "household",
            "price": (220.0, 0.6),
            "leaves": {
                "Laundry Detergents": {
                    "nouns": ["laundry detergent", "detergent", "laundry soap"],
                    "sku": ["scent", "pack_size"],
                    "attrs": {
                        "wash_type": ["hand wash", "top load", "front load", "all machines"],
                        "detergent_weight": ["66g", "500g", "1kg", "2kg", "3kg"],
                    },
                },
                "Fabric Conditioners": {
                    "nouns": ["fabric conditioner", "fabric softener", "fabcon"],
                    "sku": ["scent"],
                    "attrs": {
                        "fragrance_strength": ["light", "long-lasting", "extra long-lasting"],
                        "rinse_type": ["regular rinse", "one rinse"],
                    },
                },
                "Bleach & Stain Removers": {
                    "nouns": ["bleach", "stain remover", "laundry bleach"],
                    "sku": ["volume"],
                    "attrs": {
                        "bleach_type": ["chlorine", "color safe", "oxygen", "enzyme"],
                        "stain_target": ["whites", "colored fabrics", "collar and cuffs", "all fabrics"],
                    },
                },
                "Dishwashing Liquids": {
                    "nouns": ["dishwashing liquid", "dish soap", "dishwashing paste"],
                    "sku": ["scent", "volume"],
                    "price": (120.0, 0.6),
                    "attrs": {"grease_power": ["regular", "antibacterial", "extra grease cut", "gentle on hands"]},
                },
                "Surface Cleaners & Disinfectants": {
                    "nouns": ["disinfectant spray", "all-purpose cleaner", "multi-surface cleaner"],
                    "sku": ["scent"],
                    "attrs": {
                        "surface_type": ["multi-surface", "glass", "floor", "kitchen", "tiles", "wood"],
                        "germ_kill": ["kills 99.9% germs", "kills 99.99% germs", "cleaning only"],
                    },
                },
                "Toilet & Bathroom Cleaners": {
                    "nouns": ["toilet bowl cleaner", "bathroom cleaner", "tile and grout cleaner"],
                    "sku": ["scent"],
                    "attrs": {
                        "cleaning_action": ["descaling", "whitening", "mold removal", "deodorizing"],
                        "applicator": ["angled nozzle", "trigger spray", "in-tank tablet", "gel stamp"],
                    },
                },
                "Insect & Pest Control": {
                    "nouns": ["insect spray", "insecticide", "pest control spray"],
                    "sku": ["scent"],
                    "attrs": {
                        "target_pest": ["mosquitoes", "cockroaches", "ants", "flies", "termites", "rats", "bed bugs"]
                    },
                },
            },
        },
        "Housekeeping & Organization": {
            "family": "home",
            "price": (300.0, 0.7),
            "leaves": {
                "Storage Boxes & Bins": {
                    "nouns": ["storage box", "storage bin", "collapsible storage box"],
                    "sku": ["box_capacity"],
                    "attrs": {
                        "box_capacity": ["10l", "20l", "30l", "50l", "80l", "120l"],
                        "lid": ["with lid", "open top", "with wheels and lid"],
                    },
                },
                "Clothes Hangers": {
                    "nouns": ["clothes hanger", "hanger", "hanger set"],
                    "sku": ["color_family"],
                    "attrs": {
                        "hanger_type": ["velvet", "plastic", "wooden", "metal", "multi-layer", "clip hanger"],
                        "pieces_per_pack": ["5 pcs", "10 pcs", "20 pcs", "50 pcs"],
                    },
                },
                "Shoe Racks": {
                    "nouns": ["shoe rack", "shoe organizer", "shoe cabinet"],
                    "sku": [],
                    "price": (600.0, 0.6),
                    "attrs": {
                        "shoe_pair_capacity": ["9 pairs", "12 pairs", "20 pairs", "30 pairs", "50 pairs"],
                        "rack_build": ["steel tube", "bamboo", "plastic stackable", "fabric covered"],
                    },
                },
                "Bathroom & Kitchen Organizers": {
                    "nouns": ["bathroom shelf", "shower caddy", "dish rack"],
                    "sku": ["color_family"],
                    "attrs": {
                        "mounting": ["adhesive", "drill mounted", "freestanding", "suction", "over the door"],
                        "rust_proof": ["rust-proof", "powder coated", "stainless"],
                    },
                },
                "Vacuum Storage Bags": {
                    "nouns": ["vacuum storage bag", "space saver bag", "vacuum seal bag"],
                    "sku": ["bag_dimensions"],
                    "price": (250.0, 0.5),
                    "attrs": {
                        "bag_dimensions": ["50x60cm", "60x80cm", "70x100cm", "80x110cm", "100x120cm"],
                        "pump": ["hand pump included", "electric pump included", "no pump"],
                    },
                },
                "Drawer & Desk Organizers": {
                    "nouns": ["drawer organizer", "drawer divider", "makeup organizer"],
                    "sku": ["color_family"],
                    "price": (200.0, 0.6),
                    "attrs": {
                        "grid_count": ["4 grids", "6 grids", "8 grids", "12 grids", "adjustable"],
                        "organizer_body": ["clear acrylic", "plastic", "bamboo", "fabric"],
                    },
                },
                "Mops & Buckets": {
                    "nouns": ["mop", "floor mop", "mop set"],
                    "sku": [],
                    "price": (550.0, 0.6),
                    "attrs": {
                        "mop_type": ["spin mop", "flat mop", "string mop", "sponge mop", "spray mop"],
                        "handle_length": ["90cm", "120cm", "130cm", "adjustable"],
                    },
                },
                "Brooms & Dustpans": {
                    "nouns": ["walis", "broom", "broom and dustpan"],
                    "sku": [],
                    "price": (150.0, 0.5),
                    "attrs": {
                        "broom_fiber": ["tiger grass", "coconut midrib", "plastic bristles", "soft nylon"],
                        "broom_use": ["indoor", "outdoor", "indoor and outdoor"],
                    },
                },
                "Garbage Bags": {
                    "nouns": ["garbage bag", "trash bag", "bin liner"],
                    "sku": ["bag_size"],
                    "attrs": {
                        "bag_size": ["small", "medium", "large", "extra large", "xxl"],
                        "bag_count": ["10 pcs", "30 pcs", "50 pcs", "100 pcs"],
                    },
                },
            },
        },
    },
    "Health & Beauty": {
        "Skin Care": {
            "family": "beauty",
            "price": (450.0, 0.8),
            "leaves": {
                "Facial Cleansers": {
                    "nouns": ["facial cleanser", "face wash", "facial wash"],
                    "sku": ["volume"],
                    "price": (350.0, 0.6),
                    "attrs": {
                        "cleanser_type": [
                            "foam",
                            "gel",
                            "cleansing oil",
                            "micellar water",
                            "cleansing balm",
                            "enzyme powder",
                        ],
                        "ph_level": ["low ph", "ph balanced", "ph 5.5"],
                        "volume": ["50ml", "100ml", "150ml", "200ml"],
                    },
                },
                "Toners & Essences": {
                    "nouns": ["toner", "facial toner", "essence"],
                    "sku": ["volume"],
                    "attrs": {
                        "key_ingredient": [
                            "niacinamide",
                            "hyaluronic acid",
                            "centella asiatica",
                            "rice extract",
                            "snail mucin",
                            "salicylic acid",
                            "green tea",
                            "glycolic acid",
                            "galactomyces",
                        ],
                        "alcohol_content": ["alcohol-free", "low alcohol"],
                        "volume": ["100ml", "150ml", "200ml", "300ml"],
                    },
                },
                "Serums & Ampoules": {
                    "nouns": ["serum", "face serum", "ampoule"],
                    "sku": ["volume"],
                    "price": (550.0, 0.7),
                    "attrs": {
                        "key_ingredient": [
                            "niacinamide",
                            "vitamin c",
                            "retinol",
                            "hyaluronic acid",
                            "peptides",
                            "tranexamic acid",
                            "centella asiatica",
                            "alpha arbutin",
                            "bakuchiol",
                        ],
                        "active_concentration": ["1%", "2%", "5%", "10%", "15%", "20%"],
                        "volume": ["15ml", "30ml", "50ml"],
                    },
                },
                "Moisturizers": {
                    "nouns": ["moisturizer", "face cream", "facial moisturizer"],
                    "sku": ["volume"],
                    "attrs": {
                        "texture": ["lightweight gel", "cream", "rich cream", "water cream", "lotion"],
                        "fragrance": ["fragrance-free", "lightly scented"],
                        "volume": ["30ml", "50ml", "75ml", "100ml"],
                    },
                },
                "Sunscreens": {
                    "nouns": ["sunscreen", "sunblock", "sun stick"],
                    "sku": ["volume"],
                    "price": (400.0, 0.6),
                    "attrs": {
                        "spf": ["spf 30", "spf 50", "spf 50+"],
                        "pa_rating": ["pa++", "pa+++", "pa++++"],
                        "filter_type": ["chemical", "mineral", "hybrid"],
                        "volume": ["30ml", "40ml", "50ml", "100ml"],
                    },
                },
                "Face Masks": {
                    "nouns": ["facial mask", "beauty mask", "skin care mask"],
                    "sku": ["sheets_per_box"],
                    "price": (180.0, 0.8),
                    "attrs": {
                        "mask_type": ["sheet", "clay", "sleeping", "peel-off", "wash-off", "hydrogel"],
                        "sheets_per_box": ["1 sheet", "5 sheets", "10 sheets", "30 sheets"],
                    },
                },
                "Eye Care": {
                    "nouns": ["eye cream", "under eye patch", "eye serum"],
                    "sku": [],
                    "price": (500.0, 0.7),
                    "attrs": {"eye_concern": ["dark circles", "puffiness", "fine lines", "eye bags", "crow's feet"]},
                },
                "Acne Treatments": {
                    "nouns": ["pimple patch", "acne spot treatment", "acne patch"],
                    "sku": ["patch_count"],
                    "price": (220.0, 0.6),
                    "attrs": {
                        "patch_count": ["24 patches", "36 patches", "72 patches", "96 patches"],
                        "active_ingredient": [
                            "hydrocolloid",
                            "salicylic acid",
                            "benzoyl peroxide",
                            "tea tree",
                            "sulfur",
                        ],
                    },
                },
            },
        },
        "Makeup": {
            "family": "beauty",
            "price": (350.0, 0.7),
            "leaves": {
                "Foundation & BB Cream": {
                    "nouns": ["foundation", "bb cream", "cushion foundation"],
                    "sku": ["shade"],
                    "attrs": {
                        "shade": ["fair", "light", "light medium", "medium", "natural beige", "tan", "deep"],
                        "coverage": ["sheer", "light", "medium", "full"],
                        "finish": ["matte", "dewy", "satin", "natural"],
                    },
                },
                "Concealers": {
                    "nouns": ["concealer", "face concealer", "coverage concealer"],
                    "sku": ["shade"],
                    "price": (300.0, 0.6),
                    "attrs": {
                        "shade": ["fair", "light", "light medium", "medium", "natural beige", "tan", "deep"],
                        "concealer_use": ["under eye", "blemish", "color correcting", "all-over"],
                    },
                },
                "Lipsticks & Lip Tints": {
                    "nouns": ["lipstick", "lip tint", "liquid lipstick"],
                    "sku": ["shade"],
                    "price": (250.0, 0.7),
                    "attrs": {
                        "shade": [
                            "nude",
                            "pink",
                            "red",
                            "coral",
                            "brown",
                            "berry",
                            "plum",
                            "rosewood",
                            "mauve",
                            "orange",
                        ],
                        "lip_finish": ["matte", "velvet", "glossy", "satin", "stained"],
                        "transfer_proof": ["transfer-proof", "standard"],
                    },
                },
                "Lip Gloss & Balms": {
                    "nouns": ["lip gloss", "lip balm", "lip oil"],
                    "sku": ["shade"],
                    "price": (200.0, 0.6),
                    "attrs": {
                        "shade": ["clear", "nude", "pink", "red", "coral", "berry", "peach"],
                        "lip_care": ["tinted", "plumping", "spf 15", "overnight repair"],
                    },
                },
                "Eyeshadow Palettes": {
                    "nouns": ["eyeshadow palette", "eye palette", "eyeshadow"],
                    "sku": ["palette_theme"],
                    "price": (450.0, 0.7),
                    "attrs": {
                        "number_of_shades": ["4 shades", "9 shades", "12 shades", "18 shades", "35 shades"],
                        "palette_theme": ["neutral", "warm", "cool", "colorful", "smoky", "pink"],
                    },
                },
                "Mascara & Eyeliner": {
                    "nouns": ["mascara", "eyeliner", "liquid eyeliner"],
                    "sku": ["shade"],
                    "price": (280.0, 0.6),
                    "attrs": {
                        "shade": ["black", "brown", "blackest black", "dark brown"],
                        "wear_time": ["12 hours", "24 hours", "36 hours"],
                        "waterproof": ["waterproof", "smudge-proof", "washable"],
                    },
                },
                "Brow Products": {
                    "nouns": ["eyebrow pencil", "brow pencil", "brow definer"],
                    "sku": ["shade"],
                    "price": (200.0, 0.6),
                    "attrs": {
                        "shade": ["dark brown", "medium brown", "grey brown", "black", "taupe"],
                        "brow_tip": ["ultra fine", "triangle", "pomade", "brush tip"],
                    },
                },
                "Blush & Highlighter": {
                    "nouns": ["blush", "highlighter", "blush on"],
                    "sku": ["shade"],
                    "attrs": {
                        "shade": ["peach", "pink", "coral", "rose", "champagne", "bronze", "berry"],
                        "cheek_texture": ["powder", "cream", "liquid", "jelly", "stick"],
                    },
                },
                "Face Powder": {
                    "nouns": ["face powder", "setting powder", "powder foundation"],
                    "sku": ["shade"],
                    "attrs": {
                        "shade": ["translucent", "light", "medium", "tan"],
                        "oil_control_hours": ["4 hours", "8 hours", "12 hours", "16 hours", "24 hours"],
                    },
                },
                "Makeup Brushes & Tools": {
                    "nouns": ["makeup brush set", "makeup sponge", "beauty blender"],
                    "sku": [],
                    "price": (250.0, 0.7),
                    "attrs": {
                        "bristle_type": ["synthetic", "natural hair", "taklon", "latex-free sponge"],
                        "pieces_in_set": ["1 pc", "5 pcs", "10 pcs", "12 pcs", "15 pcs", "24 pcs"],
                    },
                },
                "Nail Polish": {
                    "nouns": ["nail polish", "gel polish", "nail color"],
                    "sku": ["shade"],
                    "price": (120.0, 0.6),
                    "attrs": {
                        "shade": ["nude", "red", "pink", "clear", "black", "white", "glitter", "pastel blue", "maroon"],
                        "curing": ["air dry", "uv/led cure", "quick dry"],
                    },
                },
            },
        },
        "Hair Care": {
            "family": "personal_care",
            "price": (280.0, 0.7),
            "leaves": {
                "Shampoo": {
                    "nouns": ["shampoo", "anti-dandruff shampoo", "hair shampoo"],
                    "sku": ["volume"],
                    "attrs": {
                        "hair_concern": [
                            "dandruff",
                            "hair fall",
                            "frizz",
                            "oily scalp",
                            "dryness",
                            "color protection",
                            "volume",
                        ],
                        "sulfate": ["sulfate-free", "regular"],
                        "volume": ["180ml", "340ml", "500ml", "900ml", "1l"],
                    },
                },
                "Conditioner & Hair Masks": {
                    "nouns": ["conditioner", "hair mask", "hair treatment"],
                    "sku": ["volume"],
                    "attrs": {
                        "treatment_type": ["rinse-off", "leave-in", "deep treatment", "overnight", "hot oil"],
                        "hair_type": ["all hair types", "dry", "damaged", "color-treated", "curly", "fine"],
                        "volume": ["180ml", "340ml", "500ml", "1l"],
                    },
                },
                "Hair Oils & Serums": {
                    "nouns": ["hair oil", "hair serum", "hair vitamin"],
                    "sku": ["volume"],
                    "attrs": {
                        "oil_base": ["argan", "coconut", "keratin", "castor", "camellia", "virgin coconut", "rosemary"],
                        "volume": ["30ml", "50ml", "100ml", "150ml"],
                    },
                },
                "Hair Color": {
                    "nouns": ["hair color", "hair dye", "hair color cream"],
                    "sku": ["hair_color_shade"],
                    "attrs": {
                        "hair_color_shade": [
                            "natural black",
                            "dark brown",
                            "chestnut brown",
                            "ash brown",
                            "burgundy",
                            "ash grey",
                            "blonde",
                            "rose gold",
                            "copper",
                        ],
                        "ammonia": ["ammonia-free", "regular"],
                        "permanence": ["permanent", "semi-permanent", "temporary"],
                    },
                },
                "Hair Styling": {
                    "nouns": ["hair wax", "pomade", "hair gel"],
                    "sku": ["hold_level"],
                    "price": (220.0, 0.6),
                    "attrs": {
                        "hold_level": ["light", "medium", "strong", "extra strong"],
                        "styling_finish": ["matte", "natural", "high shine", "wet look"],
                    },
                },
            },
        },
        "Bath & Body": {
            "family": "personal_care",
            "price": (220.0, 0.7),
            "leaves": {
                "Body Wash & Soap": {
                    "nouns": ["body wash", "bath soap", "shower gel"],
                    "sku": ["scent"],
                    "attrs": {
                        "skin_benefit": [
                            "whitening",
                            "moisturizing",
                            "antibacterial",
                            "exfoliating",
                            "soothing",
                            "kojic",
                            "papaya",
                        ],
                        "scent": [
                            "floral",
                            "citrus",
                            "lavender",
                            "green tea",
                            "milk",
                            "sampaguita",
                            "ocean",
                            "coconut",
                        ],
                    },
                },
                "Body Lotions": {
                    "nouns": ["body lotion", "body cream", "body butter"],
                    "sku": ["scent", "volume"],
                    "attrs": {
                        "lotion_spf": ["no spf", "spf 15", "spf 30", "spf 50"],
                        "lotion_texture": ["light", "rich", "gel", "serum lotion"],
                        "scent": ["vanilla", "floral", "cherry blossom", "coconut", "unscented", "shea"],
                        "volume": ["100ml", "200ml", "400ml", "600ml"],
                    },
                },
                "Deodorants": {
                    "nouns": ["deodorant", "antiperspirant", "underarm deodorant"],
                    "sku": ["scent"],
                    "price": (150.0, 0.5),
                    "attrs": {
                        "deo_format": ["roll-on", "spray", "stick", "cream", "powder", "tawas"],
                        "protection_hours": ["24 hours", "48 hours", "72 hours"],
                        "scent": ["powder fresh", "citrus", "floral", "cool blue", "unscented", "musk"],
                    },
                },
                "Oral Care": {
                    "nouns": ["toothpaste", "fluoride toothpaste", "whitening toothpaste"],
                    "sku": ["pack_size"],
                    "price": (120.0, 0.5),
                    "attrs": {
                        "oral_benefit": [
                            "whitening",
                            "cavity protection",
                            "sensitivity relief",
                            "fresh breath",
                            "gum care",
                        ],
                        "toothpaste_size": ["25g", "75g", "100g", "150g"],
                    },
                },
                "Toothbrushes": {
                    "nouns": ["toothbrush", "adult toothbrush", "toothbrush pack"],
                    "sku": [],
                    "price": (120.0, 0.6),
                    "attrs": {"bristle_softness": ["ultra soft", "soft", "medium", "charcoal infused"]},
                },
                "Feminine Care": {
                    "nouns": ["sanitary napkin", "feminine pad", "sanitary pad"],
                    "sku": ["pad_length"],
                    "price": (90.0, 0.5),
                    "attrs": {
                        "absorbency": ["light", "regular", "heavy", "overnight"],
                        "pad_length": ["15cm", "17cm", "23cm", "25cm", "29cm", "35cm"],
                        "wings": ["with wings", "non-wing"],
                    },
                },
                "Razors & Shaving": {
                    "nouns": ["razor", "shaving razor", "disposable razor"],
                    "sku": [],
                    "price": (250.0, 0.7),
                    "attrs": {
                        "blade_count": ["1 blade", "2 blades", "3 blades", "5 blades"],
                        "skin_feel": ["sensitive skin", "regular", "cooling"],
                    },
                },
                "Alcohol & Hand Sanitizers": {
                    "nouns": ["rubbing alcohol", "hand sanitizer", "isopropyl alcohol"],
                    "sku": ["volume"],
                    "price": (110.0, 0.5),
                    "attrs": {
                        "alcohol_content": ["40%", "70%", "75%", "80%"],
                        "alcohol_type": ["ethyl", "isopropyl"],
                        "volume": ["60ml", "250ml", "500ml", "1l", "1 gallon"],
                    },
                },
            },
        },
        "Fragrances": {
            "family": "personal_care",
            "price": (650.0, 0.9),
            "leaves": {
                "Women's Perfume": {
                    "nouns": ["perfume", "women's perfume", "ladies perfume"],
                    "sku": ["volume"],
                    "attrs": {
                        "fragrance_concentration": ["eau de cologne", "eau de toilette", "eau de parfum", "parfum"],
                        "top_note": [
                            "bergamot",
                            "peony",
                            "pear",
                            "pink pepper",
                            "rose",
                            "lychee",
                            "mandarin",
                            "jasmine",
                        ],
                        "volume": ["10ml", "30ml", "50ml", "100ml"],
                        "gender": ["women", "unisex"],
                    },
                },
                "Men's Cologne": {
                    "nouns": ["cologne", "men's perfume", "men's fragrance"],
                    "sku": ["volume"],
                    "attrs": {
                        "fragrance_concentration": ["eau de cologne", "eau de toilette", "eau de parfum", "parfum"],
                        "base_note": ["cedarwood", "vetiver", "oud", "amber", "leather", "tonka bean", "sandalwood"],
                        "volume": ["30ml", "50ml", "100ml", "125ml"],
                        "gender": ["men", "unisex"],
                    },
                },
                "Body Mists": {
                    "nouns": ["body mist", "body spray", "fragrance mist"],
                    "sku": ["scent"],
                    "price": (250.0, 0.6),
                    "attrs": {
                        "mist_mood": ["sweet", "fresh", "floral", "fruity", "gourmand", "powdery"],
                        "scent": ["strawberry", "vanilla", "peony", "pear", "coconut", "sampaguita", "cotton candy"],
                    },
                },
                "Perfume Gift Sets": {
                    "nouns": ["perfume gift set", "fragrance gift set", "gift box perfume"],
                    "sku": [],
                    "price": (1200.0, 0.7),
                    "attrs": {
                        "set_contents": [
                            "perfume and lotion",
                            "perfume and body mist",
                            "4 minis",
                            "perfume and deodorant",
                        ]
                    },
                },
                "Oil Perfumes & Decants": {
                    "nouns": ["perfume oil", "roll-on perfume", "perfume decant"],
                    "sku": ["decant_size"],
                    "price": (180.0, 0.6),
                    "attrs": {
                        "decant_size": ["2ml", "3ml", "5ml", "10ml"],
                        "oil_carrier": ["jojoba", "fractionated coconut", "alcohol-free blend", "alcohol-based"],
                    },
                },
            },
        },
        "Health & Wellness": {
            "family": "health",
            "price": (400.0, 0.7),
            "leaves": {
                "Vitamins & Minerals": {
                    "nouns": ["vitamin supplement", "dietary supplement", "vitamins"],
                    "sku": ["quantity"],
                    "attrs": {
                        "nutrient": [
                            "vitamin c",
                            "vitamin d3",
                            "vitamin b complex",
                            "zinc",
                            "iron",
                            "calcium",
                            "magnesium",
                            "multivitamins",
                            "vitamin e",
                        ],
                        "strength": ["250mg", "500mg", "1000mg", "1000 iu", "5000 iu"],
                        "product_form": ["tablet", "capsule", "softgel", "gummy", "effervescent", "syrup"],
                        "quantity": ["30 pcs", "60 pcs", "100 pcs", "120 pcs"],
                    },
                },
                "Herbal Supplements": {
                    "nouns": ["herbal supplement", "herbal remedy", "food supplement"],
                    "sku": ["product_form"],
                    "attrs": {
                        "herb": [
                            "malunggay",
                            "lagundi",
                            "sambong",
                            "turmeric",
                            "ginger",
                            "ashwagandha",
                            "moringa",
                            "garlic",
                            "mangosteen",
                            "banaba",
                            "guyabano",
                        ],
                        "product_form": ["capsule", "tablet", "syrup", "tea bags", "powder"],
                    },
                },
                "Protein & Sports Nutrition": {
                    "nouns": ["protein powder", "protein supplement", "protein shake"],
                    "sku": ["flavor"],
                    "price": (2200.0, 0.6),
                    "attrs": {
                        "protein_source": ["whey concentrate", "whey isolate", "plant-based", "casein", "soy"],
                        "serving_count": ["10 servings", "30 servings", "60 servings", "80 servings"],
                        "flavor": ["chocolate", "vanilla", "cookies and cream", "strawberry", "ube", "unflavored"],
                    },
                },
                "Weight Management": {
                    "nouns": ["slimming drink", "diet drink mix", "wellness drink"],
                    "sku": ["flavor"],
                    "price": (500.0, 0.6),
                    "attrs": {
                        "diet_goal": ["weight loss", "detox", "meal replacement", "appetite control"],
                        "sachets_per_box": ["7 sachets", "10 sachets", "15 sachets", "30 sachets"],
                        "flavor": ["coffee", "chocolate", "mango", "calamansi", "mixed berry", "pandan"],
                    },
                },
                "Medical Devices": {
                    "nouns": ["blood pressure monitor", "digital thermometer", "pulse oximeter"],
                    "sku": [],
                    "price": (1200.0, 0.7),
                    "attrs": {
                        "device_display": ["lcd", "backlit lcd", "oled", "voice readout"],
                        "device_power": ["aaa batteries", "aa batteries", "rechargeable", "usb-c charging"],
                    },
                },
                "Face Masks & PPE": {
                    "nouns": ["face mask", "disposable face mask", "medical face mask"],
                    "sku": ["pack_size_ppe"],
                    "price": (150.0, 0.6),
                    "attrs": {
                        "mask_ply": ["3 ply", "4 ply", "5 ply"],
                        "pack_size_ppe": ["10 pcs", "20 pcs", "50 pcs", "100 pcs"],
                    },
                },
                "First Aid": {
                    "nouns": ["first aid kit", "adhesive bandage", "elastic bandage"],
                    "sku": [],
                    "price": (350.0, 0.7),
                    "attrs": {
                        "kit_pieces": ["20 pcs", "50 pcs", "100 pcs", "160 pcs", "300 pcs"],
                        "kit_use": ["home", "travel", "car", "workplace", "outdoor"],
                    },
                },
                "Massagers": {
                    "nouns": ["massager", "electric massager", "handheld massager"],
                    "sku": [],
                    "price": (1500.0, 0.7),
                    "attrs": {
                        "massage_mode": ["percussion", "shiatsu", "vibration", "heat therapy", "ems", "air compression"]
                    },
                },
            },
        },
    },
    "Fashion (Women)": {
        "Women's Clothing": {
            "family": "apparel",
            "price": (350.0, 0.7),
            "leaves": {
                "Blouses & Shirts": {
                    "nouns": ["blouse", "women's shirt", "button-down blouse"],
                    "sku": ["color_family", "size"],
                    "attrs": {
                        "sleeve_length": ["sleeveless", "short sleeve", "3/4 sleeve", "long sleeve", "puff sleeve"],
                        "neckline": ["round neck", "v-neck", "square neck", "off-shoulder", "collared", "halter"],
                    },
                },
                "T-Shirts & Tops": {
                    "nouns": ["women's t-shirt", "women's top", "casual top"],
                    "sku": ["color_family", "size"],
                    "price": (250.0, 0.6),
                    "attrs": {
                        "sleeve_length": ["sleeveless", "short sleeve", "3/4 sleeve", "long sleeve", "cap sleeve"],
                        "top_length": ["cropped", "regular", "longline", "tunic"],
                    },
                },
                "Dresses": {
                    "nouns": ["dress", "casual dress", "women's dress"],
                    "sku": ["color_family", "size"],
                    "price": (550.0, 0.7),
                    "attrs": {
                        "dress_length": ["mini", "knee length", "midi", "maxi"],
                        "dress_silhouette": ["a-line", "bodycon", "shift", "wrap", "slip", "shirt dress", "smocked"],
                    },
                },
                "Skirts": {
                    "nouns": ["skirt", "women's skirt", "midi skirt"],
                    "sku": ["color_family", "size"],
                    "price": (350.0, 0.6),
                    "attrs": {
                        "skirt_style": ["a-line", "pleated", "pencil", "wrap", "tiered", "tennis"],
                        "waistband": ["elastic", "zipper", "button", "drawstring"],
                    },
                },
                "Pants & Leggings": {
                    "nouns": ["women's pants", "ladies trousers", "ladies slacks"],
                    "sku": ["color_family", "size"],
                    "attrs": {
                        "rise": ["low rise", "mid rise", "high waist"],
                        "pants_style": ["wide leg", "straight", "skinny", "jogger", "culottes", "flare", "cargo"],
                    },
                },
                "Jeans": {
                    "nouns": ["women's jeans", "ladies jeans", "denim jeans"],
                    "sku": ["denim_wash", "size"],
                    "price": (650.0, 0.6),
                    "attrs": {
                        "denim_wash": ["light wash", "medium wash", "dark wash", "black", "distressed", "acid wash"],
                        "jeans_cut": ["skinny", "straight", "mom", "boyfriend", "bootcut", "wide leg", "barrel"],
                        "rise": ["low rise", "mid rise", "high waist"],
                    },
                },
                "Jackets & Blazers": {
                    "nouns": ["women's jacket", "outerwear", "light jacket"],
                    "sku": ["color_family", "size"],
                    "price": (600.0, 0.7),
                    "attrs": {
                        "outerwear_type": ["blazer", "bomber", "denim jacket", "windbreaker", "shacket", "trench"],
                        "front_closure": ["button", "zipper", "open front", "snap"],
                    },
                },
                "Filipiniana & Traditional Wear": {
                    "nouns": ["filipiniana dress", "filipiniana", "traditional dress"],
                    "sku": ["size"],
                    "price": (1800.0, 0.8),
                    "attrs": {
                        "traditional_style": [
                            "filipiniana",
                            "baro't saya",
                            "terno",
                            "kimona",
                            "maria clara",
                            "balintawak",
                        ],
                        "fabric_origin": ["piña", "jusi", "abaca", "sinamay", "t'nalak", "hablon", "inabel", "organza"],
                    },
                },
                "Swimwear": {
                    "nouns": ["swimsuit", "swimwear", "bathing suit"],
                    "sku": ["color_family", "size"],
                    "price": (450.0, 0.6),
                    "attrs": {
                        "swim_style": ["one-piece", "bikini", "tankini", "rash guard", "monokini", "swim dress"],
                        "padding": ["padded", "non-padded", "removable pads"],
                    },
                },
                "Modest Wear": {
                    "nouns": ["abaya", "modest dress", "hijab dress"],
                    "sku": ["color_family", "size"],
                    "price": (800.0, 0.6),
                    "attrs": {
                        "modest_piece": ["abaya", "kaftan", "tunic", "maxi skirt", "jubah"],
                        "lining": ["lined", "unlined"],
                    },
                },
            },
        },
        "Women's Lingerie & Sleepwear": {
            "family": "apparel",
            "price": (250.0, 0.6),
            "leaves": {
                "Bras": {
                    "nouns": ["bra", "women's bra", "brassiere"],
                    "sku": ["color_family", "cup_size"],
                    "attrs": {
                        "cup_size": ["32a", "32b", "34a", "34b", "34c", "36b", "36c", "38c", "38d"],
                        "wire": ["underwire", "wireless"],
                        "bra_style": ["push-up", "t-shirt bra", "bralette", "balconette", "strapless", "nursing"],
                    },
                },
                "Panties": {
                    "nouns": ["panty", "women's underwear", "panties"],
                    "sku": ["size"],
                    "price": (180.0, 0.6),
                    "attrs": {
                        "panty_style": ["brief", "bikini", "hipster", "thong", "boyshort", "high waist"],
                        "pieces_per_pack": ["1 pc", "3 pcs", "5 pcs", "7 pcs", "12 pcs"],
                    },
                },
                "Sleepwear & Pajamas": {
                    "nouns": ["pajama set", "sleepwear", "pantulog"],
                    "sku": ["color_family", "size"],
                    "attrs": {
                        "sleepwear_set": ["top and shorts", "top and pants", "nightdress", "robe", "sando and shorts"]
                    },
                },
                "Shapewear": {
                    "nouns": ["shapewear", "body shaper", "waist cincher"],
                    "sku": ["size"],
                    "price": (400.0, 0.6),
                    "attrs": {
                        "compression_level": ["light", "medium", "firm", "extra firm"],
                        "shaping_area": ["tummy", "waist", "thighs", "full body"],
                    },
                },
                "Loungewear": {
                    "nouns": ["lounge set", "loungewear", "house dress"],
                    "sku": ["color_family", "size"],
                    "attrs": {
                        "lounge_piece": ["co-ord set", "hoodie and joggers", "duster", "lounge shorts", "kimono robe"]
                    },
                },
            },
        },
        "Women's Shoes": {
            "family": "footwear",
            "price": (600.0, 0.6),
            "leaves": {
                "Sneakers": {
                    "nouns": ["women's sneakers", "ladies sneakers", "rubber shoes"],
                    "sku": ["color_family", "shoe_size"],
                    "price": (900.0, 0.6),
                    "attrs": {"sneaker_profile": ["low top", "high top", "platform", "chunky", "slip-on"]},
                },
                "Flats & Loafers": {
                    "nouns": ["flat shoes", "doll shoes", "ladies flats"],
                    "sku": ["color_family", "shoe_size"],
                    "price": (500.0, 0.6),
                    "attrs": {"toe_shape": ["round toe", "pointed toe", "square toe", "almond toe"]},
                },
                "Heels & Pumps": {
                    "nouns": ["heels", "pumps", "high heels"],
                    "sku": ["color_family", "shoe_size"],
                    "price": (700.0, 0.6),
                    "attrs": {
                        "heel_height": ["low 1-3cm", "mid 4-6cm", "high 7-9cm", "very high 10cm+"],
                        "heel_type": ["block", "stiletto", "kitten", "wedge", "platform", "cone"],
                    },
                },
                "Sandals & Slippers": {
                    "nouns": ["sandals", "slippers", "tsinelas"],
                    "sku": ["color_family", "shoe_size"],
                    "price": (350.0, 0.7),
                    "attrs": {
                        "strap_style": ["slide", "flip flop", "ankle strap", "gladiator", "slingback", "cross strap"]
                    },
                },
                "Boots": {
                    "nouns": ["ankle boots", "women's boots", "ladies boots"],
                    "sku": ["color_family", "shoe_size"],
                    "price": (1200.0, 0.6),
                    "attrs": {"shaft_height": ["ankle", "mid-calf", "knee-high", "over-the-knee"]},
                },
                "Wedges & Espadrilles": {
                    "nouns": ["wedges", "espadrilles", "wedge sandals"],
                    "sku": ["color_family", "shoe_size"],
                    "price": (650.0, 0.6),
                    "attrs": {
                        "wedge_height": ["3cm", "5cm", "7cm", "9cm"],
                        "upper_style": ["woven", "strappy", "closed toe", "peep toe"],
                    },
                },
            },
        },
        "Women's Accessories": {
            "family": "accessories",
            "price": (220.0, 0.7),
            "leaves": {
                "Hair Accessories": {
                    "nouns": ["hair clip", "claw clip", "hair accessory"],
                    "sku": ["color_family"],
                    "price": (120.0, 0.6),
                    "attrs": {
                        "clip_size": ["mini", "small", "medium", "large", "jumbo"],
                        "hair_accessory_finish": ["matte", "glossy", "pearl", "tortoiseshell", "acrylic clear"],
                    },
                },
                "Headbands & Scrunchies": {
                    "nouns": ["scrunchie", "headband", "hair band"],
                    "sku": ["color_family"],
                    "price": (90.0, 0.6),
                    "attrs": {
                        "material": ["satin", "silk", "velvet", "chiffon", "terry cloth", "knit"],
                        "band_width": ["thin 1cm", "medium 3cm", "wide 5cm", "knotted"],
                    },
                },
                "Hats & Caps": {
                    "nouns": ["women's hat", "sun hat", "summer hat"],
                    "sku": ["color_family"],
                    "attrs": {
                        "brim_width": ["short brim", "medium brim", "wide brim"],
                        "material": ["cotton twill", "straw", "denim", "corduroy", "knit"],
                    },
                },
                "Scarves & Shawls": {
                    "nouns": ["scarf", "shawl", "neck scarf"],
                    "sku": ["color_family"],
                    "attrs": {
                        "scarf_shape": ["square", "rectangle", "infinity", "triangle"],
                        "material": ["silk", "satin", "chiffon", "cotton voile", "pashmina", "jersey"],
                    },
                },
                "Hijabs & Head Coverings": {
                    "nouns": ["hijab", "tudong", "head scarf"],
                    "sku": ["color_family"],
                    "price": (250.0, 0.6),
                    "attrs": {
                        "hijab_style": ["instant", "square", "pashmina", "bawal", "inner cap"],
                        "material": ["chiffon", "jersey", "voile", "crepe", "cotton"],
                    },
                },
                "Sunglasses": {
                    "nouns": ["women's sunglasses", "ladies sunglasses", "fashion sunglasses"],
                    "sku": ["color_family"],
                    "price": (350.0, 0.7),
                    "attrs": {
                        "lens_type": ["polarized", "uv400", "photochromic", "gradient", "mirrored"],
                        "frame_shape": ["cat eye", "round", "square", "aviator", "oversized", "butterfly"],
                        "material": ["acetate", "metal", "tr90", "polycarbonate", "titanium"],
                    },
                },
                "Belts": {
                    "nouns": ["women's belt", "waist belt", "fashion belt"],
                    "sku": ["color_family", "size"],
                    "attrs": {
                        "buckle_type": ["pin", "automatic", "reversible", "ring", "hook"],
                        "belt_width": ["1.5cm", "2cm", "3cm", "4cm", "6cm"],
                    },
                },
                "Stockings & Pantyhose": {
                    "nouns": ["stockings", "pantyhose", "tights"],
                    "sku": ["color_family"],
                    "price": (150.0, 0.6),
                    "attrs": {
                        "denier": ["15d", "20d", "40d", "60d", "80d", "opaque"],
                        "hosiery_length": ["knee-high", "thigh-high", "full length", "footless"],
                        "material": ["nylon", "spandex", "nylon spandex blend", "microfiber"],
                    },
                },
            },
        },
    },
    "Fashion (Men)": {
        "Men's Clothing": {
            "family": "apparel",
            "price": (400.0, 0.7),
            "leaves": {
                "T-Shirts": {
                    "nouns": ["t-shirt", "men's tee", "graphic tee"],
                    "sku": ["color_family", "size"],
                    "price": (300.0, 0.6),
                    "attrs": {
                        "neckline": ["crew neck", "v-neck", "henley", "mock neck"],
                        "print_type": ["plain", "graphic", "embroidered", "typography", "vintage wash"],
                    },
                },
                "Polo Shirts": {
                    "nouns": ["polo shirt", "polo", "men's polo"],
                    "sku": ["color_family", "size"],
                    "price": (450.0, 0.6),
                    "attrs": {
                        "collar_type": ["ribbed", "woven", "contrast tipped", "johnny collar"],
                        "polo_sleeve": ["short sleeve", "long sleeve"],
                    },
                },
                "Casual & Formal Shirts": {
                    "nouns": ["shirt", "button-down shirt", "long sleeve shirt"],
                    "sku": ["color_family", "size"],
                    "price": (500.0, 0.6),
                    "attrs": {
                        "shirt_collar": ["spread", "button-down", "mandarin", "cuban", "classic point"],
                        "shirt_fabric": ["oxford", "poplin", "flannel", "chambray", "linen", "twill"],
                    },
                },
                "Barong Tagalog": {
                    "nouns": ["barong tagalog", "barong", "polo barong"],
                    "sku": ["size"],
                    "price": (1500.0, 0.8),
                    "attrs": {
                        "barong_fabric": [
                            "piña",
                            "jusi",
                            "organza",
                            "cocoon",
                            "gusot mayaman",
                            "piña jusi",
                            "banana fiber",
                        ],
                        "embroidery": ["hand-embroidered", "machine-embroidered", "calado", "plain"],
                    },
                },
                "Jeans": {
                    "nouns": ["jeans", "men's jeans", "denim pants"],
                    "sku": ["denim_wash", "waist_size"],
                    "price": (750.0, 0.6),
                    "attrs": {
                        "denim_wash": ["light wash", "medium wash", "dark wash", "black", "raw denim", "ripped"],
                        "waist_size": ["28", "29", "30", "31", "32", "33", "34", "36", "38", "40"],
                        "jeans_fit": ["slim", "straight", "tapered", "relaxed", "skinny", "loose"],
                    },
                },
                "Chinos & Trousers": {
                    "nouns": ["chino pants", "trousers", "slacks"],
                    "sku": ["color_family", "waist_size"],
                    "price": (600.0, 0.6),
                    "attrs": {
                        "waist_size": ["28", "29", "30", "31", "32", "33", "34", "36", "38", "40"],
                        "trouser_cut": ["slim", "straight", "tapered", "pleated", "cargo", "jogger"],
                    },
                },
                "Shorts": {
                    "nouns": ["shorts", "men's shorts", "walking shorts"],
                    "sku": ["color_family", "size"],
                    "price": (350.0, 0.6),
                    "attrs": {
                        "inseam": ["5 inches", "7 inches", "9 inches", "11 inches"],
                        "shorts_type": ["chino", "board", "cargo", "jogger", "denim", "sweat"],
                    },
                },
                "Hoodies & Sweatshirts": {
                    "nouns": ["hoodie", "hooded sweatshirt", "hoodie jacket"],
                    "sku": ["color_family", "size"],
                    "price": (650.0, 0.6),
                    "attrs": {
                        "hood_closure": ["pullover", "full zip", "half zip"],
                        "fleece_weight": ["lightweight", "midweight", "heavyweight"],
                    },
                },
                "Jackets": {
                    "nouns": ["jacket", "men's jacket", "outerwear jacket"],
                    "sku": ["color_family", "size"],
                    "price": (750.0, 0.6),
                    "attrs": {
                        "jacket_type": [
                            "bomber",
                            "windbreaker",
                            "varsity",
                            "coach jacket",
                            "denim jacket",
                            "field jacket",
                        ],
                        "lining_type": ["unlined", "mesh lined", "fleece lined", "quilted"],
                    },
                },
                "Underwear": {
                    "nouns": ["men's underwear", "underwear", "underwear pack"],
                    "sku": ["size"],
                    "price": (250.0, 0.6),
                    "attrs": {
                        "underwear_style": ["brief", "boxer brief", "trunk", "boxer shorts"],
                        "pieces_per_pack": ["1 pc", "3 pcs", "5 pcs", "7 pcs"],
                    },
                },
                "Socks": {
                    "nouns": ["socks", "men's socks", "crew socks"],
                    "sku": ["color_family"],
                    "price": (150.0, 0.6),
                    "attrs": {
                        "sock_length": ["no show", "ankle", "quarter", "crew", "knee-high"],
                        "pairs_per_pack": ["1 pair", "3 pairs", "5 pairs", "10 pairs"],
                    },
                },
            },
        },
        "Men's Shoes": {
            "family": "footwear",
            "price": (800.0, 0.6),
            "leaves": {
                "Sneakers": {
                    "nouns": ["sneakers", "men's sneakers", "trainers"],
                    "sku": ["color_family", "shoe_size"],
                    "price": (1200.0, 0.6),
                    "attrs": {"sneaker_profile": ["low top", "high top", "mid top", "chunky", "slip-on"]},
                },
                "Leather Shoes": {
                    "nouns": ["leather shoes", "dress shoes", "formal shoes"],
                    "sku": ["shoe_size"],
                    "price": (1300.0, 0.6),
                    "attrs": {
                        "dress_shoe_style": ["oxford", "derby", "monk strap", "brogue", "wingtip"],
                        "leather_finish": ["polished", "matte", "patent", "suede"],
                    },
                },
                "Loafers & Boat Shoes": {
                    "nouns": ["loafers", "boat shoes", "slip-on shoes"],
                    "sku": ["color_family", "shoe_size"],
                    "price": (1000.0, 0.6),
                    "attrs": {"shoe_lining": ["leather lined", "fabric lined", "unlined"]},
                },
                "Sandals & Slides": {
                    "nouns": ["men's sandals", "slides", "men's slippers"],
                    "sku": ["color_family", "shoe_size"],
                    "price": (450.0, 0.7),
                    "attrs": {"strap_style": ["slide", "flip flop", "sport sandal", "fisherman", "cross strap"]},
                },
                "Boots": {
                    "nouns": ["boots", "work boots", "men's boots"],
                    "sku": ["shoe_size"],
                    "price": (1800.0, 0.6),
                    "attrs": {
                        "safety_toe": ["no safety toe", "steel toe", "composite toe"],
                        "boot_height": ["ankle", "mid-calf", "6 inches", "8 inches"],
                    },
                },
            },
        },
        "Men's Accessories": {
            "family": "accessories",
            "price": (300.0, 0.7),
            "leaves": {
                "Wallets": {
                    "nouns": ["wallet", "men's wallet", "slim wallet"],
                    "sku": ["color_family"],
                    "price": (450.0, 0.7),
                    "attrs": {
                        "wallet_style": ["bifold", "trifold", "card holder", "long wallet", "money clip"],
                        "rfid": ["rfid blocking", "standard"],
                    },
                },
                "Belts": {
                    "nouns": ["belt", "men's belt", "dress belt"],
                    "sku": ["color_family", "size"],
                    "attrs": {
                        "buckle_type": ["pin", "automatic", "reversible", "plate"],
                        "belt_width": ["3cm", "3.5cm", "4cm"],
                    },
                },
                "Caps & Hats": {
                    "nouns": ["baseball cap", "cap", "ball cap"],
                    "sku": ["color_family"],
                    "price": (250.0, 0.6),
                    "attrs": {
                        "cap_closure": ["snapback", "strapback", "fitted", "adjustable velcro"],
                        "cap_crown": ["low profile", "mid profile", "high profile", "unstructured"],
                    },
                },
                "Ties & Cufflinks": {
                    "nouns": ["necktie", "tie", "tie set"],
                    "sku": ["color_family"],
                    "price": (250.0, 0.6),
                    "attrs": {
                        "tie_width": ["skinny 5cm", "regular 7cm", "wide 9cm"],
                        "material": ["silk", "polyester", "microfiber", "knit", "linen"],
                    },
                },
                "Eyewear": {
                    "nouns": ["sunglasses", "men's sunglasses", "shades"],
                    "sku": ["color_family"],
                    "price": (400.0, 0.7),
                    "attrs": {
                        "lens_type": ["polarized", "uv400", "photochromic", "blue light", "clear"],
                        "frame_shape": ["aviator", "wayfarer", "round", "square", "rectangle", "sport wrap"],
                        "material": ["acetate", "metal", "tr90", "polycarbonate", "titanium"],
                    },
                },
                "Handkerchiefs & Pocket Squares": {
                    "nouns": ["handkerchief", "panyo", "pocket square"],
                    "sku": ["color_family"],
                    "price": (120.0, 0.5),
                    "attrs": {"hanky_count": ["1 pc", "3 pcs", "6 pcs", "12 pcs"]},
                },
            },
        },
    },
    "Mobiles & Tablets": {
        "Mobile Phones": {
            "family": "mobile",
            "price": (9000.0, 0.8),
            "leaves": {
                "Android Smartphones": {
                    "nouns": ["smartphone", "android phone", "cellphone"],
                    "sku": ["storage_capacity", "color_family"],
                    "attrs": {
                        "camera_resolution": ["13mp", "48mp", "50mp", "64mp", "108mp", "200mp"],
                        "refresh_rate": ["60hz", "90hz", "120hz", "144hz"],
                        "network_connections": ["4g lte", "5g"],
                        "screen_size": ["6.1 inches", "6.5 inches", "6.7 inches", "6.8 inches"],
                    },
                },
                "iPhones": {
                    "nouns": ["iphone", "apple iphone"],
                    "sku": ["storage_capacity", "color_family"],
                    "price": (48000.0, 0.4),
                    "attrs": {
                        "iphone_model": [
                            "iphone 13",
                            "iphone 14",
                            "iphone 15",
                            "iphone 15 pro",
                            "iphone 15 pro max",
                            "iphone 16",
                            "iphone 16 pro",
                            "iphone 16 pro max",
                        ]
                    },
                },
                "5G Flagship Phones": {
                    "nouns": ["flagship phone", "5g smartphone", "flagship smartphone"],
                    "sku": ["storage_capacity"],
                    "price": (45000.0, 0.5),
                    "attrs": {
                        "form_factor": ["bar", "flip foldable", "book foldable"],
                        "chipset": ["snapdragon 8 gen 3", "dimensity 9300", "exynos 2400", "snapdragon 8 elite"],
                    },
                },
                "Feature Phones": {
                    "nouns": ["keypad phone", "feature phone", "basic phone"],
                    "sku": ["color_family"],
                    "price": (900.0, 0.5),
                    "attrs": {
                        "sim_slots": ["single sim", "dual sim", "triple sim"],
                        "phone_extras": ["fm radio", "flashlight", "big buttons", "sos button"],
                        "storage_capacity": ["32mb", "64mb", "128mb", "4gb"],
                        "ram_memory": ["32mb", "48mb", "64mb"],
                    },
                },
                "Refurbished Phones": {
                    "nouns": ["refurbished phone", "pre-owned phone", "second hand phone"],
                    "sku": ["storage_capacity"],
                    "price": (9000.0, 0.7),
                    "attrs": {
                        "grade": ["grade a", "grade b", "grade c", "like new"],
                        "battery_health": ["80%+", "85%+", "90%+", "new battery"],
                    },
                },
                "Rugged Phones": {
                    "nouns": ["rugged phone", "outdoor phone", "tough phone"],
                    "sku": ["color_family"],
                    "price": (11000.0, 0.5),
                    "attrs": {
                        "ip_rating": ["ip67", "ip68", "ip68/ip69k"],
                        "drop_protection": ["1.2m", "1.5m", "1.8m", "mil-std-810h"],
                    },
                },
            },
        },
        "Tablets": {
            "family": "mobile",
            "price": (12000.0, 0.8),
            "leaves": {
                "Android Tablets": {
                    "nouns": ["android tablet", "tablet", "tab"],
                    "sku": ["storage_capacity", "color_family"],
                    "attrs": {
                        "stylus_support": ["stylus included", "stylus supported", "no stylus"],
                        "screen_size": ["8.7 inches", "10.1 inches", "11 inches", "12.4 inches"],
                        "network_connections": ["wifi only", "wifi + 4g lte", "wifi + 5g"],
                    },
                },
                "iPads": {
                    "nouns": ["ipad", "apple ipad"],
                    "sku": ["storage_capacity", "color_family"],
                    "price": (32000.0, 0.5),
                    "attrs": {
                        "ipad_line": ["ipad", "ipad mini", "ipad air", "ipad pro"],
                        "apple_chip": ["a14 bionic", "a16", "a17 pro", "m1", "m2", "m4"],
                    },
                },
                "Kids Tablets": {
                    "nouns": ["kids tablet", "learning tablet", "children's tablet"],
                    "sku": ["color_family"],
                    "price": (3500.0, 0.5),
                    "attrs": {
                        "parental_controls": ["parental controls", "kids mode"],
                        "bumper_case": ["with bumper case", "with stand case", "no case"],
                        "storage_capacity": ["16gb", "32gb", "64gb"],
                        "ram_memory": ["2gb", "3gb", "4gb"],
                    },
                },
                "E-Readers & Writing Tablets": {
                    "nouns": ["e-reader", "e-ink tablet", "ebook reader"],
                    "sku": ["storage_capacity"],
                    "price": (9000.0, 0.6),
                    "attrs": {
                        "display_tech": ["e-ink carta", "color e-ink", "e-ink pearl"],
                        "front_light": ["warm front light", "front light", "no front light"],
                        "storage_capacity": ["8gb", "16gb", "32gb", "64gb"],
                    },
                },
            },
        },
        "Mobile Accessories": {
            "family": "electronics",
            "price": (250.0, 0.8),
            "leaves": {
                "Phone Cases": {
                    "nouns": ["phone case", "phone cover", "mobile case"],
                    "sku": ["compatible_model", "color_family"],
                    "attrs": {
                        "compatible_model": [
                            "iphone 16 pro max",
                            "iphone 15",
                            "iphone 14",
                            "iphone 13",
                            "samsung galaxy s24",
                            "samsung galaxy a55",
                            "xiaomi redmi note 13",
                            "oppo reno 12",
                            "vivo y36",
                            "realme c67",
                            "infinix hot 40",
                            "tecno spark 20",
                        ],
                        "case_style": ["clear", "shockproof", "wallet flip", "magsafe", "card holder", "ring holder"],
                    },
                },
                "Screen Protectors": {
                    "nouns": ["screen protector", "tempered glass", "screen guard"],
                    "sku": ["compatible_model"],
                    "price": (120.0, 0.6),
                    "attrs": {
                        "compatible_model": [
                            "iphone 16 pro max",
                            "iphone 15",
                            "iphone 14",
                            "iphone 13",
                            "samsung galaxy s24",
                            "samsung galaxy a55",
                            "xiaomi redmi note 13",
                            "oppo reno 12",
                            "vivo y36",
                            "realme c67",
                            "infinix hot 40",
                            "tecno spark 20",
                        ],
                        "protector_type": ["clear", "matte", "privacy", "anti blue light", "hydrogel", "full glue 9h"],
                    },
                },
                "Chargers & Adapters": {
                    "nouns": ["charger", "fast charger", "wall adapter"],
                    "sku": ["output_power"],
                    "price": (450.0, 0.6),
                    "attrs": {
                        "output_power": ["10w", "18w", "20w", "25w", "33w", "45w", "65w", "100w", "120w"],
                        "number_of_ports": ["1 port", "2 ports", "3 ports", "4 ports"],
                    },
                },
                "Charging Cables": {
                    "nouns": ["charging cable", "usb cable", "data cable"],
                    "sku": ["connector", "cable_length"],
                    "price": (180.0, 0.6),
                    "attrs": {
                        "cable_length": ["0.25m", "1m", "1.5m", "2m", "3m"],
                        "charging_speed": ["standard 2.4a", "fast charge 3a", "pd 60w", "pd 100w", "pd 240w"],
                        "connector": [
                            "usb-c to usb-c",
                            "usb-a to usb-c",
                            "usb-a to lightning",
                            "usb-c to lightning",
                            "usb-a to micro usb",
                        ],
                    },
                },
                "Power Banks": {
                    "nouns": ["power bank", "portable charger", "powerbank"],
                    "sku": ["power_bank_capacity", "color_family"],
                    "price": (900.0, 0.5),
                    "attrs": {
                        "power_bank_capacity": ["5000mah", "10000mah", "20000mah", "30000mah", "40000mah"],
                        "fast_charging": ["pd 20w", "pd 22.5w", "pd 65w", "standard 10w"],
                    },
                },
                "Phone Holders & Tripods": {
                    "nouns": ["phone holder", "phone stand", "phone mount"],
                    "sku": [],
                    "price": (250.0, 0.6),
                    "attrs": {"mount_type": ["car vent", "dashboard", "bike handlebar", "desk", "bed arm", "magnetic"]},
                },
                "Selfie Sticks": {
                    "nouns": ["selfie stick", "selfie stick tripod", "extendable selfie stick"],
                    "sku": [],
                    "price": (450.0, 0.7),
                    "attrs": {
                        "stick_length": ["70cm", "100cm", "150cm", "170cm"],
                        "shutter_remote": ["bluetooth remote", "wired shutter", "no remote"],
                    },
                },
            },
        },
        "Wearables": {
            "family": "watches_wearables",
            "price": (2500.0, 0.9),
            "leaves": {
                "Smartwatches": {
                    "nouns": ["smartwatch", "smart watch", "fitness smartwatch"],
                    "sku": ["color_family"],
                    "price": (3500.0, 0.8),
                    "attrs": {
                        "health_sensors": [
                            "heart rate",
                            "heart rate and spo2",
                            "ecg",
                            "gps and heart rate",
                            "blood pressure",
                        ],
                        "calling": ["bluetooth calling", "esim calling", "notifications only"],
                    },
                },
                "Fitness Trackers": {
                    "nouns": ["fitness band", "fitness tracker", "activity tracker"],
                    "sku": ["color_family"],
                    "price": (1500.0, 0.5),
                    "attrs": {"tracker_battery": ["7 days", "14 days", "21 days"]},
                },
                "Kids Smartwatches": {
                    "nouns": ["kids smartwatch", "kids gps watch", "children's smartwatch"],
                    "sku": ["color_family"],
                    "price": (1800.0, 0.5),
                    "attrs": {
                        "sim_support": ["4g sim", "2g sim", "no sim"],
                        "tracking": ["gps", "lbs", "gps and wifi"],
                    },
                },
                "Watch Straps & Bands": {
                    "nouns": ["watch strap", "smartwatch band", "watch band"],
                    "sku": ["strap_width", "color_family"],
                    "price": (250.0, 0.6),
                    "attrs": {
                        "strap_width": ["16mm", "18mm", "20mm", "22mm", "38/40/41mm", "42/44/45mm", "49mm"],
                        "strap_clasp": ["pin buckle", "magnetic", "butterfly clasp", "loop"],
                    },
                },
            },
        },
    },
    "Computers & Laptops": {
        "Laptops": {
            "family": "computing",
            "price": (35000.0, 0.6),
            "leaves": {
                "Gaming Laptops": {
                    "nouns": ["gaming laptop", "gaming notebook"],
                    "sku": ["ram_memory", "storage_capacity"],
                    "price": (65000.0, 0.4),
                    "attrs": {
                        "refresh_rate": ["144hz", "165hz", "240hz", "300hz"],
                        "graphics": [
                            "nvidia rtx 4050",
                            "nvidia rtx 4060",
                            "nvidia rtx 4070",
                            "nvidia rtx 4080",
                            "amd radeon rx 7600s",
                        ],
                        "processor_type": [
                            "intel core i5",
                            "intel core i7",
                            "intel core i9",
                            "amd ryzen 7",
                            "amd ryzen 9",
                        ],
                        "screen_size": ["15.6 inches", "16 inches", "17.3 inches", "18 inches"],
                    },
                },
                "Thin & Light Laptops": {
                    "nouns": ["laptop", "ultrabook", "thin and light laptop"],
                    "sku": ["ram_memory", "storage_capacity"],
                    "attrs": {
                        "laptop_weight": ["under 1kg", "1-1.3kg", "1.3-1.6kg", "1.6-2kg"],
                        "fingerprint": ["fingerprint reader", "face unlock", "none"],
                        "processor_type": [
                            "intel core i5",
                            "intel core i7",
                            "intel core ultra 5",
                            "intel core ultra 7",
                            "amd ryzen 5",
                            "amd ryzen 7",
                            "snapdragon x elite",
                        ],
                        "screen_size": ["13.3 inches", "14 inches", "15.6 inches", "16 inches"],
                    },
                },
                "MacBooks": {
                    "nouns": ["macbook", "apple macbook"],
                    "sku": ["color_family", "storage_capacity"],
                    "price": (70000.0, 0.4),
                    "attrs": {
                        "macbook_line": ["macbook air 13", "macbook air 15", "macbook pro 14", "macbook pro 16"],
                        "apple_silicon": ["m2", "m3", "m3 pro", "m4", "m4 pro"],
                        "storage_capacity": ["256gb ssd", "512gb ssd", "1tb ssd", "2tb ssd"],
                    },
                },
                "2-in-1 Laptops": {
                    "nouns": ["2-in-1 laptop", "convertible laptop", "touchscreen laptop"],
                    "sku": ["ram_memory"],
                    "attrs": {
                        "touch_pen": ["pen included", "pen supported", "no pen"],
                        "hinge": ["360 degree", "detachable"],
                        "processor_type": [
                            "intel core i5",
                            "intel core i7",
                            "intel core ultra 5",
                            "intel core ultra 7",
                            "amd ryzen 5",
                            "snapdragon x plus",
                        ],
                        "screen_size": ["12.3 inches", "13 inches", "14 inches"],
                    },
                },
                "Chromebooks & Student Laptops": {
                    "nouns": ["chromebook", "student laptop", "budget laptop"],
                    "sku": ["color_family"],
                    "price": (16000.0, 0.4),
                    "attrs": {
                        "battery_hours": ["up to 8 hours", "up to 10 hours", "up to 12 hours", "up to 15 hours"],
                        "processor_type": [
                            "intel celeron",
                            "intel n100",
                            "intel n200",
                            "mediatek kompanio",
                            "intel core i3",
                            "amd ryzen 3",
                        ],
                        "screen_size": ["11.6 inches", "14 inches", "15.6 inches"],
                        "ram_memory": ["4gb", "8gb", "16gb"],
                    },
                },
            },
        },
        "Desktop Computers": {
            "family": "computing",
            "price": (15000.0, 0.8),
            "leaves": {
                "Desktop PCs": {
                    "nouns": ["desktop pc", "desktop computer", "pc build"],
                    "sku": ["ram_memory"],
                    "price": (32000.0, 0.6),
                    "attrs": {
                        "form_factor": ["tower", "mini tower", "small form factor"],
                        "bundle_contents": ["system unit only", "with monitor", "with monitor, keyboard and mouse"],
                        "processor_type": [
                            "intel core i3",
                            "intel core i5",
                            "intel core i7",
                            "amd ryzen 5",
                            "amd ryzen 7",
                        ],
                    },
                },
                "All-in-One PCs": {
                    "nouns": ["all-in-one pc", "all-in-one desktop", "aio pc"],
                    "sku": ["color_family"],
                    "price": (42000.0, 0.5),
                    "attrs": {
                        "touchscreen": ["touchscreen", "non-touch"],
                        "stand_type": ["fixed stand", "height adjustable"],
                        "screen_size": ["21.5 inches", "23.8 inches", "27 inches"],
                    },
                },
                "Mini PCs": {
                    "nouns": ["mini pc", "mini computer", "nuc"],
                    "sku": ["ram_memory"],
                    "price": (15000.0, 0.5),
                    "attrs": {
                        "vesa_mount": ["vesa bracket included", "no bracket"],
                        "lan_ports": ["1 lan", "2 lan", "4 lan"],
                        "processor_type": ["intel n100", "intel core i5", "intel core i7", "amd ryzen 7"],
                    },
                },
            },
        },
        "Computer Accessories": {
            "family": "electronics",
            "price": (600.0, 0.8),
            "leaves": {
                "Keyboards": {
                    "nouns": ["computer keyboard", "gaming keyboard", "pc keyboard"],
                    "sku": ["switch_type"],
                    "price": (1200.0, 0.8),
                    "attrs": {
                        "switch_type": [
                            "red linear",
                            "brown tactile",
                            "blue clicky",
                            "membrane",
                            "low profile",
                            "silent",
                        ],
                        "keyboard_layout": ["full size", "tkl", "75%", "65%", "60%"],
                        "connection": ["wired usb", "2.4ghz wireless", "bluetooth", "tri-mode"],
                    },
                },
                "Mice": {
                    "nouns": ["mouse", "computer mouse", "gaming mouse"],
                    "sku": ["color_family"],
                    "price": (450.0, 0.8),
                    "attrs": {
                        "dpi": ["1600 dpi", "3200 dpi", "8000 dpi", "16000 dpi", "26000 dpi"],
                        "mouse_grip": ["ergonomic", "ambidextrous", "vertical", "compact"],
                        "connection": ["wired usb", "2.4ghz wireless", "bluetooth", "tri-mode"],
                    },
                },
                "Webcams": {
                    "nouns": ["webcam", "usb webcam", "web camera"],
                    "sku": [],
                    "price": (900.0, 0.6),
                    "attrs": {
                        "webcam_resolution": ["720p", "1080p", "2k", "4k"],
                        "webcam_mic": ["built-in mic", "dual mic", "no mic"],
                    },
                },
                "Mouse Pads & Desk Mats": {
                    "nouns": ["mouse pad", "desk mat", "mousepad"],
                    "sku": ["pad_size"],
                    "price": (200.0, 0.6),
                    "attrs": {
                        "pad_size": ["small", "medium", "large", "xl", "xxl"],
                        "pad_surface": ["speed", "control", "hybrid"],
                    },
                },
                "Laptop Stands & Sleeves": {
                    "nouns": ["laptop stand", "laptop riser", "notebook stand"],
                    "sku": ["color_family"],
                    "price": (500.0, 0.6),
                    "attrs": {
                        "fits_laptop": ["up to 13 inches", "up to 15.6 inches", "up to 17 inches"],
                        "stand_adjustment": ["fixed", "height adjustable", "foldable"],
                    },
                },
                "USB Hubs & Docks": {
                    "nouns": ["usb hub", "usb-c hub", "docking station"],
                    "sku": [],
                    "price": (900.0, 0.7),
                    "attrs": {
                        "port_count": ["4 in 1", "6 in 1", "8 in 1", "11 in 1", "13 in 1"],
                        "video_out": ["no video", "hdmi 4k30", "hdmi 4k60", "dual hdmi"],
                    },
                },
                "Printers & Ink": {
                    "nouns": ["printer", "home printer", "office printer"],
                    "sku": [],
                    "price": (7000.0, 0.6),
                    "attrs": {
                        "type_of_inks": [
                            "dye ink tank",
                            "pigment ink",
                            "laser toner",
                            "dye and pigment",
                            "sublimation ink",
                        ],
                        "print_functions": ["print only", "print, scan, copy", "print, scan, copy, fax"],
                    },
                },
                "Monitors": {
                    "nouns": ["monitor", "computer monitor", "gaming monitor"],
                    "sku": ["screen_size"],
                    "price": (8000.0, 0.6),
                    "attrs": {
                        "panel_type": ["ips", "va", "tn", "oled"],
                        "monitor_refresh_rate": ["60hz", "75hz", "100hz", "144hz", "165hz", "240hz"],
                        "resolution": ["1080p", "1440p", "4k", "ultrawide 1440p"],
                        "screen_size": ["21.5 inches", "23.8 inches", "27 inches", "31.5 inches", "34 inches"],
                    },
                },
            },
        },
        "Storage & Components": {
            "family": "electronics",
            "price": (2500.0, 0.9),
            "leaves": {
                "External Drives & SSDs": {
                    "nouns": ["external drive", "portable drive", "external storage drive"],
                    "sku": ["drive_capacity"],
                    "price": (3800.0, 0.5),
                    "attrs": {"drive_capacity": ["500gb", "1tb", "2tb", "4tb", "5tb"], "drive_type": ["hdd", "ssd"]},
                },
                "Flash Drives & Memory Cards": {
                    "nouns": ["flash drive", "usb flash drive", "thumb drive"],
                    "sku": ["memory_capacity"],
                    "price": (350.0, 0.6),
                    "attrs": {
                        "memory_capacity": ["16gb", "32gb", "64gb", "128gb", "256gb", "512gb"],
                        "usb_standard": ["usb 2.0", "usb 3.0", "usb 3.2", "dual usb-c"],
                    },
                },
                "Memory Cards": {
                    "nouns": ["microsd card", "memory card", "sd card"],
                    "sku": ["memory_capacity"],
                    "price": (400.0, 0.6),
                    "attrs": {
                        "memory_capacity": ["16gb", "32gb", "64gb", "128gb", "256gb", "512gb"],
                        "speed_class": ["class 10", "u1", "u3 v30", "a2 v30"],
                    },
                },
                "RAM": {
                    "nouns": ["ram", "memory module", "ram stick"],
                    "sku": ["ram_kit"],
                    "price": (2000.0, 0.5),
                    "attrs": {
                        "memory_type": ["ddr4", "ddr5", "ddr3l", "so-dimm ddr4", "so-dimm ddr5"],
                        "ram_kit": ["8gb", "16gb", "2x8gb", "2x16gb", "32gb"],
                        "ram_speed": ["2666mhz", "3200mhz", "3600mhz", "4800mhz", "5600mhz", "6000mhz"],
                    },
                },
                "Graphics Cards": {
                    "nouns": ["graphics card", "gpu", "video card"],
                    "sku": [],
                    "price": (22000.0, 0.5),
                    "attrs": {
                        "gpu_chipset": [
                            "rtx 3060",
                            "rtx 4060",
                            "rtx 4060 ti",
                            "rtx 4070 super",
                            "rx 6600",
                            "rx 7600",
                            "gtx 1650",
                        ],
                        "vram": ["4gb", "8gb", "12gb", "16gb"],
                    },
                },
                "Routers & Networking": {
                    "nouns": ["wifi router", "mesh wifi", "pocket wifi"],
                    "sku": [],
                    "price": (2500.0, 0.7),
                    "attrs": {
                        "wifi_standard": ["wifi 5", "wifi 6", "wifi 6e", "wifi 7"],
                        "coverage_area": ["up to 100 sqm", "up to 200 sqm", "up to 400 sqm"],
                    },
                },
                "Internal SSDs": {
                    "nouns": ["nvme ssd", "internal ssd", "m.2 ssd"],
                    "sku": ["ssd_capacity"],
                    "price": (3200.0, 0.6),
                    "attrs": {
                        "ssd_capacity": ["256gb", "512gb", "1tb", "2tb", "4tb"],
                        "ssd_interface": ["sata iii", "nvme pcie 3.0", "nvme pcie 4.0", "nvme pcie 5.0"],
                    },
                },
            },
        },
        "Gaming": {
            "family": "electronics",
            "price": (3000.0, 1.0),
            "leaves": {
                "Gaming Consoles": {
                    "nouns": ["gaming console", "video game console", "game console"],
                    "sku": [],
                    "price": (25000.0, 0.5),
                    "attrs": {
                        "platform": [
                            "playstation 5",
                            "playstation 5 slim",
                            "nintendo switch",
                            "nintendo switch oled",
                            "xbox series x",
                            "xbox series s",
                        ],
                        "console_edition": ["standard", "digital edition", "bundle", "limited edition"],
                    },
                },
                "Handheld Gaming PCs": {
                    "nouns": ["handheld gaming pc", "handheld console", "gaming handheld"],
                    "sku": [],
                    "price": (28000.0, 0.7),
                    "attrs": {
                        "handheld_model": ["steam deck", "rog ally", "legion go", "retro emulator handheld"],
                        "handheld_storage": ["64gb", "256gb", "512gb", "1tb"],
                    },
                },
                "Video Games": {
                    "nouns": ["video game", "game", "game title"],
                    "sku": ["game_platform"],
                    "price": (2500.0, 0.4),
                    "attrs": {
                        "game_platform": ["ps5", "ps4", "nintendo switch", "xbox series x"],
                        "game_genre": [
                            "action",
                            "rpg",
                            "sports",
                            "racing",
                            "fighting",
                            "shooter",
                            "adventure",
                            "party",
                        ],
                        "region_code": ["asia", "us", "japan", "eu"],
                    },
                },
                "Controllers": {
                    "nouns": ["game controller", "gamepad", "wireless controller"],
                    "sku": ["controller_compat", "color_family"],
                    "price": (1800.0, 0.6),
                    "attrs": {"controller_compat": ["ps5", "ps4", "switch", "xbox", "pc", "mobile"]},
                },
                "Gaming Chairs": {
                    "nouns": ["gaming chair", "ergonomic gaming chair", "racing chair"],
                    "sku": ["color_family"],
                    "price": (6000.0, 0.5),
                    "attrs": {
                        "recline_angle": ["135 degrees", "155 degrees", "180 degrees"],
                        "footrest": ["with footrest", "no footrest"],
                    },
                },
                "Gaming Headsets": {
                    "nouns": ["gaming headset", "gaming headphones", "headset with mic"],
                    "sku": ["color_family"],
                    "price": (1500.0, 0.7),
                    "attrs": {
                        "surround_sound": ["stereo", "7.1 virtual", "spatial audio"],
                        "headset_mic": ["detachable mic", "flip-to-mute mic", "retractable mic"],
                    },
                },
                "VR Headsets": {
                    "nouns": ["vr headset", "vr glasses", "virtual reality headset"],
                    "sku": [],
                    "price": (15000.0, 0.8),
                    "attrs": {
                        "vr_type": ["standalone", "phone-based", "pc vr"],
                        "vr_storage": ["128gb", "256gb", "512gb", "none"],
                    },
                },
            },
        },
    },
    "TV, Audio & Cameras": {
        "Televisions": {
            "family": "electronics",
            "price": (15000.0, 0.7),
            "leaves": {
                "Smart TVs": {
                    "nouns": ["smart tv", "led tv", "television"],
                    "sku": ["tv_screen_size"],
                    "attrs": {
                        "tv_screen_size": [
                            "32 inches",
                            "43 inches",
                            "50 inches",
                            "55 inches",
                            "65 inches",
                            "75 inches",
                        ],
                        "smart_platform": ["google tv", "android tv", "webos", "tizen", "vidaa", "roku"],
                    },
                },
                "4K & OLED TVs": {
                    "nouns": ["4k tv", "uhd tv", "premium tv"],
                    "sku": ["tv_screen_size"],
                    "price": (42000.0, 0.6),
                    "attrs": {
                        "tv_screen_size": [
                            "50 inches",
                            "55 inches",
                            "65 inches",
                            "75 inches",
                            "85 inches",
                            "98 inches",
                        ],
                        "display_panel": ["led", "qled", "oled", "mini led", "nanocell"],
                    },
                },
                "TV Boxes & Streaming Devices": {
                    "nouns": ["tv box", "streaming stick", "android tv box"],
                    "sku": [],
                    "price": (2500.0, 0.6),
                    "attrs": {
                        "streaming_resolution": ["1080p", "4k", "4k hdr"],
                        "remote_type": ["ir remote", "voice remote", "air mouse"],
                    },
                },
                "TV Mounts & Brackets": {
                    "nouns": ["tv bracket", "tv wall mount", "tv mount"],
                    "sku": [],
                    "price": (800.0, 0.6),
                    "attrs": {
                        "mount_motion": ["fixed", "tilt", "full motion", "ceiling"],
                        "fits_tv": ["14-42 inches", "26-55 inches", "32-70 inches", "37-80 inches"],
                    },
                },
                "Projectors": {
                    "nouns": ["projector", "mini projector", "home projector"],
                    "sku": [],
                    "price": (6000.0, 0.8),
                    "attrs": {
                        "brightness": ["3000 lumens", "6000 lumens", "9000 lumens", "12000 lumens"],
                        "native_resolution": ["480p", "720p", "1080p", "4k"],
                    },
                },
                "Digital TV Boxes & Antennas": {
                    "nouns": ["digital tv box", "tv antenna", "isdb-t receiver"],
                    "sku": [],
                    "price": (900.0, 0.5),
                    "attrs": {
                        "reception": ["indoor antenna", "outdoor antenna", "set-top box", "dongle"],
                        "signal_standard": ["isdb-t", "dvb-t2", "analog"],
                    },
                },
            },
        },
        "Audio": {
            "family": "electronics",
            "price": (1500.0, 0.9),
            "leaves": {
                "Wireless Earbuds": {
                    "nouns": ["wireless earbuds", "tws earbuds", "bluetooth earphones"],
                    "sku": ["color_family"],
                    "attrs": {
                        "noise_control": ["active noise cancelling", "environmental noise cancelling", "passive"],
                        "earbud_battery": ["up to 20 hours", "up to 30 hours", "up to 40 hours", "up to 60 hours"],
                    },
                },
                "Headphones": {
                    "nouns": ["headphones", "wireless headphones", "bluetooth headphones"],
                    "sku": ["color_family"],
                    "price": (2500.0, 0.8),
                    "attrs": {
                        "headphone_style": ["over-ear", "on-ear", "open-back", "neckband"],
                        "noise_cancelling": ["anc", "passive isolation"],
                    },
                },
                "Wired Earphones & IEMs": {
                    "nouns": ["earphones", "in-ear monitor", "wired earphones"],
                    "sku": ["color_family"],
                    "price": (800.0, 0.9),
                    "attrs": {
                        "driver_config": ["single dynamic", "dual dynamic", "hybrid", "balanced armature", "planar"],
                        "plug": ["3.5mm", "usb type-c", "lightning", "4.4mm balanced"],
                    },
                },
                "Bluetooth Speakers": {
                    "nouns": ["bluetooth speaker", "portable speaker", "wireless speaker"],
                    "sku": ["color_family"],
                    "attrs": {
                        "speaker_output": ["5w", "10w", "20w", "40w", "100w", "200w"],
                        "water_resistance": ["none", "ipx4", "ipx5", "ipx7", "ip67"],
                    },
                },
                "Soundbars & Home Theater": {
                    "nouns": ["soundbar", "home theater system", "sound bar"],
                    "sku": [],
                    "price": (8000.0, 0.6),
                    "attrs": {"audio_channels": ["2.0", "2.1", "3.1", "5.1", "7.1", "dolby atmos 5.1.2"]},
                },
                "Karaoke & Videoke": {
                    "nouns": ["videoke system", "karaoke system", "karaoke machine"],
                    "sku": [],
                    "price": (9000.0, 0.7),
                    "attrs": {
                        "song_library": ["5000 songs", "10000 songs", "20000 songs", "30000 songs"],
                        "mic_count": ["1 mic", "2 mics", "4 mics"],
                    },
                },
                "Party Speakers & Amplifiers": {
                    "nouns": ["party speaker", "amplifier", "trolley speaker"],
                    "sku": [],
                    "price": (4500.0, 0.8),
                    "attrs": {
                        "woofer_size": ["6.5 inches", "8 inches", "10 inches", "12 inches", "15 inches"],
                        "amp_channels": ["mono", "stereo", "4 channel"],
                    },
                },
                "Turntables & Hi-Fi": {
                    "nouns": ["turntable", "record player", "vinyl player"],
                    "sku": [],
                    "price": (7000.0, 0.7),
                    "attrs": {
                        "turntable_speeds": ["33/45 rpm", "33/45/78 rpm"],
                        "drive_type": ["belt drive", "direct drive"],
                        "preamp": ["built-in preamp", "no preamp"],
                    },
                },
            },
        },
        "Cameras & Drones": {
            "family": "electronics",
            "price": (18000.0, 0.9),
            "leaves": {
                "Mirrorless Cameras": {
                    "nouns": ["mirrorless camera", "digital camera", "interchangeable lens camera"],
                    "sku": ["kit_lens"],
                    "price": (55000.0, 0.5),
                    "attrs": {
                        "sensor_size": ["full frame", "aps-c", "micro four thirds"],
                        "megapixels": ["20mp", "24mp", "26mp", "33mp", "45mp", "61mp"],
                        "kit_lens": ["body only", "with 16-50mm kit", "with 18-55mm kit", "with 24-105mm kit"],
                    },
                },
                "DSLR Cameras": {
                    "nouns": ["dslr camera", "dslr", "digital slr"],
                    "sku": ["kit_lens"],
                    "price": (40000.0, 0.5),
                    "attrs": {
                        "lens_mount": ["canon ef", "nikon f", "pentax k"],
                        "kit_lens": ["body only", "with 18-55mm kit", "with 18-135mm kit", "twin lens kit"],
                    },
                },
                "Action Cameras": {
                    "nouns": ["action camera", "action cam", "sports camera"],
                    "sku": [],
                    "price": (12000.0, 0.6),
                    "attrs": {
                        "video_resolution": ["1080p", "4k 30fps", "4k 60fps", "5.3k"],
                        "waterproof_depth": ["10m", "30m", "40m", "60m with housing"],
                    },
                },
                "Instant Cameras & Film": {
                    "nouns": ["instant camera", "instant print camera", "instant film camera"],
                    "sku": ["color_family"],
                    "price": (4500.0, 0.5),
                    "attrs": {
                        "film_format": ["instax mini", "instax wide", "instax square", "polaroid i-type", "polaroid go"]
                    },
                },
                "Camera Film": {
                    "nouns": ["camera film", "photo film", "film pack"],
                    "sku": ["film_pack"],
                    "price": (800.0, 0.6),
                    "attrs": {
                        "film_pack": ["10 shots", "20 shots", "36 exposures", "twin pack", "5 pack"],
                        "film_type": ["color", "black and white", "monochrome", "color negative"],
                    },
                },
                "Camera Lenses": {
                    "nouns": ["camera lens", "lens", "interchangeable lens"],
                    "sku": [],
                    "price": (25000.0, 0.7),
                    "attrs": {
                        "mount": ["sony e", "canon rf", "nikon z", "fujifilm x", "micro four thirds"],
                        "focal_length": ["16mm", "35mm", "50mm", "85mm", "24-70mm", "70-200mm", "18-135mm"],
                    },
                },
                "Security Cameras & CCTV": {
                    "nouns": ["cctv camera", "security camera", "ip camera"],
                    "sku": [],
                    "price": (1500.0, 0.7),
                    "attrs": {
                        "cctv_resolution": ["2mp", "3mp", "4mp", "5mp", "8mp"],
                        "night_vision": ["infrared", "color night vision", "dual light"],
                    },
                },
                "Drones": {
                    "nouns": ["drone", "camera drone", "quadcopter"],
                    "sku": [],
                    "price": (20000.0, 0.8),
                    "attrs": {
                        "flight_time": ["10 minutes", "20 minutes", "31 minutes", "46 minutes"],
                        "drone_weight_class": ["under 249g", "under 900g", "over 900g"],
                    },
                },
                "Tripods & Camera Accessories": {
                    "nouns": ["camera tripod", "tripod", "tripod stand"],
                    "sku": [],
                    "price": (900.0, 0.7),
                    "attrs": {
                        "max_height": ["100cm", "140cm", "160cm", "180cm", "200cm"],
                        "tripod_head": ["ball head", "pan tilt", "fluid head", "phone clamp"],
                    },
                },
            },
        },
    },
    "Home Appliances": {
        "Small Kitchen Appliances": {
            "family": "appliances",
            "price": (2200.0, 0.7),
            "leaves": {
                "Rice Cookers": {
                    "nouns": ["rice cooker", "electric rice cooker", "digital rice cooker"],
                    "sku": ["rice_cups"],
                    "price": (1500.0, 0.6),
                    "attrs": {
                        "rice_cups": ["3 cups", "5 cups", "8 cups", "10 cups", "15 cups", "20 cups"],
                        "inner_pot": ["non-stick", "stainless steel", "ceramic", "aluminum"],
                    },
                },
                "Air Fryers": {
                    "nouns": ["air fryer", "airfryer", "oil-less fryer"],
                    "sku": ["fryer_capacity"],
                    "price": (2800.0, 0.5),
                    "attrs": {
                        "fryer_capacity": ["2.5l", "4l", "5.5l", "7l", "10l", "12l"],
                        "fryer_type": ["basket", "oven-type", "dual basket", "glass bowl"],
                    },
                },
                "Blenders": {
                    "nouns": ["blender", "electric blender", "high speed blender"],
                    "sku": [],
                    "price": (1800.0, 0.6),
                    "attrs": {
                        "blender_jar": ["0.6l", "1l", "1.5l", "2l"],
                        "speed_settings": ["2 speeds", "3 speeds", "5 speeds", "variable speed"],
                    },
                },
                "Food Processors": {
                    "nouns": ["food processor", "kitchen machine", "multi-purpose processor"],
                    "sku": [],
                    "price": (2500.0, 0.6),
                    "attrs": {
                        "processing_type": ["chopper", "slicer and grater", "dough kneader", "multi-function"],
                        "bowl_capacity": ["0.5l", "1.2l", "2l", "3l"],
                    },
                },
                "Electric Kettles": {
                    "nouns": ["electric kettle", "kettle", "water kettle"],
                    "sku": ["color_family"],
                    "price": (800.0, 0.5),
                    "attrs": {
                        "kettle_body": ["stainless steel", "glass", "plastic", "double wall"],
                        "kettle_capacity": ["0.8l", "1.0l", "1.7l", "1.8l", "2.0l", "2.5l"],
                    },
                },
                "Water Dispensers": {
                    "nouns": ["water dispenser", "hot and cold dispenser", "water cooler"],
                    "sku": [],
                    "price": (5500.0, 0.5),
                    "attrs": {
                        "dispense_temp": ["hot only", "hot and cold", "hot, warm and cold"],
                        "bottle_loading": ["top loading", "bottom loading", "tabletop"],
                    },
                },
                "Coffee Machines": {
                    "nouns": ["coffee maker", "coffee machine", "home coffee machine"],
                    "sku": [],
                    "price": (4500.0, 0.8),
                    "attrs": {
                        "brew_type": ["drip", "espresso", "capsule", "cold brew", "moka pot"],
                        "pump_pressure": ["no pump", "15 bar", "19 bar", "20 bar"],
                    },
                },
                "Microwaves & Ovens": {
                    "nouns": ["oven", "countertop oven", "kitchen oven"],
                    "sku": [],
                    "price": (4500.0, 0.6),
                    "attrs": {
                        "oven_capacity": ["9l", "20l", "25l", "30l", "45l", "60l"],
                        "oven_functions": ["microwave only", "microwave and grill", "convection", "bake and toast"],
                    },
                },
                "Induction Cookers & Stoves": {
                    "nouns": ["stove", "cooktop", "cooking stove"],
                    "sku": [],
                    "price": (2000.0, 0.6),
                    "attrs": {
                        "burners": ["single burner", "double burner", "triple burner"],
                        "cooktop_fuel": ["lpg gas", "induction", "infrared", "electric coil"],
                    },
                },
            },
        },
        "Cooling & Air Care": {
            "family": "appliances",
            "price": (3500.0, 0.8),
            "leaves": {
                "Electric Fans": {
                    "nouns": ["electric fan", "fan", "cooling fan"],
                    "sku": ["blade_size"],
                    "price": (1500.0, 0.5),
                    "attrs": {
                        "fan_type": ["stand", "desk", "wall", "ceiling", "tower", "orbit", "box"],
                        "blade_size": ["12 inches", "14 inches", "16 inches", "18 inches", "20 inches"],
                    },
                },
                "Air Conditioners": {
                    "nouns": ["aircon", "air conditioner", "air conditioning unit"],
                    "sku": ["horsepower"],
                    "price": (25000.0, 0.4),
                    "attrs": {
                        "horsepower": ["0.5 hp", "0.75 hp", "1 hp", "1.5 hp", "2 hp", "2.5 hp"],
                        "aircon_type": ["window type", "split type", "portable", "floor mounted"],
                    },
                },
                "Air Coolers": {
                    "nouns": ["air cooler", "evaporative cooler", "aircooler"],
                    "sku": [],
                    "price": (4000.0, 0.5),
                    "attrs": {
                        "tank_capacity": ["6l", "10l", "20l", "30l", "40l"],
                        "ice_packs": ["2 ice packs", "4 ice packs", "no ice pack"],
                    },
                },
                "Air Purifiers": {
                    "nouns": ["air purifier", "hepa air purifier", "room air purifier"],
                    "sku": [],
                    "price": (6000.0, 0.6),
                    "attrs": {
                        "room_coverage": ["up to 20 sqm", "up to 40 sqm", "up to 60 sqm", "up to 80 sqm"],
                        "filter_type": ["true hepa h13", "hepa", "activated carbon", "ionizer"],
                    },
                },
                "Humidifiers & Diffusers": {
                    "nouns": ["humidifier", "aroma diffuser", "ultrasonic humidifier"],
                    "sku": [],
                    "price": (900.0, 0.7),
                    "attrs": {
                        "mist_tank": ["100ml", "300ml", "500ml", "3l", "5l"],
                        "mist_light": ["7 color led", "warm light", "no light"],
                    },
                },
                "Dehumidifiers": {
                    "nouns": ["dehumidifier", "electric dehumidifier", "home dehumidifier"],
                    "sku": [],
                    "price": (9000.0, 0.5),
                    "attrs": {"daily_extraction": ["10l/day", "12l/day", "20l/day", "30l/day"]},
                },
            },
        },
        "Laundry & Floor Care": {
            "family": "appliances",
            "price": (6000.0, 0.9),
            "leaves": {
                "Washing Machines": {
                    "nouns": ["washing machine", "washer", "automatic washing machine"],
                    "sku": ["wash_capacity"],
                    "price": (12000.0, 0.5),
                    "attrs": {
                        "load_type": ["twin tub", "top load", "front load"],
                        "wash_capacity": ["6.5kg", "7kg", "8kg", "10kg", "12kg", "15kg"],
                    },
                },
                "Vacuum Cleaners": {
                    "nouns": ["vacuum cleaner", "vacuum", "home vacuum"],
                    "sku": [],
                    "price": (5000.0, 0.8),
                    "attrs": {
                        "vacuum_type": ["stick", "canister", "handheld", "upright", "wet and dry"],
                        "suction_power": ["8000pa", "12000pa", "20000pa", "25000pa"],
                    },
                },
                "Robot Vacuums": {
                    "nouns": ["robot vacuum", "robot vacuum cleaner", "robotic vacuum"],
                    "sku": [],
                    "price": (12000.0, 0.6),
                    "attrs": {
                        "navigation": ["random", "gyroscope", "lidar", "camera vslam"],
                        "mop_function": ["vacuum only", "vacuum and mop", "self-emptying", "self-washing mop"],
                    },
                },
                "Clothes Irons": {
                    "nouns": ["clothes iron", "iron", "plantsa"],
                    "sku": [],
                    "price": (1200.0, 0.6),
                    "attrs": {
                        "soleplate": ["ceramic", "non-stick", "stainless steel", "titanium"],
                        "steam_output": ["no steam", "20g/min", "30g/min", "45g/min"],
                    },
                },
                "Water Heaters": {
                    "nouns": ["water heater", "shower heater", "instant water heater"],
                    "sku": [],
                    "price": (5000.0, 0.6),
                    "attrs": {
                        "heater_type": ["single point", "multi point", "storage tank"],
                        "heater_power": ["3.5kw", "4.5kw", "6kw", "8kw"],
                    },
                },
                "Sewing Machines": {
                    "nouns": ["sewing machine", "portable sewing machine", "electric sewing machine"],
                    "sku": [],
                    "price": (6000.0, 0.7),
                    "attrs": {
                        "stitch_patterns": ["12 stitches", "24 stitches", "60 stitches", "200 stitches"],
                        "sewing_class": ["mini portable", "household", "heavy duty", "industrial"],
                    },
                },
            },
        },
        "Large Appliances": {
            "family": "appliances",
            "price": (18000.0, 0.6),
            "leaves": {
                "Refrigerators": {
                    "nouns": ["refrigerator", "ref", "fridge"],
                    "sku": [],
                    "attrs": {
                        "door_type": ["single door", "two door", "side by side", "french door", "bottom freezer"],
                        "fridge_capacity": ["5.5 cu ft", "7.0 cu ft", "9.0 cu ft", "12 cu ft", "15 cu ft", "20 cu ft"],
                    },
                },
                "Mini Bar Fridges": {
                    "nouns": ["mini fridge", "mini bar", "personal refrigerator"],
                    "sku": ["color_family"],
                    "price": (7500.0, 0.5),
                    "attrs": {"minibar_capacity": ["1.7 cu ft", "2.5 cu ft", "3.1 cu ft", "4.4 cu ft"]},
                },
                "Chest Freezers": {
                    "nouns": ["chest freezer", "freezer", "deep freezer"],
                    "sku": [],
                    "price": (15000.0, 0.5),
                    "attrs": {
                        "freezer_capacity": ["5 cu ft", "7 cu ft", "9 cu ft", "11 cu ft", "15 cu ft"],
                        "convertible": ["freezer only", "freezer and chiller"],
                    },
                },
                "Range Hoods & Built-in Ovens": {
                    "nouns": ["range hood", "cooker hood", "kitchen hood"],
                    "sku": [],
                    "price": (7000.0, 0.6),
                    "attrs": {
                        "hood_width": ["60cm", "70cm", "90cm"],
                        "hood_style": ["slim", "chimney", "island", "under cabinet"],
                    },
                },
                "Dishwashers": {
                    "nouns": ["dishwasher", "dishwashing machine", "automatic dishwasher"],
                    "sku": [],
                    "price": (25000.0, 0.5),
                    "attrs": {
                        "place_settings": [
                            "4 place settings",
                            "6 place settings",
                            "8 place settings",
                            "14 place settings",
                        ]
                    },
                },
            },
        },
        "Personal Care Appliances": {
            "family": "appliances",
            "price": (1200.0, 0.7),
            "leaves": {
                "Hair Dryers": {
                    "nouns": ["hair dryer", "blow dryer", "ionic hair dryer"],
                    "sku": [],
                    "price": (900.0, 0.7),
                    "attrs": {
                        "dryer_wattage": ["1000w", "1600w", "1800w", "2200w"],
                        "dryer_attachments": ["concentrator nozzle", "diffuser", "concentrator and diffuser", "none"],
                    },
                },
                "Hair Straighteners": {
                    "nouns": ["hair straightener", "flat iron", "hair iron"],
                    "sku": ["plate_width"],
                    "price": (1200.0, 0.7),
                    "attrs": {
                        "plate_width": ["1 inch", "1.25 inches", "1.5 inches", "2 inches"],
                        "plate_material": ["ceramic", "tourmaline", "titanium", "ionic"],
                        "heat_settings": ["single heat", "3 heat settings", "adjustable up to 230c"],
                    },
                },
                "Electric Shavers": {
                    "nouns": ["electric shaver", "shaver", "rechargeable shaver"],
                    "sku": [],
                    "price": (1800.0, 0.7),
                    "attrs": {
                        "shaver_type": ["rotary", "foil", "multi-groomer"],
                        "wet_dry": ["wet and dry", "dry only"],
                    },
                },
                "Hair Clippers & Trimmers": {
                    "nouns": ["hair clipper", "hair trimmer", "barber clipper"],
                    "sku": [],
                    "price": (900.0, 0.7),
                    "attrs": {
                        "guide_combs": ["4 combs", "8 combs", "10 combs"],
                        "clipper_motor": ["rotary", "magnetic", "pivot"],
                    },
                },
                "Electric Toothbrushes": {
                    "nouns": ["electric toothbrush", "sonic toothbrush", "rechargeable toothbrush"],
                    "sku": ["color_family"],
                    "price": (1200.0, 0.7),
                    "attrs": {
                        "brush_modes": ["1 mode", "3 modes", "5 modes"],
                        "brush_heads": ["1 head", "2 heads", "4 heads"],
                    },
                },
            },
        },
    },
    "Groceries": {
        "Snacks & Sweets": {
            "family": "grocery",
            "price": (85.0, 0.6),
            "leaves": {
                "Chips & Crisps": {
                    "nouns": ["chips", "crisps", "snack chips"],
                    "sku": ["flavor"],
                    "attrs": {
                        "chip_base": ["potato", "corn", "cassava", "taro", "sweet potato", "banana"],
                        "chip_cut": ["thin", "wavy", "ridged", "kettle cooked", "sticks"],
                        "flavor": [
                            "original",
                            "cheese",
                            "barbecue",
                            "sour cream",
                            "spicy",
                            "sweet corn",
                            "salted egg",
                            "sinigang",
                            "adobo",
                        ],
                    },
                },
                "Chicharon & Kropek": {
                    "nouns": ["crackling snack", "pulutan snack", "crispy snack"],
                    "sku": ["flavor"],
                    "price": (120.0, 0.5),
                    "attrs": {
                        "cracker_type": [
                            "pork chicharon",
                            "chicharon bulaklak",
                            "fish crackers",
                            "shrimp crackers",
                            "vegetarian chicharon",
                        ],
                        "flavor": ["original", "spicy", "vinegar", "garlic", "salt and pepper", "chili"],
                    },
                },
                "Chocolates": {
                    "nouns": ["chocolate", "chocolate bar", "chocolates"],
                    "sku": ["flavor"],
                    "price": (150.0, 0.7),
                    "attrs": {
                        "cocoa_content": ["milk", "dark 50%", "dark 70%", "dark 85%", "white"],
                        "chocolate_format": ["bar", "bites", "bonbon box", "coated nuts"],
                        "flavor": [
                            "classic",
                            "almond",
                            "hazelnut",
                            "ube",
                            "mango",
                            "mint",
                            "salted caramel",
                            "coffee",
                            "cashew",
                        ],
                    },
                },
                "Biscuits & Crackers": {
                    "nouns": ["biscuits", "crackers", "cookies"],
                    "sku": ["flavor"],
                    "attrs": {
                        "biscuit_type": ["cream sandwich", "crackers", "butter cookies", "wafer", "galletas", "broas"],
                        "flavor": [
                            "chocolate",
                            "vanilla",
                            "butter",
                            "cheese",
                            "ube",
                            "strawberry",
                            "coconut",
                            "calamansi",
                        ],
                    },
                },
                "Dried Fruits & Nuts": {
                    "nouns": ["healthy snack", "snack pack", "nut and fruit snack"],
                    "sku": ["net_weight"],
                    "price": (180.0, 0.6),
                    "attrs": {
                        "nut_fruit": [
                            "dried mango",
                            "cashew",
                            "peanut",
                            "pili nut",
                            "almond",
                            "banana chips",
                            "dried pineapple",
                            "dried papaya",
                            "macadamia",
                        ],
                        "roasting": ["roasted", "raw", "honey roasted", "salted", "sugar-coated"],
                        "net_weight": ["50g", "100g", "200g", "250g", "500g", "1kg"],
                    },
                },
                "Filipino Delicacies": {
                    "nouns": ["kakanin", "pasalubong", "native delicacy"],
                    "sku": ["flavor"],
                    "price": (180.0, 0.5),
                    "attrs": {
                        "delicacy": [
                            "polvoron",
                            "pastillas de leche",
                            "yema",
                            "otap",
                            "piaya",
                            "espasol",
                            "ube halaya",
                            "barquillos",
                            "bibingka",
                            "suman",
                            "sapin-sapin",
                            "tablea",
                        ],
                        "delicacy_origin": [
                            "bulacan",
                            "cebu",
                            "bacolod",
                            "laguna",
                            "pampanga",
                            "iloilo",
                            "baguio",
                            "bohol",
                            "batangas",
                            "ilocos",
                        ],
                        "flavor": [
                            "original",
                            "ube",
                            "pandan",
                            "langka",
                            "buko",
                            "mango",
                            "cheese",
                            "chocolate",
                            "calamansi",
                        ],
                    },
                },
                "Candies & Gummies": {
                    "nouns": ["candy", "candies", "sweets"],
                    "sku": ["flavor"],
                    "attrs": {
                        "candy_type": [
                            "hard candy",
                            "gummy",
                            "chewy",
                            "lollipop",
                            "mint",
                            "chewing gum",
                            "marshmallow",
                        ],
                        "flavor": [
                            "mango",
                            "calamansi",
                            "strawberry",
                            "mint",
                            "coffee",
                            "tamarind",
                            "cola",
                            "grape",
                            "milk",
                        ],
                    },
                },
            },
        },
        "Beverages": {
            "family": "grocery",
            "price": (120.0, 0.7),
            "leaves": {
                "Coffee": {
                    "nouns": ["coffee", "kape", "coffee pack"],
                    "sku": ["flavor"],
                    "price": (220.0, 0.7),
                    "attrs": {
                        "coffee_form": ["3-in-1 sachet", "instant", "ground", "whole beans", "drip bag"],
                        "roast": ["light", "medium", "dark", "espresso roast"],
                        "bean_origin": [
                            "benguet",
                            "sagada",
                            "batangas barako",
                            "mt. apo",
                            "mt. kitanglad",
                            "arabica blend",
                            "robusta",
                            "liberica",
                            "excelsa",
                        ],
                        "flavor": ["original", "mocha", "caramel", "hazelnut", "vanilla", "brown sugar"],
                    },
                },
                "Tea": {
                    "nouns": ["tea", "tsaa", "tea pack"],
                    "sku": ["flavor"],
                    "attrs": {
                        "tea_type": [
                            "black",
                            "green",
                            "oolong",
                            "jasmine",
                            "chamomile",
                            "salabat",
                            "matcha",
                            "barley",
                            "lemongrass",
                            "guyabano",
                        ],
                        "flavor": ["original", "honey", "lemon", "calamansi", "ginger", "peach", "mango"],
                    },
                },
                "Juices & Powdered Drinks": {
                    "nouns": ["juice", "juice drink", "fruit drink"],
                    "sku": ["flavor"],
                    "price": (80.0, 0.6),
                    "attrs": {
                        "juice_format": ["ready to drink", "powder", "concentrate", "sachet"],
                        "drink_volume": ["200ml", "250ml", "1l", "1.5l", "25g sachet"],
                        "flavor": [
                            "orange",
                            "mango",
                            "calamansi",
                            "pineapple",
                            "apple",
                            "four seasons",
                            "guava",
                            "buko",
                        ],
                    },
                },
                "Soft Drinks": {
                    "nouns": ["soft drink", "soda", "softdrinks"],
                    "sku": ["can_size"],
                    "price": (70.0, 0.6),
                    "attrs": {
                        "can_size": ["237ml", "330ml", "500ml", "1.5l", "2l"],
                        "sugar_level": ["regular", "zero sugar", "less sugar"],
                        "flavor": ["cola", "lemon-lime", "orange", "root beer", "sarsaparilla", "cream soda"],
                    },
                },
                "Energy & Sports Drinks": {
                    "nouns": ["sports drink", "functional drink", "performance drink"],
                    "sku": ["flavor"],
                    "price": (60.0, 0.5),
                    "attrs": {
                        "drink_purpose": ["energy boost", "rehydration", "electrolytes", "caffeine-free"],
                        "bottle_volume": ["150ml", "250ml", "350ml", "500ml"],
                        "flavor": ["lemon lime", "orange", "grape", "blue raspberry", "calamansi", "mixed berry"],
                    },
                },
                "Water": {
                    "nouns": ["drinking water", "bottled water", "water"],
                    "sku": ["water_volume"],
                    "price": (60.0, 0.6),
                    "attrs": {
                        "water_type": ["mineral", "purified", "distilled", "alkaline", "sparkling"],
                        "water_volume": ["350ml", "500ml", "1l", "4l", "6l"],
                    },
                },
                "Milk & Dairy Drinks": {
                    "nouns": ["milk", "milk drink", "dairy drink"],
                    "sku": ["flavor"],
                    "price": (110.0, 0.6),
                    "attrs": {
                        "milk_type": [
                            "full cream",
                            "low fat",
                            "skimmed",
                            "evaporated",
                            "condensed",
                            "soy",
                            "oat",
                            "carabao",
                        ],
                        "flavor": ["plain", "chocolate", "strawberry", "ube", "banana", "coffee", "melon"],
                    },
                },
                "Beer, Wine & Spirits": {
                    "nouns": ["alcoholic drink", "liquor", "alak"],
                    "sku": [],
                    "price": (350.0, 0.9),
                    "attrs": {
                        "liquor_type": [
                            "beer",
                            "gin",
                            "rum",
                            "brandy",
                            "whisky",
                            "lambanog",
                            "tuba",
                            "basi",
                            "red wine",
                            "soju",
                        ],
                        "abv": ["5%", "8%", "12%", "14%", "40%", "45%"],
                    },
                },
            },
        },
        "Pantry Staples": {
            "family": "grocery",
            "price": (150.0, 0.8),
            "leaves": {
                "Rice": {
                    "nouns": ["rice", "bigas", "sack of rice"],
                    "sku": ["bag_weight"],
                    "price": (350.0, 0.7),
                    "attrs": {
                        "rice_variety": [
                            "jasmine",
                            "dinorado",
                            "sinandomeng",
                            "brown",
                            "black",
                            "malagkit",
                            "red",
                            "thai",
                        ],
                        "bag_weight": ["1kg", "2kg", "5kg", "10kg", "25kg"],
                    },
                },
                "Noodles & Pasta": {
                    "nouns": ["noodles", "pancit", "pasta"],
                    "sku": ["flavor"],
                    "price": (60.0, 0.6),
                    "attrs": {
                        "noodle_type": [
                            "instant",
                            "canton",
                            "bihon",
                            "sotanghon",
                            "miki",
                            "spaghetti",
                            "ramen",
                            "palabok",
                        ],
                        "flavor": [
                            "original",
                            "chili",
                            "calamansi",
                            "sweet and spicy",
                            "beef",
                            "chicken",
                            "seafood",
                            "bulalo",
                        ],
                    },
                },
                "Canned Goods": {
                    "nouns": ["canned food", "canned goods", "de lata"],
                    "sku": ["can_weight"],
                    "price": (85.0, 0.6),
                    "attrs": {
                        "canned_type": [
                            "corned beef",
                            "sardines",
                            "tuna",
                            "luncheon meat",
                            "vienna sausage",
                            "meat loaf",
                            "fruit cocktail",
                            "beef loaf",
                        ],
                        "can_weight": ["150g", "155g", "260g", "340g", "425g"],
                    },
                },
                "Condiments & Sauces": {
                    "nouns": ["condiment", "sauce", "sawsawan"],
                    "sku": ["bottle_size"],
                    "price": (70.0, 0.6),
                    "attrs": {
                        "condiment": [
                            "soy sauce",
                            "cane vinegar",
                            "coconut vinegar",
                            "patis",
                            "bagoong",
                            "banana ketchup",
                            "oyster sauce",
                            "sweet chili sauce",
                            "liver sauce",
                        ],
                        "bottle_size": ["100ml", "350ml", "1l", "1 gallon"],
                    },
                },
                "Cooking Oil & Baking": {
                    "nouns": ["cooking oil", "baking ingredient", "baking supply"],
                    "sku": ["net_content"],
                    "attrs": {
                        "pantry_item": [
                            "coconut oil",
                            "canola oil",
                            "palm oil",
                            "all-purpose flour",
                            "muscovado sugar",
                            "brown sugar",
                            "baking soda",
                            "cornstarch",
                            "yeast",
                        ],
                        "net_content": ["250ml", "500ml", "1l", "2l", "500g", "1kg", "2kg"],
                    },
                },
                "Spreads & Jams": {
                    "nouns": ["spread", "jam", "palaman"],
                    "sku": ["flavor"],
                    "price": (150.0, 0.6),
                    "attrs": {
                        "spread_type": [
                            "peanut butter",
                            "coco jam",
                            "ube halaya",
                            "fruit jam",
                            "hazelnut spread",
                            "cheese spread",
                            "kaya",
                        ],
                        "flavor": ["classic", "chunky", "creamy", "ube", "pandan", "coconut", "chocolate", "cheese"],
                    },
                },
                "Breakfast Cereals & Oats": {
                    "nouns": ["cereal", "oats", "breakfast cereal"],
                    "sku": ["net_weight"],
                    "price": (200.0, 0.6),
                    "attrs": {
                        "cereal_type": [
                            "rolled oats",
                            "instant oats",
                            "corn flakes",
                            "granola",
                            "muesli",
                            "steel cut oats",
                        ],
                        "net_weight": ["200g", "400g", "500g", "800g", "1kg"],
                    },
                },
                "Cooking Mixes & Seasonings": {
                    "nouns": ["seasoning mix", "recipe mix", "cooking mix"],
                    "sku": ["flavor"],
                    "price": (40.0, 0.6),
                    "attrs": {
                        "dish_mix": [
                            "sinigang mix",
                            "kare-kare mix",
                            "adobo mix",
                            "menudo mix",
                            "breading mix",
                            "gravy mix",
                            "bbq marinade",
                            "tinola seasoning",
                        ],
                        "flavor": ["original", "spicy", "extra sour", "less salt", "garlic"],
                    },
                },
            },
        },
        "Fresh & Frozen": {
            "family": "grocery",
            "price": (250.0, 0.8),
            "leaves": {
                "Fresh Fruits": {
                    "nouns": ["fresh fruit", "fruits", "prutas"],
                    "sku": ["net_weight"],
                    "price": (200.0, 0.6),
                    "attrs": {
                        "fruit": [
                            "carabao mango",
                            "lakatan banana",
                            "saba banana",
                            "calamansi",
                            "pineapple",
                            "papaya",
                            "lanzones",
                            "rambutan",
                            "durian",
                            "mangosteen",
                            "pomelo",
                            "marang",
                            "avocado",
                        ],
                        "ripeness": ["ripe", "semi-ripe", "unripe", "ready to eat"],
                        "net_weight": ["250g", "500g", "1kg", "2kg", "5kg"],
                    },
                },
                "Fresh Vegetables": {
                    "nouns": ["fresh vegetables", "vegetables", "gulay"],
                    "sku": ["net_weight"],
                    "price": (120.0, 0.6),
                    "attrs": {
                        "vegetable": [
                            "pechay",
                            "kangkong",
                            "ampalaya",
                            "sitaw",
                            "malunggay",
                            "kalabasa",
                            "talong",
                            "okra",
                            "sayote",
                            "upo",
                            "gabi",
                        ],
                        "farming": ["conventional", "organic", "hydroponic"],
                        "net_weight": ["250g", "500g", "1kg", "2kg"],
                    },
                },
                "Meat & Poultry": {
                    "nouns": ["fresh meat", "meat", "karne"],
                    "sku": ["net_weight"],
                    "price": (380.0, 0.5),
                    "attrs": {
                        "meat_cut": [
                            "pork belly",
                            "pork chop",
                            "pork kasim",
                            "chicken breast",
                            "chicken thigh",
                            "whole chicken",
                            "ground beef",
                            "beef shank",
                            "beef brisket",
                        ],
                        "net_weight": ["250g", "500g", "1kg", "2kg"],
                    },
                },
                "Seafood": {
                    "nouns": ["fresh seafood", "seafood", "fresh fish"],
                    "sku": ["net_weight"],
                    "price": (400.0, 0.6),
                    "attrs": {
                        "seafood": [
                            "bangus",
                            "tilapia",
                            "shrimp",
                            "squid",
                            "galunggong",
                            "tuna belly",
                            "blue crab",
                            "tahong",
                            "lapu-lapu",
                        ],
                        "cleaning": ["whole", "cleaned", "deboned", "fillet", "butterflied"],
                        "net_weight": ["250g", "500g", "1kg", "2kg"],
                    },
                },
                "Frozen Ready-to-Cook": {
                    "nouns": ["frozen food", "ready-to-cook food", "frozen viand"],
                    "sku": ["flavor"],
                    "price": (220.0, 0.6),
                    "attrs": {
                        "frozen_item": [
                            "tocino",
                            "longganisa",
                            "skinless longganisa",
                            "tapa",
                            "hotdog",
                            "siomai",
                            "lumpiang shanghai",
                            "embutido",
                            "chicken nuggets",
                        ],
                        "regional_style": ["vigan", "lucban", "pampanga", "cebu", "alaminos", "guagua", "generic"],
                        "flavor": ["sweet", "garlic", "spicy", "hamonado", "original", "sweet and spicy"],
                    },
                },
                "Ice Cream & Frozen Desserts": {
                    "nouns": ["ice cream", "sorbetes", "frozen dessert"],
                    "sku": ["flavor"],
                    "price": (250.0, 0.6),
                    "attrs": {
                        "dessert_format": ["tub", "cone", "stick", "cup", "tray", "gallon"],
                        "flavor": [
                            "ube",
                            "mango",
                            "cheese",
                            "chocolate",
                            "vanilla",
                            "rocky road",
                            "buko pandan",
                            "avocado",
                            "cookies and cream",
                            "mais keso",
                        ],
                    },
                },
                "Dried & Salted Fish": {
                    "nouns": ["dried fish", "daing", "salted dried fish"],
                    "sku": ["net_weight"],
                    "price": (250.0, 0.6),
                    "attrs": {
                        "dried_fish": ["danggit", "tuyo", "tinapa", "dried pusit", "dilis", "daing na bangus"],
                        "fish_origin": ["cebu", "bantayan", "pangasinan", "palawan", "cavite", "zamboanga"],
                        "net_weight": ["100g", "250g", "500g", "1kg"],
                    },
                },
            },
        },
    },
    "Mother & Baby": {
        "Diapering & Potty": {
            "family": "baby",
            "price": (600.0, 0.6),
            "leaves": {
                "Disposable Diapers": {
                    "nouns": ["diaper", "disposable diaper", "baby diaper"],
                    "sku": ["size", "diaper_count"],
                    "price": (650.0, 0.5),
                    "attrs": {
                        "diaper_style": ["tape", "pants"],
                        "diaper_count": ["24 pcs", "40 pcs", "56 pcs", "64 pcs", "80 pcs", "100 pcs"],
                        "size": ["newborn", "small", "medium", "large", "xl", "xxl"],
                    },
                },
                "Cloth Diapers": {
                    "nouns": ["cloth diaper", "reusable diaper", "washable diaper"],
                    "sku": ["color_family"],
                    "price": (350.0, 0.5),
                    "attrs": {"insert_type": ["microfiber", "bamboo", "charcoal bamboo", "hemp"]},
                },
                "Baby Wipes": {
                    "nouns": ["baby wipes", "wet wipes", "wipes"],
                    "sku": ["pack_size"],
                    "price": (150.0, 0.6),
                    "attrs": {
                        "wipes_count": ["10 sheets", "30 sheets", "80 sheets", "100 sheets"],
                        "wipes_fragrance": ["fragrance-free", "lightly scented"],
                        "pack_size": ["1 pack", "3 packs", "6 packs", "12 packs"],
                    },
                },
                "Potty Training": {
                    "nouns": ["potty trainer", "baby potty", "toilet trainer"],
                    "sku": ["color_family"],
                    "price": (450.0, 0.5),
                    "attrs": {"potty_type": ["standalone potty", "seat reducer", "step stool combo", "travel potty"]},
                },
                "Diaper Bags & Changing Mats": {
                    "nouns": ["diaper bag", "mommy bag", "baby bag"],
                    "sku": ["color_family"],
                    "price": (900.0, 0.6),
                    "attrs": {"bag_style": ["backpack", "tote", "sling", "caddy organizer"]},
                },
            },
        },
        "Feeding & Nursing": {
            "family": "baby",
            "price": (450.0, 0.7),
            "leaves": {
                "Feeding Bottles & Nipples": {
                    "nouns": ["feeding bottle", "baby bottle", "milk bottle"],
                    "sku": ["bottle_capacity"],
                    "price": (350.0, 0.6),
                    "attrs": {
                        "bottle_capacity": ["4 oz", "5 oz", "8 oz", "9 oz", "11 oz"],
                        "nipple_flow": ["newborn", "slow", "medium", "fast", "variable"],
                    },
                },
                "Breast Pumps": {
                    "nouns": ["breast pump", "nursing pump", "milk pump"],
                    "sku": [],
                    "price": (2500.0, 0.7),
                    "attrs": {"pump_type": ["manual", "single electric", "double electric", "wearable"]},
                },
                "Breast Milk Storage": {
                    "nouns": ["breast milk storage bag", "milk storage bag", "breastmilk bag"],
                    "sku": ["bag_volume"],
                    "price": (300.0, 0.5),
                    "attrs": {
                        "bag_volume": ["150ml", "200ml", "250ml"],
                        "bag_count_pack": ["30 bags", "50 bags", "100 bags"],
                    },
                },
                "Infant Formula": {
                    "nouns": ["infant formula", "milk formula", "powdered milk formula"],
                    "sku": ["formula_weight"],
                    "price": (1200.0, 0.5),
                    "attrs": {
                        "formula_stage": [
                            "stage 1 0-6 months",
                            "stage 2 6-12 months",
                            "stage 3 1-3 years",
                            "stage 4 3+ years",
                        ],
                        "formula_weight": ["350g", "400g", "800g", "900g", "1.2kg", "1.6kg", "2kg"],
                    },
                },
                "Baby Food & Snacks": {
                    "nouns": ["baby food", "puree", "baby snack"],
                    "sku": ["baby_food_flavor"],
                    "price": (180.0, 0.5),
                    "attrs": {
                        "baby_food_flavor": [
                            "apple",
                            "banana",
                            "squash",
                            "sweet potato",
                            "mixed fruit",
                            "carrot",
                            "rice",
                            "mango",
                        ]
                    },
                },
                "Baby Tableware": {
                    "nouns": ["baby tableware", "feeding set", "toddler feeding set"],
                    "sku": ["color_family"],
                    "price": (300.0, 0.6),
                    "attrs": {
                        "tableware_kind": ["suction bowl", "divided plate", "sippy cup", "spoon set", "silicone bib"]
                    },
                },
                "Sterilizers & Warmers": {
                    "nouns": ["bottle sterilizer", "sterilizer", "baby bottle sterilizer"],
                    "sku": [],
                    "price": (2500.0, 0.6),
                    "attrs": {
                        "sterilize_method": ["uv", "steam", "steam and dry"],
                        "bottle_slots": ["2 bottles", "6 bottles", "8 bottles"],
                    },
                },
            },
        },
        "Baby Gear": {
            "family": "baby",
            "price": (2500.0, 0.8),
            "leaves": {
                "Strollers": {
                    "nouns": ["stroller", "baby stroller", "pushchair"],
                    "sku": ["color_family"],
                    "price": (5000.0, 0.6),
                    "attrs": {
                        "stroller_type": ["lightweight", "travel", "jogging", "twin", "full-size"],
                        "fold_type": ["one-hand fold", "compact fold", "standard fold"],
                    },
                },
                "Car Seats": {
                    "nouns": ["car seat", "baby car seat", "child car seat"],
                    "sku": ["color_family"],
                    "price": (5500.0, 0.5),
                    "attrs": {
                        "car_seat_group": ["group 0+", "group 0+/1", "group 1/2/3", "booster"],
                        "installation": ["isofix", "seatbelt install", "isofix and seatbelt"],
                    },
                },
                "Baby Carriers": {
                    "nouns": ["baby carrier", "infant carrier", "babywearing carrier"],
                    "sku": ["color_family"],
                    "price": (1500.0, 0.6),
                    "attrs": {"carrier_style": ["ergonomic", "hip seat", "wrap", "ring sling"]},
                },
                "Cribs & Playpens": {
                    "nouns": ["baby bed", "baby sleeper", "infant bed"],
                    "sku": [],
                    "price": (3500.0, 0.6),
                    "attrs": {"crib_type": ["wooden crib", "travel cot", "playpen", "bedside crib", "duyan hammock"]},
                },
                "Walkers & Bouncers": {
                    "nouns": ["baby walker", "walker", "activity walker"],
                    "sku": ["color_family"],
                    "price": (1500.0, 0.6),
                    "attrs": {"walker_feature": ["push walker", "sit-in walker", "2-in-1 walker", "with music panel"]},
                },
            },
        },
        "Baby Clothing & Care": {
            "family": "baby",
            "price": (300.0, 0.6),
            "leaves": {
                "Baby Clothes": {
                    "nouns": ["baby clothes", "baby outfit", "infant wear"],
                    "sku": ["size", "color_family"],
                    "attrs": {
                        "baby_clothing_type": ["onesie", "romper", "sleepsuit", "frog suit", "set", "baru-baruan"],
                        "size": ["newborn", "0-3 months", "3-6 months", "6-12 months", "12-18 months", "18-24 months"],
                    },
                },
                "Baby Bath & Skin Care": {
                    "nouns": ["baby toiletry", "baby skin care", "baby bath product"],
                    "sku": ["baby_scent"],
                    "price": (250.0, 0.6),
                    "attrs": {
                        "baby_care_product": [
                            "baby wash",
                            "shampoo",
                            "lotion",
                            "oil",
                            "powder",
                            "rash cream",
                            "cologne",
                        ],
                        "baby_scent": ["mild", "milky", "lavender", "unscented", "chamomile"],
                    },
                },
                "Baby Health & Safety": {
                    "nouns": ["baby safety product", "baby proofing kit", "baby safety lock"],
                    "sku": [],
                    "price": (300.0, 0.7),
                    "attrs": {
                        "safety_item": ["baby gate", "corner guard", "outlet cover", "cabinet lock", "door stopper"]
                    },
                },
                "Maternity Wear": {
                    "nouns": ["maternity wear", "maternity clothes", "pregnancy wear"],
                    "sku": ["size"],
                    "price": (550.0, 0.6),
                    "attrs": {
                        "maternity_type": ["dress", "pants", "nursing top", "belly band", "nursing bra"],
                        "size": ["s", "m", "l", "xl", "2xl"],
                    },
                },
                "Swaddles & Baby Bedding": {
                    "nouns": ["baby blanket", "swaddle", "newborn wrap"],
                    "sku": ["color_family"],
                    "price": (350.0, 0.6),
                    "attrs": {"swaddle_type": ["swaddle wrap", "muslin blanket", "sleep sack", "receiving blanket"]},
                },
            },
        },
    },
    "Toys & Games": {
        "Educational Toys": {
            "family": "toys",
            "price": (450.0, 0.7),
            "leaves": {
                "Building Blocks": {
                    "nouns": ["building blocks", "building block set", "construction toy"],
                    "sku": [],
                    "price": (650.0, 0.8),
                    "attrs": {
                        "piece_count": ["50 pcs", "100 pcs", "300 pcs", "500 pcs", "1000 pcs", "2000+ pcs"],
                        "block_system": ["brick compatible", "magnetic tiles", "wooden blocks", "large blocks"],
                    },
                },
                "Jigsaw Puzzles": {
                    "nouns": ["jigsaw puzzle", "puzzle", "puzzle set"],
                    "sku": [],
                    "attrs": {
                        "puzzle_pieces": ["24 pcs", "100 pcs", "500 pcs", "1000 pcs", "2000 pcs"],
                        "puzzle_image": [
                            "landscape",
                            "animals",
                            "world map",
                            "anime",
                            "art masterpiece",
                            "philippine map",
                        ],
                    },
                },
                "STEM & Science Kits": {
                    "nouns": ["science kit", "stem kit", "experiment kit"],
                    "sku": [],
                    "price": (700.0, 0.7),
                    "attrs": {
                        "science_topic": [
                            "robotics",
                            "chemistry",
                            "electronics",
                            "astronomy",
                            "biology",
                            "coding",
                            "geology",
                        ]
                    },
                },
                "Flash Cards & Learning Charts": {
                    "nouns": ["flash cards", "learning cards", "educational chart"],
                    "sku": [],
                    "price": (180.0, 0.6),
                    "attrs": {
                        "learning_subject": [
                            "abakada",
                            "alphabet",
                            "numbers",
                            "english words",
                            "filipino words",
                            "animals",
                            "shapes and colors",
                            "baybayin",
                        ]
                    },
                },
                "Montessori & Wooden Toys": {
                    "nouns": ["wooden toy", "montessori toy", "busy board"],
                    "sku": [],
                    "price": (450.0, 0.6),
                    "attrs": {"montessori_skill": ["fine motor", "sorting", "counting", "sensory", "practical life"]},
                },
            },
        },
        "Dolls, Figures & Collectibles": {
            "family": "toys",
            "price": (600.0, 0.9),
            "leaves": {
                "Dolls & Dollhouses": {
                    "nouns": ["doll", "fashion doll", "doll set"],
                    "sku": [],
                    "price": (500.0, 0.7),
                    "attrs": {
                        "doll_size": ["mini 5 inches", "12 inches", "18 inches"],
                        "doll_set": ["doll only", "with outfits", "with dollhouse", "with accessories"],
                    },
                },
                "Action Figures": {
                    "nouns": ["action figure", "figure", "poseable figure"],
                    "sku": [],
                    "price": (900.0, 0.8),
                    "attrs": {
                        "franchise": [
                            "marvel",
                            "dc",
                            "star wars",
                            "transformers",
                            "power rangers",
                            "voltes v",
                            "godzilla",
                        ],
                        "figure_scale": ["1/6", "1/12", "1/18", "6 inches", "12 inches"],
                    },
                },
                "Anime Figures": {
                    "nouns": ["anime figure", "figurine", "collectible figure"],
                    "sku": [],
                    "price": (1200.0, 0.9),
                    "attrs": {
                        "anime_series": [
                            "one piece",
                            "demon slayer",
                            "jujutsu kaisen",
                            "naruto",
                            "attack on titan",
                            "spy x family",
                            "dragon ball",
                            "my hero academia",
                            "chainsaw man",
                        ],
                        "collectible_type": [
                            "scale figure",
                            "chibi figure",
                            "blind box",
                            "acrylic stand",
                            "nendoroid style",
                        ],
                    },
                },
                "Plush Toys": {
                    "nouns": ["stuffed toy", "plush toy", "stuffed animal"],
                    "sku": ["plush_size"],
                    "price": (350.0, 0.7),
                    "attrs": {
                        "plush_size": ["15cm", "25cm", "40cm", "60cm", "100cm"],
                        "plush_character": ["bear", "bunny", "dog", "cat", "dinosaur", "unicorn", "carabao", "tarsier"],
                        "material": ["polyester plush", "cotton", "minky fabric", "faux fur", "velboa"],
                    },
                },
                "Die-Cast & Model Kits": {
                    "nouns": ["scale model", "die-cast model", "collectible model"],
                    "sku": [],
                    "price": (650.0, 0.8),
                    "attrs": {
                        "model_scale": ["1/18", "1/24", "1/32", "1/43", "1/64", "1/100", "1/144"],
                        "model_subject": [
                            "car",
                            "motorcycle",
                            "airplane",
                            "jeepney",
                            "mecha robot",
                            "ship",
                            "tricycle",
                        ],
                    },
                },
            },
        },
        "Board & Card Games": {
            "family": "toys",
            "price": (500.0, 0.8),
            "leaves": {
                "Board Games": {
                    "nouns": ["board game", "tabletop game", "family board game"],
                    "sku": [],
                    "price": (1200.0, 0.7),
                    "attrs": {
                        "number_of_players": [
                            "1-2 players",
                            "2-4 players",
                            "2-6 players",
                            "3-8 players",
                            "up to 10 players",
                        ],
                        "play_time": ["15 minutes", "30 minutes", "60 minutes", "90+ minutes"],
                        "game_category": ["strategy", "party", "family", "word", "cooperative", "classic"],
                    },
                },
                "Trading Card Games": {
                    "nouns": ["trading cards", "tcg cards", "card booster"],
                    "sku": ["card_pack"],
                    "attrs": {
                        "tcg_title": [
                            "pokemon tcg",
                            "yu-gi-oh",
                            "magic the gathering",
                            "one piece card game",
                            "dragon ball super card game",
                        ],
                        "card_pack": [
                            "booster pack",
                            "booster box",
                            "starter deck",
                            "single deck",
                            "elite trainer box",
                        ],
                    },
                },
                "Party Card Games": {
                    "nouns": ["card game", "party card game", "playing cards"],
                    "sku": [],
                    "price": (180.0, 0.6),
                    "attrs": {
                        "card_game": ["uno", "tong-its", "pusoy", "unggoy", "pinoy trivia", "charades", "poker"],
                        "deck_count": ["1 deck", "2 decks", "4 decks", "12 decks"],
                    },
                },
                "Filipino Traditional Games": {
                    "nouns": ["traditional game", "larong pinoy set", "native game"],
                    "sku": [],
                    "price": (300.0, 0.7),
                    "attrs": {
                        "traditional_game": [
                            "sungka",
                            "sipa",
                            "trumpo",
                            "yoyo",
                            "piko",
                            "chinese garter",
                            "dama",
                            "teks",
                        ]
                    },
                },
                "Puzzle Cubes": {
                    "nouns": ["speed cube", "puzzle cube", "magic cube"],
                    "sku": ["cube_type"],
                    "price": (350.0, 0.8),
                    "attrs": {
                        "cube_type": ["2x2", "3x3", "4x4", "5x5", "megaminx", "pyraminx", "skewb"],
                        "magnetic": ["magnetic", "non-magnetic"],
                    },
                },
                "Chess & Classic Games": {
                    "nouns": ["classic game set", "board game set", "game set"],
                    "sku": [],
                    "price": (600.0, 0.8),
                    "attrs": {
                        "classic_game": ["chess", "checkers", "dama", "mahjong", "scrabble", "dominoes", "backgammon"],
                        "board_material": ["wood", "magnetic plastic", "vinyl roll-up", "glass"],
                    },
                },
            },
        },
        "Outdoor & Ride-On": {
            "family": "toys",
            "price": (1200.0, 0.9),
            "leaves": {
                "Ride-On Cars": {
                    "nouns": ["ride-on car", "kids electric car", "ride on toy car"],
                    "sku": ["color_family"],
                    "price": (6500.0, 0.6),
                    "attrs": {"battery_voltage": ["6v", "12v", "24v"], "seats_kid": ["1 seater", "2 seater"]},
                },
                "Kids Bicycles": {
                    "nouns": ["kids bike", "children's bicycle", "kids bicycle"],
                    "sku": ["color_family"],
                    "price": (2500.0, 0.6),
                    "attrs": {
                        "kids_wheel_size": ["12 inches", "14 inches", "16 inches", "20 inches"],
                        "training_wheels": ["with training wheels", "without training wheels"],
                    },
                },
                "Pools & Water Toys": {
                    "nouns": ["inflatable pool", "kiddie pool", "swimming pool"],
                    "sku": [],
                    "price": (800.0, 0.8),
                    "attrs": {
                        "pool_size": ["120cm", "150cm", "180cm", "210cm", "260cm", "305cm"],
                        "pool_shape": ["round", "rectangular", "ring", "with slide"],
                    },
                },
                "Playhouses & Slides": {
                    "nouns": ["kids slide", "playground slide", "play set"],
                    "sku": ["color_family"],
                    "price": (2500.0, 0.8),
                    "attrs": {"play_structure": ["slide", "slide and swing", "playhouse", "ball pit", "climber"]},
                },
                "Remote Control Toys": {
                    "nouns": ["rc toy", "remote control toy", "radio controlled toy"],
                    "sku": ["color_family"],
                    "price": (1200.0, 0.7),
                    "attrs": {
                        "rc_type": ["car", "truck", "helicopter", "boat", "stunt car", "excavator", "drone"],
                        "rc_range": ["20m", "50m", "80m", "100m"],
                    },
                },
                "Kites": {
                    "nouns": ["kite", "saranggola", "flying kite"],
                    "sku": ["color_family"],
                    "price": (200.0, 0.6),
                    "attrs": {
                        "kite_shape": ["diamond", "delta", "box", "octopus", "eagle", "parafoil"],
                        "kite_span": ["80cm", "120cm", "150cm", "200cm"],
                    },
                },
            },
        },
    },
    "Sports & Outdoors": {
        "Team & Ball Sports": {
            "family": "sports",
            "price": (900.0, 0.8),
            "leaves": {
                "Basketball Equipment": {
                    "nouns": ["basketball", "basketball ball", "rubber basketball"],
                    "sku": ["ball_size"],
                    "price": (900.0, 0.6),
                    "attrs": {
                        "ball_size": ["size 3", "size 5", "size 6", "size 7"],
                        "court_type": ["indoor", "outdoor", "indoor/outdoor"],
                        "sport": ["basketball", "3x3 basketball"],
                    },
                },
                "Basketball Rings & Boards": {
                    "nouns": ["basketball ring", "basketball hoop", "backboard"],
                    "sku": [],
                    "price": (3500.0, 0.8),
                    "attrs": {
                        "hoop_mount": ["wall mounted", "portable stand", "over-the-door", "in-ground"],
                        "backboard_size": ["mini", "44 inches", "48 inches", "54 inches", "regulation 72 inches"],
                    },
                },
                "Volleyball": {
                    "nouns": ["volleyball", "volleyball ball", "beach volleyball"],
                    "sku": [],
                    "price": (800.0, 0.6),
                    "attrs": {
                        "volleyball_type": ["indoor", "beach", "soft touch", "training", "official match"],
                        "panel_count": ["8 panels", "12 panels", "18 panels"],
                        "sport": ["volleyball", "beach volleyball"],
                    },
                },
                "Football & Futsal": {
                    "nouns": ["football", "soccer ball", "futsal ball"],
                    "sku": ["ball_size"],
                    "price": (700.0, 0.6),
                    "attrs": {
                        "ball_size": ["size 3", "size 4", "size 5"],
                        "ball_construction": ["machine stitched", "hand stitched", "thermally bonded"],
                        "sport": ["football", "futsal"],
                    },
                },
                "Sports Jerseys & Team Merchandise": {
                    "nouns": ["jersey", "team jersey", "fan jersey"],
                    "sku": ["size"],
                    "price": (650.0, 0.7),
                    "attrs": {
                        "sport": ["basketball", "volleyball", "football", "baseball", "esports", "american football"],
                        "team_league": [
                            "pba",
                            "nba",
                            "uaap",
                            "ncaa philippines",
                            "pvl",
                            "mpbl",
                            "fiba",
                            "premier league",
                        ],
                        "jersey_version": ["replica", "authentic", "fan version", "retro"],
                        "size": ["xs", "s", "m", "l", "xl", "2xl", "3xl"],
                    },
                },
                "Baseball & Softball": {
                    "nouns": ["baseball glove", "fielding glove", "softball glove"],
                    "sku": [],
                    "price": (1500.0, 0.6),
                    "attrs": {
                        "glove_size": [
                            "10 inches",
                            "11 inches",
                            "11.5 inches",
                            "12 inches",
                            "12.5 inches",
                            "13 inches",
                        ],
                        "throwing_hand": ["right hand throw", "left hand throw"],
                        "sport": ["baseball", "softball"],
                    },
                },
            },
        },
        "Racket Sports": {
            "family": "sports",
            "price": (900.0, 0.8),
            "leaves": {
                "Badminton Rackets": {
                    "nouns": ["badminton racket", "badminton racquet"],
                    "sku": ["racket_weight"],
                    "price": (1800.0, 0.8),
                    "attrs": {
                        "racket_weight": ["3u 85-89g", "4u 80-84g", "5u 75-79g", "6u 70-74g"],
                        "balance_point": ["head heavy", "even balance", "head light"],
                        "sport": ["badminton", "speed badminton"],
                    },
                },
                "Shuttlecocks": {
                    "nouns": ["shuttlecock", "badminton shuttlecock", "shuttle"],
                    "sku": [],
                    "price": (900.0, 0.5),
                    "attrs": {
                        "shuttle_feather": ["goose feather", "duck feather", "nylon", "hybrid"],
                        "shuttle_speed": ["75", "76", "77", "78", "79"],
                    },
                },
                "Tennis": {
                    "nouns": ["tennis racket", "tennis racquet"],
                    "sku": [],
                    "price": (4500.0, 0.7),
                    "attrs": {
                        "head_size": ["95 sq in", "98 sq in", "100 sq in", "105 sq in"],
                        "grip_size": ["g1", "g2", "g3", "g4"],
                        "sport": ["tennis", "soft tennis"],
                    },
                },
                "Table Tennis": {
                    "nouns": ["table tennis racket", "ping pong paddle", "table tennis bat"],
                    "sku": [],
                    "price": (700.0, 0.8),
                    "attrs": {
                        "paddle_rating": ["3 star", "5 star", "7 star", "9 star"],
                        "handle_shape": ["flared", "straight", "anatomic", "penhold"],
                        "sport": ["table tennis", "ping pong"],
                    },
                },
                "Pickleball": {
                    "nouns": ["pickleball paddle", "pickleball racket"],
                    "sku": [],
                    "price": (2500.0, 0.8),
                    "attrs": {
                        "paddle_core": ["polymer honeycomb", "nomex", "aluminum honeycomb"],
                        "paddle_face": ["fiberglass", "carbon fiber", "graphite", "raw carbon"],
                    },
                },
                "Strings & Grips": {
                    "nouns": ["racket string", "string reel", "stringing set"],
                    "sku": [],
                    "price": (350.0, 0.6),
                    "attrs": {
                        "sport": ["badminton", "tennis", "squash", "pickleball"],
                        "string_gauge": ["0.65mm", "0.68mm", "0.70mm", "1.25mm", "1.30mm"],
                    },
                },
                "Overgrips & Grip Tape": {
                    "nouns": ["overgrip", "grip tape", "racket grip"],
                    "sku": ["color_family"],
                    "price": (120.0, 0.6),
                    "attrs": {
                        "sport": ["badminton", "tennis", "pickleball", "squash"],
                        "grip_texture": ["tacky", "dry", "perforated", "towel grip"],
                    },
                },
            },
        },
        "Fitness & Gym": {
            "family": "sports",
            "price": (700.0, 0.9),
            "leaves": {
                "Dumbbells & Weights": {
                    "nouns": ["dumbbell", "dumbbell set", "weights"],
                    "sku": ["weight_kg"],
                    "price": (800.0, 0.8),
                    "attrs": {
                        "weight_kg": ["1kg", "2kg", "3kg", "5kg", "10kg", "20kg", "adjustable 24kg"],
                        "weight_coating": ["neoprene", "vinyl", "rubber hex", "chrome", "cast iron"],
                        "sport": ["weightlifting", "bodybuilding", "crossfit"],
                    },
                },
                "Yoga & Pilates Mats": {
                    "nouns": ["yoga mat", "exercise mat", "pilates mat"],
                    "sku": ["color_family", "mat_thickness"],
                    "price": (550.0, 0.6),
                    "attrs": {
                        "mat_thickness": ["4mm", "6mm", "8mm", "10mm", "15mm"],
                        "mat_surface": ["non-slip texture", "alignment lines", "cork top", "suede top"],
                        "sport": ["yoga", "pilates"],
                    },
                },
                "Resistance Bands": {
                    "nouns": ["resistance band", "exercise band", "loop band"],
                    "sku": [],
                    "price": (300.0, 0.6),
                    "attrs": {
                        "resistance_level": ["light", "medium", "heavy", "extra heavy", "set of 5 levels"],
                        "band_style": ["loop", "tube with handles", "fabric booty band", "flat therapy band"],
                    },
                },
                "Treadmills": {
                    "nouns": ["treadmill", "motorized treadmill", "home treadmill"],
                    "sku": [],
                    "price": (18000.0, 0.5),
                    "attrs": {
                        "max_user_weight": ["100kg", "120kg", "150kg", "180kg"],
                        "motor_hp": ["1.5 hp", "2 hp", "2.5 hp", "3 hp"],
                    },
                },
                "Activewear": {
                    "nouns": ["gym shirt", "workout top", "training shirt"],
                    "sku": ["color_family", "size"],
                    "price": (450.0, 0.6),
                    "attrs": {
                        "activewear_fit": ["compression", "athletic fit", "relaxed fit", "muscle fit"],
                        "activewear_sleeve": ["sleeveless", "short sleeve", "long sleeve"],
                        "size": ["xs", "s", "m", "l", "xl", "2xl"],
                    },
                },
                "Boxing & Martial Arts": {
                    "nouns": ["boxing gloves", "training gloves", "sparring gloves"],
                    "sku": ["glove_weight"],
                    "price": (1400.0, 0.6),
                    "attrs": {
                        "sport": ["boxing", "muay thai", "kickboxing", "mma"],
                        "glove_weight": ["8 oz", "10 oz", "12 oz", "14 oz", "16 oz"],
                    },
                },
                "Arnis & Martial Arts Gear": {
                    "nouns": ["arnis stick", "martial arts gear", "training weapon"],
                    "sku": [],
                    "price": (500.0, 0.7),
                    "attrs": {
                        "sport": ["arnis", "eskrima", "taekwondo", "karate", "judo", "kendo"],
                        "gear_item": ["rattan stick", "padded stick", "uniform", "belt", "headgear", "chest guard"],
                    },
                },
                "Jump Ropes & Fitness Accessories": {
                    "nouns": ["jump rope", "skipping rope", "speed rope"],
                    "sku": [],
                    "price": (180.0, 0.6),
                    "attrs": {
                        "rope_type": ["speed cable", "beaded", "weighted", "cordless counter"],
                        "rope_length": ["2.8m", "3m", "adjustable"],
                    },
                },
            },
        },
        "Cycling": {
            "family": "sports",
            "price": (2500.0, 1.0),
            "leaves": {
                "Bicycles": {
                    "nouns": ["bicycle", "bike", "adult bicycle"],
                    "sku": ["wheel_size"],
                    "price": (12000.0, 0.7),
                    "attrs": {
                        "bike_type": ["mountain bike", "road bike", "folding bike", "bmx", "fixie", "gravel", "e-bike"],
                        "wheel_size": ["20 inches", "26 inches", "27.5 inches", "29 inches", "700c"],
                        "speed_gears": ["single speed", "7 speed", "21 speed", "24 speed", "1x12 speed"],
                    },
                },
                "Bike Parts & Components": {
                    "nouns": ["bike part", "bicycle part", "bike component"],
                    "sku": [],
                    "price": (1500.0, 0.9),
                    "attrs": {
                        "component": [
                            "groupset",
                            "brakes",
                            "chain",
                            "crankset",
                            "pedals",
                            "tires",
                            "saddle",
                            "handlebar",
                        ],
                        "speed_compatibility": [
                            "single speed",
                            "8 speed",
                            "9 speed",
                            "10 speed",
                            "11 speed",
                            "12 speed",
                        ],
                    },
                },
                "Helmets & Protective Gear": {
                    "nouns": ["sports helmet", "protective helmet", "multi-sport helmet"],
                    "sku": ["helmet_size"],
                    "price": (1200.0, 0.7),
                    "attrs": {
                        "sport": ["cycling", "skateboarding", "inline skating", "scootering"],
                        "helmet_size": ["s 52-56cm", "m 55-59cm", "l 58-62cm"],
                        "certification": ["cpsc", "en1078", "icc", "uncertified"],
                    },
                },
                "Bike Accessories": {
                    "nouns": ["bike accessory", "bicycle accessory", "cycling accessory"],
                    "sku": [],
                    "price": (400.0, 0.7),
                    "attrs": {
                        "bike_accessory": [
                            "headlight",
                            "tail light",
                            "pump",
                            "lock",
                            "bottle cage",
                            "phone mount",
                            "bell",
                            "saddle bag",
                        ]
                    },
                },
                "Skateboards & Inline Skates": {
                    "nouns": ["skateboard", "complete skateboard", "skate deck"],
                    "sku": ["color_family"],
                    "price": (1800.0, 0.7),
                    "attrs": {
                        "sport": ["skateboarding", "longboarding", "surf skating"],
                        "deck_length": ["22 inches", "28 inches", "31 inches", "33 inches", "41 inches"],
                    },
                },
            },
        },
        "Outdoor Recreation": {
            "family": "sports",
            "price": (1200.0, 0.9),
            "leaves": {
                "Camping Tents": {
                    "nouns": ["tent", "camping tent", "dome tent"],
                    "sku": ["tent_capacity"],
                    "price": (2500.0, 0.6),
                    "attrs": {
                        "tent_capacity": ["1 person", "2 persons", "4 persons", "6 persons", "8 persons"],
                        "tent_season": ["3 season", "4 season"],
                    },
                },
                "Sleeping Bags": {
                    "nouns": ["sleeping bag", "camping sleeping bag", "mummy sleeping bag"],
                    "sku": [],
                    "price": (1200.0, 0.6),
                    "attrs": {
                        "comfort_rating": ["warm weather", "3 season", "cold weather"],
                        "bag_shape": ["envelope", "mummy", "double"],
                    },
                },
                "Hammocks": {
                    "nouns": ["hammock", "camping hammock", "duyan"],
                    "sku": ["color_family"],
                    "price": (700.0, 0.6),
                    "attrs": {"hammock_capacity": ["single", "double", "with mosquito net", "with stand"]},
                },
                "Hiking Backpacks": {
                    "nouns": ["hiking backpack", "trekking backpack", "mountaineering bag"],
                    "sku": ["pack_volume"],
                    "price": (2500.0, 0.7),
                    "attrs": {
                        "pack_volume": ["20l", "30l", "40l", "50l", "60l", "70l"],
                        "frame": ["frameless", "internal frame", "external frame"],
                        "sport": ["hiking", "trekking", "mountaineering"],
                    },
                },
                "Fishing": {
                    "nouns": ["fishing rod", "fishing pole", "fishing rod combo"],
                    "sku": ["rod_length"],
                    "price": (1500.0, 0.8),
                    "attrs": {
                        "fishing_type": ["spinning", "baitcasting", "surf", "fly", "jigging"],
                        "rod_length": ["5 ft", "6 ft", "7 ft", "8 ft", "10 ft"],
                    },
                },
                "Swim Goggles": {
                    "nouns": ["swimming goggles", "swim goggles", "anti-fog goggles"],
                    "sku": ["color_family"],
                    "price": (450.0, 0.6),
                    "attrs": {
                        "sport": ["swimming", "triathlon", "open water swimming", "water polo"],
                        "lens_tint": ["clear", "smoke", "mirrored", "blue", "prescription"],
                    },
                },
                "Surfing & Paddle Sports": {
                    "nouns": ["surfboard", "paddle board", "board"],
                    "sku": [],
                    "price": (12000.0, 0.7),
                    "attrs": {
                        "sport": ["surfing", "stand-up paddle", "skimboarding", "bodyboarding"],
                        "board_length": ["4 ft", "6 ft", "7 ft", "8 ft", "9 ft", "10 ft"],
                    },
                },
                "Hydration & Flasks": {
                    "nouns": ["sports bottle", "hydration flask", "squeeze bottle"],
                    "sku": ["bottle_capacity"],
                    "price": (450.0, 0.6),
                    "attrs": {
                        "bottle_capacity": ["500ml", "750ml", "1l", "1.5l", "2l"],
                        "bottle_lid": ["squeeze cap", "straw lid", "chug lid", "flip spout"],
                    },
                },
            },
        },
    },
    "Automotive & Motorcycles": {
        "Car Accessories": {
            "family": "automotive",
            "price": (600.0, 0.8),
            "leaves": {
                "Car Seat Covers": {
                    "nouns": ["car seat cover", "seat cover", "car seat cushion"],
                    "sku": ["color_family"],
                    "price": (1500.0, 0.6),
                    "attrs": {
                        "seat_cover_fit": ["universal", "custom fit"],
                        "seat_rows": ["front seats", "full set 5 seater", "full set 7 seater"],
                    },
                },
                "Car Floor Mats": {
                    "nouns": ["car floor mat", "car matting", "car carpet"],
                    "sku": [],
                    "price": (1200.0, 0.6),
                    "attrs": {"mat_construction": ["rubber", "5d leather", "7d leather", "carpet", "tpe tray"]},
                },
                "Dash Cams": {
                    "nouns": ["dash cam", "dashcam", "car camera"],
                    "sku": [],
                    "price": (2500.0, 0.6),
                    "attrs": {
                        "dashcam_resolution": ["1080p", "1440p", "2k", "4k"],
                        "dashcam_channels": ["front only", "front and rear", "3 channel"],
                    },
                },
                "Car Phone Holders & Chargers": {
                    "nouns": ["car phone holder", "car mount", "phone holder for car"],
                    "sku": [],
                    "price": (350.0, 0.6),
                    "attrs": {"car_mount": ["vent clip", "dashboard suction", "windshield", "cup holder", "magnetic"]},
                },
                "Car Air Fresheners": {
                    "nouns": ["car air freshener", "car perfume", "car scent"],
                    "sku": ["freshener_scent"],
                    "price": (180.0, 0.6),
                    "attrs": {
                        "freshener_scent": [
                            "new car",
                            "vanilla",
                            "ocean",
                            "lemon",
                            "sakura",
                            "coffee",
                            "bubblegum",
                            "squash",
                        ],
                        "freshener_type": ["vent clip", "hanging", "gel can", "spray", "diffuser"],
                    },
                },
                "Car Stereos & Head Units": {
                    "nouns": ["car stereo", "head unit", "android head unit"],
                    "sku": [],
                    "price": (3500.0, 0.7),
                    "attrs": {
                        "head_unit_size": ["1 din", "2 din", "9 inches", "10 inches"],
                        "carplay": ["wireless carplay", "wired carplay", "no carplay"],
                    },
                },
            },
        },
        "Car Care & Parts": {
            "family": "automotive",
            "price": (800.0, 0.9),
            "leaves": {
                "Car Wash & Detailing": {
                    "nouns": ["car care product", "car detailing product", "car cleaner"],
                    "sku": ["pack_size"],
                    "price": (350.0, 0.7),
                    "attrs": {
                        "detailing_product": [
                            "car shampoo",
                            "wax",
                            "ceramic coating",
                            "tire black",
                            "glass cleaner",
                            "clay bar",
                            "interior cleaner",
                        ]
                    },
                },
                "Engine Oil & Fluids": {
                    "nouns": ["engine oil", "motor oil", "car engine oil"],
                    "sku": ["oil_volume", "viscosity"],
                    "price": (650.0, 0.6),
                    "attrs": {
                        "viscosity": ["0w-20", "5w-30", "10w-40", "15w-40", "20w-50", "sae 40"],
                        "oil_type": ["mineral", "semi-synthetic", "fully synthetic"],
                        "oil_volume": ["1l", "4l", "5l", "6l"],
                    },
                },
                "Car Batteries": {
                    "nouns": ["car battery", "automotive battery", "vehicle battery"],
                    "sku": [],
                    "price": (4500.0, 0.4),
                    "attrs": {
                        "battery_model": ["ns40", "ns60", "ns70", "din 55", "din 66", "3sm", "2sm"],
                        "battery_tech": ["maintenance free", "low maintenance", "agm", "efb"],
                    },
                },
                "Car Lights": {
                    "nouns": ["car led headlight", "headlight bulb", "led bulb for car"],
                    "sku": ["bulb_socket"],
                    "price": (900.0, 0.7),
                    "attrs": {
                        "bulb_socket": ["h1", "h4", "h7", "h11", "9005", "9006", "t10", "t20"],
                        "headlight_color": ["6000k white", "3000k yellow", "4300k warm"],
                    },
                },
                "Wiper Blades": {
                    "nouns": ["wiper blade", "windshield wiper", "car wiper"],
                    "sku": ["wiper_length"],
                    "price": (400.0, 0.5),
                    "attrs": {
                        "wiper_length": [
                            "14 inches",
                            "16 inches",
                            "18 inches",
                            "20 inches",
                            "22 inches",
                            "24 inches",
                            "26 inches",
                        ],
                        "wiper_frame": ["frameless", "hybrid", "conventional"],
                    },
                },
                "Tires & Wheels": {
                    "nouns": ["car tire", "tire", "radial tire"],
                    "sku": ["tire_size"],
                    "price": (4500.0, 0.5),
                    "attrs": {
                        "tire_size": [
                            "175/65 r14",
                            "185/65 r15",
                            "195/55 r16",
                            "205/55 r16",
                            "215/60 r17",
                            "265/65 r17",
                        ],
                        "tire_terrain": ["highway", "all-terrain", "mud-terrain", "performance"],
                    },
                },
                "Car Emergency & Tools": {
                    "nouns": ["car emergency kit", "roadside tool", "car tool"],
                    "sku": [],
                    "price": (900.0, 0.7),
                    "attrs": {
                        "emergency_item": [
                            "tire inflator",
                            "jumper cables",
                            "car jack",
                            "early warning device",
                            "tow rope",
                            "fire extinguisher",
                        ]
                    },
                },
            },
        },
        "Motorcycle Parts & Gear": {
            "family": "motorcycle",
            "price": (700.0, 0.9),
            "leaves": {
                "Motorcycle Helmets": {
                    "nouns": ["motorcycle helmet", "helmet", "riding helmet"],
                    "sku": ["helmet_size", "color_family"],
                    "price": (2500.0, 0.7),
                    "attrs": {
                        "helmet_style": ["full face", "modular", "open face", "half face", "dual sport"],
                        "helmet_cert": ["icc", "dot", "ece 22.06", "snell"],
                        "helmet_size": ["s", "m", "l", "xl", "2xl"],
                    },
                },
                "Riding Gear": {
                    "nouns": ["riding gear", "motorcycle gear", "rider apparel"],
                    "sku": ["gear_size"],
                    "price": (800.0, 0.8),
                    "attrs": {
                        "riding_gear_type": ["jacket", "gloves", "raincoat", "arm sleeves", "boots", "balaclava"],
                        "gear_size": ["s", "m", "l", "xl", "2xl"],
                    },
                },
                "Motorcycle Parts": {
                    "nouns": ["motorcycle part", "motor part", "replacement part"],
                    "sku": ["moto_model"],
                    "price": (900.0, 0.8),
                    "attrs": {
                        "moto_part": [
                            "brake pads",
                            "chain sprocket set",
                            "mags",
                            "muffler",
                            "cvt set",
                            "shock absorber",
                            "spark plug",
                            "air filter",
                        ],
                        "moto_model": [
                            "honda click 125",
                            "yamaha nmax",
                            "yamaha aerox",
                            "honda beat",
                            "suzuki raider 150",
                            "yamaha mio",
                            "honda tmx 155",
                            "kawasaki barako",
                            "honda adv 160",
                        ],
                    },
                },
                "Motorcycle Accessories": {
                    "nouns": ["motorcycle accessory", "motor accessory", "bike accessory for motor"],
                    "sku": [],
                    "price": (650.0, 0.8),
                    "attrs": {
                        "moto_accessory": [
                            "top box",
                            "side box",
                            "phone holder",
                            "handle grips",
                            "side mirror",
                            "seat cover",
                            "usb charger",
                        ]
                    },
                },
                "Motorcycle Oil & Care": {
                    "nouns": ["motorcycle oil", "scooter oil", "moto oil"],
                    "sku": ["moto_oil_volume"],
                    "price": (350.0, 0.5),
                    "attrs": {
                        "engine_stroke": ["4t", "2t", "scooter mb", "gear oil"],
                        "moto_oil_volume": ["0.8l", "1l", "1.2l"],
                    },
                },
                "Motorcycle Tires": {
                    "nouns": ["motorcycle tire", "scooter tire", "tubeless tire"],
                    "sku": ["moto_tire_size"],
                    "price": (1300.0, 0.5),
                    "attrs": {
                        "moto_tire_size": ["70/80-14", "80/80-14", "90/80-14", "110/70-13", "130/70-13", "2.50-17"],
                        "tread_pattern": ["street", "dual sport", "racing", "rain"],
                    },
                },
            },
        },
    },
    "Pet Supplies": {
        "Dog Supplies": {
            "family": "pets",
            "price": (450.0, 0.8),
            "leaves": {
                "Dog Food": {
                    "nouns": ["dog food", "dry dog food", "dog kibble"],
                    "sku": ["food_weight"],
                    "price": (900.0, 0.8),
                    "attrs": {
                        "dog_food_flavor": ["chicken", "beef", "lamb", "salmon", "liver", "chicken and rice"],
                        "food_weight": ["400g", "1kg", "3kg", "8kg", "15kg", "20kg"],
                    },
                },
                "Wet Dog Food": {
                    "nouns": ["wet dog food", "canned dog food", "dog food pouch"],
                    "sku": ["dog_food_flavor"],
                    "price": (120.0, 0.6),
                    "attrs": {
                        "dog_food_flavor": [
                            "chicken",
                            "beef",
                            "lamb",
                            "liver",
                            "chicken and rice",
                            "beef and vegetables",
                        ],
                        "wet_format": ["can 400g", "pouch 85g", "pouch 100g", "tray 100g"],
                    },
                },
                "Dog Treats": {
                    "nouns": ["dog treat", "dog snack", "dog chew"],
                    "sku": ["treat_flavor"],
                    "price": (200.0, 0.6),
                    "attrs": {
                        "treat_type": ["dental stick", "jerky", "biscuit", "rawhide", "chew bone", "training treats"],
                        "treat_flavor": ["chicken", "beef", "bacon", "peanut butter", "milk", "cheese"],
                    },
                },
                "Dog Collars, Leashes & Harnesses": {
                    "nouns": ["dog harness", "harness", "no-pull harness"],
                    "sku": ["pet_size", "color_family"],
                    "price": (350.0, 0.6),
                    "attrs": {
                        "harness_style": ["vest", "step-in", "no-pull front clip", "h-style"],
                        "reflective": ["reflective", "non-reflective"],
                    },
                },
                "Dog Beds & Crates": {
                    "nouns": ["dog bed", "pet bed", "dog cushion"],
                    "sku": ["pet_size"],
                    "price": (700.0, 0.7),
                    "attrs": {"bed_form": ["round donut", "flat mat", "bolster", "elevated cot", "orthopedic"]},
                },
                "Dog Grooming": {
                    "nouns": ["dog shampoo", "pet shampoo", "dog wash"],
                    "sku": ["pet_scent"],
                    "price": (250.0, 0.6),
                    "attrs": {
                        "coat_type": ["short coat", "long coat", "all coats", "white coat"],
                        "pet_scent": ["baby powder", "lavender", "green apple", "unscented", "oatmeal"],
                    },
                },
                "Dog Toys": {
                    "nouns": ["dog toy", "pet toy", "chew toy"],
                    "sku": [],
                    "price": (200.0, 0.6),
                    "attrs": {
                        "chew_strength": ["light", "moderate", "aggressive"],
                        "toy_form": ["rope", "ball", "bone", "plush", "puzzle feeder"],
                    },
                },
            },
        },
        "Cat Supplies": {
            "family": "pets",
            "price": (400.0, 0.8),
            "leaves": {
                "Cat Food": {
                    "nouns": ["cat food", "dry cat food", "cat kibble"],
                    "sku": ["food_weight"],
                    "price": (600.0, 0.7),
                    "attrs": {
                        "cat_food_flavor": ["tuna", "salmon", "chicken", "ocean fish", "mackerel", "seafood"],
                        "food_weight": ["400g", "1kg", "1.5kg", "3kg", "7kg"],
                    },
                },
                "Cat Treats": {
                    "nouns": ["cat treat", "cat snack", "lickable cat treat"],
                    "sku": ["treat_flavor"],
                    "price": (150.0, 0.6),
                    "attrs": {
                        "cat_treat_form": ["lickable puree", "crunchy", "freeze-dried", "jerky"],
                        "treat_flavor": ["tuna", "salmon", "chicken", "bonito", "shrimp"],
                    },
                },
                "Cat Litter": {
                    "nouns": ["cat litter", "litter sand", "kitty litter"],
                    "sku": ["litter_volume"],
                    "price": (350.0, 0.6),
                    "attrs": {
                        "litter_type": ["bentonite", "tofu", "silica", "pine", "zeolite"],
                        "litter_volume": ["5l", "6l", "10l", "20l"],
                    },
                },
                "Litter Boxes": {
                    "nouns": ["litter box", "cat litter box", "litter tray"],
                    "sku": ["color_family"],
                    "price": (650.0, 0.8),
                    "attrs": {"litter_box_style": ["open tray", "hooded", "self-cleaning", "drawer type", "top entry"]},
                },
                "Cat Trees & Scratchers": {
                    "nouns": ["cat tree", "cat scratcher", "cat condo"],
                    "sku": [],
                    "price": (1200.0, 0.8),
                    "attrs": {"tree_height": ["50cm", "80cm", "120cm", "150cm", "180cm"]},
                },
                "Cat Toys": {
                    "nouns": ["cat toy", "interactive cat toy", "kitten toy"],
                    "sku": [],
                    "price": (150.0, 0.6),
                    "attrs": {
                        "cat_toy_kind": [
                            "teaser wand",
                            "ball track",
                            "tunnel",
                            "catnip mouse",
                            "laser pointer",
                            "electronic fish",
                        ]
                    },
                },
            },
        },
        "Fish & Aquatics": {
            "family": "pets",
            "price": (350.0, 0.8),
            "leaves": {
                "Aquariums & Tanks": {
                    "nouns": ["aquarium", "fish tank", "aquarium tank"],
                    "sku": ["tank_volume"],
                    "price": (1500.0, 0.8),
                    "attrs": {
                        "tank_volume": ["5l", "20l", "40l", "100l", "200l"],
                        "tank_glass": ["standard glass", "ultra clear", "acrylic"],
                    },
                },
                "Fish Food": {
                    "nouns": ["fish food", "fish feed", "aquarium food"],
                    "sku": [],
                    "price": (150.0, 0.6),
                    "attrs": {
                        "fish_food_form": ["flakes", "floating pellets", "sinking pellets", "freeze-dried", "granules"],
                        "fish_species": ["betta", "goldfish", "koi", "guppy", "arowana", "flowerhorn", "tropical fish"],
                    },
                },
                "Filters & Pumps": {
                    "nouns": ["aquarium filter", "fish tank filter", "filter pump"],
                    "sku": [],
                    "price": (600.0, 0.7),
                    "attrs": {
                        "filter_kind": ["hang-on-back", "canister", "sponge", "internal", "top filter"],
                        "flow_rate": ["200 l/h", "500 l/h", "1000 l/h", "2000 l/h"],
                    },
                },
                "Aquarium Decor & Plants": {
                    "nouns": ["aquarium decor", "aquascape decor", "fish tank decoration"],
                    "sku": [],
                    "price": (250.0, 0.7),
                    "attrs": {
                        "decor_type": ["live plant", "artificial plant", "driftwood", "stones", "substrate", "ornament"]
                    },
                },
            },
        },
        "Small Pets & Birds": {
            "family": "pets",
            "price": (300.0, 0.8),
            "leaves": {
                "Bird Supplies": {
                    "nouns": ["bird cage", "birdcage", "aviary cage"],
                    "sku": [],
                    "price": (900.0, 0.7),
                    "attrs": {
                        "bird_species": ["lovebird", "parakeet", "cockatiel", "finch", "pigeon", "parrot"],
                        "cage_size": ["small", "medium", "large", "flight cage"],
                    },
                },
                "Bird Feed": {
                    "nouns": ["bird feed", "bird seed", "birdseed mix"],
                    "sku": ["net_weight_feed"],
                    "price": (180.0, 0.6),
                    "attrs": {
                        "feed_blend": ["mixed seeds", "millet", "canary seed", "pellets", "sunflower seeds"],
                        "net_weight_feed": ["500g", "1kg", "2kg", "5kg"],
                    },
                },
                "Hamster & Rabbit Supplies": {
                    "nouns": ["hamster cage", "small pet cage", "rabbit cage"],
                    "sku": [],
                    "price": (800.0, 0.7),
                    "attrs": {"small_pet_cage": ["starter kit", "multi-level", "acrylic bin", "hutch"]},
                },
                "Reptile & Turtle Supplies": {
                    "nouns": ["turtle tank", "reptile terrarium", "turtle habitat"],
                    "sku": [],
                    "price": (900.0, 0.7),
                    "attrs": {
                        "terrarium_size": ["30cm", "45cm", "60cm", "90cm"],
                        "basking_setup": ["with basking platform", "with uvb lamp", "tank only"],
                    },
                },
            },
        },
        "Pet Health & Accessories": {
            "family": "pets",
            "price": (350.0, 0.7),
            "leaves": {
                "Flea & Tick Control": {
                    "nouns": ["flea and tick treatment", "tick and flea control", "anti-tick treatment"],
                    "sku": ["pet_size"],
                    "attrs": {
                        "treatment_form": ["spot-on", "collar", "chewable", "spray", "shampoo", "powder"],
                        "animal_type": ["dog", "cat", "dog and cat"],
                    },
                },
                "Pet Vitamins & Supplements": {
                    "nouns": ["pet vitamins", "pet supplement", "pet multivitamins"],
                    "sku": [],
                    "attrs": {
                        "supplement_focus": [
                            "multivitamin",
                            "joint",
                            "skin and coat",
                            "digestion",
                            "appetite",
                            "immunity",
                        ],
                        "animal_type": ["dog", "cat", "dog and cat"],
                    },
                },
                "Pet Clothes": {
                    "nouns": ["pet clothes", "dog shirt", "pet outfit"],
                    "sku": ["pet_size", "color_family"],
                    "price": (200.0, 0.6),
                    "attrs": {
                        "pet_apparel": ["shirt", "dress", "hoodie", "raincoat", "costume", "bandana"],
                        "animal_type": ["dog", "cat"],
                    },
                },
                "Pet Bowls & Feeders": {
                    "nouns": ["pet bowl", "pet feeder", "food bowl"],
                    "sku": [],
                    "price": (300.0, 0.8),
                    "attrs": {
                        "feeder_type": [
                            "single bowl",
                            "double bowl",
                            "elevated bowl",
                            "slow feeder",
                            "automatic feeder",
                            "water fountain",
                        ],
                        "animal_type": ["dog", "cat", "dog and cat", "rabbit"],
                    },
                },
                "Pet Carriers & Strollers": {
                    "nouns": ["pet carrier", "pet bag", "pet travel carrier"],
                    "sku": ["pet_size"],
                    "price": (1200.0, 0.7),
                    "attrs": {
                        "carrier_form": ["hard crate", "soft carrier", "backpack", "sling", "pet stroller"],
                        "airline_approved": ["airline approved", "not airline approved"],
                        "animal_type": ["dog", "cat", "rabbit", "small pets"],
                    },
                },
            },
        },
    },
    "Stationery & Craft": {
        "Writing Instruments": {
            "family": "stationery",
            "price": (80.0, 0.7),
            "leaves": {
                "Ballpens & Gel Pens": {
                    "nouns": ["pen", "ballpen", "writing pen"],
                    "sku": ["point_size", "color_family"],
                    "attrs": {
                        "type_of_inks": ["gel", "ballpoint", "hybrid", "erasable gel", "oil-based"],
                        "point_size": ["0.38mm", "0.5mm", "0.7mm", "1.0mm"],
                    },
                },
                "Pencils": {
                    "nouns": ["pencil", "wooden pencil", "drawing pencil"],
                    "sku": ["lead_grade"],
                    "price": (60.0, 0.6),
                    "attrs": {
                        "lead_grade": ["hb", "2b", "4b", "6b", "2h", "#2"],
                        "pencil_tip": ["with eraser", "no eraser"],
                    },
                },
                "Mechanical Pencils & Leads": {
                    "nouns": ["mechanical pencil", "lead pencil", "automatic pencil"],
                    "sku": ["lead_size"],
                    "price": (120.0, 0.8),
                    "attrs": {
                        "lead_size": ["0.3mm", "0.5mm", "0.7mm", "0.9mm", "2.0mm"],
                        "lead_advance": ["push button", "shaker", "auto rotating"],
                    },
                },
                "Highlighters & Markers": {
                    "nouns": ["marker", "marker pen", "markers"],
                    "sku": ["color_family"],
                    "attrs": {
                        "marker_type": ["highlighter", "permanent", "whiteboard", "sign pen", "brush pen"],
                        "tip_shape": ["chisel", "bullet", "fine", "brush", "dual tip"],
                    },
                },
                "Fountain Pens & Calligraphy": {
                    "nouns": ["fountain pen", "calligraphy pen", "ink pen"],
                    "sku": ["nib_size"],
                    "price": (600.0, 0.9),
                    "attrs": {
                        "nib_size": ["ef", "f", "m", "b", "italic 1.1mm", "italic 1.5mm"],
                        "filling_system": ["cartridge", "converter", "piston", "eyedropper", "dip"],
                    },
                },
                "Correction Supplies": {
                    "nouns": ["correction supplies", "correction product", "whiteout"],
                    "sku": [],
                    "price": (60.0, 0.5),
                    "attrs": {"correction_form": ["tape", "pen", "fluid", "tape refill"]},
                },
            },
        },
        "Paper & Notebooks": {
            "family": "stationery",
            "price": (120.0, 0.7),
            "leaves": {
                "Notebooks & Journals": {
                    "nouns": ["notebook", "journal", "school notebook"],
                    "sku": ["ruling"],
                    "attrs": {
                        "ruling": ["lined", "dotted", "grid", "blank"],
                        "sheet_count": ["40 leaves", "80 leaves", "100 leaves", "120 leaves", "200 pages"],
                        "binding": ["spiral", "sewn", "glued", "ring bound", "stitched"],
                    },
                },
                "Planners & Calendars": {
                    "nouns": ["planner", "organizer planner", "agenda"],
                    "sku": ["color_family"],
                    "price": (350.0, 0.6),
                    "attrs": {
                        "planner_layout": ["daily", "weekly", "monthly", "undated", "academic year"],
                        "planner_size": ["a5", "a6", "b6", "personal", "a4"],
                    },
                },
                "Bond & Copy Paper": {
                    "nouns": ["bond paper", "copy paper", "printing paper"],
                    "sku": ["paper_size"],
                    "price": (250.0, 0.5),
                    "attrs": {
                        "paper_size": ["a4", "short", "long", "a3", "letter"],
                        "paper_weight": ["70gsm", "80gsm", "100gsm"],
                    },
                },
                "Photo & Specialty Paper": {
                    "nouns": ["photo paper", "sticker paper", "specialty paper"],
                    "sku": ["paper_finish"],
                    "price": (180.0, 0.6),
                    "attrs": {
                        "paper_finish": ["glossy", "matte", "satin", "holographic", "transparent"],
                        "specialty_gsm": ["120gsm", "180gsm", "230gsm", "260gsm"],
                    },
                },
                "Intermediate Pads & Yellow Pads": {
                    "nouns": ["yellow pad", "intermediate pad", "pad paper"],
                    "sku": ["pad_size"],
                    "price": (50.0, 0.5),
                    "attrs": {
                        "pad_size": ["grade 1", "grade 2", "grade 3", "grade 4", "long", "short"],
                        "pad_leaves": ["50 leaves", "80 leaves", "100 leaves"],
                    },
                },
                "Sticky Notes & Labels": {
                    "nouns": ["sticky notes", "memo pad", "page flags"],
                    "sku": ["color_family"],
                    "price": (60.0, 0.6),
                    "attrs": {"note_size": ["1.5x2 inches", "3x3 inches", "3x5 inches", "page marker size"]},
                },
                "Envelopes & Folders": {
                    "nouns": ["document holder", "file folder", "filing supply"],
                    "sku": ["color_family"],
                    "price": (80.0, 0.7),
                    "attrs": {
                        "folder_type": [
                            "brown envelope",
                            "plastic envelope",
                            "expanding file",
                            "clear book",
                            "ring binder",
                            "sliding folder",
                        ],
                        "folder_size": ["short", "long", "a4"],
                    },
                },
            },
        },
        "Art Supplies": {
            "family": "stationery",
            "price": (250.0, 0.8),
            "leaves": {
                "Paints": {
                    "nouns": ["paint set", "art paint", "artist paint"],
                    "sku": ["number_of_colors"],
                    "attrs": {
                        "paint_medium": ["acrylic", "watercolor", "gouache", "oil", "poster color"],
                        "number_of_colors": ["6 colors", "12 colors", "24 colors", "36 colors", "48 colors"],
                    },
                },
                "Canvas & Canvas Boards": {
                    "nouns": ["canvas board", "stretched canvas", "painting canvas"],
                    "sku": ["canvas_size"],
                    "price": (200.0, 0.7),
                    "attrs": {
                        "canvas_size": ["8x10 inches", "11x14 inches", "12x16 inches", "16x20 inches", "24x36 inches"],
                        "canvas_texture": ["fine grain", "medium grain", "primed cotton", "linen"],
                    },
                },
                "Coloring Materials": {
                    "nouns": ["coloring set", "art set", "coloring materials"],
                    "sku": ["drawing_set_size"],
                    "attrs": {
                        "drawing_medium": [
                            "colored pencils",
                            "crayons",
                            "oil pastels",
                            "soft pastels",
                            "charcoal",
                            "markers",
                        ],
                        "drawing_set_size": ["12 pcs", "24 pcs", "36 pcs", "48 pcs", "72 pcs"],
                    },
                },
                "Sketchbooks & Art Paper": {
                    "nouns": ["sketchbook", "sketch pad", "drawing pad"],
                    "sku": [],
                    "price": (220.0, 0.6),
                    "attrs": {
                        "art_paper_weight": ["100gsm", "150gsm", "200gsm", "300gsm"],
                        "art_paper_type": ["drawing", "watercolor", "mixed media", "toned", "marker paper"],
                    },
                },
                "Calligraphy & Lettering": {
                    "nouns": ["brush pen set", "lettering pen set", "calligraphy set"],
                    "sku": [],
                    "price": (300.0, 0.7),
                    "attrs": {
                        "lettering_style": [
                            "modern calligraphy",
                            "copperplate",
                            "gothic",
                            "baybayin script",
                            "hand lettering",
                        ]
                    },
                },
            },
        },
        "Crafts & DIY": {
            "family": "stationery",
            "price": (180.0, 0.8),
            "leaves": {
                "Yarn & Crochet": {
                    "nouns": ["yarn", "crochet yarn", "knitting yarn"],
                    "sku": ["color_family"],
                    "price": (90.0, 0.6),
                    "attrs": {
                        "yarn_weight": ["lace", "fingering", "sport", "dk", "worsted", "bulky"],
                        "fiber": ["acrylic", "cotton", "milk cotton", "wool", "bamboo", "polyester", "abaca"],
                    },
                },
                "Embroidery & Cross Stitch": {
                    "nouns": ["needlework kit", "stitching kit", "craft kit"],
                    "sku": [],
                    "price": (280.0, 0.6),
                    "attrs": {
                        "needlework_type": ["embroidery", "cross stitch", "punch needle", "tapestry"],
                        "hoop_size": ["10cm", "15cm", "20cm", "30cm"],
                    },
                },
                "Beads & Jewelry Making": {
                    "nouns": ["beads", "bead set", "jewelry making kit"],
                    "sku": [],
                    "price": (150.0, 0.7),
                    "attrs": {
                        "bead_type": [
                            "seed beads",
                            "clay beads",
                            "crystal beads",
                            "wooden beads",
                            "pearls",
                            "letter beads",
                        ],
                        "bead_size": ["2mm", "4mm", "6mm", "8mm", "10mm"],
                    },
                },
                "Scrapbooking & Stickers": {
                    "nouns": ["sticker pack", "washi tape", "scrapbook kit"],
                    "sku": [],
                    "price": (80.0, 0.6),
                    "attrs": {
                        "sticker_theme": ["kawaii", "vintage", "floral", "k-pop", "anime", "planner", "pinoy food"]
                    },
                },
                "Glue, Tape & Cutting Tools": {
                    "nouns": ["adhesive", "craft glue", "glue"],
                    "sku": ["pack_size"],
                    "price": (60.0, 0.6),
                    "attrs": {
                        "adhesive_type": [
                            "glue stick",
                            "white glue",
                            "glue gun sticks",
                            "double sided tape",
                            "masking tape",
                            "super glue",
                            "rugby contact cement",
                        ]
                    },
                },
                "Party Supplies & Gift Wrap": {
                    "nouns": ["party supplies", "party decoration", "party kit"],
                    "sku": ["color_family"],
                    "price": (250.0, 0.7),
                    "attrs": {
                        "party_theme": [
                            "birthday",
                            "wedding",
                            "christening",
                            "debut",
                            "christmas",
                            "halloween",
                            "baby shower",
                            "graduation",
                        ]
                    },
                },
            },
        },
        "School & Office Supplies": {
            "family": "stationery",
            "price": (250.0, 0.8),
            "leaves": {
                "Pencil Cases": {
                    "nouns": ["pencil case", "pencil pouch", "pen case"],
                    "sku": ["color_family"],
                    "price": (180.0, 0.6),
                    "attrs": {"case_layers": ["single zip", "double zip", "triple layer", "roll-up"]},
                },
                "Calculators": {
                    "nouns": ["calculator", "electronic calculator", "school calculator"],
                    "sku": [],
                    "price": (600.0, 0.8),
                    "attrs": {
                        "calc_type": ["basic", "scientific", "financial", "graphing", "printing"],
                        "calc_functions": ["12 functions", "240 functions", "417 functions", "552 functions"],
                    },
                },
                "Desk Organizers": {
                    "nouns": ["desk organizer", "pen holder", "file organizer"],
                    "sku": ["color_family"],
                    "attrs": {"organizer_tiers": ["1 tier", "2 tiers", "3 tiers", "rotating"]},
                },
                "Office Equipment": {
                    "nouns": ["office equipment", "office machine", "office tool"],
                    "sku": [],
                    "price": (800.0, 1.0),
                    "attrs": {
                        "office_device": [
                            "stapler",
                            "puncher",
                            "laminator",
                            "paper shredder",
                            "label maker",
                            "binding machine",
                        ]
                    },
                },
                "Whiteboards & Bulletin Boards": {
                    "nouns": ["display board", "wall board", "message board"],
                    "sku": [],
                    "price": (700.0, 0.7),
                    "attrs": {
                        "board_size": ["30x40cm", "60x90cm", "90x120cm", "120x240cm"],
                        "board_surface": ["whiteboard", "cork", "chalkboard", "magnetic glass"],
                    },
                },
            },
        },
    },
    "Media, Music & Books": {
        "Books": {
            "family": "media",
            "price": (450.0, 0.6),
            "leaves": {
                "Fiction": {
                    "nouns": ["novel", "fiction book", "paperback novel"],
                    "sku": [],
                    "attrs": {
                        "fiction_genre": [
                            "literary fiction",
                            "mystery",
                            "thriller",
                            "romance",
                            "science fiction",
                            "fantasy",
                            "horror",
                            "historical fiction",
                        ],
                        "format": ["paperback", "hardcover", "mass market paperback"],
                    },
                },
                "Filipino Literature": {
                    "nouns": ["filipino classic", "philippine literature book", "literature book"],
                    "sku": [],
                    "price": (350.0, 0.5),
                    "attrs": {
                        "classic_title": [
                            "noli me tangere",
                            "el filibusterismo",
                            "florante at laura",
                            "ibong adarna",
                            "dekada '70",
                            "mga ibong mandaragit",
                            "banaag at sikat",
                            "po-on",
                        ],
                        "lit_form": ["novel", "epic poem", "awit", "korido", "short stories"],
                        "format": ["paperback", "hardcover", "annotated edition"],
                    },
                },
                "Wattpad & Pocketbooks": {
                    "nouns": ["pocketbook", "wattpad book", "romance pocketbook"],
                    "sku": [],
                    "price": (250.0, 0.5),
                    "attrs": {
                        "pocketbook_genre": [
                            "teen romance",
                            "campus romance",
                            "fantasy",
                            "horror",
                            "mafia romance",
                            "comedy",
                        ],
                        "format": ["paperback", "pocketbook size", "hardbound"],
                    },
                },
                "Non-Fiction & Self-Help": {
                    "nouns": ["self-help book", "non-fiction book", "nonfiction book"],
                    "sku": [],
                    "attrs": {
                        "nonfiction_topic": [
                            "self-help",
                            "business",
                            "biography",
                            "philippine history",
                            "psychology",
                            "personal finance",
                            "philosophy",
                            "memoir",
                        ],
                        "format": ["paperback", "hardcover"],
                    },
                },
                "Children's Books": {
                    "nouns": ["children's book", "picture book", "kids book"],
                    "sku": [],
                    "price": (300.0, 0.6),
                    "attrs": {
                        "reading_level": ["baby 0-2", "toddler 2-4", "early reader", "middle grade", "chapter book"],
                        "kids_book_theme": [
                            "bedtime stories",
                            "alamat",
                            "animals",
                            "abc and numbers",
                            "fairy tales",
                            "values",
                        ],
                        "format": ["board book", "paperback", "hardcover", "lift-the-flap"],
                    },
                },
                "Comics, Manga & Graphic Novels": {
                    "nouns": ["comic book", "comics", "comic"],
                    "sku": ["volume_number"],
                    "price": (380.0, 0.5),
                    "attrs": {
                        "volume_number": ["vol. 1", "vol. 2", "vol. 3", "vol. 5", "vol. 10", "box set"],
                        "series_title": [
                            "one piece",
                            "naruto",
                            "demon slayer",
                            "jujutsu kaisen",
                            "chainsaw man",
                            "attack on titan",
                            "trese",
                            "darna",
                            "ang panday",
                        ],
                        "format": ["paperback", "tankobon", "omnibus", "box set"],
                    },
                },
                "Textbooks & Review Materials": {
                    "nouns": ["reviewer", "review book", "exam reviewer"],
                    "sku": [],
                    "price": (550.0, 0.5),
                    "attrs": {
                        "exam_subject": [
                            "civil service exam",
                            "nursing board",
                            "let reviewer",
                            "criminology board",
                            "cpa board",
                            "upcat",
                            "nmat",
                            "bar exam",
                        ],
                        "format": ["paperback", "spiral bound"],
                    },
                },
                "Cookbooks & Hobby Books": {
                    "nouns": ["cookbook", "recipe book", "hobby book"],
                    "sku": [],
                    "price": (650.0, 0.6),
                    "attrs": {
                        "hobby_topic": [
                            "filipino cooking",
                            "baking",
                            "gardening",
                            "crafts",
                            "photography",
                            "travel guide",
                            "kapampangan cuisine",
                        ],
                        "format": ["paperback", "hardcover"],
                    },
                },
                "Religious & Spiritual": {
                    "nouns": ["bible", "holy bible", "bibliya"],
                    "sku": [],
                    "price": (550.0, 0.6),
                    "attrs": {
                        "bible_version": ["niv", "kjv", "esv", "nabre", "magandang balita biblia", "ang dating biblia"],
                        "bible_size": ["pocket", "compact", "standard", "large print"],
                        "format": ["hardbound", "leather bound", "paperback", "with zipper case"],
                    },
                },
            },
        },
        "Magazines": {
            "family": "media",
            "price": (200.0, 0.5),
            "leaves": {
                "Lifestyle & Fashion Magazines": {
                    "nouns": ["magazine", "lifestyle magazine", "fashion magazine"],
                    "sku": ["issue_month"],
                    "attrs": {
                        "magazine_genre": [
                            "fashion",
                            "lifestyle",
                            "food",
                            "travel",
                            "home and design",
                            "entertainment",
                            "wedding",
                        ],
                        "issue_month": [
                            "january",
                            "february",
                            "march",
                            "april",
                            "may",
                            "june",
                            "july",
                            "august",
                            "september",
                            "october",
                            "november",
                            "december",
                        ],
                    },
                },
                "Business & Tech Magazines": {
                    "nouns": ["business magazine", "tech magazine", "news magazine"],
                    "sku": ["issue_month"],
                    "attrs": {
                        "mag_topic": ["business", "technology", "finance", "science", "automotive", "gaming"],
                        "issue_month": [
                            "january",
                            "february",
                            "march",
                            "april",
                            "may",
                            "june",
                            "july",
                            "august",
                            "september",
                            "october",
                            "november",
                            "december",
                        ],
                    },
                },
                "Kids & Educational Magazines": {
                    "nouns": ["kids magazine", "activity magazine", "children's magazine"],
                    "sku": [],
                    "price": (150.0, 0.5),
                    "attrs": {"kids_mag_focus": ["science", "puzzles", "coloring", "stories", "nature", "history"]},
                },
            },
        },
        "Music": {
            "family": "media",
            "price": (900.0, 0.7),
            "leaves": {
                "CDs": {
                    "nouns": ["music cd", "audio cd", "album cd"],
                    "sku": [],
                    "price": (550.0, 0.5),
                    "attrs": {
                        "music_genre": [
                            "opm",
                            "pop",
                            "rock",
                            "k-pop",
                            "jazz",
                            "classical",
                            "hip-hop",
                            "r&b",
                            "kundiman",
                            "country",
                            "worship",
                            "reggae",
                        ]
                    },
                },
                "Vinyl Records": {
                    "nouns": ["vinyl record", "lp record", "vinyl album"],
                    "sku": ["vinyl_color"],
                    "price": (2200.0, 0.5),
                    "attrs": {
                        "vinyl_genre": ["opm", "pop", "rock", "jazz", "soul", "classical", "city pop", "soundtrack"],
                        "vinyl_color": ["black", "colored", "picture disc", "splatter"],
                    },
                },
                "K-Pop & P-Pop Albums": {
                    "nouns": ["idol album", "music album", "album"],
                    "sku": ["album_version"],
                    "price": (1200.0, 0.6),
                    "attrs": {
                        "idol_group": [
                            "bts",
                            "blackpink",
                            "twice",
                            "seventeen",
                            "stray kids",
                            "newjeans",
                            "enhypen",
                            "sb19",
                            "bini",
                            "aespa",
                        ],
                        "album_version": ["standard", "digipack", "weverse", "jewel case", "photobook version"],
                    },
                },
                "Idol Merchandise": {
                    "nouns": ["lightstick", "official lightstick", "fan lightstick"],
                    "sku": [],
                    "price": (2500.0, 0.4),
                    "attrs": {
                        "fandom": ["army", "blink", "once", "carat", "stay", "a'tin", "blooms", "my"],
                        "lightstick_version": ["version 1", "version 2", "version 3", "special edition"],
                    },
                },
                "Cassettes & Music Memorabilia": {
                    "nouns": ["cassette tape", "music cassette", "mixtape cassette"],
                    "sku": [],
                    "price": (450.0, 0.7),
                    "attrs": {"music_era": ["60s", "70s", "80s", "90s", "2000s", "new release"]},
                },
            },
        },
        "Movies & TV": {
            "family": "media",
            "price": (500.0, 0.6),
            "leaves": {
                "DVDs & Blu-rays": {
                    "nouns": ["dvd", "blu-ray disc", "movie disc"],
                    "sku": [],
                    "attrs": {
                        "movie_genre": [
                            "action",
                            "comedy",
                            "drama",
                            "horror",
                            "animation",
                            "documentary",
                            "romance",
                            "filipino classic",
                        ],
                        "mtrcb_rating": ["g", "pg", "r-13", "r-16", "r-18"],
                        "disc_format": ["dvd", "blu-ray", "4k uhd blu-ray"],
                    },
                },
                "TV Series Box Sets": {
                    "nouns": ["box set", "tv series box set", "complete season set"],
                    "sku": [],
                    "price": (1500.0, 0.6),
                    "attrs": {
                        "seasons": ["season 1", "seasons 1-3", "complete series", "final season"],
                        "disc_format": ["dvd", "blu-ray"],
                    },
                },
                "Anime & Animation": {
                    "nouns": ["anime dvd", "anime blu-ray", "animated film disc"],
                    "sku": [],
                    "price": (900.0, 0.6),
                    "attrs": {
                        "anime_studio": [
                            "studio ghibli",
                            "toei animation",
                            "mappa",
                            "ufotable",
                            "kyoto animation",
                            "pixar",
                            "disney",
                        ],
                        "disc_format": ["dvd", "blu-ray", "4k uhd blu-ray"],
                    },
                },
            },
        },
    },
    "Watches, Bags & Jewellery": {
        "Women's Bags": {
            "family": "accessories",
            "price": (900.0, 0.8),
            "leaves": {
                "Handbags & Shoulder Bags": {
                    "nouns": ["handbag", "shoulder bag", "women's bag"],
                    "sku": ["color_family"],
                    "attrs": {
                        "handbag_style": ["hobo", "satchel", "bucket", "baguette", "top handle", "tote"],
                        "strap_drop": ["short handle", "shoulder strap", "adjustable strap"],
                    },
                },
                "Crossbody & Sling Bags": {
                    "nouns": ["crossbody bag", "sling bag", "mini bag"],
                    "sku": ["color_family"],
                    "price": (650.0, 0.7),
                    "attrs": {"strap_type": ["chain", "leather", "fabric", "adjustable webbing", "guitar strap"]},
                },
                "Tote Bags": {
                    "nouns": ["tote bag", "canvas tote", "shopper bag"],
                    "sku": ["color_family"],
                    "price": (400.0, 0.7),
                    "attrs": {
                        "tote_closure": ["open top", "zipper", "magnetic snap", "drawstring"],
                        "tote_pockets": ["inner pocket", "laptop sleeve", "no pockets"],
                    },
                },
                "Clutches & Evening Bags": {
                    "nouns": ["clutch", "evening bag", "clutch bag"],
                    "sku": ["color_family"],
                    "price": (700.0, 0.7),
                    "attrs": {"embellishment": ["plain", "sequins", "beads", "crystals", "pearls"]},
                },
                "Native Woven Bags": {
                    "nouns": ["woven bag", "bayong", "native bag"],
                    "sku": ["size"],
                    "price": (550.0, 0.7),
                    "attrs": {
                        "material": ["rattan", "buri", "abaca", "pandan", "nito", "water hyacinth", "sinamay", "tikog"],
                        "weave_origin": ["bohol", "romblon", "samar", "leyte", "antique", "bicol", "pangasinan"],
                    },
                },
                "Women's Wallets & Coin Purses": {
                    "nouns": ["women's wallet", "coin purse", "long wallet"],
                    "sku": ["color_family"],
                    "price": (450.0, 0.7),
                    "attrs": {"wallet_size": ["mini", "medium", "long", "zip-around"]},
                },
            },
        },
        "Men's Bags": {
            "family": "accessories",
            "price": (1000.0, 0.8),
            "leaves": {
                "Backpacks": {
                    "nouns": ["backpack", "men's backpack", "daypack"],
                    "sku": ["color_family"],
                    "price": (1100.0, 0.7),
                    "attrs": {
                        "laptop_compartment": ["none", "up to 14 inches", "up to 15.6 inches", "up to 17 inches"],
                        "backpack_capacity": ["15l", "20l", "25l", "30l", "40l"],
                    },
                },
                "Messenger & Chest Bags": {
                    "nouns": ["men's bag", "crossbody bag for men", "everyday bag"],
                    "sku": ["color_family"],
                    "price": (700.0, 0.7),
                    "attrs": {"men_bag_type": ["messenger", "chest bag", "sling", "shoulder bag"]},
                },
                "Briefcases": {
                    "nouns": ["briefcase", "office bag", "document bag"],
                    "sku": ["color_family"],
                    "price": (1800.0, 0.7),
                    "attrs": {"briefcase_type": ["hard case", "soft case", "laptop briefcase", "attache"]},
                },
                "Waist Bags & Pouches": {
                    "nouns": ["waist bag", "belt bag", "fanny pack"],
                    "sku": ["color_family"],
                    "price": (450.0, 0.6),
                    "attrs": {
                        "waist_bag_size": ["slim", "standard", "large"],
                        "water_repellent": ["water repellent", "standard fabric"],
                    },
                },
            },
        },
        "Travel & Luggage": {
            "family": "accessories",
            "price": (2500.0, 0.7),
            "leaves": {
                "Luggage": {
                    "nouns": ["luggage", "suitcase", "trolley bag"],
                    "sku": ["luggage_size", "color_family"],
                    "attrs": {
                        "luggage_size": ["18 inches cabin", "20 inches", "24 inches", "28 inches", "32 inches"],
                        "shell": ["hardshell", "softshell"],
                        "material": ["polycarbonate", "abs", "aluminum", "nylon", "polyester"],
                    },
                },
                "Duffel & Travel Bags": {
                    "nouns": ["duffel bag", "travel bag", "gym bag"],
                    "sku": ["color_family"],
                    "price": (800.0, 0.6),
                    "attrs": {
                        "duffel_capacity": ["30l", "40l", "55l", "65l"],
                        "shoe_compartment": ["with shoe compartment", "without shoe compartment"],
                    },
                },
                "Travel Accessories": {
                    "nouns": ["travel accessory", "travel essential", "travel organizer"],
                    "sku": [],
                    "price": (300.0, 0.7),
                    "attrs": {
                        "travel_item": [
                            "neck pillow",
                            "packing cubes",
                            "luggage tag",
                            "passport holder",
                            "luggage scale",
                            "universal travel adapter",
                            "toiletry bag",
                        ]
                    },
                },
            },
        },
        "Watches": {
            "family": "watches_wearables",
            "price": (1500.0, 0.9),
            "leaves": {
                "Men's Watches": {
                    "nouns": ["men's watch", "wristwatch", "watch"],
                    "sku": ["color_family"],
                    "price": (2500.0, 0.9),
                    "attrs": {
                        "movement": ["quartz", "automatic", "mechanical", "solar", "kinetic"],
                        "case_diameter": ["38mm", "40mm", "42mm", "44mm", "46mm"],
                        "complication": ["chronograph", "date", "day-date", "gmt", "time only"],
                    },
                },
                "Women's Watches": {
                    "nouns": ["women's watch", "ladies watch", "bracelet watch"],
                    "sku": ["color_family"],
                    "price": (1800.0, 0.8),
                    "attrs": {
                        "movement": ["quartz", "automatic", "mechanical", "solar"],
                        "dial_style": ["minimalist", "crystal studded", "mother of pearl", "roman numerals"],
                    },
                },
                "Sports & Digital Watches": {
                    "nouns": ["digital watch", "sports watch", "shock resistant watch"],
                    "sku": ["color_family"],
                    "price": (1500.0, 0.8),
                    "attrs": {
                        "digital_features": [
                            "stopwatch",
                            "alarm",
                            "world time",
                            "backlight",
                            "step counter",
                            "tide graph",
                        ]
                    },
                },
                "Kids Watches": {
                    "nouns": ["kids watch", "children's watch", "cartoon watch"],
                    "sku": ["color_family"],
                    "price": (350.0, 0.6),
                    "attrs": {"kids_watch_theme": ["cartoon", "dinosaur", "princess", "superhero", "space"]},
                },
                "Couple Watches & Gift Sets": {
                    "nouns": ["couple watch set", "watch gift set", "his and hers watch"],
                    "sku": [],
                    "price": (2200.0, 0.7),
                    "attrs": {"set_contents": ["his and hers", "watch and bracelet", "watch and wallet"]},
                },
            },
        },
        "Jewellery": {
            "family": "accessories",
            "price": (500.0, 0.9),
            "leaves": {
                "Necklaces & Pendants": {
                    "nouns": ["necklace", "pendant necklace", "chain necklace"],
                    "sku": ["chain_length"],
                    "attrs": {
                        "chain_length": ["16 inches", "18 inches", "20 inches", "22 inches", "24 inches"],
                        "pendant_shape": ["heart", "cross", "initial", "butterfly", "moon", "solitaire"],
                        "material": [
                            "sterling silver",
                            "stainless steel",
                            "gold plated",
                            "18k gold",
                            "titanium",
                            "brass",
                        ],
                    },
                },
                "Earrings": {
                    "nouns": ["earrings", "pair of earrings", "fashion earrings"],
                    "sku": ["color_family"],
                    "price": (300.0, 0.8),
                    "attrs": {
                        "earring_type": ["stud", "hoop", "drop", "huggie", "ear cuff", "clip-on"],
                        "material": [
                            "sterling silver",
                            "stainless steel",
                            "gold plated",
                            "18k gold",
                            "acrylic",
                            "pearl",
                        ],
                    },
                },
                "Rings": {
                    "nouns": ["ring", "fashion ring", "band ring"],
                    "sku": ["ring_size"],
                    "attrs": {
                        "ring_size": ["5", "6", "7", "8", "9", "10"],
                        "gemstone": [
                            "no stone",
                            "cubic zirconia",
                            "moissanite",
                            "diamond",
                            "pearl",
                            "ruby",
                            "sapphire",
                        ],
                        "material": [
                            "sterling silver",
                            "stainless steel",
                            "gold plated",
                            "14k gold",
                            "18k gold",
                            "titanium",
                            "tungsten",
                        ],
                    },
                },
                "Bracelets & Anklets": {
                    "nouns": ["bracelet", "charm bracelet", "fashion bracelet"],
                    "sku": ["color_family"],
                    "attrs": {
                        "bracelet_style": ["chain", "bangle", "beaded", "charm", "cuff", "tennis"],
                        "material": [
                            "sterling silver",
                            "stainless steel",
                            "gold plated",
                            "beads",
                            "leather",
                            "18k gold",
                        ],
                    },
                },
                "South Sea Pearls": {
                    "nouns": ["pearl jewelry", "pearl necklace", "pearl set"],
                    "sku": ["pearl_size"],
                    "price": (3500.0, 0.9),
                    "attrs": {
                        "pearl_type": ["south sea", "freshwater", "akoya", "baroque", "keshi"],
                        "pearl_size": ["6mm", "8mm", "10mm", "12mm", "14mm"],
                        "pearl_origin": ["palawan", "mindanao", "japan", "china"],
                        "material": ["sterling silver", "14k gold", "18k gold", "gold plated"],
                    },
                },
                "Gold Jewellery": {
                    "nouns": ["gold jewelry", "gold necklace", "saudi gold"],
                    "sku": ["gold_weight"],
                    "price": (12000.0, 0.8),
                    "attrs": {
                        "karat": ["10k", "14k", "18k", "21k", "24k"],
                        "gold_weight": ["1g", "2g", "3g", "5g", "10g"],
                        "material": ["yellow gold", "white gold", "rose gold", "two-tone gold"],
                    },
                },
            },
        },
    },
    "Tools & Home Improvement": {
        "Power Tools": {
            "family": "tools",
            "price": (2500.0, 0.8),
            "leaves": {
                "Drills & Drivers": {
                    "nouns": ["power drill", "drill", "electric drill"],
                    "sku": ["battery_included"],
                    "attrs": {
                        "drill_type": ["drill driver", "impact driver", "hammer drill", "rotary hammer"],
                        "chuck_size": ["10mm", "13mm", "1/4 inch hex", "sds plus"],
                        "battery_included": ["tool only", "1 battery", "2 batteries"],
                        "power_source": ["cordless 12v", "cordless 18v", "cordless 20v", "corded 220v"],
                    },
                },
                "Angle Grinders": {
                    "nouns": ["angle grinder", "grinder", "disc grinder"],
                    "sku": ["disc_size"],
                    "price": (1800.0, 0.6),
                    "attrs": {
                        "disc_size": ["4 inches", "4.5 inches", "5 inches", "7 inches", "9 inches"],
                        "grinder_speed": ["fixed speed", "variable speed"],
                        "power_source": ["corded 220v", "cordless 18v", "cordless 20v"],
                    },
                },
                "Saws": {
                    "nouns": ["power saw", "electric saw", "saw"],
                    "sku": [],
                    "price": (3500.0, 0.7),
                    "attrs": {
                        "saw_type": ["circular", "jigsaw", "reciprocating", "miter", "chainsaw", "table saw"],
                        "saw_power": ["600w", "1200w", "1800w", "2000w", "18v cordless"],
                    },
                },
                "Sanders & Polishers": {
                    "nouns": ["sander", "electric sander", "polisher"],
                    "sku": [],
                    "price": (2200.0, 0.7),
                    "attrs": {
                        "sander_type": ["orbital", "random orbital", "belt", "detail", "rotary polisher"],
                        "pad_diameter": ["125mm", "150mm", "180mm"],
                        "power_source": ["corded 220v", "cordless 18v"],
                    },
                },
                "Welding Machines": {
                    "nouns": ["welding machine", "inverter welder", "welder"],
                    "sku": [],
                    "price": (3500.0, 0.6),
                    "attrs": {
                        "welding_amps": ["120a", "160a", "200a", "250a", "300a"],
                        "welding_process": ["mma stick", "mig", "tig", "multi-process"],
                    },
                },
                "Pressure Washers": {
                    "nouns": ["pressure washer", "high pressure washer", "power washer"],
                    "sku": [],
                    "price": (4500.0, 0.6),
                    "attrs": {
                        "pressure_psi": ["1500 psi", "1800 psi", "2200 psi", "2800 psi"],
                        "washer_hose": ["5m hose", "8m hose", "10m hose"],
                    },
                },
            },
        },
        "Hand Tools": {
            "family": "tools",
            "price": (400.0, 0.8),
            "leaves": {
                "Tool Sets": {
                    "nouns": ["tool set", "tool kit", "household tool kit"],
                    "sku": [],
                    "price": (1200.0, 0.7),
                    "attrs": {
                        "tool_set_pieces": ["12 pcs", "46 pcs", "82 pcs", "108 pcs", "150 pcs"],
                        "case_type": ["blow mold case", "tool bag", "metal box", "roll pouch"],
                    },
                },
                "Screwdrivers": {
                    "nouns": ["screwdriver", "screwdriver set", "precision screwdriver"],
                    "sku": [],
                    "price": (300.0, 0.7),
                    "attrs": {
                        "tip_type": ["phillips", "flat", "torx", "hex", "multi-bit"],
                        "bits_count": ["1 pc", "6 pcs", "24 pcs", "60 pcs", "115 pcs"],
                    },
                },
                "Wrenches & Sockets": {
                    "nouns": ["wrench", "wrench set", "spanner"],
                    "sku": [],
                    "price": (650.0, 0.8),
                    "attrs": {
                        "wrench_type": ["combination", "adjustable", "socket", "torque", "pipe", "allen key"],
                        "size_system": ["metric", "sae", "metric and sae"],
                    },
                },
                "Hammers & Pliers": {
                    "nouns": ["hand tool", "striking tool", "gripping tool"],
                    "sku": [],
                    "price": (280.0, 0.6),
                    "attrs": {
                        "hand_tool_kind": [
                            "claw hammer",
                            "rubber mallet",
                            "sledge hammer",
                            "long nose pliers",
                            "combination pliers",
                            "cutting pliers",
                            "locking pliers",
                        ]
                    },
                },
                "Measuring & Levels": {
                    "nouns": ["tape measure", "measuring tape", "steel tape"],
                    "sku": [],
                    "price": (180.0, 0.6),
                    "attrs": {
                        "measure_length": ["3m", "5m", "7.5m", "10m", "30m", "50m"],
                        "blade_width": ["16mm", "19mm", "25mm", "32mm"],
                    },
                },
                "Laser Levels": {
                    "nouns": ["laser level", "line laser", "self-leveling laser"],
                    "sku": [],
                    "price": (1800.0, 0.6),
                    "attrs": {
                        "laser_lines": ["2 lines", "3d 12 lines", "4d 16 lines"],
                        "laser_color": ["red beam", "green beam"],
                    },
                },
                "Ladders": {
                    "nouns": ["ladder", "step ladder", "folding ladder"],
                    "sku": [],
                    "price": (2500.0, 0.6),
                    "attrs": {
                        "ladder_steps": ["3 steps", "4 steps", "5 steps", "6 steps", "multi-purpose"],
                        "load_rating": ["100kg", "150kg", "200kg"],
                    },
                },
            },
        },
        "Electrical & Lighting": {
            "family": "tools",
            "price": (300.0, 0.8),
            "leaves": {
                "LED Bulbs & Tubes": {
                    "nouns": ["led bulb", "light bulb", "led light"],
                    "sku": ["bulb_wattage"],
                    "price": (120.0, 0.6),
                    "attrs": {
                        "bulb_wattage": ["5w", "7w", "9w", "12w", "15w", "18w", "20w"],
                        "color_temperature": ["warm white 3000k", "cool white 4000k", "daylight 6500k"],
                        "bulb_base": ["e27", "e14", "gu10", "t8 tube"],
                    },
                },
                "Emergency & Rechargeable Lights": {
                    "nouns": ["emergency light", "rechargeable bulb", "rechargeable lamp"],
                    "sku": [],
                    "price": (400.0, 0.6),
                    "attrs": {"backup_hours": ["3 hours", "4 hours", "6 hours", "8 hours", "12 hours"]},
                },
                "Extension Cords & Outlets": {
                    "nouns": ["extension cord", "power strip", "extension wire"],
                    "sku": ["cord_length"],
                    "price": (350.0, 0.6),
                    "attrs": {
                        "gang": ["2 gang", "3 gang", "4 gang", "6 gang"],
                        "cord_length": ["1m", "3m", "5m", "10m", "15m"],
                        "usb_ports": ["with usb", "without usb"],
                    },
                },
                "Wires & Cables": {
                    "nouns": ["electrical wire", "wire", "cable wire"],
                    "sku": ["roll_length"],
                    "price": (900.0, 0.8),
                    "attrs": {
                        "wire_gauge": ["#14 awg", "#12 awg", "#10 awg", "2.0mm", "3.5mm", "5.5mm"],
                        "roll_length": ["10m", "25m", "50m", "75m", "150m"],
                    },
                },
                "Switches & Circuit Breakers": {
                    "nouns": ["circuit breaker", "breaker", "plug-in breaker"],
                    "sku": ["breaker_rating"],
                    "price": (450.0, 0.6),
                    "attrs": {
                        "breaker_rating": ["15a", "20a", "30a", "40a", "60a", "100a"],
                        "poles": ["1 pole", "2 pole", "3 pole"],
                    },
                },
                "Solar Lights & Panels": {
                    "nouns": ["solar light", "solar flood light", "solar street light"],
                    "sku": ["solar_wattage"],
                    "price": (900.0, 0.8),
                    "attrs": {
                        "solar_wattage": ["50w", "100w", "200w", "300w", "500w", "1000w"],
                        "sensor": ["motion sensor", "dusk to dawn", "remote control"],
                    },
                },
                "Solar Panels & Inverters": {
                    "nouns": ["solar panel", "solar kit", "solar power system"],
                    "sku": [],
                    "price": (4500.0, 0.8),
                    "attrs": {
                        "panel_output": ["50w", "100w", "200w", "300w", "550w"],
                        "panel_type": ["monocrystalline", "polycrystalline", "flexible"],
                    },
                },
            },
        },
        "Plumbing & Bathroom Fixtures": {
            "family": "tools",
            "price": (600.0, 0.8),
            "leaves": {
                "Faucets": {
                    "nouns": ["faucet", "gripo", "water faucet"],
                    "sku": [],
                    "attrs": {
                        "faucet_type": ["kitchen", "lavatory", "wall mounted", "pull-out", "sensor", "hose bibb"],
                        "fixture_finish": ["chrome", "matte black", "brushed nickel", "gold", "stainless"],
                    },
                },
                "Shower Heads": {
                    "nouns": ["shower head", "rain shower", "handheld shower"],
                    "sku": [],
                    "price": (500.0, 0.7),
                    "attrs": {
                        "spray_modes": ["1 mode", "3 modes", "5 modes", "6 modes"],
                        "shower_size": ["4 inches", "8 inches", "10 inches", "12 inches"],
                    },
                },
                "Bidet Sprayers": {
                    "nouns": ["bidet sprayer", "bidet", "toilet bidet"],
                    "sku": [],
                    "price": (300.0, 0.6),
                    "attrs": {"bidet_set": ["sprayer only", "sprayer with hose", "complete set with holder"]},
                },
                "Toilets & Toilet Seats": {
                    "nouns": ["toilet bowl", "water closet", "toilet"],
                    "sku": [],
                    "price": (4500.0, 0.8),
                    "attrs": {
                        "flush_type": ["single flush", "dual flush", "pressure assist", "manual pour"],
                        "toilet_design": ["one piece", "two piece", "squat", "wall hung"],
                    },
                },
                "Pipes & Fittings": {
                    "nouns": ["pipe", "water pipe", "plumbing pipe"],
                    "sku": [],
                    "price": (200.0, 0.8),
                    "attrs": {
                        "pipe_diameter": ["1/2 inch", "3/4 inch", "1 inch", "2 inches", "4 inches"],
                        "pipe_type": ["pvc", "ppr", "pe", "gi pipe"],
                    },
                },
                "Water Pumps": {
                    "nouns": ["water pump", "pump", "pressure pump"],
                    "sku": [],
                    "price": (4500.0, 0.7),
                    "attrs": {
                        "pump_hp": ["0.5 hp", "1 hp", "1.5 hp", "2 hp"],
                        "pump_type": ["jet pump", "booster", "submersible", "centrifugal", "manual jetmatic"],
                    },
                },
            },
        },
        "Paint & Building Materials": {
            "family": "tools",
            "price": (500.0, 0.8),
            "leaves": {
                "Paints & Primers": {
                    "nouns": ["paint", "wall paint", "house paint"],
                    "sku": ["color_family", "can_volume"],
                    "attrs": {
                        "paint_type": ["latex", "enamel", "acrylic", "primer", "epoxy", "elastomeric"],
                        "paint_sheen": ["flat", "eggshell", "semi-gloss", "gloss"],
                        "can_volume": ["1 liter", "4 liters", "16 liters"],
                    },
                },
                "Paint Tools": {
                    "nouns": ["paint roller", "paint roller set", "roller brush"],
                    "sku": [],
                    "price": (180.0, 0.6),
                    "attrs": {
                        "roller_size": ["4 inches", "7 inches", "9 inches"],
                        "roller_nap": ["foam", "short nap", "medium nap", "long nap"],
                    },
                },
                "Adhesives & Sealants": {
                    "nouns": ["sealant", "adhesive sealant", "sealer"],
                    "sku": [],
                    "price": (250.0, 0.6),
                    "attrs": {
                        "sealant_type": ["silicone", "acrylic", "epoxy", "polyurethane", "contact cement", "vulcaseal"]
                    },
                },
                "Tiles & Flooring": {
                    "nouns": ["floor tile", "tile", "flooring"],
                    "sku": ["tile_size"],
                    "price": (700.0, 0.8),
                    "attrs": {
                        "tile_size": ["20x20cm", "30x30cm", "40x40cm", "60x60cm", "60x120cm"],
                        "flooring_type": ["ceramic", "porcelain", "vinyl", "spc", "wood laminate"],
                    },
                },
                "Door Locks & Hardware": {
                    "nouns": ["door lock", "lock", "lockset"],
                    "sku": [],
                    "price": (900.0, 0.8),
                    "attrs": {
                        "lock_type": [
                            "knob lock",
                            "lever handle",
                            "deadbolt",
                            "padlock",
                            "digital lock",
                            "mortise lock",
                        ],
                        "keying": ["keyed", "keyless", "fingerprint", "pin code"],
                    },
                },
            },
        },
        "Garden & Outdoor": {
            "family": "tools",
            "price": (350.0, 0.9),
            "leaves": {
                "Seeds & Plants": {
                    "nouns": ["seeds", "vegetable seeds", "seed pack"],
                    "sku": ["seed_variety"],
                    "price": (60.0, 0.6),
                    "attrs": {
                        "seed_variety": [
                            "tomato",
                            "pechay",
                            "chili",
                            "kangkong",
                            "sunflower",
                            "basil",
                            "okra",
                            "eggplant",
                            "ampalaya",
                            "sitaw",
                        ],
                        "seed_count": ["50 seeds", "100 seeds", "500 seeds", "10g"],
                    },
                },
                "Gardening Tools": {
                    "nouns": ["garden tool", "gardening tool", "garden tool set"],
                    "sku": [],
                    "price": (280.0, 0.7),
                    "attrs": {
                        "garden_tool": ["pruning shears", "trowel", "rake", "hoe", "garden hose", "sprinkler", "bolo"]
                    },
                },
                "Soil & Fertilizers": {
                    "nouns": ["gardening supply", "planting medium", "soil amendment"],
                    "sku": ["soil_bag"],
                    "price": (150.0, 0.6),
                    "attrs": {
                        "soil_product": [
                            "garden soil",
                            "potting mix",
                            "vermicast",
                            "compost",
                            "14-14-14 fertilizer",
                            "urea",
                            "cocopeat",
                            "rice hull",
                        ],
                        "soil_bag": ["1kg", "3kg", "5kg", "10kg", "25kg"],
                    },
                },
                "Grass Cutters & Lawn Mowers": {
                    "nouns": ["grass cutter", "brush cutter", "lawn mower"],
                    "sku": [],
                    "price": (5500.0, 0.6),
                    "attrs": {
                        "engine_type": ["2-stroke", "4-stroke", "electric", "battery"],
                        "cutting_width": ["25cm", "32cm", "40cm", "46cm"],
                    },
                },
                "Outdoor Furniture": {
                    "nouns": ["garden set", "patio set", "outdoor furniture set"],
                    "sku": ["color_family"],
                    "price": (6500.0, 0.7),
                    "attrs": {
                        "outdoor_set": ["2 chairs and table", "4 chairs and table", "lounger", "swing bench"],
                        "weatherproofing": ["uv resistant", "rust-proof", "all-weather rattan"],
                    },
                },
            },
        },
    },
    "Musical Instruments": {
        "Guitars & Strings": {
            "family": "instruments",
            "price": (4500.0, 0.8),
            "leaves": {
                "Acoustic Guitars": {
                    "nouns": ["acoustic guitar", "guitar", "folk guitar"],
                    "sku": ["color_family"],
                    "attrs": {
                        "body_shape": ["dreadnought", "concert", "auditorium", "parlor", "jumbo", "travel"],
                        "guitar_size": ["34 inches", "36 inches", "38 inches", "40 inches", "41 inches"],
                        "electronics": ["acoustic only", "acoustic-electric with eq", "with pickup"],
                        "material": ["spruce top", "solid spruce top", "mahogany", "cedar top", "acacia", "koa"],
                    },
                },
                "Classical Guitars": {
                    "nouns": ["classical guitar", "nylon string guitar"],
                    "sku": ["color_family"],
                    "price": (3500.0, 0.7),
                    "attrs": {
                        "classical_size": ["1/2", "3/4", "4/4"],
                        "nut_width": ["50mm", "52mm"],
                        "material": ["cedar top", "spruce top", "solid cedar top", "narra"],
                    },
                },
                "Electric Guitars": {
                    "nouns": ["electric guitar"],
                    "sku": ["color_family"],
                    "price": (9000.0, 0.7),
                    "attrs": {
                        "pickup_config": ["sss", "hss", "hh", "p90", "single humbucker"],
                        "guitar_body": [
                            "stratocaster style",
                            "telecaster style",
                            "les paul style",
                            "sg style",
                            "superstrat",
                        ],
                    },
                },
                "Bass Guitars": {
                    "nouns": ["bass guitar", "electric bass"],
                    "sku": ["color_family"],
                    "price": (11000.0, 0.6),
                    "attrs": {
                        "bass_strings": ["4 strings", "5 strings", "6 strings"],
                        "scale_length": ["30 inches short", "34 inches long", "35 inches extra long"],
                    },
                },
                "Ukuleles": {
                    "nouns": ["ukulele", "uke"],
                    "sku": ["ukulele_size", "color_family"],
                    "price": (1500.0, 0.6),
                    "attrs": {
                        "ukulele_size": ["soprano", "concert", "tenor", "baritone"],
                        "material": ["mahogany", "koa", "acacia", "spruce top", "bamboo", "plastic"],
                    },
                },
                "Violins": {
                    "nouns": ["violin", "fiddle"],
                    "sku": ["violin_size"],
                    "price": (5000.0, 0.7),
                    "attrs": {
                        "violin_size": ["1/4", "1/2", "3/4", "4/4"],
                        "violin_outfit": ["with bow and case", "with rosin set"],
                        "material": ["solid spruce top", "maple back", "flamed maple", "laminated"],
                    },
                },
                "Cellos & Violas": {
                    "nouns": ["cello", "viola"],
                    "sku": ["bowed_size"],
                    "price": (15000.0, 0.7),
                    "attrs": {"bowed_size": ["1/4", "1/2", "3/4", "4/4", "15 inches", "16 inches"]},
                },
                "Rondalla Instruments": {
                    "nouns": ["bandurria", "octavina", "laud"],
                    "sku": [],
                    "price": (4500.0, 0.7),
                    "attrs": {
                        "rondalla_strings": ["14 strings", "16 strings"],
                        "rondalla_finish": ["natural wood", "sunburst", "mother of pearl inlay"],
                        "material": ["narra", "mahogany", "acacia", "spruce top", "jackfruit wood"],
                    },
                },
            },
        },
        "Drums & Percussion": {
            "family": "instruments",
            "price": (3000.0, 0.9),
            "leaves": {
                "Acoustic Drum Kits": {
                    "nouns": ["drum set", "drum kit", "acoustic drums"],
                    "sku": ["color_family"],
                    "price": (25000.0, 0.6),
                    "attrs": {
                        "drum_pieces": ["3 piece", "4 piece", "5 piece", "7 piece"],
                        "hardware_included": ["with cymbals and hardware", "shell pack only"],
                    },
                },
                "Electronic Drum Kits": {
                    "nouns": ["electronic drums", "e-drum kit", "digital drums"],
                    "sku": [],
                    "price": (22000.0, 0.6),
                    "attrs": {
                        "pad_type": ["rubber pads", "mesh heads", "mesh and rubber"],
                        "drum_sounds": ["100 sounds", "200 sounds", "400 sounds", "700+ sounds"],
                    },
                },
                "Cymbals": {
                    "nouns": ["crash cymbal", "cymbal", "ride cymbal"],
                    "sku": ["cymbal_diameter"],
                    "price": (4500.0, 0.7),
                    "attrs": {
                        "cymbal_diameter": [
                            "10 inches",
                            "14 inches",
                            "16 inches",
                            "18 inches",
                            "20 inches",
                            "22 inches",
                        ],
                        "cymbal_alloy": ["b20 bronze", "b8 bronze", "brass"],
                    },
                },
                "Cajons": {
                    "nouns": ["cajon", "cajon drum", "box drum"],
                    "sku": ["color_family"],
                    "price": (3000.0, 0.6),
                    "attrs": {
                        "cajon_snare": ["adjustable snare wires", "fixed snare", "no snare"],
                        "cajon_front": ["birch", "mahogany", "rosewood", "ovangkol"],
                    },
                },
                "Hand Drums": {
                    "nouns": ["djembe", "bongos", "congas"],
                    "sku": [],
                    "price": (3500.0, 0.7),
                    "attrs": {
                        "drum_head": ["goat skin", "synthetic", "cowhide"],
                        "tuning": ["rope tuned", "key tuned"],
                    },
                },
                "Kulintang & Gongs": {
                    "nouns": ["kulintang", "agung", "gong"],
                    "sku": [],
                    "price": (9000.0, 0.8),
                    "attrs": {
                        "gong_set": ["single gong", "5 pieces", "8 pieces", "11 pieces"],
                        "gong_metal": ["bronze", "brass", "iron"],
                    },
                },
                "Drumsticks & Accessories": {
                    "nouns": ["pair of drumsticks", "drum stick pair", "drumsticks for drummers"],
                    "sku": ["stick_size"],
                    "price": (450.0, 0.8),
                    "attrs": {
                        "stick_size": ["7a", "5a", "5b", "2b", "rods", "brushes"],
                        "stick_tip": ["wood tip", "nylon tip"],
                        "material": ["hickory", "maple", "oak", "carbon fiber"],
                    },
                },
                "Tambourines & Shakers": {
                    "nouns": ["tambourine", "shaker", "maracas"],
                    "sku": [],
                    "price": (400.0, 0.6),
                    "attrs": {"hand_percussion_size": ["small", "medium", "large", "kids size"]},
                },
            },
        },
        "Keyboards & Pianos": {
            "family": "instruments",
            "price": (9000.0, 0.8),
            "leaves": {
                "Digital Pianos": {
                    "nouns": ["digital piano", "electric piano", "stage piano"],
                    "sku": ["color_family"],
                    "price": (30000.0, 0.5),
                    "attrs": {
                        "key_action": ["weighted hammer action", "semi-weighted", "graded hammer"],
                        "piano_cabinet": ["portable", "console cabinet", "upright cabinet"],
                    },
                },
                "Portable Keyboards": {
                    "nouns": ["keyboard", "electronic keyboard", "portable keyboard"],
                    "sku": [],
                    "price": (6000.0, 0.6),
                    "attrs": {
                        "touch_response": ["touch sensitive", "non-touch sensitive"],
                        "keyboard_keys": ["37 keys", "49 keys", "54 keys", "61 keys", "76 keys"],
                    },
                },
                "MIDI Controllers & Synthesizers": {
                    "nouns": ["synthesizer", "synth", "keyboard synthesizer"],
                    "sku": [],
                    "price": (12000.0, 0.8),
                    "attrs": {
                        "synth_type": ["midi controller", "analog", "digital", "hybrid", "groovebox"],
                        "synth_keys": ["25 keys", "37 keys", "49 keys", "61 keys"],
                    },
                },
                "Melodicas": {
                    "nouns": ["melodica", "pianica"],
                    "sku": ["color_family"],
                    "price": (900.0, 0.4),
                    "attrs": {"melodica_keys": ["32 keys", "37 keys"]},
                },
                "Acoustic Pianos": {
                    "nouns": ["piano", "upright piano", "grand piano"],
                    "sku": [],
                    "price": (95000.0, 0.6),
                    "attrs": {
                        "piano_condition": ["brand new", "reconditioned", "used"],
                        "piano_origin": ["japan", "germany", "china", "korea"],
                    },
                },
            },
        },
        "Wind Instruments": {
            "family": "instruments",
            "price": (2500.0, 0.9),
            "leaves": {
                "Flutes & Recorders": {
                    "nouns": ["flute", "recorder", "bamboo flute"],
                    "sku": [],
                    "price": (1200.0, 0.9),
                    "attrs": {
                        "flute_key": ["c", "d", "g", "bb"],
                        "flute_body": ["1 piece", "3 piece", "closed hole", "open hole"],
                        "material": ["bamboo", "abs plastic", "nickel silver", "silver plated"],
                    },
                },
                "Harmonicas": {
                    "nouns": ["harmonica", "blues harp", "mouth organ"],
                    "sku": ["key_of"],
                    "price": (600.0, 0.8),
                    "attrs": {
                        "harmonica_type": ["diatonic 10 hole", "chromatic", "tremolo"],
                        "key_of": ["c", "d", "e", "f", "g", "a", "bb"],
                    },
                },
                "Saxophones": {
                    "nouns": ["saxophone", "alto saxophone", "tenor saxophone"],
                    "sku": [],
                    "price": (18000.0, 0.6),
                    "attrs": {
                        "sax_voice": ["soprano", "alto", "tenor", "baritone"],
                        "sax_finish": ["gold lacquer", "black nickel", "silver plated", "vintage bronze"],
                    },
                },
                "Clarinets & Oboes": {
                    "nouns": ["clarinet", "oboe"],
                    "sku": [],
                    "price": (12000.0, 0.6),
                    "attrs": {"woodwind_key": ["bb", "a", "eb", "c"], "keywork": ["nickel plated", "silver plated"]},
                },
                "Trumpets & Brass": {
                    "nouns": ["trumpet", "trombone", "french horn"],
                    "sku": [],
                    "price": (12000.0, 0.7),
                    "attrs": {
                        "brass_bore": ["small bore", "medium bore", "medium-large bore", "large bore"],
                        "brass_lacquer": ["gold lacquer", "silver plated", "raw brass"],
                    },
                },
            },
        },
        "Pro Audio & Accessories": {
            "family": "instruments",
            "price": (1500.0, 0.9),
            "leaves": {
                "Microphones": {
                    "nouns": ["studio recording microphone", "professional vocal microphone", "microphone for singing"],
                    "sku": [],
                    "price": (2500.0, 0.8),
                    "attrs": {
                        "mic_type": ["dynamic", "condenser", "ribbon", "usb"],
                        "polar_pattern": ["cardioid", "supercardioid", "omnidirectional", "figure-8"],
                    },
                },
                "Guitar Amplifiers": {
                    "nouns": ["electric guitar amplifier", "guitar combo amplifier", "practice guitar amp"],
                    "sku": [],
                    "price": (4500.0, 0.8),
                    "attrs": {
                        "amp_wattage": ["10w", "20w", "40w", "100w"],
                        "amp_type": ["solid state", "tube", "modeling", "hybrid"],
                    },
                },
                "Effects Pedals": {
                    "nouns": ["guitar effects pedal", "stompbox effects pedal", "electric guitar pedal"],
                    "sku": [],
                    "price": (2500.0, 0.8),
                    "attrs": {
                        "pedal_effect": [
                            "distortion",
                            "overdrive",
                            "fuzz",
                            "delay",
                            "reverb",
                            "chorus",
                            "looper",
                            "wah",
                        ]
                    },
                },
                "Audio Interfaces & Mixers": {
                    "nouns": ["usb audio interface", "audio mixing console", "live sound mixer"],
                    "sku": [],
                    "price": (6000.0, 0.8),
                    "attrs": {"io_channels": ["2 in 2 out", "4 in 4 out", "8 channel", "12 channel", "16 channel"]},
                },
                "Strings, Picks & Tuners": {
                    "nouns": ["set of guitar strings", "guitar string set", "replacement guitar strings"],
                    "sku": ["string_gauge_set"],
                    "price": (350.0, 0.7),
                    "attrs": {
                        "string_gauge_set": ["extra light 10-47", "light 11-52", "medium 12-54", "super light 9-42"],
                        "string_material": ["phosphor bronze", "80/20 bronze", "nickel wound", "coated"],
                    },
                },
                "Tuners, Capos & Picks": {
                    "nouns": ["guitar accessory kit", "musical instrument accessory", "guitar player accessory"],
                    "sku": [],
                    "price": (250.0, 0.6),
                    "attrs": {"accessory_kind": ["clip-on tuner", "capo", "pick set", "string winder", "metronome"]},
                },
                "Instrument Stands": {
                    "nouns": ["musical instrument stand", "instrument stand holder", "adjustable instrument stand"],
                    "sku": [],
                    "price": (700.0, 0.7),
                    "attrs": {"stand_for": ["sheet music", "guitar", "keyboard", "microphone", "ukulele", "violin"]},
                },
            },
        },
    },
}
