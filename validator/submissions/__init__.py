"""Submissions with no central server: miners' on-chain commitments -> verified agent bundles in the store.

A miner commits ``sa1:<sha256>`` (or ``sa1:<sha256>:<url>``) on chain with its hotkey (`arena-miner submit`). Each
sync (`sync_submissions`):

1. reads the metagraph (recorded with `Store.upsert_miners`) and every hotkey's latest commitment; commitments that
   are not ours are logged and ignored;
2. stores each new commitment as a `pending` submission, then fetches its bundle: from the URL in the commitment, or
   else from the miner's axon (``GET /bundle/<sha256>``); every request is signed with the validator's hotkey
   (``btauth/1``, bound to the miner's hotkey as receiver), streamed under a size cap and a deadline;
3. verifies the bytes' sha256, unpacks them with `sandbox.bundle`'s limits (size, entry count, compression bombs,
   links, paths) and runs the `arena-miner check` checks; a verified bundle is kept, unpacked, at
   ``data_dir/bundles/<sha256>/`` (agent.py at its root) with its archive at ``data_dir/bundles/<sha256>.tar.gz``,
   both written atomically (temp + rename);
4. decides: `accepted`; `rejected` with a one-line reason; or `copy` (with `copy_of`) when an earlier-committed
   verified submission of another hotkey has the same normalized source (`normalized_source_hash`; an identical
   bundle always has). The earliest commitment block wins, ties by hotkey; a hotkey re-committing its own code is
   not a copy. The decision is recomputed over every verified submission on each sync, so an original whose
   download succeeds only on a retry still wins over a later copy that was fetched first.

Transient failures (unreachable, timeout, HTTP errors, no axon yet) leave the submission `pending` with the reason
and the attempt number, retried on later syncs (at most every `retry_interval` seconds) up to `max_attempts`, then
`rejected`. Content failures (hash mismatch, over the size cap, a bomb, a failed check) reject at once. A sync is
idempotent: run twice, the second changes nothing.

Normalized hashes use `ast.unparse`, whose output can differ between Python versions: they are compared only within
one node's store.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import shutil
import time
import uuid
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

import bittensor as bt
import httpx
from pydantic import BaseModel, Field
from sqlalchemy import select

from arena.log import get_logger
from sandbox.bundle import MAX_PACKED, SKIP_DIRS, BundleError, check_dir, unpack
from validator.chain.commitment import CommitmentError, encode_commitment, parse_commitment
from validator.chain.port import Axon, ChainPort, Neuron
from validator.store.models import Submission
from validator.store.repository import Store

DEFAULT_TIMEOUT = 20.0
DEFAULT_MAX_ATTEMPTS = 3
DEFAULT_RETRY_INTERVAL = 60.0
DEFAULT_CONCURRENCY = 8
_ATTEMPT = re.compile(r"^attempt (\d+) of (\d+): ")
_TMP_PREFIX = ".tmp-"
_VERIFIED = "verified; judging copies"  # the short-lived state between verification and the copy decision
_STALE_TMP_SECONDS = 600.0


class SubmissionError(Exception):
    """One submission could not be fetched or verified. `code` is short and stable; `reason` is one line.

    `retryable` failures (the source could not be reached) are tried again on later syncs; the others are final.
    """

    def __init__(self, code: str, reason: str, *, retryable: bool = False) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.retryable = retryable

    def __str__(self) -> str:
        return self.reason


@dataclass(frozen=True)
class FetchedBundle:
    """A downloaded, verified and checked bundle, stored under the bundles folder."""

    sha256: str
    path: Path  # the unpacked bundle folder (agent.py at its root)
    archive: Path  # the packed bytes, exactly as committed
    size_bytes: int
    files: int
    source: str


class SubmissionChange(BaseModel):
    """One submission whose status a sync set or changed."""

    submission_id: int
    hotkey: str
    sha256: str
    status: str
    reason: str | None = None
    copy_of: int | None = None


class SyncSummary(BaseModel):
    """What one `sync_submissions` saw and did."""

    block: int
    neurons: int
    commitments: int
    ignored: int = 0  # commitments that are not ours
    unregistered: int = 0  # ours, from hotkeys no longer on the metagraph
    new: int = 0  # submissions stored for the first time
    fetched: int = 0  # bundles downloaded and verified
    waiting: int = 0  # pending retries not yet due
    changes: list[SubmissionChange] = Field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for change in self.changes if change.status == status)

    @property
    def accepted(self) -> int:
        return self.count("accepted")

    @property
    def rejected(self) -> int:
        return self.count("rejected")

    @property
    def copies(self) -> int:
        return self.count("copy")

    @property
    def retrying(self) -> int:
        return self.count("pending")


# --- where bundles live -----------------------------------------------------------------------------------------------

def bundles_dir(data_dir: str | os.PathLike[str]) -> Path:
    return Path(data_dir) / "bundles"


def bundle_path(data_dir: str | os.PathLike[str], sha256: str) -> Path:
    """The unpacked, verified bundle folder for `sha256` (exists once a sync has verified it)."""
    return bundles_dir(data_dir) / sha256


def _archive_path(folder: Path) -> Path:
    return folder.with_name(folder.name + ".tar.gz")


def _stored(folder: Path, sha256: str) -> bool:
    """A bundle a sync verified before (the folder appears only after its archive, both by rename)."""
    archive = _archive_path(folder)
    if not (folder.is_dir() and archive.is_file()):
        return False
    try:
        return hashlib.sha256(archive.read_bytes()).hexdigest() == sha256
    except OSError:
        return False


# --- normalized source ------------------------------------------------------------------------------------------------

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_KEEP = {"agent_main"}


class _Strip(ast.NodeTransformer):
    """Drop docstrings and other bare string statements, and type annotations."""

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and all(isinstance(s, ast.stmt) for s in body):
                kept = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                                                and isinstance(s.value.value, str))]
                if not kept and field == "body":
                    kept = [ast.Pass()]
                setattr(node, field, kept)
        return node

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.annotation = None
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.returns = None
        return self.generic_visit(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        node.returns = None
        return self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST | None:
        if node.value is None:
            return None
        return self.generic_visit(ast.Assign(targets=[node.target], value=node.value, lineno=node.lineno))


def _enclosing_parts(node: ast.AST) -> list[ast.AST]:
    """The parts of a nested scope that are evaluated in the enclosing one (decorators, defaults, bases)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        args = node.args
        parts: list[ast.AST] = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
        if not isinstance(node, ast.Lambda):
            parts = [*node.decorator_list, *parts]
        return parts
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *node.keywords]
    return []


