"""The PageRank parameters that every solver entry point checks (no numba: the service checks them
before it loads the solver)."""

from __future__ import annotations


def check_parameters(alpha: float, tol: float, max_iter: int = 1) -> None:
    """ValueError, one line, for alpha outside [0, 1), tol ≤ 0 or max_iter < 1."""
    if not 0 <= alpha < 1:
        raise ValueError("alpha must be in [0, 1)")
    if not tol > 0:
        raise ValueError("tol must be positive")
    if max_iter < 1:
        raise ValueError("max_iter must be at least 1")
