"""asmgen: scheduled AMDGPU machine code for CDNA3/CDNA4 GEMM and attention kernels.

The public names (``gemm``, ``attention``, ``generate``, ``load``, ``Kernel``) are imported on first use
(PEP 562 ``__getattr__``), so ``import asmgen`` and ``asmgen --help`` load neither NumPy's
extension types of ml_dtypes, nor networkx, nor the emulator.
"""

__version__ = "0.1.0"

__all__ = ["Kernel", "__version__", "attention", "gemm", "generate", "load"]
_LAZY = frozenset(__all__) - {"__version__"}     # all of them from asmgen.api


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'asmgen' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(".api", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | _LAZY)
