"""The GEMM kind: config (``config``), template (``template``: prologue / memops / pingpong /
epilogue, data placement in ``layout``), launch contract (``contract``), NumPy reference
(``reference``), cycle-model profile (``profile``) and CLI pieces (``cli``)."""
from __future__ import annotations

# the registry lists the kind by these without importing it (``registry.listing``: a fast
# ``asmgen --help``); the kind module's ``name`` and ``help`` are these
NAME = "gemm"
HELP = "generate a GEMM kernel (C = alpha op(A) op(B) + beta C)"
