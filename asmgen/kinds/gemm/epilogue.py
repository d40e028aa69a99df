"""GEMM epilogue: accumulators -> alpha * acc + beta * C (+ bias) -> activation -> out dtype ->
masked buffer stores.

Accumulator register r of lane l of a block holds C element (i, j) with
i = (r // 4) * 4 * (64 // n) + (l // n) * 4 + r % 4, j = l % n (cdna-facts section 2.2, see
``layout.acc_coords``). Each element gets its own byte offset; elements past M or N get
OOB_OFFSET, so their C loads return 0 and their stores are dropped (cdna-facts section 5).
C is read through a second SRD whose num_records is 0 when beta == 0 (``finish_srds``).

Activations (applied after bias): SiLU x * sigmoid(x); GELU, tanh approximation,
0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) = x * sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3)).
sigmoid(u) = 1 / (1 + 2^(-u log2 e)) with v_exp_f32 (2^x) and v_rcp_f32.

fp8/bf8 outputs (chained layers) saturate: y = med3(y, -max, max) with max the format's largest
finite value (NaN kept: v_med3_f32 returns a number for a NaN source, so a v_cmp_u_f32 /
v_cndmask_b32 pair puts it back; +-Inf becomes +-max), then v_cvt_pk_{fp8,bf8}_f32, whose
rounding is RNE but not saturating (isa.emu.valu_cvt docstring: the hardware overflows to NaN /
Inf; CK and MLIR's saturate-fp8-truncf clamp the same way before converting), and a byte store.
A beta * C read loads the byte and widens it with v_cvt_f32_{fp8,bf8}.

Scales of 8-bit inputs: per tensor (an argument or read through a device pointer) they fold into
alpha once (f = alpha * scale_a * scale_b, two f32 roundings); a per-column scale_b vector is
loaded once per column block like the bias (f_j = f * scale_b[col]); a per-row scale_a vector once
per accumulator row, next to that row's C load, and multiplies the accumulator first
(x * scale_a[row] * f_j: at most three roundings, the reference's tolerance).
"""
from __future__ import annotations

import math
import struct

from isa.instr import Instr
from isa.operands import Imm

from ..common.buffers import log2
from .layout import acc_row_offset
from .prologue import OFFEN, imm_or_sgpr

TAGS = ("epi",)
_LOG2E = math.log2(math.e)
_GELU_C1 = 2.0 * math.sqrt(2.0 / math.pi)
_GELU_C2 = _GELU_C1 * 0.044715
# C loads / stores by element size in bytes
LOAD_OUT = {4: "buffer_load_dword", 2: "buffer_load_ushort", 1: "buffer_load_ubyte"}
STORE_OUT = {4: "buffer_store_dword", 2: "buffer_store_short", 1: "buffer_store_byte"}


def _is_fp8_out(cfg) -> bool:
    return cfg.out_type.max_finite is not None


