"""The flash-attention forward kind: config (``config``), template (``template`` with its K tile
``ktile``, V tile ``vtile``, online softmax ``softmax`` and block pipeline ``pipe``), Python API
and contract (``api``), NumPy reference (``reference``), profile (``profile``), CLI (``cli``)."""
from __future__ import annotations

# the registry lists the kind by these without importing it (``registry.listing``: a fast
# ``asmgen --help``); the kind module's ``name`` and ``help`` are these
NAME = "attention"
HELP = "generate a flash-attention forward kernel (O and LSE)"
MODE_OF = ("attention", "prefill")     # asmgen attention --mode prefill (the default)
