"""Element types shared by every kernel kind: the NumPy / ml_dtypes type of each dtype name and
its unit roundoff (the references' tolerances are built from it)."""
from __future__ import annotations

import ml_dtypes
import numpy as np

NP_DTYPES = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}
# Unit roundoff of each format (half an ulp at 1.0).
EPS = {"f32": 2.0 ** -24, "f16": 2.0 ** -11, "bf16": 2.0 ** -8}


def np_dtype(name: str):
    return NP_DTYPES[name]
