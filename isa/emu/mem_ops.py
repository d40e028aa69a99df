"""Tables of the vector-memory operations shared by MUBUF, GLOBAL, FLAT, SCRATCH and SMEM: load and
store widths, the atomic operations (32-bit, 64-bit ``_x2``, f64) as Python functions on the old and
the operand value (a leaf: no registrations here).
"""
from __future__ import annotations

import numpy as np

from .errors import EmulatorError

M32 = 0xFFFFFFFF
# suffix -> (bytes, sign-extended) / bytes
LOADS = {"dword": (4, False), "dwordx2": (8, False), "dwordx3": (12, False), "dwordx4": (16, False),
         "ubyte": (1, False), "sbyte": (1, True), "ushort": (2, False), "sshort": (2, True)}
STORES = {"dword": 4, "dwordx2": 8, "dwordx3": 12, "dwordx4": 16, "byte": 1, "short": 2}


def _s32(x: int) -> int:
    return x - (1 << 32) if x >> 31 else x


def _f32(x: int) -> float:
    return float(np.array([x], np.uint32).view(np.float32)[0])


def _f32bits(f: float) -> int:
    return int(np.array([f], np.float32).view(np.uint32)[0])


ATOMIC_OPS = {
    "add": lambda o, v: (o + v) & M32, "sub": lambda o, v: (o - v) & M32,
    "smin": lambda o, v: o if _s32(o) <= _s32(v) else v, "smax": lambda o, v: o if _s32(o) >= _s32(v) else v,
    "umin": min, "umax": max, "and": lambda o, v: o & v, "or": lambda o, v: o | v,
    "xor": lambda o, v: o ^ v, "swap": lambda o, v: v,
    "inc": lambda o, v: 0 if o >= v else o + 1, "dec": lambda o, v: v if (o == 0 or o > v) else o - 1,
    "add_f32": lambda o, v: _f32bits(np.float32(_f32(o)) + np.float32(_f32(v))),
    # two independent f16 adds (low, high half), RNE, denormals kept (float_denorm_mode_16_64 3)
    "pk_add_f16": lambda o, v: int(np.array([o, v], np.uint32).view(np.float16).astype(np.float64)
                                   .reshape(2, 2).sum(0).astype(np.float16).view(np.uint32)[0]),
}


M64 = (1 << 64) - 1


def _s64(x: int) -> int:
    return x - (1 << 64) if x >> 63 else x


# 64-bit forms (CDNA3 ISA FLAT_ATOMIC_*_X2: the same operations on a qword in two VGPRs)
ATOMIC_OPS64 = {
    "add": lambda o, v: (o + v) & M64, "sub": lambda o, v: (o - v) & M64,
    "smin": lambda o, v: o if _s64(o) <= _s64(v) else v, "smax": lambda o, v: o if _s64(o) >= _s64(v) else v,
    "umin": min, "umax": max, "and": lambda o, v: o & v, "or": lambda o, v: o | v,
    "xor": lambda o, v: o ^ v, "swap": lambda o, v: v,
    "inc": lambda o, v: 0 if o >= v else o + 1, "dec": lambda o, v: v if (o == 0 or o > v) else o - 1,
    # gfx90a+ GLOBAL_ATOMIC_ADD_F64: IEEE f64 add, round to nearest even, denormals kept (mode 3)
    "add_f64": lambda o, v: int((np.array([o, v], np.uint64).view(np.float64).sum(keepdims=True))
                                .view(np.uint64)[0]),
}
ATOMIC_OPS64.update({"min_f64": lambda o, v: _minmax_f64(o, v, True),
                     "max_f64": lambda o, v: _minmax_f64(o, v, False)})
F64_ATOMICS = ("add_f64", "min_f64", "max_f64")
ATOMIC_NAMES = [*ATOMIC_OPS, "cmpswap", *F64_ATOMICS,
                *(n + "_x2" for n in (*ATOMIC_OPS64, "cmpswap") if n not in F64_ATOMICS)]


def _minmax_f64(o: int, v: int, is_min: bool) -> int:
    """GLOBAL_ATOMIC_MIN/MAX_F64 for ordered operands. How the atomic unit treats NaN and
    +0 vs -0 is not in the documents the emulator follows: refuse those instead of guessing."""
    a, b = np.array([o, v], np.uint64).view(np.float64)
    if np.isnan(a) or np.isnan(b) or (a == b and o != v):
        raise EmulatorError(f"atomic {'min' if is_min else 'max'}_f64 of {a!r} and {b!r}: NaN / signed-"
                            "zero behaviour of the atomic unit is not modelled")
    return v if (b < a if is_min else b > a) else o
