"""K and V loads of the decode template shared by the dense and paged caches: the buffer-resource
base move, the V tile's work items, the K-operand and V-row loads, and ``DenseKV`` (the dense
cache's resources, advanced one key block per iteration)."""
from __future__ import annotations

from isa.instr import Instr
from isa.operands import Imm

from ...ir import VReg
from ..common.buffers import SRD_DWORD3
from .arith import imm_or_const
from .config import BLOCK_K

OFFEN = (("offen", True),)
TAGS = ("addr",)


def srd_base(ab, block, srd: VReg, row: VReg, row_bytes: int, extra: VReg | None = None) -> None:
    """srd base += row x row_bytes (+ extra bytes), 64-bit; word 1 keeps the 16 address bits."""
    lo, hi = ab.sreg(name="b_lo"), ab.sreg(name="b_hi")
    block.add(Instr("s_mul_i32", (lo, row, Imm(row_bytes))), TAGS)
    block.add(Instr("s_mul_hi_u32", (hi, row, Imm(row_bytes))), TAGS)
    block.add(Instr("s_add_u32", (srd.sub(0), srd.sub(0), lo)), TAGS)
    block.add(Instr("s_addc_u32", (srd.sub(1), srd.sub(1), hi)), TAGS)
    if extra is not None:
        block.add(Instr("s_add_u32", (srd.sub(0), srd.sub(0), extra)), TAGS)
        block.add(Instr("s_addc_u32", (srd.sub(1), srd.sub(1), Imm(0))), TAGS)
    block.add(Instr("s_and_b32", (srd.sub(1), srd.sub(1), Imm(0xFFFF))), TAGS)
    block.add(Instr("s_mov_b32", (srd.sub(3), Imm(SRD_DWORD3))), TAGS)


class DenseKV:
    """Dense caches ``[batch, max_context, kv_heads, head_dim]``: the K/V resources start at
    (b, start, kv_head), num_records ends them at the context, and they advance one key block
    per iteration (num_records clamped at 0, so a prefetch past the end reads nothing)."""

    def __init__(self, ab, srd, b, ctx, start, kvh_off, col, dqb, lane) -> None:
        cfg, p = ab.cfg, ab.k.prologue
        self.ab, self.srd = ab, srd
        rbk = cfg.kv_row_bytes
        row, left = ab.sreg(name="kv_row"), ab.sreg(name="kv_left")
        p.add(Instr("s_mul_i32", (row, b, Imm(cfg.max_context))), TAGS)
        p.add(Instr("s_add_u32", (row, row, start)), TAGS)
        p.add(Instr("s_sub_i32", (left, ctx, start)), TAGS)
        p.add(Instr("s_max_i32", (left, left, Imm(0))), TAGS)
        for n in ("k_cache", "v_cache"):
            srd_base(ab, p, srd[n], row, rbk, kvh_off)
            p.add(Instr("s_mul_i32", (srd[n].sub(2), left, Imm(rbk))), TAGS)
        # K: lane loads key col of the block, head-dim elements dq.. (+ k-step immediates)
        self.off_k = ab.vreg(name="off_k")
        p.add(Instr("v_mad_u32_u24", (self.off_k, col, imm_or_const(ab, rbk), dqb)), TAGS)
        self.v_offs = v_row_offsets(ab, lane, rbk)

    def load(self, block, kb, dst=None, ahead: bool = False):
        kf = load_k(self.ab, block, self.srd["k_cache"], [(self.off_k, 0)],
                    dst[0] if dst else None)
        vrows = load_v(self.ab, block, self.srd["v_cache"], self.v_offs,
                       dst[1] if dst else None)
        return kf, vrows

    def advance(self, block) -> None:
        ab = self.ab
        step = ab.const(BLOCK_K * ab.cfg.kv_row_bytes)
        for n in ("k_cache", "v_cache"):
            r = self.srd[n]
            block.add(Instr("s_add_u32", (r.sub(0), r.sub(0), step)), ("addr", "kv_adv"))
            block.add(Instr("s_addc_u32", (r.sub(1), r.sub(1), Imm(0))), ("addr", "kv_adv"))
            block.add(Instr("s_sub_i32", (r.sub(2), r.sub(2), step)), ("addr", "kv_adv"))
            block.add(Instr("s_max_i32", (r.sub(2), r.sub(2), Imm(0))), ("addr", "kv_adv"))


