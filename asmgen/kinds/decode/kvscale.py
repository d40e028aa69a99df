"""Per-token fp8 K/V scales of the decode template (``kv_scale`` "token"): their buffer resources,
the per-block loads and the K-scale multiply of the scores.

Layout (AITER's per-token-head quantisation, ``pa_fwd_asm``'s K_QScale / V_QScale, read not
copied): one f32 per (key, KV head), the keys of one head contiguous: paged ``[num_blocks,
kv_heads, page_size]``, dense ``[batch, kv_heads, max_context]``. K[j] = k_scale[j] k_cache[j],
V[j] = v_scale[j] v_cache[j] (per KV head).

Where they apply, exactly in f32: lane l of the S^T accumulator holds keys 8 (r / 4) + 4 h + r % 4
(h = l / 32) in register r, so the lane loads its 16 keys' scales as four ``buffer_load_dwordx4``
(keys 8 j + 4 h .. + 3, j = 0..3: 4 aligned keys never straddle a page) into one 16-register
tuple in the same order. S_r *= k_scale_r (``apply_k``) before the softmax's row max;
P_r *= v_scale_r after the row sum and before P is packed for the PV MFMA (``online_softmax``'s
``p_scale``): sum_j P_j V_j = sum_j (P_j v_scale_j) V8_j, and l stays the sum of the unscaled P.
With ``prefetch`` the next block's scales load into the same registers after their last reads
(apply_k; the P scaling, ``Loader.flush``), most of an iteration before their use.

Keys past the context: dense, the resource ends at the context (per-dword range check, CDNA3
ISA "Range Checking", cdna-facts section 5: they read 0 and touch no memory, so the last row's
group may pass the array's end when max_context is not a multiple of 4); paged, a 4-key group
straddling the context reads the page's stale scales, which only masked keys see: the mask
replaces their scores by -inf whatever k_scale was, and the masked body multiplies P by v_scale
with ``v_mul_legacy_f32`` (0 x NaN = 0).
"""
from __future__ import annotations

from isa.instr import Instr
from isa.operands import Imm

from ..attention.ktile import OFFEN
from ..common.buffers import SRD_DWORD3
from .config import BLOCK_K
from .resource import TAGS, srd_base

NAMES = ("k_scale", "v_scale")
GROUPS = 4               # dwordx4 loads per scale per block: keys 8 j + 4 h .. + 3


def lane_base(ab, half):
    """16 h bytes (h = lane / 32): the lane's first key 4 h of each 8-key group."""
    p = ab.k.prologue
    h16 = ab.vreg(name="ks_h16")
    p.add(Instr("v_lshlrev_b32", (h16, Imm(4), half)), TAGS)
    return h16


def dense_setup(ab, srd, b, kvh, start, left, half) -> list:
    """Dense resources at (b, kv_head, start), ending at the context (``left`` keys); returns
    the loads' [(VGPR, immediate)] offsets (constant: the resources advance) and 16 h."""
    cfg, p = ab.cfg, ab.k.prologue
    row, s4, n4 = ab.sreg(name="ks_row"), ab.sreg(name="ks_start"), ab.sreg(name="ks_left")
    p.add(Instr("s_mul_i32", (row, b, Imm(cfg.kv_heads))), TAGS)
    p.add(Instr("s_add_u32", (row, row, kvh)), TAGS)
    p.add(Instr("s_lshl_b32", (s4, start, Imm(2))), TAGS)
    p.add(Instr("s_lshl_b32", (n4, left, Imm(2))), TAGS)
    for n in NAMES:
        srd_base(ab, p, srd[n], row, 4 * cfg.max_context, s4)
        p.add(Instr("s_mov_b32", (srd[n].sub(2), n4)), TAGS)
    h16 = lane_base(ab, half)
    return [(h16, 32 * j) for j in range(GROUPS)], h16


def dense_advance(ab, srd, block, names=NAMES) -> None:
    step = ab.const(4 * BLOCK_K)
    for n in names:
        r = srd[n]
        block.add(Instr("s_add_u32", (r.sub(0), r.sub(0), step)), ("addr", "kv_adv"))
        block.add(Instr("s_addc_u32", (r.sub(1), r.sub(1), Imm(0))), ("addr", "kv_adv"))
        block.add(Instr("s_sub_i32", (r.sub(2), r.sub(2), step)), ("addr", "kv_adv"))
        block.add(Instr("s_max_i32", (r.sub(2), r.sub(2), Imm(0))), ("addr", "kv_adv"))


def page_bytes(cfg) -> int:
    """Bytes of one page's scales: kv_heads x page_size f32."""
    return 4 * cfg.kv_heads * cfg.page_size


