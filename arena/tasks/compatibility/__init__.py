"""Compatibility: the shopper owns a device and asks for an accessory or part that fits it ("I have an iPhone 15;
find me a case that fits it", "a lens for my Fujifilm X-T5", "brake pads for my Honda Click 125"), as Shopping
Reasoning Bench's compatibility category asks. One task type, ``compatibility``.

This folder is the whole family, and a walk-through of adding one (`arena.tasks.base.Family`):

- ``fit``: what fits what. The catalog has no "compatible with" attribute, so fit is derived from attributes it
  has (`fit.RULES`: a phone case's ``compatible_model`` SKU options, a cable's ``connector``, a controller's
  ``controller_compat``, a wall mount's ``fits_tv`` range, a stand's ``fits_laptop``, a lens's ``mount``, a band's
  ``strap_width``, a part's ``moto_model``, a bulb's ``bulb_socket``...). A device is named by its fit value
  (easy), by what it is (medium: a console, a phone's port, a TV's size, a camera body, an Apple Watch), or is a
  device listed in the catalog whose attribute (``iphone_model``, ``platform``, ``screen_size``) the agent must look
  up (hard).
- ``problem``: `CompatProblem`. Its fit values, extra wants and gold are private; the public view is the base one
  (id, task, query, difficulty).
- ``tools``: the shared shopping tools (`arena.tasks.shopping.tools`): search, details, ``recommend_product``
  (declared kind ``answer``) and ``terminate``.
- ``scoring``: the strict check: one product, known, of the category asked for, fitting, with every extra want;
  each check's evidence says what it read (`scoring.score_compat`).
- ``generate``: problems drawn from a catalog, deterministic by (catalog digest, seed), each kept only if
  ``selfcheck`` passes: the gold scores, products that almost fit (the right accessory for another device) exist and
  fail on fit alone, a product of another category that fits fails on kind, the gold is a minority of the candidates.
  The same check is the family's ``arena problems selfcheck`` (`Family.selfcheck`).
- ``page``: the run page's sections (the generic page, `Family.run_sections`): the device, what fits it, the gold,
  the answer and the checks. `Family.corpus_known`: the answer's id once the verdict found it in the catalog.
- The miner template's baseline for the family is ``miner_template/offline/baseline/compatibility.py``.

Registered by the last line below and by its name in ``BUILT_IN`` (`arena.tasks`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Unpack

from arena.scoring.models import RunScore
from arena.tasks import register
from arena.tasks.base import Family, Generated, GenerateOptions, Lookup, ProblemBase, ScoreOptions, SelfcheckOptions
from arena.tasks.compatibility.problem import TASK, CompatProblem
from arena.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from arena.tasks.hooks import Section, SelfCheckReport


class Compatibility(Family):
    name = "compatibility"
    tasks = (TASK,)
    problem_model = CompatProblem
    summary = "an accessory or part that fits a device the shopper owns (a case for a phone, a lens for a camera)"
    corpus_prompt = (
        "You are a shopping assistant. The user owns a device and needs an accessory or part that fits it. Work out "
        "what fits (look the device up when they name a listing), search the catalog, read each candidate's "
        "attributes and SKU options, then call recommend_product once with the one product id that fits and meets "
        "everything else they asked for, and finally call terminate."
    )

    def tools(self) -> ToolRegistry:
        from arena.tasks.compatibility.tools import registry

        return registry()

    def score(self, problem: ProblemBase, answer: Any, lookup: Lookup, **options: Unpack[ScoreOptions]) -> RunScore:
        from arena.tasks.compatibility.scoring import score_compat

        assert isinstance(problem, CompatProblem)
        return score_compat(problem, answer, lookup)

    def generate(self, catalog: Any, n: int, **options: Unpack[GenerateOptions]) -> Generated:
        from arena.tasks.compatibility.generate import GENERATOR_VERSION, generate_report

        report = generate_report(catalog, n, options.get("seed", 0), progress=options.get("progress"))
        return Generated(list(report.problems), list(report.given_up), GENERATOR_VERSION)

    def selfcheck(
        self, problems: Sequence[ProblemBase], catalog: Any, **options: Unpack[SelfcheckOptions]
    ) -> SelfCheckReport:
        """Each problem's self-check on ``catalog``: gold passes, near misses fail on fit alone, another kind fails on
        kind, the gold a minority of the candidates (`selfcheck.check_problem`)."""
        from arena.tasks.compatibility.selfcheck import selfcheck_report

        return selfcheck_report(problems, catalog, step=options.get("step"))

    def run_sections(
        self, problem: ProblemBase, strict: Mapping[str, Any] | None, steps: Sequence[Any]
    ) -> list[Section]:
        """The device and what fits it, the answer and the checks (`page.run_sections`)."""
        from arena.tasks.compatibility.page import run_sections

        assert isinstance(problem, CompatProblem)
        return run_sections(problem, strict, steps)

    def corpus_known(self, strict: Mapping[str, Any] | None) -> set[str]:
        """The answer's id when the verdict found it in the catalog (its ``known`` check passed)."""
        checks = (strict or {}).get("checks") or []
        known = any(isinstance(c, Mapping) and c.get("name") == "known" and c.get("passed") for c in checks)
        return {str(a) for a in (strict or {}).get("answer") or []} if known else set()


FAMILY = register(Compatibility())
