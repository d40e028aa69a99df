"""Kernel kinds: one folder per kind (gemm/, attention/), shared template helpers in common/."""
