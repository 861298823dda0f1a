"""The PageRank parameters alpha and tol: their defaults and allowed values are the ``RANKCRAWL_ALPHA`` and
``RANKCRAWL_TOL`` rows of ``settings/defaults.py``, checked here for every entry point that takes them (the
``ranker`` command, the service; no numba: the service checks them before it loads the solver)."""

from __future__ import annotations

from rankcrawl.settings.defaults import SETTINGS

ROWS = {"alpha": "RANKCRAWL_ALPHA", "tol": "RANKCRAWL_TOL"}
_SETTING = {s.name: s for s in SETTINGS if s.name in ROWS.values()}
ALPHA: float = _SETTING[ROWS["alpha"]].default
TOL: float = _SETTING[ROWS["tol"]].default


def checked(name: str, value: float) -> float:
    """``value`` of the parameter ``name`` (alpha or tol); ValueError, one line, where its setting does not allow it."""
    try:
        return _SETTING[ROWS[name]].check().parse(value)
    except ValueError as exc:
        raise ValueError(f"{name} must be {exc}") from None


def check_parameters(alpha: float, tol: float, max_iter: int = 1) -> None:
    """ValueError, one line, for an alpha or tol their settings do not allow, or max_iter < 1."""
    checked("alpha", alpha)
    checked("tol", tol)
    if max_iter < 1:
        raise ValueError("max_iter must be at least 1")
