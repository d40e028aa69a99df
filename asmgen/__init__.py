"""asmgen: scheduled AMDGPU machine code for CDNA3/CDNA4 GEMM and attention kernels."""

__version__ = "0.1.0"

from .api import Kernel, gemm, load  # noqa: E402  (the API needs __version__ defined first)

__all__ = ["Kernel", "gemm", "load", "__version__"]