def f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def build_epilogue(gb, ids, sc, srds, c_read, acc) -> None:
    cfg, e = gb.cfg, gb.k.epilogue
    mm, mn = cfg.mfma[0], cfg.mfma[1]
    wtm, wtn = cfg.wave_tile
    ob = cfg.out_type.bytes
    v = gb.vreg
    # per-lane row / column of register 0 relative to the tile origin
    g, r, wr, c, wc = (v(name=n) for n in ("e_g", "e_row", "e_wrow", "e_col", "e_wcol"))
    e.add(Instr("v_lshrrev_b32", (g, Imm(log2(mn)), ids.lane)), TAGS)
    e.add(Instr("v_mul_u32_u24", (wr, Imm(wtm), ids.wave_m)), TAGS)
    e.add(Instr("v_lshl_add_u32", (r, g, Imm(2), wr)), TAGS)
    e.add(Instr("v_and_b32", (c, Imm(mn - 1), ids.lane)), TAGS)
    e.add(Instr("v_mul_u32_u24", (wc, Imm(wtn), ids.wave_n)), TAGS)
    e.add(Instr("v_add_u32", (c, wc, c)), TAGS)
    rem_r, rem_c = v(name="e_remr"), v(name="e_remc")
    e.add(Instr("v_sub_u32", (rem_r, sc.mrem, r)), TAGS)     # M - row0 - r (signed)
    e.add(Instr("v_sub_u32", (rem_c, sc.nrem, c)), TAGS)
    # byte offset of (row0 + r, col0 + c): ((row0 + r) * ldc + col0 + c) * ob
    sbase = gb.sreg(name="c_base")
    e.add(Instr("s_mul_i32", (sbase, sc.row0, sc.ldc)), TAGS)
    e.add(Instr("s_add_u32", (sbase, sbase, sc.col0)), TAGS)
    e.add(Instr("s_lshl_b32", (sbase, sbase, Imm(log2(ob)))), TAGS)
    base = v(name="e_base")
    e.add(Instr("v_mul_lo_u32", (base, sc.ldc, r)), TAGS)
    e.add(Instr("v_add_u32", (base, c, base)), TAGS)
    e.add(Instr("v_lshl_add_u32", (base, base, Imm(log2(ob)), sbase)), TAGS)
    ldc_b = gb.sreg(name="ldc_bytes")
    e.add(Instr("s_lshl_b32", (ldc_b, sc.ldc, Imm(log2(ob)))), TAGS)
    consts = _constants(gb, e)
    consts["alpha"] = _alpha(gb, e, sc)
    row_scale = ((_row_scale_base(gb, e, sc, r), srds["scale_a"]) if cfg.scale_a_mode == "row"
                 else None)

    bm, bn = cfg.blocks
    col_off, bias_v, fcol = [], [], []
    for jb in range(bn):
        cc = jb * mn
        m = gb.mask()
        e.add(Instr("v_cmp_lt_i32", (m, imm_or_sgpr(gb, e, cc, TAGS), rem_c), encoding="e64"), TAGS)
        o = v(name=f"e_coff{jb}")
        e.add(Instr("v_add_u32", (o, Imm(cc * ob), base)) if cc else
              Instr("v_mov_b32", (o, base)), TAGS)
        om = v(name=f"e_coffm{jb}")
        e.add(Instr("v_cndmask_b32", (om, gb.big, o, m), encoding="e64"), TAGS)
        col_off.append(om)
        if cfg.bias:
            bo, bom, bv = v(name="e_boff"), v(name="e_boffm"), v(name=f"bias{jb}")
            # bias[col0 + c + cc] as f32: offset (col0 + c + cc) * 4
            e.add(Instr("v_add_u32", (bo, sc.col0, c)), TAGS)
            e.add(Instr("v_lshlrev_b32", (bo, Imm(2), bo)), TAGS)
            if cc:
                e.add(Instr("v_add_u32", (bo, Imm(4 * cc), bo)), TAGS)
            e.add(Instr("v_cndmask_b32", (bom, gb.big, bo, m), encoding="e64"), TAGS)
            e.add(Instr("buffer_load_dword", (bv, bom, srds["bias"], Imm(0)), OFFEN), ("epi", "epi_ld"))
            bias_v.append(bv)
        if cfg.scale_b_mode == "col":   # f_j = f * scale_b[col0 + c + cc]
            so, som, sv, fj = v(name="e_soff"), v(name="e_soffm"), v(name=f"sb{jb}"), v(name=f"f{jb}")
            e.add(Instr("v_add_u32", (so, sc.col0, c)), TAGS)
            e.add(Instr("v_lshlrev_b32", (so, Imm(2), so)), TAGS)
            if cc:
                e.add(Instr("v_add_u32", (so, Imm(4 * cc), so)), TAGS)
            e.add(Instr("v_cndmask_b32", (som, gb.big, so, m), encoding="e64"), TAGS)
            e.add(Instr("buffer_load_dword", (sv, som, srds["scale_b"], Imm(0)), OFFEN),
                  ("epi", "epi_ld"))
            e.add(Instr("v_mul_f32", (fj, consts["alpha"], sv)), TAGS)
            fcol.append(fj)

    # one batch per accumulator tuple: its C loads first, then its math and stores, so the
    # loads are in flight together (the DAG orders every global load after earlier stores)
    for ib in range(bm):
        for jb in range(bn):
            batch = []
            for reg in range(cfg.acc_regs):
                cr = ib * mm + acc_row_offset(cfg, reg)
                eb = _in_order(e, cfg, (ib * bn + jb) * cfg.acc_regs + reg)
                batch.append(_load_c(gb, eb, cr, col_off[jb], rem_r, ldc_b, c_read, row_scale))
            for reg, (om, c_in, s_row) in enumerate(batch):
                eb = _in_order(e, cfg, (ib * bn + jb) * cfg.acc_regs + reg)
                _finish(gb, eb, acc[ib][jb].sub(reg), om, c_in, sc, srds,
                        bias_v[jb] if cfg.bias else None, consts, fcol[jb] if fcol else None,
                        s_row)


