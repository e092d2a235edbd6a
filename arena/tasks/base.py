"""What every task family shares: the fields of a problem every layer reads (`ProblemBase`) and the one interface
through which the gateway, the scorer, the judge, the races, the corpus, the API and ``arena-miner`` reach a family
(`Family`). A family subclasses both; `arena.tasks` registers it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from arena.scoring.models import RunScore
    from arena.tools.registry import RunState, ToolRegistry
    from arena.trajectory import TrajectoryEvent

Split = Literal["public", "race", "held_out"]
Difficulty = Literal["easy", "medium", "hard"]
Lookup = Callable[[str], "dict[str, Any] | None"]


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


@dataclass
class Generated:
    """What a family's generator made: the problems kept, one line per problem it gave up on, its version."""

    problems: list[ProblemBase] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    version: str = ""


class Family:
    """One kind of task. Subclass it in ``arena/tasks/<name>/`` and register an instance (`arena.tasks.register`).

    The defaults make a tiny family tiny: a family gives its name, task types, problem model, tools and `score`;
    everything else has a neutral default."""

    name: ClassVar[str]
    #: its task types, in display order; each belongs to exactly one family
    tasks: ClassVar[tuple[str, ...]]
    problem_model: ClassVar[type[ProblemBase]]
    #: a one-line description for ``--help`` and the docs
    summary: ClassVar[str] = ""
    #: how the dashboard's run page shows a run: None (its default: the answer beside the gold, slot by slot, and
    #: the checks), "session" (the conversation and the per-constraint attribution), "generic" (the verdict as it is)
    run_page: ClassVar[str | None] = None
    #: the system prompt the corpus writes before each exported chat
    corpus_prompt: ClassVar[str] = "You are a shopping assistant. Use the tools, then commit your answer."

    def tools(self) -> ToolRegistry:
        """A fresh registry of every tool a run of this family may call (the gateway serves it; the corpus writes its
        schemas)."""
        raise NotImplementedError

    def run_state(self, problem: ProblemBase) -> RunState:
        """The state the tools keep for one run, made at the gateway from the whole problem (never sent to the
        sandbox). Families whose tools need the problem (a simulated shopper) subclass `RunState`."""
        from arena.tools.registry import RunState

        return RunState()

    def score(
        self,
        problem: ProblemBase,
        answer: Any,
        lookup: Lookup,
        *,
        events: Sequence[TrajectoryEvent] = (),
        gold_vectors: Sequence[Any] | None = None,
        ruleset: Any = None,
    ) -> RunScore:
        """The strict verdict on a run: ``answer`` is the run's raw committed answer (`arena.scoring.answer`),
        ``events`` the gateway's log of the run (families that score the conversation read it)."""
        raise NotImplementedError

    def rulesets(self) -> Mapping[str, Ruleset]:
        """The family's named rulesets (name -> `Ruleset`), the first one its default; names are unique across the
        families (`arena.tasks.get_ruleset`). Empty by default."""
        return {}

    def generate(
        self,
        catalog: Any,
        n: int,
        *,
        tasks: Sequence[str],
        seed: int = 0,
        progress: Callable[[int], None] | None = None,
    ) -> Generated:
        """``n`` problems of task types ``tasks`` drawn from ``catalog``, deterministic by seed, each self-checked
        (``arena problems generate``); ``progress(k)`` after each k problems tried."""
        raise NotImplementedError(f"the task family {self.name!r} has no generator")

    def gold_vectors(self, problems: Sequence[ProblemBase]) -> dict[str, list[Any]]:
        """Vectors a pack stores beside its problems for scoring: problem_id -> one row (a float vector, or None)
        per scored slot; the pack stores them in base64 and hands them back to `score` decoded."""
        return {}
