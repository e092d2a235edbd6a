"""A bundle's code fingerprints: token k-grams winnowed (MOSS's method, by the `copydetect` library) over every
text file of the bundle, whatever its name, and the similarity of two bundles' fingerprints.

`copydetect.utils.filter_code` tokenizes each file with Pygments' Python lexer and drops what a copier changes for
free: comments, docstrings' text, whitespace and every name (variables, functions, classes and modules all become one
letter), so renaming, reformatting and re-commenting change nothing. Every file is read, not only ``*.py``: Python
code moved into ``agent.txt`` and run by ``exec`` or an import hook gives the same fingerprints as it did in a
``.py`` file. Other text (prose, JSON) lexes as Python too: its k-grams are long enough (K filtered characters) that
two honestly different documents share almost none (at most 2.7% among this repository's docs). Each file is
fingerprinted on its own and the bundle's fingerprints are the union, so reordering functions, moving one into a new
module or renaming the package folder keep nearly all of them; a changed constant loses only the k-grams around it.
`copydetect.utils.winnow` picks the fingerprints; the k-gram hashes are ours only because copydetect's use Python's
`hash`, which is salted per process: blake2b makes the same bundle give the same fingerprints on every validator.

Python code kept in a string literal (``exec(SOURCE)``, a JSON value) is read as code too (`code_in_strings`: a
string that parses as Python defining a function or class; the lexer reads any string as one letter).

What is read (`reading`): a UTF-8 file (or a ``.py`` file in another encoding, its undecodable bytes replaced) as its
text; a UTF-16/32 file with its byte-order mark decoded; any other file (binary) as its readable runs (64 or more
printable ASCII characters in a row), so code stored verbatim inside a binary container (a pickle, an ``.npy`` of
strings) is still read. What no reading can see (code compressed, encoded or encrypted, then decoded at run time)
is the behaviour check's (`arena.copies.behaviour`): a copy behaves as its original. The formats Python loads code
from directly (compiled Python, native libraries, archives: `code_format`) are refused by `sandbox.bundle.check_dir`,
and so is a bundle with more than `BUNDLE_CAP` bytes to read, so the budget cannot be spent on padding. A bundle
stored before those rules is read up to the cap and noted; the check never fails on content.
"""

from __future__ import annotations

import ast
import codecs
import hashlib
import io
import re
import textwrap
import tokenize
from collections.abc import Mapping

import numpy as np
from copydetect.utils import filter_code, winnow
from pydantic import BaseModel, ConfigDict, PrivateAttr

from arena import syntax

#: Characters of filtered code per k-gram: a match shorter than K is noise (``def F(V):return V`` is everywhere).
K = 25
#: Winnowing window: every match of at least K + WINDOW - 1 filtered characters shares a fingerprint.
WINDOW = 4
#: What one bundle gives to read at most (bytes of text and of binary files' readable runs, over all its files):
#: `sandbox.bundle.check_dir` refuses a bundle over it; a stored one is read up to it and noted.
BUNDLE_CAP = 4 * 1024 * 1024
#: A binary file's readable run: this many printable ASCII characters (or more) in a row.
RUN = 64
#: A string literal this long (or longer) whose value is Python code defining a function or class is read as code.
STRING_CODE = 200
#: A bundle with fewer fingerprints than this is too small to call anything a copy of it (or it a copy).
MIN_FINGERPRINTS = 40
#: The version of the fingerprints (K, WINDOW, the filter): stored fingerprints of another version are recomputed.
VERSION = f"copydetect-0.5/k{K}/w{WINDOW}/blake2b/all-files/strings"


class Fingerprint(BaseModel):
    """A bundle's fingerprints (sorted, unique), how many files were read, and what could not be."""

    model_config = ConfigDict(frozen=True)

    version: str = VERSION
    hashes: tuple[int, ...] = ()
    files: int = 0
    notes: tuple[str, ...] = ()
    _array: np.ndarray | None = PrivateAttr(None)

    def array(self) -> np.ndarray:
        """The fingerprints as a sorted array, made once (a node compares each new bundle with every earlier one)."""
        if self._array is None:
            self._array = np.array(self.hashes, dtype=np.int64)
        return self._array


def shared(a: Fingerprint, b: Fingerprint) -> int:
    """How many fingerprints two bundles have in common (a binary search of the smaller in the larger)."""
    small, large = sorted((a.array(), b.array()), key=len)
    if not len(small) or not len(large):
        return 0
    at = np.minimum(np.searchsorted(large, small), len(large) - 1)
    return int(np.count_nonzero(large[at] == small))


def _kgram_hashes(text: str) -> np.ndarray:
    """A stable 63-bit hash of every K-character window of ``text`` (blake2b: the same on every machine)."""
    data = [text[i : i + K].encode("utf-8", "surrogatepass") for i in range(len(text) - K + 1)]
    return np.array(
        [int.from_bytes(hashlib.blake2b(d, digest_size=8).digest(), "big") >> 1 for d in data], dtype=np.int64
    )


def _file_hashes(text: str) -> np.ndarray:
    filtered, _ = filter_code(text, "bundle.py", "python")
    hashes = _kgram_hashes(filtered)
    if len(hashes) < WINDOW:
        return hashes
    selected, _ = winnow(hashes, WINDOW)
    return np.asarray(selected, dtype=np.int64)


_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16"))  # fmt: skip
_READABLE = re.compile(rb"[\t\n\r\x20-\x7e]{%d,}" % RUN)


