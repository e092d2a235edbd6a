"""Race lifecycle: open a race when the pack's rotation says so, dispatch one run per (submission, problem) to the
sandbox, score each run, close the race, and turn its results into a weight vector on chain.

Every step reads its state from the store and writes its outcome there before the next step looks, so each can be
repeated or resumed after a crash or a fault: `Arena.recover`, at start and then periodically while the node runs,
ends the attempt of every run left `starting`/`running` with no sandbox of this node behind it (2006, or 2003 when
the store failed under it) and retries it, scores runs left `scoring` without a score, and finishes runs left
`judged`; a `finished` run is never run again. Every failure ends a run with a code of `arena.blame`'s table:

- `open_race`: the race's start block is the last multiple of the rotation's cadence; its problems are drawn from
  the pack's race pool with the hash of that block as seed (`draw_problems`), so every honest validator with the same
  chain and pack draws the same problems; held-out and public problems are never drawn;
- `dispatch`: ready pending runs go to the sandbox under a concurrency limit; the gateway's log is the trajectory,
  stored with the run's status change in one commit; validator-blamed errors (2xxx: the sandbox engine, the
  gateway, the store, the upstream LLM failing at any point of the run, even when the agent caught the error) are
  retried with exponential backoff up to `max_attempts`; agent-blamed errors (1xxx, among them no answer 1006,
  budget exhausted 1007 and an invalid bundle 1008) are final and count 0; every attempt's error is kept in the
  run's `sandbox.attempts` for the run page;
- judging: the reasoning judge reads a strictly scored run's gateway log as soon as the run is scored, never
  waiting for a job's interval: the offline judge (CPU only, a few ms) right away, its verdict stored in the same
  commit as the trajectory and the strict score; a judge with I/O (the LLM judge) once `dispatch` has freed the
  run's sandbox slot, in a thread, `judge_concurrency` runs at a time. Its coefficient makes the final score
  (`success * coeff`); a judge that cannot judge (upstream down, malformed answers) leaves the run `scoring` to be
  judged again later by `judge_runs` (the periodic sweep, which also judges runs `recover` scored), never a zero;
- `close_races`: when every run is final (one aggregate query per running race and tick, no run read), a miner's
  race score is the mean final score over the race's problems (agent errors count 0); a run a validator fault kept
  past `max_attempts` is never final: the race waits for the fault to clear, trying it again, up to `fault_wait`,
  and is then voided (no results, no weights);
- `weigh` / `set_weights`: the policy of `arena.weights` over the metagraph's uids, stored as a weight set and sent
  within the chain's rate limit, the extrinsic's outcome stored; a chain that cannot be reached is retried with
  exponential backoff (`weights_retry` doubling up to `weights_retry_max`) until the set lands or a newer race's set
  supersedes it;
- `progress`: what an operator needs to see that the node is alive but not progressing (runs past their wall clock
  plus a grace, a race that cannot close, weights not set for a closed race, a race waiting for a validator fault to
  clear), for `/healthz` and the metrics.
"""

from arena.problems.draw import draw_problems
from validator.races.arena import Arena
from validator.races.config import ArenaConfig
from validator.races.draw import race_id_for, race_scores, race_start_block
from validator.races.stages import KEEP_UPSTREAM_ERRORS, STAGES, StageTimes

__all__ = [
    "KEEP_UPSTREAM_ERRORS",
    "STAGES",
    "Arena",
    "ArenaConfig",
    "StageTimes",
    "draw_problems",
    "race_id_for",
    "race_scores",
    "race_start_block",
]
