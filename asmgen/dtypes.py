"""The element types (``DType``) every kernel kind and runner uses: one table row per type.

A row says how wide an element is (``bits``; ``bytes`` for whole-byte types, ``nbytes(n)`` for any
count, ``per_dword`` elements packed in one 32-bit register), what it is in NumPy (``np_type``,
ml_dtypes for the low-precision floats), its unit roundoff ``eps`` (half an ulp at 1.0; the
references' tolerances are built from it), and which MFMA operand type of ``isa.mfma_shapes`` it
feeds (``mfma_type``) on which arches (``arches``), with the accumulator the MFMA produces
(``acc``). The arch's MFMA forms per type pair are ``asmgen.target.Target.mfmas``.

Low-precision formats (cdna-facts section 2.1; AMD CDNA3 / CDNA4 ISA guides): gfx942's fp8/bf8
MFMAs read the FNUZ encodings (E4M3FNUZ, E5M2FNUZ); gfx950's read the OCP ones (E4M3FN, E5M2), so
the two are different dtypes on different arches although the isa operand type is "fp8"/"bf8" on
both. gfx950's ``v_mfma_*_f8f6f4`` takes the format from cbsz/blgp (``f8f6f4_code``, the codes of
``isa.mfma_shapes.F8F6F4_FORMATS``); the MX types (OCP Microscaling spec v1.0) add one E8M0 scale
per ``block`` = 32 elements along K (``scale``), applied by ``v_mfma_scale_*``; fp4 (E2M1) packs two
elements per byte. Only f16/bf16 (inputs) and f32/f16/bf16 (outputs) are used by the kinds today
(``IN_DTYPES``/``OUT_DTYPES``); the other rows are the table low-precision GEMM builds on.

Nothing heavy is imported with this module: NumPy and ml_dtypes (about a second here) load when a
row's ``np_type`` is first asked for (``np_dtype(name)``, ``NP_DTYPES``), so ``import asmgen``,
``asmgen --help`` and code generation never load ml_dtypes.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from importlib import import_module

from .errors import ConfigError

_BOTH = frozenset({"gfx942", "gfx950"})
_G942 = frozenset({"gfx942"})
_G950 = frozenset({"gfx950"})


@dataclass(frozen=True, slots=True)
class DType:
    """One element type (see the module docstring for each field's meaning)."""

    name: str
    bits: int
    np_name: str                    # "module:attr" of its numpy / ml_dtypes scalar type
    kind: str                       # "float" | "int" | "scale" (E8M0: exponent only)
    eps: float                      # unit roundoff (half an ulp at 1.0); 0 for integers
    mfma_type: str | None           # isa.mfma_shapes operand type name, None: no MFMA reads it
    arches: frozenset = _BOTH       # arches whose MFMAs take it (every arch for memory-only types)
    acc: str | None = None          # accumulator dtype name of its MFMAs
    f8f6f4_code: int | None = None  # cbsz/blgp format code of v_mfma_*_f8f6f4 (gfx950)
    scale: str | None = None        # block-scale dtype name (MX types)
    block: int = 1                  # elements sharing one scale along K (MX: 32)
    max_finite: float | None = None  # largest finite magnitude (8-bit floats: the saturation bound)

    @property
    def np_type(self):
        """The NumPy (or ml_dtypes) scalar type, imported on first use."""
        mod, attr = self.np_name.split(":")
        return getattr(import_module(mod), attr)

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_int(self) -> bool:
        return self.kind == "int"

    @property
    def size(self) -> Fraction:
        """Bytes per element, fractional for sub-byte types (fp4: 1/2)."""
        return Fraction(self.bits, 8)

    @property
    def bytes(self) -> int:
        """Bytes per element of a whole-byte type (sub-byte types raise: use ``nbytes``)."""
        if self.bits % 8:
            raise ConfigError(f"{self.name} is {self.bits} bits per element, not a whole number of "
                              f"bytes: use nbytes(count)")
        return self.bits // 8

    def nbytes(self, count: int) -> int:
        """Bytes of ``count`` packed elements (must be whole bytes)."""
        total = count * self.bits
        if total % 8:
            raise ConfigError(f"{count} elements of {self.name} ({self.bits} bits) are not a whole "
                              f"number of bytes")
        return total // 8

    @property
    def per_dword(self) -> int:
        """Elements packed in one 32-bit register (or one dword of memory)."""
        return 32 // self.bits

    @property
    def log2_bytes(self) -> int:
        """Shift turning an element index into a byte offset (whole-byte, power-of-two types)."""
        b = self.bytes
        if b & (b - 1):
            raise ConfigError(f"{self.name}: {b} bytes per element is not a power of two")
        return b.bit_length() - 1

    def elements(self, nbytes: int) -> int:
        """Elements held by ``nbytes`` bytes."""
        return nbytes * 8 // self.bits


def _row(name, bits, np_type, kind, eps, mfma_type, arches=_BOTH, acc="f32", **kw):
    return name, DType(name, bits, np_type, kind, eps, mfma_type, arches, acc, **kw)


DTYPES: dict[str, DType] = dict([
    _row("f32", 32, "numpy:float32", "float", 2.0 ** -24, "f32"),
    _row("f16", 16, "numpy:float16", "float", 2.0 ** -11, "f16"),
    _row("bf16", 16, "ml_dtypes:bfloat16", "float", 2.0 ** -8, "bf16"),
    # gfx942 fp8/bf8: FNUZ encodings (cdna-facts 2.1)
    # (largest finite: E4M3FNUZ S.1111.111 = 240, E5M2FNUZ S.11111.11 = 57344; CK float8.hpp table)
    _row("fp8_e4m3fnuz", 8, "ml_dtypes:float8_e4m3fnuz", "float", 2.0 ** -4, "fp8", _G942,
         max_finite=240.0),
    _row("bf8_e5m2fnuz", 8, "ml_dtypes:float8_e5m2fnuz", "float", 2.0 ** -3, "bf8", _G942,
         max_finite=57344.0),
    # gfx950 fp8/bf8: OCP encodings; also f8f6f4 format codes 0 / 1
    # (OCP FP8 spec: E4M3 S.1111.110 = 448, E5M2 S.11110.11 = 57344)
    _row("fp8_e4m3", 8, "ml_dtypes:float8_e4m3fn", "float", 2.0 ** -4, "fp8", _G950, f8f6f4_code=0,
         max_finite=448.0),
    _row("bf8_e5m2", 8, "ml_dtypes:float8_e5m2", "float", 2.0 ** -3, "bf8", _G950, f8f6f4_code=1,
         max_finite=57344.0),
    _row("i8", 8, "numpy:int8", "int", 0.0, "i8", acc="i32"),
    _row("i32", 32, "numpy:int32", "int", 0.0, None, acc=None),
    # MX (OCP Microscaling v1.0): e8m0 scale per 32 elements along K, gfx950 v_mfma_scale_*_f8f6f4
    _row("mxfp8", 8, "ml_dtypes:float8_e4m3fn", "float", 2.0 ** -4, "f8f6f4", _G950,
         f8f6f4_code=0, scale="e8m0", block=32),
    _row("mxfp4", 4, "ml_dtypes:float4_e2m1fn", "float", 2.0 ** -2, "f8f6f4", _G950,
         f8f6f4_code=4, scale="e8m0", block=32),
    _row("e8m0", 8, "ml_dtypes:float8_e8m0fnu", "scale", 0.0, None, acc=None),
])

# The types the kinds accept today (inputs, outputs).
IN_DTYPES = ("f16", "bf16")
OUT_DTYPES = ("f32", "f16", "bf16")

# Compatibility view of the table (``NP_DTYPES``, built on first use: module ``__getattr__``).
EPS = {n: d.eps for n, d in DTYPES.items()}


def dtype_of(x: DType | str) -> DType:
    """The ``DType`` of a name (a ``DType`` is returned as is); ConfigError names the known ones."""
    if isinstance(x, DType):
        return x
    try:
        return DTYPES[x]
    except (KeyError, TypeError):
        raise ConfigError(f"unknown dtype {x!r}; known: {', '.join(DTYPES)}") from None


def np_dtype(name: DType | str):
    return dtype_of(name).np_type


def __getattr__(name: str):
    if name == "NP_DTYPES":
        return {n: d.np_type for n, d in DTYPES.items()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
