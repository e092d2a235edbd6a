"""The task families and the one registry every layer reaches them through.

A family (`arena.tasks.base.Family`) is one package under ``arena/tasks/<name>/``: its problem model and public view,
its generator and importers, the tools it serves, its strict checks and what the judge and the corpus read from its
tools' results. The built-in families are listed in `BUILT_IN`; more are loaded from the modules named in the
``SHOPARENA_FAMILIES`` environment variable (comma-separated; each module registers its family when imported), so
a family can live outside this repository. ``docs/architecture.md`` shows how to add one.

Everything that depends on the kind of a problem asks here: `family_for` (by task type), `parse_problem` (a
problem's dict to its family's model), `score`, `tools_for`, `get_ruleset`, `ruleset_for` (a family's ruleset in a
pack), `judge_context`, `TASKS` (every task type, in order); `arena.tasks.answer` reads a run's answer.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Annotated, Any

from pydantic import BeforeValidator, SerializeAsAny

from arena.tasks.base import Difficulty, Family, Generated, Lookup, ProblemBase, Ruleset, Split

BUILT_IN = ("arena.tasks.shoppingbench", "arena.tasks.session", "arena.tasks.compatibility")
ENV = "SHOPARENA_FAMILIES"

_families: dict[str, Family] = {}
_by_task: dict[str, Family] = {}


class UnknownTask(ValueError):
    """A problem names a task type no registered family owns."""


class UnknownRuleset(ValueError):
    """A ruleset name no registered family defines."""


def register(family: Family) -> Family:
    """Register ``family`` (once; registering the same family again is a no-op). Its task types must be new."""
    known = _families.get(family.name)
    if known is not None:
        if type(known) is not type(family):
            raise ValueError(f"a different task family is already registered as {family.name!r}")
        return known
    taken = [t for t in family.tasks if t in _by_task]
    if taken:
        raise ValueError(f"task type(s) {', '.join(taken)} of family {family.name!r} belong to another family")
    _families[family.name] = family
    for task in family.tasks:
        _by_task[task] = family
    return family


def _load() -> None:
    extra = [m.strip() for m in os.environ.get(ENV, "").split(",") if m.strip()]
    for module in (*BUILT_IN, *extra):
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise ImportError(f"cannot load the task family module {module!r} (named in {ENV}): {exc}") from exc


def families() -> list[Family]:
    """Every registered family, built-in first."""
    _load()
    return list(_families.values())


def family(name: str) -> Family:
    _load()
    try:
        return _families[name]
    except KeyError:
        raise UnknownTask(f"no task family {name!r}; families: {', '.join(_families)}") from None


def family_for(task: str) -> Family:
    """The family that owns task type ``task``."""
    _load()
    try:
        return _by_task[task]
    except KeyError:
        raise UnknownTask(f"unknown task type {task!r}; task types: {', '.join(_by_task)}") from None


def all_tasks() -> tuple[str, ...]:
    """Every task type of every registered family, in registration order."""
    _load()
    return tuple(_by_task)


def parse_problem(value: Any) -> ProblemBase:
    """A problem (a dict, as packs and the store keep it, or a model) as its family's model."""
    if isinstance(value, ProblemBase):
        return value
    if not isinstance(value, dict):
        raise ValueError(f"a problem is a JSON object, got {type(value).__name__}")
    task = value.get("task")
    if not isinstance(task, str):
        raise ValueError("a problem needs its task type ('task')")
    return family_for(task).problem_model.model_validate(value)


#: a problem of any registered family, read by its ``task`` into that family's model and written with all its fields
AnyProblem = Annotated[SerializeAsAny[ProblemBase], BeforeValidator(lambda value: parse_problem(value))]


def score(problem: ProblemBase, answer: Any, lookup: Lookup, **kwargs: Any) -> Any:
    """The strict verdict on a run of ``problem`` (`Family.score`)."""
    return family_for(problem.task).score(problem, answer, lookup, **kwargs)


def tools_for(task: str) -> Any:
    """A fresh tool registry for runs of task type ``task``."""
    return family_for(task).tools()


def tool_declarations() -> Iterator[Any]:
    """Every tool of every family (a tool shared by two families is given once)."""
    seen: set[str] = set()
    for fam in families():
        for tool in fam.tools():
            if tool.name not in seen:
                seen.add(tool.name)
                yield tool


def rulesets() -> dict[str, Ruleset]:
    """Every family's named rulesets (name -> ruleset), in registration order."""
    out: dict[str, Ruleset] = {}
    owner: dict[str, str] = {}
    for fam in families():
        mine: Mapping[str, Ruleset] = fam.rulesets()
        for name, ruleset in mine.items():
            if name in owner and owner[name] != fam.name and out[name] is not ruleset:
                raise ValueError(f"ruleset {name!r} is defined by both {owner[name]!r} and {fam.name!r}")
            owner[name] = fam.name
            out[name] = ruleset
    return out


def get_ruleset(name: str | Ruleset) -> Ruleset:
    """The ruleset called ``name`` (a ruleset is returned as it is), whichever family defines it; one clear error
    for an unknown name."""
    if not isinstance(name, str):
        return name
    known = rulesets()
    try:
        return known[name]
    except KeyError:
        raise UnknownRuleset(f"unknown ruleset {name!r}; use one of: {', '.join(known)}") from None


def ruleset_for(fam: Family, chosen: Mapping[str, str] | None = None, fallback: str | None = None) -> str | None:
    """The name of the ruleset a family's problems are scored by: the one ``chosen`` names for the family, else
    ``fallback`` when the family defines it (a pack's one ruleset, as packs had before they named one per family),
    else the family's default (its first; None for a family without rulesets). One clear error when ``chosen``
    names a ruleset the family does not define."""
    mine = fam.rulesets()
    name = (chosen or {}).get(fam.name)
    if name is not None:
        if name not in mine:
            known = ", ".join(mine) or "none"
            raise UnknownRuleset(f"the task family {fam.name!r} has no ruleset {name!r}; its rulesets: {known}")
        return name
    if fallback is not None and fallback in mine:
        return fallback
    return fam.default_ruleset()


def judge_context(problem: ProblemBase) -> dict[str, Any]:
    """What the judge sees of ``problem`` (`Family.judge_context`)."""
    return family_for(problem.task).judge_context(problem)


def gold_vectors(problems: Sequence[ProblemBase]) -> dict[str, list[Any]]:
    """Each family's stored scoring vectors for its problems among ``problems``."""
    out: dict[str, list[Any]] = {}
    for fam in families():
        mine = [p for p in problems if p.task in fam.tasks]
        if mine:
            out.update(fam.gold_vectors(mine))
    return out


_load()
TASKS: tuple[str, ...] = all_tasks()  # the built-in task types; `all_tasks()` adds those of loaded plugins

__all__ = [
    "BUILT_IN",
    "AnyProblem",
    "ENV",
    "TASKS",
    "Difficulty",
    "Family",
    "Generated",
    "Lookup",
    "ProblemBase",
    "Ruleset",
    "Split",
    "UnknownRuleset",
    "UnknownTask",
    "all_tasks",
    "families",
    "family",
    "family_for",
    "get_ruleset",
    "gold_vectors",
    "judge_context",
    "parse_problem",
    "register",
    "ruleset_for",
    "rulesets",
    "score",
    "tool_declarations",
    "tools_for",
]
