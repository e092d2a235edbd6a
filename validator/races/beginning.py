"""An attempt's beginning, on the run path's thread (`validator.races.offloop`): its run claimed, its agent staged in
the node's work folder, the run moved on to `running`. Mixed into `validator.races.dispatching.Dispatching`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from arena import blame
from arena.tasks import ProblemBase
from sandbox.bundle import BundleError, stage
from validator.races.base import Problems, Signals
from validator.races.config import ArenaConfig
from validator.races.stages import StageTimes
from validator.store.models import Run
from validator.store.repository import Store, StoreError


class Beginning:
    """Mixed into `Dispatching` (which sets these attributes)."""

    store: Store
    config: ArenaConfig
    problems: Problems
    stages: StageTimes
    signals: Signals
    work: Path | None
    draining: bool
    fail: Callable[[str, int, str], None]
    _bundles: dict[int, str]
    _keys: dict[str, bytes]

    def _begin(self, run: Run) -> tuple[ProblemBase, Path, str, str, tuple[float, float]] | None:
        """The attempt begun, on the run path's thread (`offloop`): the run claimed, its agent staged, the run moved on
        to `running`; its problem, agent folder, bundle, shown id and the staging's end. None when it is not to run:
        another attempt took it (skipped), its problem or bundle cannot be had (ended with its code), or the node began
        to stop while the claim waited its turn (`draining`: the run stays pending, untouched)."""
        if self.draining:
            return None
        run_id, began = run.run_id, self.stages.now()
        problem = self.problems.problem(run.problem_id)
        sha256 = self._bundle(run.submission_id)
        assert self.work is not None
        staged = problem is not None and sha256 is not None and (self.work / "agents" / sha256).is_dir()
        try:
            self.store.claim(run_id, running=staged)  # an agent staged already: nothing to prepare, one commit
        except StoreError as exc:  # another worker took it, or it is final: never run twice
            self.signals.warn("races.skip", run_id=run_id, reason=str(exc))
            return None
        try:
            if problem is None or sha256 is None:
                raise LookupError(f"problem {run.problem_id} or submission {run.submission_id} is unknown")
            agent_dir = self._agent_dir(sha256)
        except BundleError as exc:  # the miner's bundle cannot be made into a runnable agent: theirs, final
            self.fail(run_id, blame.BUNDLE_INVALID, f"bundle invalid: {exc}")
            return None
        except (LookupError, FileNotFoundError, OSError) as exc:
            self.fail(run_id, blame.STORE_FAULT, f"cannot prepare the run: {exc}")
            return None
        if not staged:
            self.store.transition(run_id, "running")
        shown = self.shown_id(run)
        return problem, agent_dir, sha256, shown, self.stages.add("staging", began)

    def _agent_dir(self, sha256: str) -> Path:
        """The submission's bundle, staged once into the node's private work folder (`sandbox.bundle.stage`: the
        sandbox's user can traverse it, unlike most data folders), from its unpacked folder under data_dir/bundles
        or its packed file there."""
        assert self.work is not None
        stored = self.config.data_dir / "bundles" / sha256
        packed = self.config.data_dir / "bundles" / f"{sha256}.tar.gz"
        return stage(self.work, sha256, stored if stored.is_dir() or not packed.is_file() else packed)

    def _bundle(self, submission_id: int) -> str | None:
        """The sha256 of a submission's bundle (read once per submission: it never changes)."""
        if submission_id not in self._bundles:
            submission = self.store.submission(submission_id)
            if submission is None:
                return None
            self._bundles[submission_id] = submission.sha256
        return self._bundles[submission_id]

    def shown_id(self, run: Run) -> str:
        """The problem's id as the run's agent is shown it: opaque and new in every race (`arena.problems.alias`)."""
        from arena.problems.alias import race_key, shown_id

        if run.race_id not in self._keys:
            race = self.store.race(run.race_id)
            self._keys[run.race_id] = race_key(run.race_id, race.seed_hash if race is not None else "")
        return shown_id(self._keys[run.race_id], run.problem_id)
