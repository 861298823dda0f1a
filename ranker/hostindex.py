"""HostID → page numbers of the live graph (``livegraph.py``)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np


class HostIndex(Mapping[int, np.ndarray]):
    """HostID → page number per LocalID. A host held in one segment is stored as its range only;
    hosts that grew later (several segments) keep an int32 array."""

    def __init__(self) -> None:
        self._range: dict[int, tuple[int, int]] = {}  # HostID → (first page number, page count)
        self._array: dict[int, np.ndarray] = {}

    def __getitem__(self, hid: int) -> np.ndarray:
        got = self._array.get(hid)
        if got is not None:
            return got
        first, size = self._range[hid]
        return np.arange(first, first + size, dtype=np.int32)

    def __iter__(self) -> Iterator[int]:
        yield from self._range
        yield from self._array

    def __len__(self) -> int:
        return len(self._range) + len(self._array)

    def __contains__(self, hid: object) -> bool:
        return hid in self._range or hid in self._array

    def size(self, hid: int) -> int:
        """Pages of host ``hid`` (0 if unknown)."""
        got = self._array.get(hid)
        if got is not None:
            return len(got)
        return self._range.get(hid, (0, 0))[1]

    def span(self, hid: int) -> slice | None:
        """The page numbers of a host held in one segment, as a slice (None otherwise)."""
        got = self._range.get(hid)
        return None if got is None else slice(got[0], got[0] + got[1])

    def set_range(self, hid: int, first: int, size: int) -> None:
        self._range[hid] = (first, size)

    def set_array(self, hid: int, pages: np.ndarray) -> None:
        self._range.pop(hid, None)
        self._array[hid] = pages

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self._array.values()) + 16 * len(self._range)
