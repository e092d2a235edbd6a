"""Copy judging: a bundle's normalized source (comments, docstrings, annotations, formatting and local names
stripped) and, per normalized source, the original (the earliest commitment) and its copies.

Normalized hashes use `ast.unparse`, whose output can differ between Python versions: they are compared only within
one node's store.
"""

from __future__ import annotations

import ast
import hashlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from arena import syntax
from sandbox.bundle import SKIP_DIRS
from validator.store.models import Submission
from validator.store.repository import Store
from validator.submissions.models import VERIFIED, SubmissionChange, SubmissionError

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_KEEP = {"agent_main"}


class _Strip(ast.NodeTransformer):
    """Drop docstrings and other bare string statements, and type annotations."""

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and all(isinstance(s, ast.stmt) for s in body):
                kept = [
                    s
                    for s in body
                    if not (
                        isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str)
                    )
                ]
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
        tree = syntax.parse(source, filename=filename)
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
    files = sorted(
        p
        for p in root.rglob("*.py")
        if p.is_file() and not p.is_symlink() and not any(part in SKIP_DIRS for part in p.relative_to(root).parts)
    )
    for path in files:
        rel = PurePosixPath(*path.relative_to(root).parts).as_posix()
        digest.update(rel.encode() + b"\0" + normalize_source(path.read_bytes(), rel).encode() + b"\0")
    return digest.hexdigest()


def judge_copies(store: Store, log: Any) -> list[SubmissionChange]:
    """Accepted or copy, for every verified submission: per normalized source, the earliest commitment (block, then
    hotkey) is the original; the original's hotkey keeps every submission of it, other hotkeys' are copies."""
    rows = store.judgeable_submissions(verified=VERIFIED)
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
                reason = (
                    f"copy of submission {original.id} by {original.hotkey} (committed at block "
                    f"{original.commitment_block}): {what}"
                )
            if (row.status, row.copy_of, row.reason) == (status, copy_of, reason):
                continue
            store.set_submission(row.id, status=status, reason=reason, copy_of=copy_of)
            event = "submission.accepted" if status == "accepted" else "submission.copy"
            log.info(
                event,
                hotkey=row.hotkey,
                sha256=row.sha256,
                submission_id=row.id,
                block=row.commitment_block,
                copy_of=copy_of,
                reason=reason,
            )
            changes.append(
                SubmissionChange(
                    submission_id=row.id,
                    hotkey=row.hotkey,
                    sha256=row.sha256,
                    status=status,
                    reason=reason,
                    copy_of=copy_of,
                )
            )
    return changes
