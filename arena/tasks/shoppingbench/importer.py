"""Importing ShoppingBench's test files (``synthesize_{product,shop,voucher,web_simpleqa}_test.jsonl``) and ORO's
problem suites (``data/suites/problem_suite_v*.json`` in ``ORO-AI/oro``).

The four record formats, told apart by their keys (yjwjy/ShoppingBench ``data/``):

- product: ``{"query", "reward": {product_id, title, ...}}``
- shop: ``{"query", "reward": [2-4 of those]}``
- voucher: ``{"query", "reward": [1-4], "voucher": {...}}``
- web: ``{"query", "Knowledge_Attribute", "reward": <the full gold product document>}``; the attribute is taken as
  ``str(value)`` as ShoppingBench's checker does (a year may be stored as a JSON number).

A file is JSON Lines, one record a line, or (ORO's suites) one JSON array of records. ORO's records are the same
records with extra keys: ``category`` (Product, Shop, Voucher), ``difficulty`` (kept), ``title`` (kept in
``meta["suite_title"]``) and ``reward_title_embeddings`` (gold-title vectors of ORO's embedding model, which is not
ours: dropped; the pack embeds titles with its own model). The task is always detected from the record's shape; a
``category`` that names another task is reported as a bad record.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from arena.catalog.models import Product
from arena.tasks.shopping.problem import Problem, ProductReward
from arena.tasks.shopping.records import json_lines

#: ORO's ``category`` names -> our tasks
CATEGORIES = {"product": "product", "shop": "shop", "voucher": "voucher", "web": "web", "knowledge": "web"}
DIFFICULTIES = ("easy", "medium", "hard")


@dataclass
class ImportReport:
    problems: list[Problem] = field(default_factory=list)
    bad: list[str] = field(default_factory=list)  # "FILE:LINE: reason"
    by_task: dict[str, int] = field(default_factory=dict)


def detect_task(record: dict[str, Any]) -> str:
    """Which ShoppingBench task a test record is. Raises ValueError with the reason when it is none of them."""
    reward = record.get("reward")
    if "Knowledge_Attribute" in record or "knowledge_attribute" in record:
        if not isinstance(reward, dict):
            raise ValueError("web record's reward is not a product document")
        return "web"
    if "voucher" in record and record["voucher"] is not None:
        if not isinstance(reward, list):
            raise ValueError("voucher record's reward is not a list")
        return "voucher"
    if isinstance(reward, list):
        return "shop"
    if isinstance(reward, dict):
        return "product"
    raise ValueError('no "reward" object or list')


def _problem_id(task: str, record: dict[str, Any]) -> str:
    digest = hashlib.sha256(
        orjson.dumps({"q": record.get("query"), "r": record.get("reward")}, option=orjson.OPT_SORT_KEYS)
    ).hexdigest()
    return f"sb-{task}-{digest[:12]}"


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "record"
    return f"{where}: {err['msg']}"


def knowledge_text(value: Any) -> str:
    """A ``Knowledge_Attribute`` as ShoppingBench's checker reads it (``str(kw)``): text as it is, a number as its
    string (``2019`` -> ``"2019"``). Raises ValueError for anything else or for blank text."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        kind = "missing" if value is None else f"a {type(value).__name__}"
        raise ValueError(f"web record's Knowledge_Attribute is {kind}; it must be text or a number")
    text = str(value)
    if not text.strip():
        raise ValueError("web record has an empty Knowledge_Attribute")
    return text


def _suite_fields(record: dict[str, Any], task: str) -> tuple[str | None, dict[str, Any]]:
    """ORO's extra keys: (difficulty, meta). Raises ValueError when ``category`` names another task."""
    meta: dict[str, Any] = {}
    category = record.get("category")
    if category is not None:
        named = CATEGORIES.get(str(category).strip().lower())
        if named is not None and named != task and not (named == "shop" and task == "product"):
            raise ValueError(
                f"category {category!r} but the record is a {task} task by its shape "
                f"({_shape(task)}); fix the category or the reward"
            )
        meta["category"] = category
    if isinstance(record.get("title"), str):
        meta["suite_title"] = record["title"]
    difficulty = record.get("difficulty")
    if difficulty is not None and difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty {difficulty!r} is not one of {', '.join(DIFFICULTIES)}")
    return difficulty, meta


def _shape(task: str) -> str:
    return {
        "web": "a Knowledge_Attribute and a product document",
        "voucher": "a voucher and a reward list",
        "shop": "a reward list",
        "product": "one reward object",
    }[task]


def parse_record(record: Any, source: str) -> Problem:
    """One ShoppingBench test record (or ORO suite record) -> Problem. Raises ValueError with a one-line reason."""
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    query = record.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ValueError('no "query" text')
    task = detect_task(record)
    if task == "shop" and len(record["reward"]) == 1:
        task = "product"
    difficulty, meta = _suite_fields(record, task)
    extra: dict[str, Any] = {"meta": meta, **({"difficulty": difficulty} if difficulty else {})}
    try:
        if task == "web":
            doc = Product.model_validate(record["reward"])
            knowledge = knowledge_text(record.get("Knowledge_Attribute", record.get("knowledge_attribute")))
            reward = [ProductReward(product_id=doc.product_id, title=[doc.title])]
            return Problem(
                problem_id=_problem_id(task, record),
                task="web",
                query=query,
                reward=reward,
                knowledge_attribute=knowledge,
                gold_document=doc,
                source=source,
                **extra,
            )
        rewards = record["reward"] if isinstance(record["reward"], list) else [record["reward"]]
        parsed = [ProductReward.model_validate(r) for r in rewards]
        for r in parsed:
            if not r.title:
                raise ValueError(f"reward {r.product_id} has no title")
        return Problem(
            problem_id=_problem_id(task, record),
            task=task,
            query=query,
            reward=parsed,
            voucher=record.get("voucher") if task == "voucher" else None,
            source=source,
            **extra,
        )
    except ValidationError as exc:
        raise ValueError(_first_error(exc)) from None


def _records(path: Path, report: ImportReport) -> Iterator[tuple[str, str, Any]]:
    """(where, source, record) for each record of a file: JSON Lines, or one JSON array (ORO's suites). Records
    that are not JSON are reported in ``report.bad``."""
    with open(path, "rb") as fh:
        data = fh.read()
    if data.lstrip()[:1] == b"[":
        try:
            records = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            report.bad.append(f"{path.name}: not a valid JSON array ({exc})")
            return
        for index, record in enumerate(records, start=1):
            yield f"{path.name}: record {index}", f"suite:{path.name}:{index}", record
        return
    for lineno, where, record in json_lines(path.name, data, report.bad):
        yield where, f"shoppingbench:{path.name}:{lineno}", record


def import_files(paths: Iterable[str | Path]) -> ImportReport:
    """Read ShoppingBench test files and ORO suites; bad records are reported by file, line (or record number) and
    reason, and skipped."""
    report = ImportReport()
    seen: dict[str, str] = {}
    for path in map(Path, paths):
        if not path.is_file():
            report.bad.append(f"{path}: no such file")
            continue
        for where, source, record in _records(path, report):
            try:
                problem = parse_record(record, source=source)
            except ValueError as exc:
                report.bad.append(f"{where}: {exc}")
                continue
            if problem.problem_id in seen:
                report.bad.append(f"{where}: duplicate of {seen[problem.problem_id]}")
                continue
            seen[problem.problem_id] = where
            report.problems.append(problem)
            report.by_task[problem.task] = report.by_task.get(problem.task, 0) + 1
    return report
