"""Compatibility tasks: the shopper owns a device and asks for an accessory that fits it.

1. Read the request: the accessory asked for ("Find me a phone case ..."), the device ("I have an iPhone 15", "I ride
   a Honda Beat", or a listing they bought, "product 1234567890"), any extra want ("I'd like its case style to be
   clear").
2. What fits: a listing the shopper bought is viewed and its attribute values become the device's words; then what
   a shopper knows about devices turns them into the values an accessory carries (`targets`): a phone's charging
   port, a console's controller platform, a camera body's lens mount, an Apple Watch's band size, a TV's or a
   laptop's screen size (read against a mount's size range, a stand's "up to" size). Any other device is named by
   the value itself, so a candidate fits when one of its values is written in the request.
3. Search the accessory with the device's words, then without them and with the extra want; view every candidate.
4. Recommend the candidate that fits and is surely of the kind asked for (its title names the accessory), then
   meets the want, the best selling first; fit and kind together beat either alone, whatever else a candidate has.
"""

from __future__ import annotations

import re
from typing import Any

from baseline.search import Session

#: charging ports of phones (what a cable's far end must be)
_LIGHTNING = ("iphone 13", "iphone 14", "iphone 12", "iphone 11")
_CONSOLE = {"playstation 5": "ps5", "ps5": "ps5", "switch": "switch", "xbox": "xbox", "playstation 4": "ps4"}
_MOUNTS = {
    "sony": "sony e",
    "canon": "canon rf",
    "nikon": "nikon z",
    "fujifilm": "fujifilm x",
    "olympus": "micro four thirds",
    "panasonic": "micro four thirds",
    "om system": "micro four thirds",
}
_BANDS = {"41mm": "38/40/41mm", "40mm": "38/40/41mm", "45mm": "42/44/45mm", "44mm": "42/44/45mm", "ultra": "49mm"}
_NOUN_WORDS = {
    "case": ("cover",),
    "protector": ("glass", "guard"),
    "mount": ("bracket",),
    "stand": ("riser",),
    "blade": ("wiper",),
    "controller": ("gamepad",),
}

#: words of a device's description that name no value an accessory carries (left out of the searches)
_DEVICE_FILLER = frozenset(
    "a an the i my whose that take takes with of is are on for car cars headlights bulbs wipers long lamp socket "
    "computer memory slots manual calls oil tires scooter battery size watch lugs".split()
)
#: attribute names of a bought device whose values are worth searching with
_DEVICE_KEYS = ("model", "platform", "size", "line")
_ASK = re.compile(r"find me (.+?)(?: that | made | big enough|\.|$)", re.IGNORECASE)
_DEVICE = re.compile(r"^(?:i have|i ride|i shoot with) (.+?)(?: and want to charge it from (.+?))?\. find me", re.I)
_WANT = re.compile(r"i'd like its ([a-z ]+?) to be ([^.]+)\.", re.IGNORECASE)
_OWNED = re.compile(r"\bproduct (\d{6,})\b")
_NUMBER = re.compile(r"(\d+(?:\.\d+)?)")


class Request:
    """The request as read: the accessory, the device's words, the charger end, the extra wants."""

    def __init__(self, query: str) -> None:
        text = " ".join(query.split())
        ask = _ASK.search(text)
        self.noun = re.sub(r"^(?:an?|some|replacement) ", "", ask.group(1).lower()) if ask else ""
        device = _DEVICE.search(text)
        self.device = device.group(1).lower() if device else text.lower()
        self.charger = (device.group(2) or "").lower() if device else ""
        self.wants = {k.strip().replace(" ", "_"): v.strip().lower() for k, v in _WANT.findall(text)}
        owned = _OWNED.search(text)
        self.owned = owned.group(1) if owned else None
        self.text = text.lower()


def _values(doc: dict[str, Any]) -> dict[str, list[str]]:
    """A viewed product's values by attribute, its SKU options' values included."""
    out: dict[str, list[str]] = {}
    for key, values in (doc.get("attributes") or {}).items():
        out.setdefault(key, []).extend(str(v).lower() for v in values or [])
    for option in (doc.get("sku_options") or {}).values():
        for key, value in (option or {}).items():
            out.setdefault(key, []).append(str(value).lower())
    return out


