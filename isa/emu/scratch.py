"""Reusable scratch arrays for the emulator's hot NumPy paths.

A fresh NumPy array of a few hundred KiB is mapped from the OS and its pages faulted in on first
touch; on the MFMA path (isa.emu.mfma_fast) that costs more than the arithmetic (a [16, 8, 32, 32]
float32 product array: ~60 us to fill fresh, ~15 us reused). ``buf`` hands out one array per
(role, shape, dtype), kept per thread, for temporaries that never leave the function using them:
a caller must not keep or return a scratch array, and two live temporaries need two roles.
"""
from __future__ import annotations

import threading

import numpy as np

_LOCAL = threading.local()
_MAX = 512                 # arrays kept per thread before the cache starts over


def buf(role: str, shape: tuple, dtype) -> np.ndarray:
    """An uninitialised array of ``shape``/``dtype`` reserved for ``role`` (reused on later calls)."""
    try:
        cache = _LOCAL.cache
    except AttributeError:
        cache = _LOCAL.cache = {}
    key = (role, shape, dtype)
    a = cache.get(key)
    if a is None:
        if len(cache) >= _MAX:
            cache.clear()
        a = cache[key] = np.empty(shape, dtype)
    return a
