"""Per-task estimators and the interval of a rate: pure.

- ``pass_at_k`` / ``pass_hat_k``: of n samples of one (miner, problem) with c successes, the chance that at least one
  (pass@k, ``1 - C(n-c, k) / C(n, k)``) or all (pass^k, ``C(c, k) / C(n, k)``, tau2-bench's
  ``metrics/agent_metrics.pass_hat_k``) of k samples drawn from them without replacement succeed; k defaults to n.
  A sample succeeds when its value is 1 within 1e-6 (tau2-bench's ``is_successful``), so a partial score (a session
  scored 0.5) is not a success.
- ``wilson``: the Wilson score interval of a rate over n trials, never outside [0, 1] and never of width 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Z95 = 1.959963984540054  # the normal quantile of 0.975
SUCCESS_TOLERANCE = 1e-6


def _choose(n: int, k: int) -> int:
    return math.comb(n, k) if 0 <= k <= n else 0


def _successes(samples: Sequence[bool | float]) -> int:
    return sum(1 for s in samples if abs(float(s) - 1.0) <= SUCCESS_TOLERANCE)


def pass_at_k(successes: Sequence[bool | float], k: int | None = None) -> float:
    """The chance at least one of k samples (drawn from these, without replacement) succeeds; 0 with no sample or a
    k outside 1..n."""
    n = len(successes)
    k = n if k is None else k
    if n == 0 or not 1 <= k <= n:
        return 0.0
    return 1.0 - _choose(n - _successes(successes), k) / _choose(n, k)


def pass_hat_k(successes: Sequence[bool | float], k: int | None = None) -> float:
    """The chance all k samples (drawn from these, without replacement) succeed: pass^k; 0 with no sample or a k
    outside 1..n."""
    n = len(successes)
    k = n if k is None else k
    if n == 0 or not 1 <= k <= n:
        return 0.0
    return _choose(_successes(successes), k) / _choose(n, k)


def wilson(rate: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a rate observed over n trials ((0, 1) with none)."""
    if n <= 0:
        return 0.0, 1.0
    p = min(1.0, max(0.0, rate))
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)
