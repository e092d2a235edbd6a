"""Task ``voucher``: the best basket whose total fits the budget after the voucher (`baseline.basket`)."""

from __future__ import annotations

from baseline.basket import solve_voucher as solve

__all__ = ["solve"]
