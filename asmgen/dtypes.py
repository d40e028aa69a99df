"""Element types shared by every kernel kind: the NumPy / ml_dtypes type of each dtype name and
its unit roundoff (the references' tolerances are built from it).

ml_dtypes is imported only when a bf16 type is first asked for (importing it costs about a
second here): ``np_dtype("bf16")`` or ``NP_DTYPES`` (a lazily built module attribute).
"""
from __future__ import annotations

import numpy as np

# Unit roundoff of each format (half an ulp at 1.0).
EPS = {"f32": 2.0 ** -24, "f16": 2.0 ** -11, "bf16": 2.0 ** -8}
_NUMPY = {"f32": np.float32, "f16": np.float16}


def np_dtype(name: str):
    """The NumPy scalar type of a dtype name (``bf16`` through ml_dtypes, imported here)."""
    if name in _NUMPY:
        return _NUMPY[name]
    if name == "bf16":
        import ml_dtypes
        return ml_dtypes.bfloat16
    raise KeyError(name)


def __getattr__(name: str):
    if name == "NP_DTYPES":
        return {n: np_dtype(n) for n in ("f32", "f16", "bf16")}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
