"""The GEMM kind's tag vocabulary (``asmgen.ir.tags``): ``GemmTag`` and ``GEMM_TAGS`` (with
``CoreTag`` and ``CommonTag``), the per-operand lookups the templates use instead of f-strings
(``gr(op)``, ``lw(op)``, ...) and the groups the recipes rank (``GR``, ``LW``, ``LR``).

A leaf declaration (imports only the tag modules), so recipes may import it (tests/layers)."""
from __future__ import annotations

from ...ir.tags import TagEnum, TagVocabulary, UnknownTag
from ..common.tags import CommonTag


class GemmTag(TagEnum):
    GR_A = "gr_a"                 # global reads of A (LDS-DMA loads are also lw_a)
    GR_B = "gr_b"
    GR_A_ADDR = "gr_a_addr"       # their per-load address arithmetic (M0 / offsets)
    GR_B_ADDR = "gr_b_addr"
    GR_A_K = "gr_a_k"             # the K advance of A's buffer resource
    GR_B_K = "gr_b_k"
    LW_A = "lw_a"                 # LDS writes of A (and their address / transposes)
    LW_B = "lw_b"
    LR_A = "lr_a"                 # LDS reads of A (and their addresses)
    LR_B = "lr_b"
    ACC_INIT = "acc_init"         # accumulator zeroing
    ACC_READ = "acc_read"         # accumulator reads in the epilogue
    EPI_LD = "epi_ld"             # epilogue loads (C for beta, bias)
    PHASE_M = "phase_m"           # every node of the split loop's memory phase
    BARRIER_MID = "barrier_mid"   # pingpong: the barrier between compute and memory phase
    BARRIER_END = "barrier_end"   # the barrier that ends an iteration of the split loop
    MX_SCALE = "mx_scale"         # MX block-scale loads and copies (kinds.gemm.mxscale)


GEMM_TAGS = TagVocabulary("gemm", CommonTag, GemmTag)

_BY_OPERAND = {
    "gr": {"a": GemmTag.GR_A, "b": GemmTag.GR_B},
    "gr_addr": {"a": GemmTag.GR_A_ADDR, "b": GemmTag.GR_B_ADDR},
    "gr_k": {"a": GemmTag.GR_A_K, "b": GemmTag.GR_B_K},
    "lw": {"a": GemmTag.LW_A, "b": GemmTag.LW_B},
    "lr": {"a": GemmTag.LR_A, "b": GemmTag.LR_B},
}


def _of(what: str, op: str) -> GemmTag:
    try:
        return _BY_OPERAND[what][op]
    except KeyError:
        raise UnknownTag(f"GEMM tag {what} of operand {op!r}: the operands are 'a' and 'b'") from None


def gr(op: str) -> GemmTag:
    return _of("gr", op)


def gr_addr(op: str) -> GemmTag:
    return _of("gr_addr", op)


def gr_k(op: str) -> GemmTag:
    return _of("gr_k", op)


def lw(op: str) -> GemmTag:
    return _of("lw", op)


def lr(op: str) -> GemmTag:
    return _of("lr", op)


# the groups recipes rank together
GR = (GemmTag.GR_A, GemmTag.GR_B, GemmTag.GR_A_ADDR, GemmTag.GR_B_ADDR, GemmTag.GR_A_K,
      GemmTag.GR_B_K)
LW = (GemmTag.LW_A, GemmTag.LW_B)
LR = (GemmTag.LR_A, GemmTag.LR_B)
