"""The hardware ``Target`` (passed explicitly, never global) and the arch / dtype tables every
kernel kind checks its config against: LDS size per workgroup, the 512-register unified file,
MFMA shapes per arch, DS/MUBUF offset ranges, element sizes.

The kinds' configurations live with their kinds (``asmgen.kinds.gemm.config.GemmConfig``,
``asmgen.kinds.attention.config.AttentionConfig``).
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import ConfigError

ARCHES = ("gfx942", "gfx950")
IN_DTYPES = ("f16", "bf16")
OUT_DTYPES = ("f32", "f16", "bf16")
DTYPE_BYTES = {"f32": 4, "f16": 2, "bf16": 2}

# Max LDS per workgroup (cdna-facts section 1: LLVM's limit, 64 KiB gfx942, 160 KiB gfx950).
LDS_LIMIT = {"gfx942": 65536, "gfx950": 163840}
# One unified file of 512 registers per lane: v0..v255 then a0..a255 (cdna-facts section 1).
REGS_PER_LANE = 512
VGPR_MAX = 256
AGPR_MAX = 256
# f16/bf16 MFMA shapes (m, n, k) per arch (cdna-facts section 2.1). On gfx950 the gfx942 shapes
# still assemble but run at half rate; the x16/x32 forms are the native ones.
MFMA_SHAPES = {
    "gfx942": ((32, 32, 8), (16, 16, 16)),
    "gfx950": ((32, 32, 16), (16, 16, 32), (32, 32, 8), (16, 16, 16)),
}
DS_OFFSET_MAX = 65535      # DS instruction offset, 16-bit unsigned (cdna-facts section 5)
MUBUF_OFFSET_MAX = 4095    # MUBUF instruction offset, 12-bit unsigned (cdna-facts section 5)
# bytes of one LDS bank line: 32 banks x 4 B gfx942, 64 x 4 B gfx950 (cdna-facts section 7)
BANK_LINE_BYTES = {"gfx942": 128, "gfx950": 256}
MAX_WAVES = 16             # 1024 work-items per workgroup


@dataclass(frozen=True, slots=True)
class Target:
    """The hardware a kernel is generated for (passed explicitly, never global)."""

    arch: str = "gfx942"

    def __post_init__(self) -> None:
        if self.arch not in ARCHES:
            raise ConfigError(f"arch {self.arch!r} is not one of {ARCHES}")

    @property
    def lds_limit(self) -> int:
        return LDS_LIMIT[self.arch]

    @property
    def mfma_shapes(self) -> tuple[tuple[int, int, int], ...]:
        return MFMA_SHAPES[self.arch]

    def default_mfma(self) -> tuple[int, int, int]:
        return self.mfma_shapes[0]