class _Prioritised:
    """A block whose ``add`` gives every node one scheduling priority (higher issues first)."""

    def __init__(self, block, priority: int):
        self.block, self.priority = block, priority

    def add(self, instr, tags=(), **kw):
        return self.block.add(instr, tags, priority=self.priority, **kw)


def _in_order(e, cfg, element: int):
    """The raw i32 output's elements in program order: its epilogue has no C math to chain an
    element's row mask and offset to its store, so the default critical-path order hoisted the
    SGPR masks and row offsets of every element first (266 SGPRs live at a 256x256 tile); a
    falling priority per element keeps each one's registers short-lived. Other outputs keep the
    scheduler's default order."""
    return _Prioritised(e, -element) if cfg.out_dtype == "i32" else e


def _constants(gb, e) -> dict:
    """Registers holding constants VOP3 forms cannot take as literals (gfx9 VOP3: no literal)."""
    out = {}
    if _is_fp8_out(gb.cfg):           # the saturation bounds (v_med3_f32 is VOP3: no literal)
        big = gb.cfg.out_type.max_finite
        for name, val in (("sat_lo", -big), ("sat_hi", big)):
            out[name] = gb.vreg(name=name)
            e.add(Instr("v_mov_b32", (out[name], Imm(f32_bits(val)))), TAGS)
    if gb.cfg.out_dtype == "bf16":
        out["7fff"] = gb.sreg(name="c7fff")
        e.add(Instr("s_mov_b32", (out["7fff"], Imm(0x7FFF))), TAGS)
        out["qnan"] = gb.vreg(name="qnan")
        e.add(Instr("v_mov_b32", (out["qnan"], Imm(0x7FC00000))), TAGS)
    return out


def _alpha(gb, e, sc):
    """The accumulator's factor: alpha, or (scale_a * scale_b) * alpha in a VGPR (two f32
    roundings, the reference's tolerance) when the kernel takes per-tensor scales; a vector
    scale's factor 1 is left out (it multiplies per row / column later)."""
    if sc.scales is not None:
        v = gb.vreg
        t, u, w = v(name="sc_a"), v(name="sc_ab"), v(name="alpha_s")
        e.add(Instr("v_mov_b32", (t, sc.scales.sub(0))), TAGS)
        e.add(Instr("v_mul_f32", (u, sc.scales.sub(1), t)), TAGS)
        e.add(Instr("v_mul_f32", (w, sc.alpha, u)), TAGS)
        return w
    f = sc.alpha
    for s in (sc.scale_a, sc.scale_b):      # per-tensor ones (argument or through a pointer)
        if s is not None:
            t, w = gb.vreg(name="sc_t"), gb.vreg(name="alpha_s")
            e.add(Instr("v_mov_b32", (t, s)), TAGS)
            e.add(Instr("v_mul_f32", (w, f, t)), TAGS)
            f = w
    return f


def _row_scale_base(gb, e, sc, r):
    """Byte offset of scale_a[row0 + r] (this lane's first accumulator row)."""
    v = gb.vreg
    b = v(name="e_srow")
    e.add(Instr("v_add_u32", (b, sc.row0, r)), TAGS)
    e.add(Instr("v_lshlrev_b32", (b, Imm(2), b)), TAGS)
    return b


