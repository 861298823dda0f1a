"""The optional compiled extensions (``setup.py``): where one was not built, its module is None and the
code that would use it runs its Python reference, with the same results."""

from __future__ import annotations

import importlib
from types import ModuleType


def optional(name: str) -> ModuleType | None:
    """The extension module ``name`` (``rankcrawl.pipelines.page._tokens`` …), or None where it was not built (no C
    compiler at install)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None