def v_items(ab, lane):
    """The V tile's work items (``vtile``, kpi = 4 for one wave): item j of lane l is
    w = l + 64 j, keys 4 g .. 4 g + 3 (g = w % 8) of dims 8 c .. 8 c + 7 (c = w / 8). Returns
    [(g, c)] VGPR pairs."""
    p = ab.k.prologue
    out = []
    for j in range(4 * ab.cfg.head_dim // 4 // ab.cfg.threads):
        w = lane
        if j:
            w = ab.vreg(name=f"dv_w{j}")
            p.add(Instr("v_add_u32", (w, imm_or_const(ab, 64 * j), lane)), TAGS)
        g, c = ab.vreg(name=f"dv_g{j}"), ab.vreg(name=f"dv_c{j}")
        p.add(Instr("v_and_b32", (g, Imm(7), w)), TAGS)
        p.add(Instr("v_lshrrev_b32", (c, Imm(3), w)), TAGS)
        out.append((g, c))
    return out


def v_row_offsets(ab, lane, rbk: int):
    """Dense: per item, the four key rows' (VGPR, immediate) offsets g 4 rbk + c 16 + i rbk (the
    immediate while it fits the MUBUF offset field, cdna-facts section 5)."""
    p = ab.k.prologue
    out = []
    lim = ab.cfg.target.mubuf_offset_max
    for j, (g, c) in enumerate(v_items(ab, lane)):
        c16, base = ab.vreg(name=f"dv_c16_{j}"), ab.vreg(name=f"dv_off{j}")
        p.add(Instr("v_lshlrev_b32", (c16, Imm(4), c)), TAGS)
        p.add(Instr("v_mad_u32_u24", (base, g, imm_or_const(ab, 4 * rbk), c16)), TAGS)
        rows = []
        for i in range(4):
            if i * rbk <= lim:
                rows.append((base, i * rbk))
            else:
                o = ab.vreg(name=f"dv_off{j}_{i}")
                p.add(Instr("v_add_u32", (o, ab.const(i * rbk), base)), TAGS)
                rows.append((o, 0))
        out.append(rows)
    return out


def load_k(ab, block, srd_k, off, dst=None):
    """The K operands of every k-step: key col, elements k st + dq .. (``off``: [(VGPR, imm)])."""
    cfg = ab.cfg
    kpl = cfg.k_per_lane
    op = {4: "buffer_load_dwordx2", 8: "buffer_load_dwordx4"}[kpl]
    voff, imm0 = off[0]
    out = []
    for st in range(cfg.head_dim // cfg.mfma_k):
        r = dst[st] if dst else ab.vreg(kpl // cfg.in_type.per_dword, name=f"k{st}")
        o = imm0 + cfg.in_type.nbytes(cfg.mfma_k * st)
        block.add(Instr(op, (r, voff, srd_k, Imm(0)), OFFEN + ((("offset", o),) if o else ())),
                  ("gr_k",))
        out.append(r)
    return out


def load_v(ab, block, srd_v, offs, dst=None):
    """The V rows of every work item: [[4 x 16-byte rows]] (``offs``: per item [(VGPR, imm)])."""
    out = []
    for j, rows in enumerate(offs):
        got = []
        for i, (voff, imm) in enumerate(rows):
            r = dst[j][i] if dst else ab.k.vreg("v", 4, align=4, name=f"vrow{j}_{i}")
            block.add(Instr("buffer_load_dwordx4", (r, voff, srd_v, Imm(0)),
                            OFFEN + ((("offset", imm),) if imm else ())), ("gr_v",))
            got.append(r)
        out.append(got)
    return out
