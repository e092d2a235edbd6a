"""`OfflineJudge`: the four checks run over a gateway log in seq order, the rubric's gate of the first that fails,
and the verdict's explanation (the package's docstring has the rules)."""

from __future__ import annotations

from typing import Any

from arena.judge import Verdict
from arena.judge.echo import Echo, Repeat
from arena.judge.evidence import context_text
from arena.judge.offline.checks import MIN_SHARED_WORDS, Completion, Match, compare, shared_facts
from arena.judge.offline.facts import remembered_facts
from arena.judge.offline.known import Known
from arena.judge.rubric import SN15_RUBRIC, Rubric
from arena.trajectory import TrajectoryEvent

OFFLINE_VERSION = "offline-v3"  # v2: a quotation of the query or a tool result is no reasoning; v3: its words count
# toward reasoning tokens up to the model's own (`Repeat.counted_words`)
MIN_COMPLETION_TOKENS = 30
CHECKS = ("reasoning", "analysis", "datum", "comparison")
MAX_LISTED = 12  # repeated completions and planted results listed in `Verdict.checks["discounted"]`


class OfflineJudge:
    """Deterministic gates from the gateway log; see the package's docstring. ``rubric`` must have five gates (one per
    failed check, lowest first, then the gate of a run that passes all four checks)."""

    name = "offline"

    def __init__(self, rubric: Rubric = SN15_RUBRIC) -> None:
        if len(rubric.gates) != len(CHECKS) + 1:
            raise ValueError(
                f"the offline judge needs a rubric of {len(CHECKS) + 1} gates (one per check: "
                f"{', '.join(CHECKS)}, then the top gate); {rubric.version} has {len(rubric.gates)}"
            )
        self.rubric = rubric

    def judge(self, problem: dict[str, Any], events: list[TrajectoryEvent]) -> Verdict:
        context = context_text(problem)
        known = Known.for_query(context)
        echo = Echo.for_context(context, planted=False)  # planted facts: `Known`, by result kind
        found = {check: Match() for check in CHECKS}
        longest = 0
        completions = 0
        after_result = 0
        repeats: list[Repeat] = []
        quotes: list[Repeat] = []
        for event in sorted(events, key=lambda e: e.seq):
            if event.kind == "tool_call":
                ok = event.error is None and 200 <= event.status < 300 and event.result is not None
                known.write(event.arguments)
                echo.tool(event.arguments, event.result, ok)
                if ok:
                    known.add(event.seq, remembered_facts(event.name, event.arguments, event.result))
                continue
            c = Completion.of(event, echo)
            if c is None:
                continue
            if c.repeat is not None and c.repeat.repeated:
                repeats.append(c.repeat)
            if c.repeat is not None and c.repeat.quoted:
                quotes.append(c.repeat)
            completions += 1
            longest = max(longest, c.tokens)
            if not found["reasoning"].passed and c.tokens >= MIN_COMPLETION_TOKENS:
                found["reasoning"] = Match(
                    True,
                    c.seq,
                    [],
                    [f"{c.tokens} completion tokens ({c.token_source})"],
                    {"completion_tokens": c.tokens, "token_source": c.token_source},
                )
            if known.results == 0:
                continue  # nothing to analyse yet: a completion before any tool result earns nothing here
            after_result += 1
            if not (found["analysis"].passed and found["datum"].passed and found["comparison"].passed):
                _check_results(c, known, found)

        reached = len(CHECKS)
        for i, check in enumerate(CHECKS):
            if not found[check].passed:
                reached = i
                break
        gate = self.rubric.gates[reached]
        evidence: set[int] = set()
        for check in CHECKS:
            if found[check].passed:
                evidence |= found[check].evidence
        checks: dict[str, Any] = {
            check: found[check].as_dict(self.rubric.gates[i].name) for i, check in enumerate(CHECKS)
        }
        checks["counts"] = {
            "completions": completions,
            "completions_after_results": after_result,
            "tool_results": known.results,
            "candidates": len(known.candidates),
            "longest_completion_tokens": longest,
        }
        checks["discounted"] = {
            "repeated": [r.as_dict() for r in repeats[:MAX_LISTED]],
            "planted": [{"seq": seq, "facts": facts} for seq, facts in known.planted[:MAX_LISTED]],
            "quoted": [r.quote_dict() for r in quotes[:MAX_LISTED]],
        }
        return Verdict(
            judge=self.name,
            rubric_version=self.rubric.version,
            prompt_version=OFFLINE_VERSION,
            gate=gate.name,
            quality=gate.quality,
            coefficient=self.rubric.coefficient(gate.quality),
            explanation=_explain(gate.name, gate.quality, reached, found, completions, after_result, longest)
            + _discounted(repeats, known.planted, quotes),
            evidence=sorted(evidence),
            checks=checks,
        )


