"""The flash-attention forward kind: config (``config``), template (``template`` with its K tile
``ktile``, V tile ``vtile``, online softmax ``softmax`` and block pipeline ``pipe``), Python API
and contract (``api``), NumPy reference (``reference``), profile (``profile``), CLI (``cli``)."""