def _load_c(gb, e, cr: int, coff, rem_r, ldc_b, c_read, row_scale=None):
    """Byte offset of C row ``cr`` of this lane's column (OOB past M: the row mask), the
    C load (returns 0 past the edges or when beta == 0), and the row's scale_a when per row."""
    cfg = gb.cfg
    v = gb.vreg
    mr = gb.mask()
    e.add(Instr("v_cmp_lt_i32", (mr, imm_or_sgpr(gb, e, cr, TAGS), rem_r), encoding="e64"), TAGS)
    o = coff
    if cr:
        sro = gb.sreg(name="e_roff")
        e.add(Instr("s_mul_i32", (sro, ldc_b, Imm(cr))), TAGS)
        o = v(name="e_off")
        e.add(Instr("v_add_u32", (o, sro, coff)), TAGS)
    om = v(name="e_offm")
    e.add(Instr("v_cndmask_b32", (om, gb.big, o, mr), encoding="e64"), TAGS)
    c_in = None
    if cfg.out_dtype != "i32":    # the raw i32 accumulator takes no beta * C: nothing to read
        c_in = v(name="c_in")
        e.add(Instr(LOAD_OUT[cfg.out_type.bytes], (c_in, om, c_read, Imm(0)), OFFEN),
              ("epi", "epi_ld"))
    s_row = None
    if row_scale is not None:     # scale_a[row0 + r + cr] (OOB past M: dropped by the row mask)
        base, srd = row_scale
        so, som, s_row = v(name="e_sroff"), v(name="e_sroffm"), v(name="sa_row")
        if cr:
            e.add(Instr("v_add_u32", (so, Imm(4 * cr), base)), TAGS)
        else:
            so = base
        e.add(Instr("v_cndmask_b32", (som, gb.big, so, mr), encoding="e64"), TAGS)
        e.add(Instr("buffer_load_dword", (s_row, som, srd, Imm(0)), OFFEN),
              ("epi", "epi_ld"))
    return om, c_in, s_row


def _finish(gb, e, acc_reg, om, cr, sc, srds, bias, consts, fcol=None, s_row=None) -> None:
    """alpha * acc + beta * C (+ bias), activation, conversion, masked store."""
    cfg = gb.cfg
    v = gb.vreg
    x = v(name="x")
    e.add(Instr("v_accvgpr_read_b32", (x, acc_reg)), ("epi", "acc_read"))
    if cfg.out_dtype == "i32":   # the raw i32 accumulator (v_mfma_i32_*), alpha/beta unused
        e.add(Instr("buffer_store_dword", (x, om, srds["C"], Imm(0)), OFFEN), ("epi", "store"))
        return
    if cfg.in_type.is_int:       # i32 accumulator -> f32 (round to nearest even)
        xi = x
        x = v(name="x_f32")
        e.add(Instr("v_cvt_f32_i32", (x, xi)), TAGS)
    if s_row is not None:         # per-row scale_a first
        xr = v(name="x_row")
        e.add(Instr("v_mul_f32", (xr, s_row, x)), TAGS)
        x = xr
    xa = v(name="xa")
    e.add(Instr("v_mul_f32", (xa, consts["alpha"] if fcol is None else fcol, x)), TAGS)
    cf = cr
    if cfg.out_dtype == "f16":
        cf = v(name="c_f32")
        e.add(Instr("v_cvt_f32_f16", (cf, cr)), TAGS)
    elif cfg.out_dtype == "bf16":
        cf = v(name="c_f32")
        e.add(Instr("v_lshlrev_b32", (cf, Imm(16), cr)), TAGS)
    elif _is_fp8_out(cfg):           # byte 0 of the loaded dword (the ubyte load zero-extends)
        cf = v(name="c_f32")
        e.add(Instr(f"v_cvt_f32_{cfg.out_type.mfma_type}", (cf, cr)), TAGS)
    y = v(name="y")
    e.add(Instr("v_fma_f32", (y, sc.beta, cf, xa)), TAGS)
    if bias is not None:
        yb = v(name="yb")
        e.add(Instr("v_add_f32", (yb, y, bias)), TAGS)
        y = yb
    if cfg.activation != "none":
        y = _activation(gb, e, y, cfg.activation)
    out = _convert(gb, e, y, consts)
    e.add(Instr(STORE_OUT[cfg.out_type.bytes], (out, om, srds["C"], Imm(0)), OFFEN), ("epi", "store"))


