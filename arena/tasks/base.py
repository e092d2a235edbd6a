"""What every task family shares: the fields of a problem every layer reads (`ProblemBase`) and the one interface
through which the gateway, the scorer, the judge, the races, the corpus, the API and ``arena-miner`` reach a family
(`Family`). A family subclasses both; `arena.tasks` registers it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Protocol, Required, TypedDict, Unpack

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from arena.scoring.models import RunScore
    from arena.tasks.hooks import Importer, Section, SelfCheckReport, Step
    from arena.tools.registry import RunState, ToolRegistry
    from arena.trajectory import TrajectoryEvent

#: a pack's splits, and "qualifying": a problem made fresh for one qualifying round (`arena.problems.fresh`), in no pack
Split = Literal["public", "race", "held_out", "qualifying"]
Difficulty = Literal["easy", "medium", "hard"]
Lookup = Callable[[str], "dict[str, Any] | None"]


class ScoreOptions(TypedDict, total=False):
    """`Family.score`'s keyword options, each optional: a family reads the ones it uses (``options.get``)."""

    #: the gateway's log of the run (families that score the conversation read it); default none
    events: Sequence[TrajectoryEvent]
    #: the pack's stored vectors of this problem (`Family.gold_vectors`), decoded; default None
    gold_vectors: Sequence[Any] | None
    #: the ruleset's name as the pack gives it for this family (`Pack.ruleset_for`), or a `Ruleset`; None: the default
    ruleset: Any


class GenerateOptions(TypedDict, total=False):
    """`Family.generate`'s keyword options: the task types to draw (required), the seed (default 0), and
    ``progress(k)`` after each k problems tried (default none)."""

    tasks: Required[Sequence[str]]
    seed: int
    progress: Callable[[int], None] | None


class SelfcheckOptions(TypedDict, total=False):
    """`Family.selfcheck`'s keyword options, each optional: the ruleset's name (None: the family's default), the
    pack's stored vectors by problem id, and the progress `Step`."""

    ruleset: str | None
    vectors: Callable[[str], Any] | None
    step: Step | None


class Ruleset(Protocol):
    """A named set of strict checks a pack declares its problems are scored by (`Family.rulesets`); the family's
    `Family.score` takes it (or its name)."""

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    def parse(self, raw: Any) -> list[str]:
        """The answer's ids from a run's raw committed answer, as this ruleset reads them; never raises."""
        ...

    def describe(self) -> dict[str, Any]:
        """What a stored score says of the ruleset (name, version, reference...)."""
        ...


class ProblemBase(BaseModel):
    """The fields of any problem: what splits, packs, draws, seals and the run page read. ``task`` names the family's
    task type; a family's model narrows it to its own ``Literal``."""

    model_config = ConfigDict(extra="forbid")

    problem_id: Annotated[str, Field(min_length=1)]
    task: str
    query: Annotated[str, Field(min_length=1)]
    cluster_id: str = ""
    split: Split = "public"
    difficulty: Difficulty = "medium"
    source: str = "generated"
    meta: dict[str, Any] = Field(default_factory=dict)

    def public(self) -> dict[str, Any]:
        """The only view of a problem that may enter a sandbox: what the agent is asked and non-revealing metadata."""
        return {"problem_id": self.problem_id, "task": self.task, "query": self.query, "difficulty": self.difficulty}

    @property
    def gold_ids(self) -> list[str]:
        """The catalog ids of the problem's gold products (clusters, decontamination and the run page name them)."""
        return []

    @property
    def slots(self) -> int:
        """How many answers the problem asks for (a pack stores one scoring vector per slot)."""
        return max(1, len(self.gold_ids))

    def answer_spec(self) -> str:
        """What the problem asks for, as canonical text: two problems with the same spec are one cluster
        (`arena.problems.splits`). By default every field of the family's model beyond the shared ones."""
        import orjson

        shared = set(ProblemBase.model_fields)
        mine = {k: v for k, v in self.model_dump(mode="json").items() if k not in shared}
        return orjson.dumps(mine, option=orjson.OPT_SORT_KEYS).decode()


def split_ids(raw: Any) -> list[str]:
    """The ids of a comma-separated raw answer: stripped, empties dropped, first occurrence kept ([] for a
    non-string)."""
    if not isinstance(raw, str):
        return []
    return list(dict.fromkeys(part.strip() for part in raw.split(",") if part.strip()))


