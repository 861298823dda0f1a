"""The optional compiled parts, everything else is in pyproject.toml: the block walk
(``pipelines/page/_blockwalk.pyx``), the attribute-cap pre-check (``pipelines/page/_tagscan.pyx``), the
tree ensembles' walk (``pipelines/page/_treewalk.pyx``), the blocks' text statistics (``pipelines/page/_textstats.pyx``),
the words of DOM-path labels and hrefs (``pipelines/page/_tokens.pyx``), Block Fusion's passes (``pipelines/page/_blockfusion.pyx``)
and the w-shingle min-hashes (``pipelines/site/_minhash.pyx``).

Built where Cython and a C compiler are at hand (``optional``: a failed build leaves the pure-Python
code of ``pipelines/page/``'s ``blocks.py``, ``parsing.py``, ``trees.py``, ``document.py``, ``dom_features.py``,
``link_features.py`` and ``blockfusion.py`` and of ``pipelines/site/shingles.py``, with the same results, slower)."""

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
    walk = Extension("rankcrawl.pipelines.page._blockwalk", ["pipelines/page/_blockwalk.pyx"], include_dirs=lxml.get_include(),
                     optional=True)
    scan = Extension("rankcrawl.pipelines.page._tagscan", ["pipelines/page/_tagscan.pyx"], optional=True)
    trees = Extension("rankcrawl.pipelines.page._treewalk", ["pipelines/page/_treewalk.pyx"], optional=True)
    stats = Extension("rankcrawl.pipelines.page._textstats", ["pipelines/page/_textstats.pyx"], optional=True)
    tokens = Extension("rankcrawl.pipelines.page._tokens", ["pipelines/page/_tokens.pyx"], optional=True)
    fusion = Extension("rankcrawl.pipelines.page._blockfusion", ["pipelines/page/_blockfusion.pyx"], optional=True)
    minhash = Extension("rankcrawl.pipelines.site._minhash", ["pipelines/site/_minhash.pyx"], optional=True)
    return cythonize([walk, scan, trees, stats, tokens, fusion, minhash], quiet=True, nthreads=JOBS)


setup(ext_modules=extensions(), options={"build_ext": {"parallel": JOBS}})
