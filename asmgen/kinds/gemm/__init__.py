"""The GEMM kind: config (``config``), template (``template``: prologue / memops / pingpong /
epilogue, data placement in ``layout``), launch contract (``contract``), NumPy reference
(``reference``), cycle-model profile (``profile``) and CLI pieces (``cli``)."""