def targets(noun: str, words: str, charger: str) -> set[str]:
    """The values an accessory (``noun``) carries when it fits a device named by ``words``, as far as this agent
    knows devices; empty when the device is named by the value itself."""
    if "cable" in noun:
        port = "lightning" if any(m in words for m in _LIGHTNING) else "usb-c"
        end = "usb-a" if "usb-a" in charger else "usb-c"
        return {f"{end} to {port}"} if charger else {f"usb-a to {port}", f"usb-c to {port}"}
    if "controller" in noun:
        return {v for k, v in _CONSOLE.items() if k in words}
    if "lens" in noun:
        return {v for k, v in _MOUNTS.items() if k in words}
    if "apple watch" in words:
        return {v for k, v in _BANDS.items() if k in words}
    return set()


def _size(words: str) -> float | None:
    found = re.search(r"(\d+(?:\.\d+)?)[- ]inch", words)
    return float(found.group(1)) if found else None


def fits(values: dict[str, list[str]], req: Request, device: str, wanted: set[str], size: float | None) -> bool:
    """Whether a candidate offers a value the device (its words: ``device``) takes."""
    for key, vals in values.items():
        if key in req.wants or key in ("brand", "color_family", "make"):
            continue
        for v in vals:
            if v in wanted or (len(v) > 2 and re.search(rf"(?<![\w/.-]){re.escape(v)}(?![\w/.-])", device)):
                return True
            if size is not None and "inches" in v and (nums := [float(n) for n in _NUMBER.findall(v)]):
                if (len(nums) == 2 and nums[0] <= size <= nums[1]) or (v.startswith("up to") and size <= nums[0]):
                    return True
    return False


def _kind(title: str, noun: str, device: str) -> int:
    """How surely a title names the accessory: 2 for the noun's last word (or a synonym of it: a bracket for a
    mount), 1 for another word of the noun that does not name the device too (a laptop is no laptop stand), else 0."""
    said = {w.rstrip("s") for w in re.findall(r"[a-z0-9]+", title.lower())}
    words = noun.split()
    head = words[-1] if words else ""
    if any(w.rstrip("s") in said for w in (head, *_NOUN_WORDS.get(head, ()))):
        return 2
    own = {w.rstrip("s") for w in re.findall(r"[a-z0-9]+", device)}
    return int(any(len(w) > 2 and w.rstrip("s") in said and w.rstrip("s") not in own for w in words[:-1]))


def _device(s: Session, req: Request) -> tuple[str, str, set[str]]:
    """The device's words, the words to search with, and (for a listing the shopper bought) its attribute names;
    a bought listing's values are its words, the ones naming a model, platform, size or line searched."""
    if not req.owned:
        return req.device, " ".join(w for w in req.device.split() if w not in _DEVICE_FILLER), set()
    s.view([req.owned])
    values = _values(s.details.get(req.owned) or {})
    words = " ".join(v for vals in values.values() for v in vals)
    search = " ".join(v for k, vals in values.items() if any(m in k for m in _DEVICE_KEYS) for v in vals)
    return words, search, set(values)


def solve(s: Session, query: str) -> None:
    """The best fitting accessory, recommended (the template calls ``solve`` of ``baseline/<task>.py``)."""
    req = Request(query)
    device_words, search_words, skip = _device(s, req)
    wanted = targets(req.noun, device_words, req.charger)
    size = _size(device_words) or next(
        (float(n) for n in _NUMBER.findall(device_words) if "inches" in device_words), None
    )
    first = " ".join(sorted(wanted)) if wanted else " ".join(search_words.split()[:6])
    head = req.noun.split()[-1] if req.noun else ""
    queries = [f"{req.noun} {first}", req.noun]
    queries += [req.noun.replace(head, w) for w in _NOUN_WORDS.get(head, ())]
    queries += [f"{req.noun} {v}" for v in req.wants.values()]
    if size is not None:  # a size class ("up to 15.6 inches", "32-70 inches") is written in the listing
        queries.append(f"{req.noun} up to inches")
    ids: list[str] = []
    for q in queries:
        for page in (1, 2):
            found = s.search(q, page)
            ids += found
            if len(found) < 10:
                break
    ids = [i for i in dict.fromkeys(ids) if i != req.owned]
    s.view(ids)
    best: tuple[Any, ...] | None = None
    for pid in ids:
        values = {k: v for k, v in _values(s.details.get(pid) or {}).items() if k not in skip}
        title = str(s.summaries.get(pid, {}).get("title") or "")
        meets = sum(1 for k, v in req.wants.items() if v in values.get(k, []))
        sold = s.summaries.get(pid, {}).get("sold_count") or 0
        fit, kind = fits(values, req, device_words, wanted, size), _kind(title, req.noun, device_words)
        key = (fit and kind == 2, fit and kind > 0, fit, kind, meets, sold)
        if best is None or key > best[0]:
            best = (key, pid)
    if best is not None:
        s.recommend([best[1]])
