"""K and V loads of the decode template shared by the dense and paged caches: the V tile's work
items, the K-operand and V-row loads (``kv_dtype`` bytes: an fp8
cache loads half the bytes and ``dequant`` widens them to ``dtype`` in registers), and ``DenseKV``
(the dense cache's resources, advanced one key block per iteration)."""
from __future__ import annotations

from isa.instr import Instr
from isa.operands import Imm

from ...ir import VReg
from ..attention.ktile import OFFEN
from ..common.buffers import log2
from .arith import imm_or_const
from .config import BLOCK_K
from .resource import TAGS, srd_base

LOADS = {4: "buffer_load_dword", 8: "buffer_load_dwordx2", 16: "buffer_load_dwordx4"}
V_ROW = 8                # elements of one V row load (dims 8 c .. 8 c + 7, ``v_items``)


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
        self.b, self.start, self.left = b, start, left
        self.sc_offs = None

    def token_scales(self, kvh, half) -> None:
        """Per-token k_scale / v_scale (``kvscale``): resources at (b, kv_head, start)."""
        from . import kvscale
        self.sc_offs, _ = kvscale.dense_setup(self.ab, self.srd, self.b, kvh, self.start,
                                              self.left, half)
        self.scales = kvscale.Loader(self.ab, self.srd, dense=True)

    def load(self, block, kb, dst=None, ahead: bool = False):
        """(K operands, V rows, per-token (k, v) scales or None)."""
        kf = load_k(self.ab, block, self.srd["k_cache"], [(self.off_k, 0)],
                    dst[0] if dst else None)
        vrows = load_v(self.ab, block, self.srd["v_cache"], self.v_offs,
                       dst[1] if dst else None)
        sc = None
        if self.sc_offs is not None:
            sc = self.scales.load(block, self.sc_offs, dst[2] if dst else None, ahead)
        return kf, vrows, sc

    def advance(self, block) -> None:
        ab = self.ab
        step = ab.const(BLOCK_K * ab.cfg.kv_row_bytes)
        for n in ("k_cache", "v_cache"):
            r = self.srd[n]
            block.add(Instr("s_add_u32", (r.sub(0), r.sub(0), step)), ("addr", "kv_adv"))
            block.add(Instr("s_addc_u32", (r.sub(1), r.sub(1), Imm(0))), ("addr", "kv_adv"))
            block.add(Instr("s_sub_i32", (r.sub(2), r.sub(2), step)), ("addr", "kv_adv"))
            block.add(Instr("s_max_i32", (r.sub(2), r.sub(2), Imm(0))), ("addr", "kv_adv"))
        if self.sc_offs is not None:
            self.scales.advance(block)


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
    """Dense: per item, the four key rows' (VGPR, immediate) offsets g 4 rbk + c rowb + i rbk
    (rowb = bytes of ``V_ROW`` cache elements; the immediate while it fits the MUBUF offset
    field, cdna-facts section 5)."""
    p = ab.k.prologue
    out = []
    lim = ab.cfg.target.mubuf_offset_max
    for j, (g, c) in enumerate(v_items(ab, lane)):
        c16, base = ab.vreg(name=f"dv_c16_{j}"), ab.vreg(name=f"dv_off{j}")
        p.add(Instr("v_lshlrev_b32", (c16, Imm(v_row_shift(ab.cfg)), c)), TAGS)
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


def v_row_shift(cfg) -> int:
    """log2 of the bytes of one V row load (``V_ROW`` cache elements)."""
    return log2(cfg.kv_type.nbytes(V_ROW))


def load_k(ab, block, srd_k, off, dst=None):
    """The K operands of every k-step: key col, elements k st + dq .. (``off``: [(VGPR, imm)])."""
    cfg = ab.cfg
    nb = cfg.kv_type.nbytes(cfg.k_per_lane)
    op = LOADS[nb]
    voff, imm0 = off[0]
    out = []
    for st in range(cfg.head_dim // cfg.mfma_k):
        r = dst[st] if dst else ab.vreg(nb // 4, name=f"k{st}")
        o = imm0 + cfg.kv_type.nbytes(cfg.mfma_k * st)
        block.add(Instr(op, (r, voff, srd_k, Imm(0)), OFFEN + ((("offset", o),) if o else ())),
                  ("gr_k",))
        out.append(r)
    return out


def load_v(ab, block, srd_v, offs, dst=None):
    """The V rows of every work item: [[4 x 16-byte rows]] (``offs``: per item [(VGPR, imm)])."""
    nb = ab.cfg.kv_type.nbytes(V_ROW)
    out = []
    for j, rows in enumerate(offs):
        got = []
        for i, (voff, imm) in enumerate(rows):
            r = dst[j][i] if dst else ab.k.vreg("v", nb // 4, align=nb // 4, name=f"vrow{j}_{i}")
            block.add(Instr(LOADS[nb], (r, voff, srd_v, Imm(0)),
                            OFFEN + ((("offset", imm),) if imm else ())), ("gr_v",))
            got.append(r)
        out.append(got)
    return out


def _widen(ab, block, src: VReg, ndw: int, name: str, align: int = 1) -> VReg:
    """``ndw`` dwords of fp8 bytes -> 2 ndw dwords of ``dtype``: each word by v_cvt_pk_f32_fp8
    (SDWA src0_sel picks the word; the emulator decodes the arch's fp8: FNUZ on gfx942, OCP on
    gfx950), the two f32 packed. Every fp8 E4M3 value is exact in f16 and bf16 (3 mantissa bits,
    exponents 2^-10 .. 2^8), so the pack needs no rounding: the high halves (bf16) or
    v_cvt_pkrtz_f16_f32 (f16)."""
    cfg = ab.cfg
    out = ab.k.vreg("v", 2 * ndw, align=align, name=name)
    tg = ("dequant",)
    for w in range(2 * ndw):
        f = ab.k.vreg("v", 2, align=2, name="kv_f32")
        mods = (("src0_sel", f"WORD_{w % 2}"),)
        block.add(Instr("v_cvt_pk_f32_fp8", (f, src.sub(w // 2) if ndw > 1 else src), mods,
                        "sdwa"), tg)
        if cfg.dtype == "f16":
            block.add(Instr("v_cvt_pkrtz_f16_f32", (out.sub(w), f.sub(0), f.sub(1))), tg)
        else:   # bf16: byte selectors 2,3 of src1 (lo) then 2,3 of src0 (hi)
            block.add(Instr("v_perm_b32", (out.sub(w), f.sub(1), f.sub(0),
                                           ab.const(0x07060302))), tg)
    return out


def dequant(ab, block, kf, vrows):
    """fp8 K operands and V rows (as loaded) -> ``dtype`` registers where the 16-bit path has
    them; the scales are not applied here (k_scale is folded into the softmax scale, v_scale
    into the final normalisation: ``asmgen.kinds.decode.template``)."""
    kd = [_widen(ab, block, r, cfg_dw(ab, ab.cfg.k_per_lane), f"kq{i}", align=2)
          for i, r in enumerate(kf)]
    vd = [[_widen(ab, block, r, cfg_dw(ab, V_ROW), "vrow_d", align=4) for r in rows]
          for rows in vrows]
    return kd, vd


def cfg_dw(ab, elems: int) -> int:
    """Dwords of ``elems`` cache elements."""
    return ab.cfg.kv_type.nbytes(elems) // 4