@dataclass
class Generated:
    """What a family's generator made: the problems kept, one line per problem it gave up on, its version."""

    problems: list[ProblemBase] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    version: str = ""


def draw_each(
    n: int,
    attempts: int,
    draw: Callable[[int, int], str | None],
    given_up: list[str],
    progress: Callable[[int], None] | None = None,
) -> None:
    """A generator's loop: ``n`` problems, up to ``attempts`` tries each. ``draw(index, attempt)`` keeps a problem
    (returns None) or says why it did not; a problem whose every try failed adds ``problem <index>: <the last
    reason>`` to ``given_up``. ``progress(1)`` after each problem."""
    for index in range(n):
        reason = ""
        for attempt in range(attempts):
            why = draw(index, attempt)
            if why is None:
                break
            reason = why
        else:
            given_up.append(f"problem {index}: {reason}")
        if progress:
            progress(1)


class Family:
    """One kind of task. Subclass it in ``arena/tasks/<name>/`` and register an instance (`arena.tasks.register`).

    A family gives its name, task types, problem model, tools and `score`; every other hook has a neutral default,
    so a tiny family stays tiny. The hooks, and who calls them:

    - `tools` (the gateway, the corpus's schemas), `run_state` (the gateway, when a run opens);
    - `score` (the strict verdict: the race, ``arena-miner test``, rescore, ``arena score``), `rulesets` (the named
      check variants a pack may choose per family, the first the default), `gold_vectors` (what a pack stores for
      scoring), `answer_ids` (the ids of a raw answer, for the corpus);
    - `generate` (``arena problems generate``), `importers` (the ``arena problems import...`` commands),
      `selfcheck` (``arena problems selfcheck`` and the importers: golds pass, near misses fail);
    - `judge_context` (what the judge, offline or LLM, sees of a problem);
    - `run_sections` (the sections of the dashboard's run page), `corpus_known` (the answer's ids the verdict found in
      the catalog, for the corpus's validity step), `corpus_prompt` (the corpus's system prompt).

    The answer tool is the one a family's registry declares with ``results="answer"`` (`arena.tasks.answer`): its
    ``product_ids`` argument is the run's raw answer."""

    name: ClassVar[str]
    #: its task types, in display order; each belongs to exactly one family
    tasks: ClassVar[tuple[str, ...]]
    problem_model: ClassVar[type[ProblemBase]]
    #: a one-line description for ``--help`` and the docs
    summary: ClassVar[str] = ""
    #: the system prompt the corpus writes before each exported chat
    corpus_prompt: ClassVar[str] = "You are a shopping assistant. Use the tools, then commit your answer."

    def tools(self) -> ToolRegistry:
        """A fresh registry of every tool a run of this family may call (the gateway serves it; the corpus writes its
        schemas). Exactly one tool is registered with ``results="answer"``: the answer tool."""
        raise NotImplementedError

    def run_state(self, problem: ProblemBase) -> RunState:
        """The state the tools keep for one run, made at the gateway from the whole problem (never sent to the
        sandbox). Families whose tools need the problem (a simulated shopper) subclass `RunState`."""
        from arena.tools.registry import RunState

        return RunState()

    def score(self, problem: ProblemBase, answer: Any, lookup: Lookup, **options: Unpack[ScoreOptions]) -> RunScore:
        """The strict verdict on a run: ``answer`` is the run's raw committed answer (`arena.tasks.answer`),
        ``events`` the gateway's log of the run (families that score the conversation read it), ``ruleset`` the
        name the pack gives this family (`Pack.ruleset_for`; None: the family's default)."""
        raise NotImplementedError

    def rulesets(self) -> Mapping[str, Ruleset]:
        """The family's named rulesets (name -> `Ruleset`), the first one its default. A name belongs to one family,
        unless two families share the very same ruleset object (the shopping domain's checks). Empty by default:
        the family has one way to check and `score` is given ``ruleset=None``."""
        return {}

    def default_ruleset(self) -> str | None:
        """The name of the family's first ruleset (None when it has none)."""
        return next(iter(self.rulesets()), None)

    def answer_ids(self, raw: Any) -> list[str]:
        """The ids a raw answer names (the corpus checks they were listed): by default a comma-separated string's
        non-empty ids, stripped, first occurrence kept."""
        return split_ids(raw)

    def generate(self, catalog: Any, n: int, **options: Unpack[GenerateOptions]) -> Generated:
        """``n`` problems of task types ``tasks`` drawn from ``catalog``, deterministic by seed, each self-checked
        (``arena problems generate``); ``progress(k)`` after each k problems tried."""
        raise NotImplementedError(f"the task family {self.name!r} has no generator")

    def gold_vectors(self, problems: Sequence[ProblemBase]) -> dict[str, list[Any]]:
        """Vectors a pack stores beside its problems for scoring: problem_id -> one row (a float vector, or None)
        per scored slot; the pack stores them in base64 and hands them back to `score` decoded."""
        return {}

    def importers(self) -> Sequence[Importer]:
        """The family's importers of outside records, each an ``arena problems <command>`` (`hooks.Importer`);
        `arena.problems.cli` makes one command per importer of every family. None by default."""
        return ()

    def selfcheck(
        self, problems: Sequence[ProblemBase], catalog: Any, **options: Unpack[SelfcheckOptions]
    ) -> SelfCheckReport:
        """Check that ``problems`` and ``catalog`` belong together (``arena problems selfcheck``): by default every
        problem's gold answer (its `gold_ids`, comma-joined, as an agent would commit them) must pass `score`.
        A family with near misses (distractors) or a blind baseline overrides it and adds them."""
        from arena.tasks.hooks import SelfCheckReport, Table

        report = SelfCheckReport()
        passed: dict[str, list[int]] = {}
        step, vectors, ruleset = options.get("step"), options.get("vectors"), options.get("ruleset")
        advance = step("self-check", len(problems)) if step else None
        for problem in problems:
            row = passed.setdefault(problem.task, [0, 0])
            row[1] += 1
            gold = ",".join(problem.gold_ids)
            rows = vectors(problem.problem_id) if vectors else None
            verdict = self.score(problem, gold, catalog.get, gold_vectors=rows, ruleset=ruleset)
            if verdict.success:
                row[0] += 1
                report.kept.append(problem)
            else:
                failed = ", ".join(c.name for c in verdict.checks if not c.passed) or "no check passed"
                report.failures.append(f"{problem.problem_id}: gold answer fails ({failed})")
            if advance:
                advance(1)
        table = Table(f"self-check of the {self.name} problems", ["task", "problems", "gold pass"])
        table.rows = [[task, str(n), f"{ok / n:.1%}"] for task, (ok, n) in passed.items()]
        report.tables.append(table)
        report.ok = not report.failures
        report.figures = {"by_task": {t: {"problems": n, "gold_passed": ok} for t, (ok, n) in passed.items()}}
        return report

    def judge_context(self, problem: ProblemBase) -> dict[str, Any]:
        """What the judge sees of a problem (`arena.judge`): ``problem_id``, ``task`` and ``query``, plus what else
        the agent was given that the judge should know (then a fact found there is not one the run learned; never
        the gold). Every value beyond ``problem_id`` and ``task`` is shown to the LLM judge as a field."""
        return {"problem_id": problem.problem_id, "task": problem.task, "query": problem.query}

    def run_sections(
        self, problem: ProblemBase, strict: Mapping[str, Any] | None, steps: Sequence[Any]
    ) -> list[Section]:
        """The sections the dashboard's run page shows below the run's facts and above its steps, from the problem
        (whole: the run page is shown once the race closed), the stored strict verdict (``RunScore`` as JSON, or
        None when not scored) and the run's steps (the API's step dicts). By default the answer and the checks."""
        from arena.tasks.hooks import Section

        if strict is None:
            return [Section("Answer and strict checks", "text", id="strict-generic", text="not scored")]
        facts = {
            "success": "yes" if strict.get("success") else "no",
            "answer": ", ".join(str(a) for a in strict.get("answer") or []) or "nothing",
            "ruleset": f"{strict.get('ruleset') or '-'} v{strict.get('ruleset_version') or '?'}",
            "gold": ", ".join(problem.gold_ids) or "-",
        }
        checks = [dict(c) for c in strict.get("checks") or [] if isinstance(c, Mapping)]
        return [
            Section("Answer and strict checks", "facts", id="strict-generic", facts=facts),
            Section("Checks", "checks", id="checks", checks=checks),
        ]

    def corpus_known(self, strict: Mapping[str, Any] | None) -> set[str]:
        """The answer's ids the stored strict verdict found in the catalog: the corpus keeps a run whose answer ids
        were each listed by a tool or are known here. None by default."""
        return set()
