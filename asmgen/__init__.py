"""asmgen: scheduled AMDGPU machine code for CDNA3/CDNA4 GEMM and attention kernels."""

__version__ = "0.1.0"
