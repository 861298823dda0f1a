"""The optional compiled parts, everything else is in pyproject.toml: the block walk
(``pipelines/_blockwalk.pyx``), the attribute-cap pre-check (``pipelines/_tagscan.pyx``), the
tree ensembles' walk (``pipelines/_treewalk.pyx``), the blocks' text statistics (``pipelines/_textstats.pyx``),
the words of DOM-path labels and hrefs (``pipelines/_tokens.pyx``), Block Fusion's passes (``pipelines/_blockfusion.pyx``)
and the w-shingle min-hashes (``pipelines/_minhash.pyx``).

Built where Cython and a C compiler are at hand (``optional``: a failed build leaves the pure-Python
code of ``pipelines/blocks.py``, ``parsing.py``, ``trees.py``, ``document.py``, ``dom_features.py``,
``link_features.py``, ``blockfusion.py`` and ``shingles.py``, with the same results, slower)."""

import os

from setuptools import Extension, setup

JOBS = os.cpu_count() or 1
"""Cython translates, and the C compiler compiles, the seven extensions in this many parallel jobs."""


def extensions() -> list[Extension]:
    try:
        import lxml
        from Cython.Build import cythonize
    except ImportError:
        return []
    walk = Extension("rankcrawl.pipelines._blockwalk", ["pipelines/_blockwalk.pyx"], include_dirs=lxml.get_include(),
                     optional=True)
    scan = Extension("rankcrawl.pipelines._tagscan", ["pipelines/_tagscan.pyx"], optional=True)
    trees = Extension("rankcrawl.pipelines._treewalk", ["pipelines/_treewalk.pyx"], optional=True)
    stats = Extension("rankcrawl.pipelines._textstats", ["pipelines/_textstats.pyx"], optional=True)
    tokens = Extension("rankcrawl.pipelines._tokens", ["pipelines/_tokens.pyx"], optional=True)
    fusion = Extension("rankcrawl.pipelines._blockfusion", ["pipelines/_blockfusion.pyx"], optional=True)
    minhash = Extension("rankcrawl.pipelines._minhash", ["pipelines/_minhash.pyx"], optional=True)
    return cythonize([walk, scan, trees, stats, tokens, fusion, minhash], quiet=True, nthreads=JOBS)


setup(ext_modules=extensions(), options={"build_ext": {"parallel": JOBS}})
