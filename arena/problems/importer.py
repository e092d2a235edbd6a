"""Importing ShoppingBench's test files (``synthesize_{product,shop,voucher,web_simpleqa}_test.jsonl``).

The four formats, told apart by their keys (yjwjy/ShoppingBench ``data/``):

- product: ``{"query", "reward": {product_id, title, ...}}``
- shop: ``{"query", "reward": [2-4 of those]}``
- voucher: ``{"query", "reward": [1-4], "voucher": {...}}``
- web: ``{"query", "Knowledge_Attribute", "reward": <the full gold product document>}``
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from arena.catalog.models import Product
from arena.problems.models import Problem, ProductReward


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
    digest = hashlib.sha256(orjson.dumps({"q": record.get("query"), "r": record.get("reward")},
                                         option=orjson.OPT_SORT_KEYS)).hexdigest()
    return f"sb-{task}-{digest[:12]}"


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "record"
    return f"{where}: {err['msg']}"


def parse_record(record: Any, source: str) -> Problem:
    """One ShoppingBench test record -> Problem. Raises ValueError with a one-line reason."""
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    query = record.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ValueError('no "query" text')
    task = detect_task(record)
    try:
        if task == "web":
            doc = Product.model_validate(record["reward"])
            knowledge = record.get("Knowledge_Attribute", record.get("knowledge_attribute"))
            if not isinstance(knowledge, str) or not knowledge.strip():
                raise ValueError("web record has an empty Knowledge_Attribute")
            reward = [ProductReward(product_id=doc.product_id, title=[doc.title])]
            return Problem(problem_id=_problem_id(task, record), task="web", query=query, reward=reward,
                           knowledge_attribute=knowledge.strip(), gold_document=doc, source=source)
        rewards = record["reward"] if isinstance(record["reward"], list) else [record["reward"]]
        if task == "shop" and len(rewards) == 1:
            task = "product"
        parsed = [ProductReward.model_validate(r) for r in rewards]
        for r in parsed:
            if not r.title:
                raise ValueError(f"reward {r.product_id} has no title")
        return Problem(problem_id=_problem_id(task, record), task=task, query=query, reward=parsed,  # type: ignore[arg-type]
                       voucher=record.get("voucher") if task == "voucher" else None, source=source)
    except ValidationError as exc:
        raise ValueError(_first_error(exc)) from None


def import_files(paths: Iterable[str | Path]) -> ImportReport:
    """Read ShoppingBench test files; bad records are reported by file, line and reason and skipped."""
    report = ImportReport()
    seen: dict[str, str] = {}
    for path in map(Path, paths):
        if not path.is_file():
            report.bad.append(f"{path}: no such file")
            continue
        with open(path, "rb") as fh:
            for lineno, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                where = f"{path.name}:{lineno}"
                try:
                    record = orjson.loads(line)
                except orjson.JSONDecodeError as exc:
                    report.bad.append(f"{where}: not valid JSON ({exc.msg})")
                    continue
                try:
                    problem = parse_record(record, source=f"shoppingbench:{path.name}:{lineno}")
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
