"""Run error codes: the one table of every code a run can end with, who is to blame, and whether it is retried.

The rule (``docs/validator.md``, "Running"; ``docs/architecture.md``, "One run"): 1xxx codes are the agent's fault and
final (the run counts 0 in the race score); 2xxx codes are the validator's own infrastructure failing (sandbox engine,
gateway, store, judge, upstream LLM, the node itself): the run is retried with backoff up to a limit; past it, the
race waits for the fault to clear and is voided if it outlasts the wait (`validator.races.closing`). A validator
fault is never a miner's zero, nor a miner left out of a race.

Everything that assigns a code takes it from here (`sandbox.backends`, `sandbox.run`, `validator.races`), and the
store derives a run's blame with `blame_of`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Blame = Literal["agent", "validator"]


@dataclass(frozen=True)
class ErrorCode:
    code: int
    name: str
    blame: Blame
    description: str
    retried: bool


IMPORT_FAILED = 1001
RAISED = 1002
TIMED_OUT = 1003
OUT_OF_MEMORY = 1004
BAD_RETURN = 1005
NO_ANSWER = 1006
BUDGET_EXHAUSTED = 1007
BUNDLE_INVALID = 1008
MINER_KEY_REFUSED = 1009
SYSCALL_DENIED = 1010
SANDBOX_FAILED = 2001
GATEWAY_FAULT = 2002
STORE_FAULT = 2003
JUDGE_UNAVAILABLE = 2004
UPSTREAM_LLM_DOWN = 2005
NODE_INTERRUPTED = 2006
SCORING_FAILED = 2007
WORKER_LOST = 2008
WORKER_REFUSED = 2009
RACE_VOIDED = 2010
PROVIDER_DOWN = 2011
PROVIDER_DROPPED = 2012

CODES: dict[int, ErrorCode] = {
    c.code: c
    for c in (
        ErrorCode(
            IMPORT_FAILED, "import_failed", "agent", "agent.py could not be imported or has no usable agent_main", False
        ),
        ErrorCode(
            RAISED, "raised", "agent", "agent_main raised, or the agent's process exited without a result", False
        ),
        ErrorCode(TIMED_OUT, "timed_out", "agent", "agent_main did not return within the wall-clock limit", False),
        ErrorCode(
            OUT_OF_MEMORY,
            "out_of_memory",
            "agent",
            "the agent was killed: out of memory or over the process limit",
            False,
        ),
        ErrorCode(
            BAD_RETURN, "bad_return", "agent", "agent_main returned something other than a JSON dict or None", False
        ),
        ErrorCode(NO_ANSWER, "no_answer", "agent", "the agent returned without ever calling its answer tool", False),
        ErrorCode(
            BUDGET_EXHAUSTED,
            "budget_exhausted",
            "agent",
            "the agent spent its gateway budget (tool calls, LLM calls, tokens or cost) without answering",
            False,
        ),
        ErrorCode(
            BUNDLE_INVALID,
            "bundle_invalid",
            "agent",
            "the submitted bundle cannot be unpacked into a runnable agent",
            False,
        ),
        ErrorCode(
            MINER_KEY_REFUSED,
            "miner_key_refused",
            "agent",
            "the miner pays and its provider refused its key (401, 403), says it has no credit (402) or is over its "
            "own quota (429)",
            False,
        ),
        ErrorCode(
            SYSCALL_DENIED,
            "syscall_denied",
            "agent",
            "the agent made a system call the sandbox's seccomp filter kills for (io_uring, bpf, ptrace, ...): the "
            "call did not run and the agent's process was ended; the error names the call",
            False,
        ),
        ErrorCode(
            SANDBOX_FAILED,
            "sandbox_failed",
            "validator",
            "the sandbox failed to start or its engine failed while the run was in it",
            True,
        ),
        ErrorCode(
            GATEWAY_FAULT, "gateway_fault", "validator", "the node's gateway stopped serving during the run", True
        ),
        ErrorCode(STORE_FAULT, "store_fault", "validator", "the store failed while the run was in flight", True),
        ErrorCode(
            JUDGE_UNAVAILABLE,
            "judge_unavailable",
            "validator",
            "the judge could not judge; the run waits in scoring and is judged again later",
            True,
        ),
        ErrorCode(
            UPSTREAM_LLM_DOWN,
            "upstream_llm_down",
            "validator",
            "the node's upstream LLM failed during the run (unreachable, timeout, 5xx, 402 or 429)",
            True,
        ),
        ErrorCode(
            NODE_INTERRUPTED,
            "node_interrupted",
            "validator",
            "the node stopped or lost track of the run while it was in flight",
            True,
        ),
        ErrorCode(
            SCORING_FAILED,
            "scoring_failed",
            "validator",
            "the node failed scoring the run's answer (a fault of its own, logged with its traceback)",
            True,
        ),
        ErrorCode(
            WORKER_LOST,
            "worker_lost",
            "validator",
            "the cluster worker running the run was lost (killed, out of memory, network gone) or did not return it "
            "within its wall clock plus a grace",
            True,
        ),
        ErrorCode(
            WORKER_REFUSED,
            "worker_refused",
            "validator",
            "a cluster worker refused the run: its catalog is not the node's, or it cannot start the sandbox",
            True,
        ),
        ErrorCode(
            RACE_VOIDED,
            "race_voided",
            "validator",
            "the run's race was voided (a validator fault outlasted the race's wait) before the run was made: it "
            "counts for nobody",
            True,
        ),
        ErrorCode(
            PROVIDER_DOWN,
            "provider_down",
            "validator",
            "the miner pays and its provider failed (unreachable, timeout, 5xx, a body that is not JSON): nobody's "
            "fault, retried as 2005 is",
            True,
        ),
        ErrorCode(
            PROVIDER_DROPPED,
            "provider_dropped",
            "validator",
            "the miner pays at a provider that failed --gateway.provider_failures times in the race: the race goes "
            "on without that provider's runs; nobody's fault, final, left out of the miner's score (void, never 0)",
            False,
        ),
    )
}

#: The harness's statuses (and the backends' own `sandbox_failed`) -> their code.
HARNESS_STATUS = {
    "import_failed": IMPORT_FAILED,
    "raised": RAISED,
    "timeout": TIMED_OUT,
    "killed": OUT_OF_MEMORY,
    "bad_return": BAD_RETURN,
    "no_result": RAISED,
    "syscall_denied": SYSCALL_DENIED,
    "harness_fault": SANDBOX_FAILED,
    "sandbox_failed": SANDBOX_FAILED,
}


def lookup(code: int) -> ErrorCode:
    """The table's entry for `code`; `ValueError` naming the known codes for any other."""
    found = CODES.get(int(code))
    if found is None:
        raise ValueError(f"unknown run error code {code}; known codes: {', '.join(map(str, sorted(CODES)))}")
    return found


def blame_of(code: int | None) -> Blame | None:
    """Who is to blame for a run that ended with `code` (None: no error)."""
    return None if code is None else lookup(code).blame


def retried(code: int) -> bool:
    return lookup(code).retried


def describe(code: int) -> str:
    return lookup(code).description


def for_harness_status(status: str) -> int | None:
    """The code of a sandbox result's status (None for `ok`); an unknown status is the validator's sandbox fault."""
    return None if status == "ok" else HARNESS_STATUS.get(status, SANDBOX_FAILED)