def _walk_scope(roots: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Nodes of one scope in source order, not entering nested scopes (but their names and enclosing parts)."""
    for node in roots:
        yield node
        if isinstance(node, _SCOPES):
            yield from _walk_scope(_enclosing_parts(node))
        else:
            yield from _walk_scope(ast.iter_child_nodes(node))


def _bound_names(roots: Iterable[ast.AST], args: ast.arguments | None = None) -> list[str]:
    """The names a scope binds (arguments first, then in source order), without those declared global/nonlocal."""
    names: list[str] = []
    declared: set[str] = set()
    if args is not None:
        for a in [*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg]:
            if a is not None:
                names.append(a.arg)
    for node in _walk_scope(roots):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.append(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            names.append(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.append(node.rest)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                if alias.asname:
                    names.append(alias.asname)
                elif isinstance(node, ast.ImportFrom) and alias.name != "*":
                    names.append(alias.name)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            declared.update(node.names)
    return [n for n in dict.fromkeys(names) if n not in declared]


class _Rename:
    """Rename every scope's own names to positional placeholders (module-level ones too, except `agent_main` and
    dunders); class bodies keep their names (they are attributes)."""

    def __init__(self) -> None:
        self.chain: list[dict[str, str]] = []

    def lookup(self, name: str) -> str:
        for mapping in reversed(self.chain):
            if name in mapping:
                return mapping[name]
        return name

    def module(self, tree: ast.Module) -> None:
        names = [n for n in _bound_names(tree.body) if n not in _KEEP and not (n.startswith("__") and n.endswith("__"))]
        self.chain.append({name: f"_g{i}" for i, name in enumerate(names)})
        for stmt in tree.body:
            self.visit(stmt)
        self.chain.pop()

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        for part in _enclosing_parts(node):
            self.visit(part)
        if not isinstance(node, ast.Lambda):
            node.name = self.lookup(node.name)
        body: list[ast.AST] = [node.body] if isinstance(node, ast.Lambda) else list(node.body)
        depth = len(self.chain)
        names = _bound_names(body, node.args)
        self.chain.append({name: f"_l{depth}_{i}" for i, name in enumerate(names)})
        args = node.args
        for a in [*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg]:
            if a is not None:
                a.arg = self.lookup(a.arg)
        for stmt in body:
            self.visit(stmt)
        self.chain.pop()

    def klass(self, node: ast.ClassDef) -> None:
        for part in _enclosing_parts(node):
            self.visit(part)
        node.name = self.lookup(node.name)
        self.chain.append({name: name for name in _bound_names(node.body)})
        for stmt in node.body:
            self.visit(stmt)
        self.chain.pop()

    def visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            self.function(node)
            return
        if isinstance(node, ast.ClassDef):
            self.klass(node)
            return
        if isinstance(node, ast.Name):
            node.id = self.lookup(node.id)
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            node.name = self.lookup(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            node.rest = self.lookup(node.rest)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            node.names = [self.lookup(n) for n in node.names]
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                if alias.asname:
                    alias.asname = self.lookup(alias.asname)
                elif isinstance(node, ast.ImportFrom) and alias.name != "*":
                    renamed = self.lookup(alias.name)
                    alias.asname = renamed if renamed != alias.name else None
            return
        for child in ast.iter_child_nodes(node):
            self.visit(child)


def normalize_source(source: str | bytes, filename: str = "<bundle>") -> str:
    """Python source with comments, docstrings, annotations, whitespace and local names stripped."""
    try:
        tree = ast.parse(source, filename=filename)
        tree = _Strip().visit(tree)
        _Rename().module(tree)
        return ast.unparse(tree)
    except SyntaxError as exc:
        raise SubmissionError("bad_bundle", f"{filename}:{exc.lineno}: syntax error: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:
        raise SubmissionError("bad_bundle", f"{filename}: cannot be normalized ({type(exc).__name__})") from None


def normalized_source_hash(bundle_dir: str | os.PathLike[str]) -> str:
    """sha256 over the bundle's Python files (by relative path), each normalized by `normalize_source`: a copy
    with renamed variables, other comments or docstrings, or reformatted, hashes the same."""
    root = Path(bundle_dir)
    digest = hashlib.sha256()
    files = sorted(p for p in root.rglob("*.py")
                   if p.is_file() and not p.is_symlink()
                   and not any(part in SKIP_DIRS for part in p.relative_to(root).parts))
    for path in files:
        rel = PurePosixPath(*path.relative_to(root).parts).as_posix()
        digest.update(rel.encode() + b"\0" + normalize_source(path.read_bytes(), rel).encode() + b"\0")
    return digest.hexdigest()


# --- fetching ---------------------------------------------------------------------------------------------------------

def _client(timeout: float) -> httpx.Client:
    return httpx.Client(timeout=httpx.Timeout(timeout), follow_redirects=True, max_redirects=3,
                        headers={"Accept-Encoding": "identity", "User-Agent": "shoparena-validator"})


def _source_url(source: str | Axon | None, sha256: str) -> str:
    if source is None:
        raise SubmissionError("no_source", "no URL in the commitment and no axon served by the miner",
                              retryable=True)
    if isinstance(source, Axon):
        if source.port <= 0 or source.ip in ("0.0.0.0", "::", ""):
            raise SubmissionError("no_source", f"no URL in the commitment and the miner's axon is not served "
                                               f"({source.ip}:{source.port})", retryable=True)
        return f"{source.url}/bundle/{sha256}"
    return source


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _download(client: httpx.Client, url: str, headers: dict[str, str], *, max_bytes: int, timeout: float) -> bytes:
    deadline = time.monotonic() + timeout
    try:
        with client.stream("GET", url, headers=headers) as response:
            if response.status_code != 200:
                detail = ""
                try:
                    head = bytearray()
                    for chunk in response.iter_raw(1024):  # the first bytes only: an error body may be endless
                        head += chunk
                        if len(head) >= 1024 or time.monotonic() > deadline:
                            break
                    body = bytes(head[:1024]).decode("utf-8", "replace")
                    detail = body
                    if response.headers.get("content-type", "").startswith("application/json"):
                        parsed = json.loads(body)
                        if isinstance(parsed, dict) and isinstance(parsed.get("detail"), str):
                            detail = parsed["detail"]
                except Exception:  # a body we cannot read changes nothing about the status line
                    pass
                raise SubmissionError("http_error", _short(f"HTTP {response.status_code} from {url}"
                                                           + (f": {detail}" if detail else ""), 300), retryable=True)
            encoding = response.headers.get("content-encoding", "identity").strip().lower()
            if encoding not in ("", "identity"):
                raise SubmissionError("bad_response", f"{url} sent the bundle with Content-Encoding {encoding}; "
                                                      "serve the .tar.gz bytes as they are")
            length = response.headers.get("content-length")
            if length is not None and length.isdigit() and int(length) > max_bytes:
                raise SubmissionError("too_large", f"{url} announces {int(length):,} bytes; a bundle may have at "
                                                   f"most {max_bytes:,}")
            data = bytearray()
            for chunk in response.iter_raw(65536):
                data += chunk
                if len(data) > max_bytes:
                    raise SubmissionError("too_large", f"{url} sent over {max_bytes:,} bytes; a bundle may have at "
                                                       f"most {max_bytes:,}")
                if time.monotonic() > deadline:
                    raise SubmissionError("timed_out", f"{url} did not finish sending within {timeout:g}s",
                                          retryable=True)
            return bytes(data)
    except httpx.TimeoutException:
        raise SubmissionError("timed_out", f"{url} did not answer within {timeout:g}s", retryable=True) from None
    except httpx.TooManyRedirects:
        raise SubmissionError("unreachable", f"{url} redirects too often", retryable=True) from None
    except (httpx.HTTPError, httpx.InvalidURL, OSError) as exc:
        raise SubmissionError("unreachable", _short(f"cannot download {url}: {type(exc).__name__}: {exc}"),
                              retryable=True) from None


def fetch_bundle(source: str | Axon | None, sha256: str, *, wallet: Any, into: str | os.PathLike[str],
                 miner_hotkey: str | None = None, max_bytes: int = MAX_PACKED, timeout: float = DEFAULT_TIMEOUT,
                 client: httpx.Client | None = None) -> FetchedBundle:
    """Download the bundle `sha256` from a URL or an axon, verify and check it, and store it under `into`.

    The request is signed with `wallet`'s hotkey (``btauth/1``, receiver `miner_hotkey`); an axon requires both.
    The body is streamed and abandoned as soon as it passes `max_bytes` or the `timeout` deadline. The result is
    ``into/<sha256>/`` (unpacked) and ``into/<sha256>.tar.gz``, written atomically; nothing is left on failure.
    Raises `SubmissionError` (one line) on any failure.
    """
    url = _source_url(source, sha256)
    headers: dict[str, str] = {}
    if wallet is not None:
        target = httpx.URL(url).raw_path.decode("ascii")
        headers = bt.http_auth.sign(wallet, method="GET", path=target, receiver_ss58=miner_hotkey)
    elif isinstance(source, Axon):
        raise SubmissionError("no_wallet", "fetching from an axon needs the validator's wallet to sign the request")
    own = client is None
    http = _client(timeout) if client is None else client
    try:
        data = _download(http, url, headers, max_bytes=max_bytes, timeout=timeout)
    finally:
        if own:
            http.close()
    got = hashlib.sha256(data).hexdigest()
    if got != sha256:
        raise SubmissionError("hash_mismatch", f"{url} sent {len(data):,} bytes with sha256 {got[:16]}..., not the "
                                               f"committed {sha256[:16]}...")
    return _store_bundle(data, sha256, Path(into), url)


def _store_bundle(data: bytes, sha256: str, into: Path, source: str) -> FetchedBundle:
    into.mkdir(parents=True, exist_ok=True)
    folder = into / sha256
    archive = _archive_path(folder)
    tmp = into / f"{_TMP_PREFIX}{sha256[:16]}-{uuid.uuid4().hex[:8]}"
    try:
        try:
            unpack(data, tmp)
        except BundleError as exc:
            raise SubmissionError("bad_bundle", _short(f"bundle refused: {'; '.join(exc.problems)}", 300)) from None
        try:
            problems = check_dir(tmp)
        except RecursionError:
            problems = ["a Python file is too deeply nested to parse"]
        if problems:
            raise SubmissionError("bad_bundle", _short(f"bundle fails `arena-miner check`: {'; '.join(problems)}",
                                                       300))
        files = sum(1 for p in tmp.rglob("*") if p.is_file())
        tmp_archive = into / f"{tmp.name}.tar.gz"
        tmp_archive.write_bytes(data)
        os.replace(tmp_archive, archive)
        try:
            os.rename(tmp, folder)
        except OSError:
            if not folder.is_dir():  # not a concurrent identical fetch: a real failure
                raise
    except OSError as exc:
        raise SubmissionError("store_failed", f"cannot store the bundle under {into}: {exc}", retryable=True) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        with suppress(OSError):
            (into / f"{tmp.name}.tar.gz").unlink(missing_ok=True)
    return FetchedBundle(sha256=sha256, path=folder, archive=archive, size_bytes=len(data), files=files,
                         source=source)


def _clean_tmp(into: Path) -> None:
    """Remove temp entries a crashed sync left behind (old enough not to be another sync's work in progress)."""
    if not into.is_dir():
        return
    cutoff = time.time() - _STALE_TMP_SECONDS
    for entry in into.glob(f"{_TMP_PREFIX}*"):
        with suppress(OSError):
            if entry.lstat().st_mtime < cutoff:
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    entry.unlink()


# --- sync -------------------------------------------------------------------------------------------------------------

@dataclass
class _Work:
    submission_id: int
    hotkey: str
    block: int
    sha256: str
    source: str | Axon | None
    attempts: int  # failed attempts so far


@dataclass
class _Result:
    ok: bool
    error: SubmissionError | None = None
    fetched: bool = False


def _attempts(reason: str | None) -> int:
    match = _ATTEMPT.match(reason or "")
    return int(match.group(1)) if match else 0


def _describe(url: str | None, neuron: Neuron | None) -> str:
    if url:
        return url
    if neuron is not None and neuron.axon is not None:
        return f"axon {neuron.axon.url}"
    return "axon"


def _obtain(sha256: str, works: list[_Work], *, wallet: Any, into: Path, client: httpx.Client, max_bytes: int,
            timeout: float) -> dict[int, _Result]:
    """Get one bundle for every submission committing it: from the first source that delivers a valid copy."""
    if _stored(into / sha256, sha256):
        return {w.submission_id: _Result(ok=True) for w in works}
    results: dict[int, _Result] = {}
    for index, work in enumerate(works):
        try:
            try:
                fetch_bundle(work.source, sha256, wallet=wallet, into=into, miner_hotkey=work.hotkey,
                             max_bytes=max_bytes, timeout=timeout, client=client)
            except SubmissionError:
                raise
            except Exception as exc:  # our fault, not the miner's: retried like a transient failure
                raise SubmissionError("validator_error", _short(f"validator error while fetching: "
                                                                f"{type(exc).__name__}: {exc}"),
                                      retryable=True) from exc
        except SubmissionError as exc:
            results[work.submission_id] = _Result(ok=False, error=exc)
            if exc.code == "bad_bundle":  # the committed bytes themselves are bad: the same for every source
                for rest in works[index + 1:]:
                    results[rest.submission_id] = _Result(ok=False, error=exc)
                return results
            continue
        for rest in works[index:]:
            results[rest.submission_id] = _Result(ok=True, fetched=rest is work)
        return results
    return results


def sync_submissions(store: Store, chain: ChainPort, *, wallet: Any, data_dir: str | os.PathLike[str],
                     log: Any = None, max_bytes: int = MAX_PACKED, timeout: float = DEFAULT_TIMEOUT,
                     max_attempts: int = DEFAULT_MAX_ATTEMPTS, retry_interval: float = DEFAULT_RETRY_INTERVAL,
                     concurrency: int = DEFAULT_CONCURRENCY) -> SyncSummary:
    """Sync the metagraph and commitments into the store, and fetch, verify and judge every new submission.

    Raises `ChainError` when the chain cannot be read (nothing is changed then); everything a miner can get wrong
    ends as a stored reason, never an exception. See the module's docstring for the rules.
    """
    log = log or get_logger("validator.submissions")
    graph = chain.metagraph()
    store.upsert_miners(graph.neurons, block=graph.block)
    commitments = chain.commitments()
    summary = SyncSummary(block=graph.block, neurons=len(graph.neurons), commitments=len(commitments))
    into = bundles_dir(data_dir)
    _clean_tmp(into)
    now = datetime.now(UTC)
    current: dict[str, int] = {}  # hotkey -> block of its current (our) commitment
    work: list[_Work] = []
    for commitment in sorted(commitments.values(), key=lambda c: (c.block, c.hotkey)):
        parsed = parse_commitment(commitment.value)
        if parsed is None:
            summary.ignored += 1
            log.info("submission.ignored", hotkey=commitment.hotkey, block=commitment.block,
                     reason="not a ShopArena commitment (sa1:<sha256>[:<url>])", value=_short(commitment.value, 80))
            continue
        neuron = graph.by_hotkey(commitment.hotkey)
        if neuron is None:
            summary.unregistered += 1
            log.info("submission.unregistered", hotkey=commitment.hotkey, block=commitment.block)
            continue
        sha256, url = parsed
        current[commitment.hotkey] = commitment.block
        sub, created = store.add_submission(hotkey=commitment.hotkey, sha256=sha256,
                                            commitment_block=commitment.block, source=_describe(url, neuron),
                                            coldkey=neuron.coldkey)
        if created:
            summary.new += 1
            log.info("submission.new", hotkey=sub.hotkey, sha256=sha256, block=sub.commitment_block,
                     source=sub.source)
        if sub.status != "pending":
            continue
        attempts = _attempts(sub.reason)
        if attempts and sub.checked_at is not None and (now - sub.checked_at).total_seconds() < retry_interval:
            summary.waiting += 1
            continue
        source: str | Axon | None = url if url else neuron.axon
        work.append(_Work(sub.id, sub.hotkey, sub.commitment_block, sha256, source, attempts))

    by_sha: dict[str, list[_Work]] = {}
    for item in work:
        by_sha.setdefault(item.sha256, []).append(item)
    results: dict[int, _Result] = {}
    if by_sha:
        with _client(timeout) as client, ThreadPoolExecutor(max_workers=max(1, min(concurrency, len(by_sha))),
                                                            thread_name_prefix="bundle-fetch") as pool:
            futures = {sha: pool.submit(_obtain, sha, items, wallet=wallet, into=into, client=client,
                                        max_bytes=max_bytes, timeout=timeout) for sha, items in by_sha.items()}
            for future in futures.values():
                results.update(future.result())

    normalized: dict[str, str | SubmissionError] = {}
    for item in work:
        result = results[item.submission_id]
        bound = log.bind(hotkey=item.hotkey, sha256=item.sha256, submission_id=item.submission_id)
        if result.ok:
            summary.fetched += result.fetched
            if item.sha256 not in normalized:
                try:
                    normalized[item.sha256] = normalized_source_hash(into / item.sha256)
                except SubmissionError as exc:
                    normalized[item.sha256] = exc
            norm = normalized[item.sha256]
            if isinstance(norm, SubmissionError):
                result = _Result(ok=False, error=norm)
            else:
                size = _archive_path(into / item.sha256).stat().st_size
                # verified; `_judge_copies` below decides accepted or copy
                store.set_submission(item.submission_id, status="pending", reason=_VERIFIED,
                                     normalized_sha256=norm, size_bytes=size)
                continue
        error = result.error
        assert error is not None
        attempt = item.attempts + 1
        if error.retryable and attempt < max_attempts:
            reason = f"attempt {attempt} of {max_attempts}: {error.reason}"
            status = "pending"
            bound.warning("submission.retry", reason=reason)
        else:
            reason = (f"gave up after {attempt} attempts: {error.reason}" if error.retryable else error.reason)
            status = "rejected"
            bound.warning("submission.rejected", code=error.code, reason=reason)
        store.set_submission(item.submission_id, status=status, reason=reason)
        summary.changes.append(SubmissionChange(submission_id=item.submission_id, hotkey=item.hotkey,
                                                sha256=item.sha256, status=status, reason=reason))

    summary.changes += _judge_copies(store, log)
    summary.changes += _supersede(store, current, log)
    log.info("submissions.synced", block=summary.block, neurons=summary.neurons, commitments=summary.commitments,
             new=summary.new, fetched=summary.fetched, accepted=summary.accepted, copies=summary.copies,
             rejected=summary.rejected, retrying=summary.retrying, ignored=summary.ignored)
    return summary


def _judge_copies(store: Store, log: Any) -> list[SubmissionChange]:
    """Accepted or copy, for every verified submission: per normalized source, the earliest commitment (block, then
    hotkey) is the original; the original's hotkey keeps every submission of it, other hotkeys' are copies."""
    with store.session() as s:
        rows = list(s.scalars(select(Submission).where(
            (Submission.status.in_(("accepted", "copy")))
            | ((Submission.status == "pending") & (Submission.reason == _VERIFIED)))))
    groups: dict[str, list[Submission]] = {}
    for row in rows:
        groups.setdefault(row.normalized_sha256 or f"sha256:{row.sha256}", []).append(row)
    changes: list[SubmissionChange] = []
    for group in groups.values():
        original = min(group, key=lambda r: (r.commitment_block, r.hotkey, r.id))
        for row in group:
            if row.hotkey == original.hotkey:
                status, copy_of, reason = "accepted", None, None
            else:
                what = "an identical bundle" if row.sha256 == original.sha256 else "the same normalized source"
                status, copy_of = "copy", original.id
                reason = (f"copy of submission {original.id} by {original.hotkey} (committed at block "
                          f"{original.commitment_block}): {what}")
            if (row.status, row.copy_of, row.reason) == (status, copy_of, reason):
                continue
            store.set_submission(row.id, status=status, reason=reason, copy_of=copy_of)
            event = "submission.accepted" if status == "accepted" else "submission.copy"
            log.info(event, hotkey=row.hotkey, sha256=row.sha256, submission_id=row.id, block=row.commitment_block,
                     copy_of=copy_of, reason=reason)
            changes.append(SubmissionChange(submission_id=row.id, hotkey=row.hotkey, sha256=row.sha256,
                                            status=status, reason=reason, copy_of=copy_of))
    return changes


def _supersede(store: Store, current: dict[str, int], log: Any) -> list[SubmissionChange]:
    """A pending submission whose hotkey has since committed something newer will never be fetched: reject it."""
    if not current:
        return []
    with store.session() as s:
        rows = list(s.scalars(select(Submission).where(Submission.status == "pending",
                                                       Submission.hotkey.in_(list(current)))))
    changes = []
    for row in rows:
        block = current[row.hotkey]
        if row.commitment_block < block:
            reason = f"superseded by the hotkey's commitment at block {block} before it could be verified"
            store.set_submission(row.id, status="rejected", reason=reason)
            log.info("submission.superseded", hotkey=row.hotkey, sha256=row.sha256, submission_id=row.id)
            changes.append(SubmissionChange(submission_id=row.id, hotkey=row.hotkey, sha256=row.sha256,
                                            status="rejected", reason=reason))
    return changes


__all__ = [
    "CommitmentError",
    "FetchedBundle",
    "SubmissionChange",
    "SubmissionError",
    "SyncSummary",
    "bundle_path",
    "bundles_dir",
    "encode_commitment",
    "fetch_bundle",
    "normalize_source",
    "normalized_source_hash",
    "parse_commitment",
    "sync_submissions",
]