def _check_results(c: Completion, known: Known, found: dict[str, Match]) -> None:
    """Checks 2 to 4 on a completion after tool results: what it refers to, cites, compares (the first pass kept)."""
    shared = shared_facts(c, known)
    if not found["analysis"].passed:
        strong = shared["id"] + shared["price"] + shared["number"] + shared["attribute"]
        if strong or len(shared["word"]) >= MIN_SHARED_WORDS:
            facts = strong + shared["word"]
            found["analysis"] = Match(True, c.seq, sorted({s for _, s in facts}), [d for d, _ in facts])
    if not found["datum"].passed:
        data = shared["id"] + shared["price"] + shared["attribute"]
        if data:
            found["datum"] = Match(True, c.seq, sorted({s for _, s in data}), [d for d, _ in data])
    if not found["comparison"].passed:
        comparison = compare(c, known)
        if comparison is not None:
            found["comparison"] = comparison


def _explain(
    gate: str, quality: float, reached: int, found: dict[str, Match], completions: int, after: int, longest: int
) -> str:
    head = f"Offline judge: gate {gate} ({quality:g})."
    r, a, d, c = (found[k] for k in CHECKS)
    if reached == 0:
        if completions == 0:
            return f"{head} The run made no successful LLM call, so it shows no LLM reasoning."
        return (
            f"{head} No LLM completion reached {MIN_COMPLETION_TOKENS} completion tokens (longest: {longest}), "
            "so the run shows no real LLM reasoning."
        )
    if reached == 1:
        why = (
            "no LLM completion came after a tool result"
            if after == 0
            else "no completion after a tool result refers to the content of earlier results"
        )
        return f"{head} LLM reasoning found (seq {r.seq}), but {why}."
    if reached == 2:
        return (
            f"{head} Completion seq {a.seq} refers to earlier tool results ({', '.join(a.matched[:3])}), but "
            "no completion cites a product id, price or attribute value from them."
        )
    if reached == 3:
        return (
            f"{head} Completion seq {d.seq} cites {', '.join(d.matched[:3])} from earlier tool results, but no "
            "completion compares two or more candidates."
        )
    names = ", ".join(c.extra.get("candidates", [])[:4])
    return (
        f"{head} Completion seq {c.seq} compares candidates {names} from earlier tool results "
        f"({'; '.join(c.extra.get('how', []))}), and seq {d.seq} cites {', '.join(d.matched[:2])}."
    )


def _discounted(repeats: list[Repeat], planted: list[tuple[int, list[str]]], quotes: list[Repeat]) -> str:
    """What the verdict discounted, in words (empty when nothing was)."""
    parts = [
        f"completion seq {r.seq} repeats {r.repeated} of its {r.words} words from the agent's own messages"
        for r in repeats[:3]
    ]
    if len(repeats) > 3:
        parts.append(f"{len(repeats) - 3} more completions repeat the agent's own messages")
    parts += [
        f"completion seq {r.seq} quotes {r.quoted} of its {r.words} words from a tool result or the query the agent "
        "sent it (no reasoning of the model)"
        for r in quotes[:3]
    ]
    if len(quotes) > 3:
        parts.append(f"{len(quotes) - 3} more completions quote what the agent sent them")
    if planted:
        facts = [f for _, fs in planted for f in fs]
        seqs = ", ".join(str(seq) for seq, _ in planted[:4])
        parts.append(
            f"{len(facts)} fact(s) of tool results (seq {seqs}{', ...' if len(planted) > 4 else ''}) came back from "
            f"the agent's own arguments ({', '.join(facts[:3])}{', ...' if len(facts) > 3 else ''})"
        )
    return f" Discounted: {'; '.join(parts)}." if parts else ""
