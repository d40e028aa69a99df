"""Global address space: registered NumPy allocations at 64-bit device addresses.

``GlobalMemory.alloc(arr)`` places a C-contiguous array at a fresh 64 KiB-aligned address above
4 GiB (so the high address dword is non-zero and 32-bit truncation bugs show) and the emulator
reads and writes the array's bytes in place. Lookups bisect the sorted base addresses.
Vector accesses take uint64[n] addresses; each lane's access must lie wholly inside one
allocation (lanes may address different allocations).
"""
from __future__ import annotations

import bisect

import numpy as np

from .errors import GlobalOutOfBoundsError, LaunchError
from .global_sync import GlobalSync

BASE0 = 1 << 32
ALIGN = 1 << 16
_RANGES = [np.arange(n) for n in range(65)]    # byte offsets 0..n-1 of an n-byte lane access


def _range(n: int) -> np.ndarray:
    return _RANGES[n] if n < len(_RANGES) else np.arange(n)


class GlobalMemory:
    def __init__(self) -> None:
        self.bases: list[int] = []
        self.ends: list[int] = []
        self.bufs: list[np.ndarray] = []     # uint8 views of the user's arrays
        self.bufs32: list = []               # uint32 views of them (None: size not a multiple of 4)
        self.bufs16: list = []               # uint16 views (None: odd size)
        self.names: list[str] = []
        self.next = BASE0
        self.sync = None        # the launch's isa.emu.global_sync.GlobalSync (write races)

    def alloc(self, arr: np.ndarray, name: str = "") -> int:
        """Register ``arr`` (updated in place by stores) and return its device address."""
        if not isinstance(arr, np.ndarray):
            raise LaunchError(f"alloc needs a NumPy array, got {type(arr).__name__}")
        if not arr.flags.c_contiguous or not arr.flags.writeable:
            raise LaunchError(f"alloc needs a C-contiguous writeable array (got flags {arr.flags})")
        view = arr.reshape(-1).view(np.uint8)
        base = self.next
        size = max(view.size, 1)
        self.next = (base + size + ALIGN + ALIGN - 1) // ALIGN * ALIGN   # a guard gap between buffers
        self.bases.append(base)
        self.ends.append(base + view.size)
        self.bufs.append(view)
        # the same bytes as dwords (dword-aligned accesses gather 4x fewer indices), or None
        self.bufs32.append(view.view(np.uint32) if view.size % 4 == 0 else None)
        self.bufs16.append(view.view(np.uint16) if view.size % 2 == 0 else None)
        self.names.append(name or f"buffer{len(self.bufs) - 1}")
        return base

    def begin_launch(self, races: bool = True) -> None:
        """A new launch (ordered after the previous one): its global write records start empty;
        ``races`` False checks no write races between its workgroups."""
        self.sync = GlobalSync(self) if races else None

    def find(self, addr: int, nbytes: int, what: str = "access") -> tuple[np.ndarray, int]:
        """(uint8 buffer, offset) of a scalar access of ``nbytes`` at ``addr``."""
        i = bisect.bisect_right(self.bases, addr) - 1
        if i < 0 or addr + nbytes > self.ends[i]:
            raise GlobalOutOfBoundsError(self._describe(addr, nbytes, what))
        return self.bufs[i], addr - self.bases[i]

    def _describe(self, addr: int, nbytes: int, what: str) -> str:
        i = bisect.bisect_right(self.bases, addr) - 1
        near = ""
        if i >= 0:
            near = (f"; nearest allocation below is {self.names[i]} at {self.bases[i]:#x}.."
                    f"{self.ends[i]:#x} ({self.ends[i] - self.bases[i]} bytes)")
        return f"global {what} of {nbytes} bytes at address {addr:#x} is outside every allocation{near}"

    def locate(self, addrs: np.ndarray, nbytes: int, what: str):
        """For uint64 lane addresses: (uint8 buffer, int64 offsets) when all lanes fall in one
        allocation (the common case), else a list of (buffer, offsets, lane selector) groups.
        Any lane outside every allocation is a GlobalOutOfBoundsError."""
        if addrs.size == 0 or not self.bufs:
            if addrs.size:
                raise GlobalOutOfBoundsError(self._describe(int(addrs[0]), nbytes, what))
            return np.zeros(0, np.uint8), np.zeros(0, np.int64)
        lo = int(np.minimum.reduce(addrs, axis=None))
        hi = int(np.maximum.reduce(addrs, axis=None))
        i = bisect.bisect_right(self.bases, lo) - 1
        if i >= 0 and hi + nbytes <= self.ends[i]:
            return self.bufs[i], (addrs - np.uint64(self.bases[i])).astype(np.int64)
        # lanes in several allocations (or some outside): per-lane lookup
        base_arr = np.array(self.bases, dtype=np.uint64)
        which = np.searchsorted(base_arr, addrs, side="right").astype(np.int64) - 1
        ends = np.array(self.ends, dtype=np.uint64)
        bad = (which < 0) | (addrs + np.uint64(nbytes) > ends[np.maximum(which, 0)])
        if bad.any():
            raise GlobalOutOfBoundsError(self._describe(int(addrs[np.argmax(bad)]), nbytes, what))
        groups = []
        for k in np.unique(which):
            sel = np.flatnonzero(which == k)
            groups.append((self.bufs[k], (addrs[sel] - np.uint64(self.bases[k])).astype(np.int64), sel))
        return groups

    def read_lanes(self, addrs: np.ndarray, nbytes: int, what: str = "load") -> np.ndarray:
        """uint8[n, nbytes] read at uint64 addresses."""
        return self.gather(self.locate(addrs, nbytes, what), len(addrs), nbytes)

    def write_lanes(self, addrs: np.ndarray, data: np.ndarray, what: str = "store") -> None:
        """Write uint8[n, nbytes] at uint64 addresses (later lanes win on overlap, as in order)."""
        self.scatter(self.locate(addrs, data.shape[1], what), data)

    @staticmethod
    def gather(loc, n: int, nbytes: int) -> np.ndarray:
        """uint8[n, nbytes] at a ``locate`` result (allocations never move during a run, so a
        location found at issue is still valid when the access lands)."""
        rng = _range(nbytes)
        if isinstance(loc, tuple):
            buf, off = loc
            return buf[off[:, None] + rng]
        out = np.empty((n, nbytes), np.uint8)
        for buf, off, sel in loc:
            out[sel] = buf[off[:, None] + rng]
        return out

    @staticmethod
    def scatter(loc, data: np.ndarray) -> None:
        """Write uint8[n, nbytes] at a ``locate`` result."""
        rng = _range(data.shape[1])
        if isinstance(loc, tuple):
            buf, off = loc
            buf[off[:, None] + rng] = data
            return
        for buf, off, sel in loc:
            buf[off[:, None] + rng] = data[sel]

    def read_scalar_bytes(self, addr: int, nbytes: int, what: str = "scalar load") -> np.ndarray:
        buf, off = self.find(addr, nbytes, what)
        return buf[off:off + nbytes]