def reading(name: str, raw: bytes) -> tuple[str, str | None]:
    """What the copy check reads of one file (see the module's docstring), and a note when it is not the file's
    whole text."""
    for bom, codec in _BOMS:
        if raw.startswith(bom):
            try:
                return raw.decode(codec), None
            except UnicodeDecodeError:
                break
    if b"\0" not in raw:
        try:
            return raw.decode("utf-8"), None
        except UnicodeDecodeError:
            if name.endswith(".py"):
                return raw.decode(
                    "utf-8", errors="replace"
                ), f"{name}: not UTF-8; read with the undecodable bytes replaced"
    runs = _READABLE.findall(raw)
    return b"\n".join(runs).decode("ascii"), f"{name}: binary; its readable runs read ({sum(map(len, runs))} bytes)"


def _is_text(head: bytes) -> bool:
    """Whether a file's first bytes read as text (UTF-8 without NUL, a character cut at the end allowed, or a
    UTF-16/32 byte-order mark)."""
    if head.startswith(tuple(bom for bom, _ in _BOMS)):
        return True
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError:
        return False
    return b"\0" not in head


#: Formats Python loads code from directly, which no reading sees into: (what, leading bytes) and file suffixes.
_MAGIC = (
    ("a native library", (b"\x7fELF", b"MZ", b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe")),
    ("a native library", (b"\xcf\xfa\xed\xfe",)),
    ("an archive", (b"PK\x03\x04", b"PK\x05\x06", b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00", b"\x28\xb5\x2f\xfd")),
    ("an archive", (b"7z\xbc\xaf\x27\x1c",)),
)
_SUFFIXES = {
    "compiled Python": (".pyc", ".pyo"),
    "a native library": (".so", ".pyd", ".dll", ".dylib"),
    "an archive": (".zip", ".whl", ".egg", ".pyz", ".tar", ".tgz", ".gz", ".bz2", ".xz", ".7z", ".zst", ".lzma"),
}


def code_format(name: str, raw: bytes) -> str | None:
    """What kind of file Python could load code from that the copy check cannot read (compiled Python, a native
    library, an archive: by suffix, or by content for a binary file), None for any other file."""
    lowered = name.lower()
    for kind, suffixes in _SUFFIXES.items():
        if lowered.endswith(suffixes):
            return kind
    if _is_text(raw[:4096]):
        return None
    if len(raw) >= 16 and raw[2:4] == b"\r\n" and 2900 <= int.from_bytes(raw[:2], "little") < 4000:
        return "compiled Python"
    if len(raw) > 262 and raw[257:262] == b"ustar":
        return "an archive"
    return next((kind for kind, heads in _MAGIC if raw.startswith(heads)), None)


def code_in_strings(text: str, depth: int = 3) -> list[str]:
    """The values of ``text``'s string literals (Python's tokens: a ``.py`` file, a JSON file) that are Python code
    defining a function or a class, and the code in their own strings: code kept in a string and run by ``exec``
    reads as code, while prose (docstrings, prompts) never parses and is read as before. Tokenizing stops at the
    first error, keeping what it found; nothing raises."""
    literals: list[str] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.STRING and len(token.string) >= STRING_CODE:
                literals.append(token.string)
    except (tokenize.TokenError, SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    found: list[str] = []
    for literal in literals:
        try:
            value = syntax.literal(literal)
            code = textwrap.dedent(value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value))
            tree = syntax.parse(code)
        except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
            continue
        if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for n in ast.walk(tree)):
            found.append(code)
            found += code_in_strings(code, depth - 1) if depth > 1 else []
    return found


def fingerprint_files(files: Mapping[str, bytes]) -> Fingerprint:
    """The fingerprints of a bundle given as ``{relative path: content}``: every file, read as `reading` says, up
    to `BUNDLE_CAP` bytes in all (in path order; the rest noted, not read)."""
    notes: list[str] = []
    found: set[int] = set()
    budget = BUNDLE_CAP
    count = 0
    for name in sorted(files):
        text, note = reading(name, files[name])
        size = len(text.encode("utf-8", "surrogatepass"))
        if budget <= 0:
            notes.append(f"{name}: not read (the bundle's first {BUNDLE_CAP // 1024} KiB to read were)")
            continue
        if size > budget:
            notes.append(f"{name}: {size} bytes to read, only the first {budget} read (over the bundle's cap)")
            text = text.encode("utf-8", "surrogatepass")[:budget].decode("utf-8", "ignore")
        budget -= size
        count += 1
        if note:
            notes.append(note)
        for code in (text, *code_in_strings(text)):
            found.update(int(h) for h in _file_hashes(code))
    if not found:
        notes.append("no text to compare")
    return Fingerprint(hashes=tuple(sorted(found)), files=count, notes=tuple(notes))


def containment(of: Fingerprint, within: Fingerprint) -> float:
    """The share of ``of``'s fingerprints found in ``within`` (0 when ``of`` is too small to tell)."""
    if len(of.hashes) < MIN_FINGERPRINTS:
        return 0.0
    return shared(of, within) / len(of.hashes)


def similarity(earlier: Fingerprint, later: Fingerprint) -> float:
    """How much of the earlier bundle the later one holds, or of the later one the earlier holds: shared
    fingerprints over the smaller bundle's, where a later bundle counts as at least half the earlier's size. So code
    added to a copy (dead code, a fork's own) leaves it similar, and so does code cut from it (unused parts
    dropped) while it keeps at least 40% of the earlier at the 0.8 threshold; one borrowed module is not a copy."""
    if len(earlier.hashes) < MIN_FINGERPRINTS or len(later.hashes) < MIN_FINGERPRINTS:
        return 0.0
    common = shared(earlier, later)
    return round(common / min(len(earlier.hashes), max(len(later.hashes), len(earlier.hashes) / 2)), 4)
