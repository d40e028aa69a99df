"""Register and counter budgets of a ``GemmConfig`` checked before any instruction is built: the
VGPR lower bound of the K loop and the vmcnt bound of one K-tile's loads (``GemmConfig``'s
resource checks call them; they read the config's derived sizes only)."""
from __future__ import annotations

from ...errors import ConfigError

VMCNT_MAX = 63      # vmcnt is 6 bits on gfx9 (cdna-facts section 4; isa.waitcnt_enc.VM_MAX)


def vgpr_estimate(cfg) -> int:
    """A lower bound of live VGPRs in the K loop: loaded tiles in flight, their load offsets,
    and two sets of MFMA operands (double-buffered local reads). MX scale registers are not
    counted (a lower bound: mxfp8 128x128x128 w2x2 ck_v4 estimates 120, allocates 130)."""
    bm, bn = cfg.blocks
    steps = cfg.tile[2] // cfg.mfma[2]
    frag = (bm + bn) * cfg.operand_regs * min(steps, 2)
    gr = 0
    for op in ("a", "b"):
        n = cfg.loads_per_thread(op)
        elems = cfg.kvec(op) * cfg.mn_vec(op)
        if cfg.k_contig(op) or cfg.in_type.bits == 16:
            gr += n * (cfg.staging * max(elems // cfg.in_type.per_dword, 1) + 1)
        else:   # 8-bit / fp4 MN-contiguous: a register and a load offset per K row
            gr += n * (cfg.staging + 1) * cfg.in_type.per_dword
    return frag + gr + 16


def check_vmcnt(cfg) -> None:
    """fp4 MN-contiguous operands load 8 K rows per vector: one K-tile's buffer loads per thread
    must fit the vmcnt counter (``VMCNT_MAX``), or the wait analysis cannot bound them (seen as
    no fixpoint at 64 loads with prefetch 2: a narrow vector of an odd-sized lda, 2 elements per
    load). The generator's own limit, more conservative than the hardware (ConfigError)."""
    if cfg.in_type.bits >= 8 or (cfg.k_contig("a") and cfg.k_contig("b")):
        return
    loads = sum(cfg.loads_per_thread(op) * (1 if cfg.k_contig(op) else 8) for op in "ab")
    if loads > VMCNT_MAX:
        raise ConfigError(f"{loads} buffer loads per thread and K-tile (vec_a={cfg.vec_a}, "
                          f"vec_b={cfg.vec_b}) exceed the {VMCNT_MAX} the vmcnt counter counts; "
                          f"use a leading dimension that is a multiple of 8 (wider MN vectors), "
                          f"more waves or a smaller tile")
