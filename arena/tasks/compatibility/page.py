"""What the dashboard's generic run page shows of a compatibility run (`Family.run_sections`): the device and what
fits it, the answer beside the gold, then the strict checks with their evidence."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.tasks.compatibility.problem import CompatProblem
from arena.tasks.hooks import Section


def run_sections(problem: CompatProblem, strict: Mapping[str, Any] | None, steps: Sequence[Any]) -> list[Section]:
    fit = problem.fit
    device = problem.device
    facts: dict[str, Any] = {
        "device": device.name + (f" ({device.key}: {device.value})" if device.key else ""),
        "asked for": f"{fit.noun} ({fit.category})",
        "fits when": f"its {fit.key} is {' or '.join(fit.values)}",
    }
    facts.update({f"wants {key}": " or ".join(values) for key, values in sorted(fit.wants.items())})
    facts["gold"] = f"{len(problem.gold)} product(s): {', '.join(problem.gold[:6])}" + (
        " ..." if len(problem.gold) > 6 else ""
    )
    sections = [Section("The request", "facts", id="compat-request", facts=facts)]
    if strict is None:
        return [*sections, Section("Answer and strict checks", "text", id="strict-generic", text="not scored")]
    answer = ", ".join(str(a) for a in strict.get("answer") or []) or "nothing"
    verdict = {
        "success": "yes" if strict.get("success") else "no",
        "answer": answer,
        "a gold product": "yes" if (strict.get("extras") or {}).get("gt") else "no",
        "ruleset": f"{strict.get('ruleset') or '-'} v{strict.get('ruleset_version') or '?'}",
    }
    checks = [dict(c) for c in strict.get("checks") or [] if isinstance(c, Mapping)]
    return [
        *sections,
        Section("Answer and strict checks", "facts", id="strict-generic", facts=verdict),
        Section("Checks", "checks", id="checks", checks=checks),
    ]
