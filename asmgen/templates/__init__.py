"""Kernel templates: a validated config -> a tagged KernelIR (prologue / K-loop body / epilogue).

``build_gemm(cfg)`` (``gemm``) builds the GEMM; ``layout`` holds its data-placement arithmetic,
``gemm_prologue`` / ``gemm_epilogue`` its setup and output stages.
"""
from .gemm import build_gemm

__all__ = ["build_gemm"]
