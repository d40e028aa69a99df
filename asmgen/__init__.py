"""asmgen: scheduled AMDGPU machine code for CDNA3/CDNA4 GEMM and attention kernels."""

__version__ = "0.1.0"

from .api import Kernel, gemm, load

__all__ = ["Kernel", "__version__", "gemm", "load"]
