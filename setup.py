"""The optional compiled block walk (``pipelines/_blockwalk.pyx``); everything else is in pyproject.toml.

Built where Cython and a C compiler are at hand (``optional``: a failed build leaves the pure-Python
walk of ``pipelines/blocks.py``, with the same results, slower)."""

from setuptools import Extension, setup


def extensions() -> list[Extension]:
    try:
        import lxml
        from Cython.Build import cythonize
    except ImportError:
        return []
    walk = Extension("rankcrawl.pipelines._blockwalk", ["pipelines/_blockwalk.pyx"], include_dirs=lxml.get_include(),
                     optional=True)
    return cythonize([walk], quiet=True)


setup(ext_modules=extensions())
