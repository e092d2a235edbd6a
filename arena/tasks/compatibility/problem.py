"""A compatibility problem: the shopper owns a device and asks for an accessory that fits it.

Everything the checks read is private (the fitting values, the extra wants, the gold): `CompatProblem.public` is the
base view (id, task, query, difficulty), so nothing but the shopper's words enters a sandbox.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from arena.tasks.base import ProblemBase

TASK = "compatibility"


class OwnedDevice(BaseModel):
    """What the shopper owns: how they name it and, for a device listed in the catalog, its product and the
    attribute fit was read from."""

    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, Field(min_length=1)]
    kind: Literal["named", "derived", "owned"]
    product_id: str | None = None
    key: str | None = None
    value: str | None = None


class Fit(BaseModel):
    """The accessory asked for: its category (leaf path), the attribute deciding fit and the values of it that fit
    the device, and what else the shopper wants (attribute -> accepted values)."""

    model_config = ConfigDict(extra="forbid")

    rule: Annotated[str, Field(min_length=1)]
    category: Annotated[str, Field(min_length=1)]
    noun: Annotated[str, Field(min_length=1)]
    key: Annotated[str, Field(min_length=1)]
    values: Annotated[list[str], Field(min_length=1)]
    wants: dict[str, list[str]] = Field(default_factory=dict)


class CompatProblem(ProblemBase):
    """One compatibility request. ``gold`` lists every catalog product that met the request when it was made (any
    product meeting it scores; the gold is what clusters, decontamination and the run page name)."""

    task: Literal["compatibility"]
    device: OwnedDevice
    fit: Fit
    gold: Annotated[list[str], Field(min_length=1)]

    @property
    def gold_ids(self) -> list[str]:
        return list(self.gold)

    @property
    def slots(self) -> int:
        return 1  # one accessory is asked for

    def answer_spec(self) -> str:
        """Two problems asking the same accessory for devices that take the same values are one cluster."""
        import orjson

        spec: dict[str, Any] = {
            "category": self.fit.category,
            "key": self.fit.key,
            "values": sorted(self.fit.values),
            "wants": {k: sorted(v) for k, v in sorted(self.fit.wants.items())},
        }
        return orjson.dumps(spec, option=orjson.OPT_SORT_KEYS).decode()