def paged_setup(ab, srd, kvh, nblocks, half):
    """Paged resources over the pool; returns (kv_head's byte offset in a page SGPR, h16)."""
    cfg, p = ab.cfg, ab.k.prologue
    for n in NAMES:
        r = srd[n]
        p.add(Instr("s_and_b32", (r.sub(1), r.sub(1), Imm(0xFFFF))), TAGS)
        p.add(Instr("s_mul_i32", (r.sub(2), nblocks, Imm(page_bytes(cfg)))), TAGS)
        p.add(Instr("s_mov_b32", (r.sub(3), Imm(SRD_DWORD3))), TAGS)
    hoff = ab.sreg(name="ks_kvh")
    p.add(Instr("s_mul_i32", (hoff, kvh, Imm(4 * cfg.page_size))), TAGS)
    return hoff, lane_base(ab, half)


def paged_offsets(ab, block, pages, hoff, h16, kin=None) -> list:
    """The loads' offsets of a block on ``pages`` (one SGPR page number, or two: 16-key pages,
    groups 0, 1 on the first and 2, 3 on the second); ``kin``: the block's first key in its page
    (SGPR, pages over 32 keys)."""
    cfg = ab.cfg
    tg = ("addr", "page")
    bases = []
    for ph in pages:
        sb = ab.sreg(name="ks_page")
        block.add(Instr("s_mul_i32", (sb, ph, Imm(page_bytes(cfg)))), tg)
        block.add(Instr("s_add_u32", (sb, sb, hoff)), tg)
        if kin is not None:
            k4 = ab.sreg(name="ks_kin")
            block.add(Instr("s_lshl_b32", (k4, kin, Imm(2))), tg)
            block.add(Instr("s_add_u32", (sb, sb, k4)), tg)
        v = ab.vreg(name="ks_off")
        block.add(Instr("v_add_u32", (v, sb, h16)), tg)
        bases.append(v)
    if len(bases) == 1:
        return [(bases[0], 32 * j) for j in range(GROUPS)]
    return [(bases[j // 2], 32 * (j % 2)) for j in range(GROUPS)]


class Loader:
    """The scale loads of a K/V source (``DenseKV``, ``PagedKV``). A prefetch (``ahead``) loads
    the k scales at once and keeps the v scales' loads for ``flush``, which the template calls
    after this block's P scaling: in program order before it the load would overwrite the
    registers that P still reads (the schedule keeps program order for a register)."""

    def __init__(self, ab, srd, dense: bool = False) -> None:
        self.ab, self.srd, self.pending, self.dense = ab, srd, None, dense

    def advance(self, block) -> None:
        """Dense: the resources one block on (v_scale's after a pending load, in ``flush``)."""
        if self.dense:
            dense_advance(self.ab, self.srd, block, NAMES[:1] if self.pending else NAMES)

    def load(self, block, offs, dst=None, ahead: bool = False):
        if not ahead:
            return load(self.ab, block, self.srd, offs, dst)
        (ks,) = load(self.ab, block, self.srd, offs, dst and dst[:1], NAMES[:1])
        self.pending = (offs, dst[1])
        return ks, dst[1]

    def flush(self, block) -> None:
        offs, vs = self.pending
        load(self.ab, block, self.srd, offs, (vs,), NAMES[1:])
        self.pending = None
        if self.dense:
            dense_advance(self.ab, self.srd, block, NAMES[1:])


def load(ab, block, srd, offs, dst=None, names=NAMES):
    """(k scales, v scales): per scale four 4-register tuples, group j holding registers
    4 j .. 4 j + 3 of the S^T order (module docstring; four small tuples, not one of 16, leave
    the allocator room). ``names``: the scales to load (default both)."""
    out = []
    for i, n in enumerate(names):
        regs = []
        for j, (voff, imm) in enumerate(offs):
            r = dst[i][j] if dst else ab.k.vreg("v", 4, align=2, name=f"{n}{j}")
            block.add(Instr("buffer_load_dwordx4", (r, voff, srd[n], Imm(0)),
                            OFFEN + ((("offset", imm),) if imm else ())), ("gr_k",))
            regs.append(r)
        out.append(regs)
    return tuple(out)


def pair(regs, r: int):
    """Registers r, r + 1 (r even) of a scale's S^T order."""
    return regs[r // 4].sub(r % 4, 2)


def one(regs, r: int):
    return regs[r // 4].sub(r % 4)


def apply_k(ab, block, S, ks) -> None:
    """S_r *= k_scale_r, two scores per v_pk_mul_f32."""
    for r in range(0, 16, 2):
        block.add(Instr("v_pk_mul_f32", (S.sub(r, 2), S.sub(r, 2), pair(ks, r))),
                  ("softmax", "kscale"))



def factors(regs):
    """``online_softmax``'s ``p_scale``: (register r, pair r r + 1) of a scale's S^T order."""
    return (lambda r: one(regs, r), lambda r: pair(regs, r))
