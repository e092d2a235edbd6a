"""Parsing Python source is safe from several threads at once (`arena/syntax.py`): the node checks several fetched
submissions at a time, and on CPython 3.11 before 3.11.8 two ``ast.parse`` calls that meet mid-construction fail one
with ``SystemError: AST constructor recursion depth mismatch``. Every parse of ours goes through `arena.syntax.parse`.

The meeting is made likely the way it happens in a node: a garbage collection runs Python code that parses and
hands the GIL to another thread (`tests/support/parsing.py`)."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

from sandbox.bundle import check_dir
from sandbox.contracts import inspect_bundle
from tests.support.parsing import collections_that_parse
from validator.submissions import normalized_source_hash

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("arena", "sandbox", "validator", "miner_template", "demo")
THREADS = 8
ROUNDS = 6


def _bundle(folder: Path, n: int) -> Path:
    """A bundle of several sizeable Python files (our own modules, so the trees are deep and wide)."""
    folder.mkdir(parents=True)
    sources = sorted((ROOT / "validator" / "submissions").glob("*.py"))
    (folder / "agent.py").write_text(f"LABEL = {n}\n\n\ndef agent_main(problem):\n    return None\n")
    for source in sources:
        (folder / f"m{n}_{source.name}").write_text(source.read_text())
    return folder


def _in_threads(work: list[Any]) -> list[str]:
    failures: list[str] = []

    def run(job: Any) -> None:
        for _ in range(ROUNDS):
            try:
                job()
            except Exception as exc:  # noqa: BLE001 - every failure is the finding
                failures.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=run, args=(job,)) for job in work]
    with collections_that_parse():
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    return failures


def test_checking_several_bundles_at_once_never_fails_a_parse(tmp_path: Path) -> None:
    """The checks a fetch runs on each bundle (`arena-miner check`'s, the contract's, the copy check's), each bundle
    in its own thread as the fetcher runs them: every check gives the answer it gives alone."""
    bundles = [_bundle(tmp_path / f"b{n}", n) for n in range(THREADS)]
    alone = {b: (check_dir(b), inspect_bundle(b).missing, normalized_source_hash(b)) for b in bundles}
    assert all(problems == [] for problems, _, _ in alone.values())
    seen: dict[Path, set[Any]] = {b: set() for b in bundles}

    def job(bundle: Path) -> Any:
        def check() -> None:
            report = inspect_bundle(bundle)
            seen[bundle].add((tuple(check_dir(bundle)), tuple(report.missing), normalized_source_hash(bundle)))

        return check

    failures = _in_threads([job(b) for b in bundles])
    assert failures == []
    assert seen == {b: {(tuple(problems), tuple(missing), digest)} for b, (problems, missing, digest) in alone.items()}


def test_a_syntax_error_is_still_reported_from_every_thread(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "agent.py").write_text("def agent_main(problem):\n    return (\n")
    results: list[list[str]] = []
    failures = _in_threads([lambda: results.append(check_dir(broken)) for _ in range(THREADS)])
    assert failures == []
    assert len(results) == THREADS * ROUNDS
    assert all(len(r) == 1 and r[0].startswith("agent.py:2: syntax error") for r in results), results[:2]


def test_every_parse_of_ours_goes_through_the_one_helper() -> None:
    call = re.compile(r"\bast\.parse\(|PyCF_ONLY_AST|\bast\.literal_eval\(")
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if path != ROOT / "arena" / "syntax.py"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if call.search(line)
    ]
    assert found == [], "parse with arena.syntax.parse (safe from several threads):\n" + "\n".join(found)