def _activation(gb, e, x, kind: str):
    v = gb.vreg
    u = x
    if kind == "gelu":
        t1, t2, t3, t4 = v(name="g1"), v(name="g2"), v(name="g3"), v(name="g4")
        e.add(Instr("v_mul_f32", (t1, x, x)), TAGS)
        e.add(Instr("v_mul_f32", (t2, Imm(f32_bits(_GELU_C2)), t1)), TAGS)
        e.add(Instr("v_add_f32", (t3, Imm(f32_bits(_GELU_C1)), t2)), TAGS)
        e.add(Instr("v_mul_f32", (t4, t3, x)), TAGS)
        u = t4
    n, ex, den, rc, out = (v(name=nm) for nm in ("sg_n", "sg_e", "sg_d", "sg_r", "act"))
    e.add(Instr("v_mul_f32", (n, Imm(f32_bits(-_LOG2E)), u)), TAGS)
    e.add(Instr("v_exp_f32", (ex, n)), TAGS)          # 2^(-u log2 e) = e^-u
    e.add(Instr("v_add_f32", (den, Imm(1.0), ex)), TAGS)
    e.add(Instr("v_rcp_f32", (rc, den)), TAGS)
    e.add(Instr("v_mul_f32", (out, x, rc)), TAGS)
    return out


def _convert(gb, e, y, consts):
    cfg = gb.cfg
    if cfg.out_dtype == "f32":
        return y
    v = gb.vreg
    if cfg.out_dtype == "f16":
        h = v(name="h")
        e.add(Instr("v_cvt_f16_f32", (h, y)), TAGS)    # round to nearest even
        return h
    if _is_fp8_out(cfg):
        return _to_fp8(gb, e, y, consts)
    # bf16, round to nearest even: (x + 0x7fff + bit16) >> 16; NaN -> quiet NaN 0x7fc0
    b, r, m, rn, h = v(name="bf_b"), v(name="bf_r"), gb.mask(), v(name="bf_n"), v(name="bf")
    e.add(Instr("v_bfe_u32", (b, y, Imm(16), Imm(1))), TAGS)
    e.add(Instr("v_add3_u32", (r, y, b, consts["7fff"])), TAGS)
    e.add(Instr("v_cmp_u_f32", (m, y, y), encoding="e64"), TAGS)
    e.add(Instr("v_cndmask_b32", (rn, r, consts["qnan"], m), encoding="e64"), TAGS)
    e.add(Instr("v_lshrrev_b32", (h, Imm(16), rn)), TAGS)
    return h


def _to_fp8(gb, e, y, consts):
    """y saturated to +-max (NaN kept), converted RNE to the fp8/bf8 byte in bits 7:0."""
    v = gb.vreg
    t, m, q = v(name="f8_t"), gb.mask(), v(name="f8")
    e.add(Instr("v_med3_f32", (t, y, consts["sat_lo"], consts["sat_hi"])), TAGS)
    e.add(Instr("v_cmp_u_f32", (m, y, y), encoding="e64"), TAGS)
    e.add(Instr("v_cndmask_b32", (q, t, y, m), encoding="e64"), TAGS)
    # in place: word 0 = (fp8(q), fp8(0)), word 1 kept (the convert reads its destination, so a
    # fresh one would be live from the kernel's start); only byte 0 is stored
    e.add(Instr(f"v_cvt_pk_{gb.cfg.out_type.mfma_type}_f32", (q, q, Imm(0))), TAGS)
    return q
