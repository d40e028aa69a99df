"""The V tile of the attention template: global -> VGPRs -> LDS transposed -> MFMA A operands.

The O^T = V^T P^T MFMA (32x32x8, cdna-facts section 2.2) wants, in lane l, dim d = l % 32 of V
and the four keys 8 s + 4 h + 0..3 (h = l / 32) of k-step s: a transpose of V's row-major
[key][dim] layout. It happens on the way into LDS: LDS row d holds the block's 32 keys of
dim d in the order ``pos(8 s + 4 h + i) = 16 h + 4 s + i``, so lane (d, h) finds the operands
of all four k-steps in 32 contiguous bytes: two ``ds_read_b128`` per 32 dims.

Global side: work item w (thread t of the workgroup, item j: w = t + threads j) loads ``kpi``
(keys per item: 4, 2 or 1) key rows kpi g .. kpi g + kpi - 1 (g = w % (32 / kpi)) of dims
8 c .. 8 c + 7 (c = w / (32 / kpi)) with ``buffer_load_dwordx4``s. kpi = 4 (one wave, or D = 128
with two waves): for each dim two ``v_perm_b32`` build the pairs (key 4g, 4g+1), (4g+2, 4g+3) and
one ``ds_write_b64`` stores them at row d, position 16 h + 4 s (s = g / 2, h = g % 2). kpi = 2:
one ``v_perm_b32`` and one ``ds_write_b32`` per dim; kpi = 1: ``ds_write_b16`` of the loaded
dword (odd dims after a ``v_lshrrev_b32``: ``ds_write_b16_d16_hi`` would save it, but the
emulator has no semantics for it yet). kpi is the largest that gives every
thread of a ``waves``-wave workgroup the same whole number of items (``keys_per_item``).
Rows are ``ROW_BYTES`` = 80 (64 + 16 padding, a multiple of 16 for ds_read_b128). The
multi-buffer loop (``swizzle``) packs them unpadded (``SWZ_ROW_BYTES`` = 64) and XORs the 16-byte
unit bits (4, 5) of every address with ``(d / 2) % 4`` instead (cdna-facts section 7): rows d and
d + 2 are 128 bytes apart, the swizzle moves them to different banks as the pad did. Row
d = 8 c + e of a write has key ``(e / 2) % 4`` (c only moves bits >= 9), so each write XORs a
build-time constant; reads XOR 16 for the second unit. Every base (buffer, region) is a multiple
of 4096, so XOR and add commute with it.

fp8 (``kinds.attention.config``): the same positions hold one byte each, rows of
``FP8_ROW_BYTES`` = 48 (32 + 16 pad; the multi-buffer loop keeps these padded rows, no swizzle).
A work item loads its ``kpi`` key rows of dims 8 c .. 8 c + 7 with ``buffer_load_dwordx2``; with
kpi = 4, per dword (4 dims) eight ``v_perm_b32`` transpose the 4 x 4 bytes (keys x dims) into one
dword of 4 keys per dim, written by ``ds_write_b32`` at row d, byte 16 h + 4 s (kpi = 2: byte
pairs, ``ds_write_b16``; kpi = 1: ``ds_write_b8``, ``_store_rows8``). One ``ds_read_b128`` per 32 dims gives lane (d, h) positions 16 h .. 16 h + 15 =
keys 4 h + {0..3, 8..11} (k-step 0 of the 32x32x16 fp8 MFMA, 8 bytes) and 16 + the same (k-step
1), the key order of the P operand (``attention_softmax``).
"""
from __future__ import annotations

from dataclasses import dataclass

from isa.instr import Instr
from isa.operands import Imm

from ...ir import VReg
from .lds import ROW_BYTES, SWZ_ROW_BYTES, row_bytes, v_bytes

OFFEN = (("offen", True),)
SEL_LO, SEL_HI = 0x05040100, 0x07060302    # v_perm_b32: low / high halves of src1 | src0 << 16
# v_perm_b32 byte interleaves of src1 (a) and src0 (b): {a0, b0, a1, b1} and {a2, b2, a3, b3}
SEL_IL_LO, SEL_IL_HI = 0x05010400, 0x07030602
REGION = "Vt"


def lds_bytes(head_dim: int) -> int:
    return v_bytes(head_dim)


def keys_per_item(head_dim: int, threads: int) -> int:
    """The largest kpi in (4, 2, 1) whose 4 D / kpi work items are a multiple of ``threads``."""
    for kpi in (4, 2, 1):
        if (4 * head_dim // kpi) % threads == 0:
            return kpi
    raise ValueError(f"no V work split for head_dim={head_dim} over {threads} threads")


@dataclass
class VTile:
    items: list[tuple[VReg, VReg]]    # per work item: (global byte offset, LDS write address)
    read_addr: VReg                   # LDS byte address of lane (d = l % 32, h = l / 32)
    kpi: int = 4                      # keys per work item
    region: str = REGION              # LDS region of the writes (reads: ``read_region``)
    read_region: str = REGION
    swizzle: bool = False             # unpadded SWZ_ROW_BYTES rows, XOR-swizzled units
    fp8: bool = False                 # 8-bit V (module docstring): byte transposes, b32 writes


def _is8(cfg) -> bool:
    """8-bit V (the fp8 attention kernel; decode widens its fp8 caches before LDS)."""
    return cfg.in_type.bits == 8


def setup(ab, lane: VReg, col: VReg, half: VReg, tid: VReg | None = None,
          region_base: int = 0) -> VTile:
    """Loop-invariant per-lane addresses (prologue). ``tid``: the thread index in a multi-wave
    workgroup (default ``lane``: one wave); ``region_base``: LDS byte offset of the V region
    within a buffer."""
    D = ab.cfg.head_dim
    threads = ab.cfg.threads
    kpi = keys_per_item(D, threads)
    p = ab.k.prologue
    tags = ("addr",)
    items = []
    t = lane if tid is None else tid
    e8 = _is8(ab.cfg)
    ng = 32 // kpi                   # key groups per dim chunk
    swz = tid is not None and not e8     # 8-bit V keeps padded rows (module docstring)
    rb_ = SWZ_ROW_BYTES if swz else row_bytes(ab.cfg.in_type)
    for j in range(4 * D // kpi // threads):
        w = t
        if j:
            w = ab.vreg(name=f"vt_w{j}")
            n = threads * j
            p.add(Instr("v_add_u32", (w, Imm(n) if n <= 64 else ab.const(n), t)), tags)
        if kpi == 4:
            g, c, hh, ss = (ab.vreg(name=f"vt_{n}{j}") for n in ("g", "c", "h", "s"))
            p.add(Instr("v_and_b32", (g, Imm(7), w)), tags)
            p.add(Instr("v_lshrrev_b32", (c, Imm(3), w)), tags)
            p.add(Instr("v_and_b32", (hh, Imm(1), g)), tags)
            p.add(Instr("v_lshrrev_b32", (ss, Imm(1), g)), tags)
            # global: ((4 g) * D + 8 c) * 2 = g * 8 D + c * 16 (fp8: g * 4 D + c * 8)
            ga, gofs = ab.vreg(name=f"vt_ga{j}"), ab.vreg(name=f"vt_go{j}")
            p.add(Instr("v_lshlrev_b32", (ga, Imm(3 if e8 else 4), c)), tags)
            p.add(Instr("v_mad_u32_u24", (gofs, g, ab.const((4 if e8 else 8) * D), ga)), tags)
            # LDS: 8 c * ROW_BYTES + (16 h + 4 s) * 2 = c * 640 + h * 32 + s * 8 (fp8: bytes)
            la, lb, lw = (ab.vreg(name=f"vt_l{n}{j}") for n in ("a", "b", "w"))
            p.add(Instr("v_lshlrev_b32", (la, Imm(2 if e8 else 3), ss)), tags)
            p.add(Instr("v_lshl_add_u32", (lb, hh, Imm(4 if e8 else 5), la)), tags)
            p.add(Instr("v_mad_u32_u24", (lw, c, ab.const(8 * rb_), lb)), tags)
        else:
            # key kk = kpi g: s = kk / 8, h = (kk / 4) % 2, i = kk % 4; LDS position 16 h + 4 s + i
            g, c, kk = (ab.vreg(name=f"vt_{n}{j}") for n in ("g", "c", "kk"))
            p.add(Instr("v_and_b32", (g, Imm(ng - 1), w)), tags)
            p.add(Instr("v_lshrrev_b32", (c, Imm(ng.bit_length() - 1), w)), tags)
            p.add(Instr("v_lshlrev_b32", (kk, Imm(kpi.bit_length() - 1), g)), tags)
            ga, gofs = ab.vreg(name=f"vt_ga{j}"), ab.vreg(name=f"vt_go{j}")
            # global: kk 2 D + 16 c (fp8: kk D + 8 c)
            p.add(Instr("v_lshlrev_b32", (ga, Imm(3 if e8 else 4), c)), tags)
            p.add(Instr("v_mad_u32_u24", (gofs, kk, ab.const(ab.cfg.in_type.nbytes(D)), ga)), tags)
            ss, hh, ii = (ab.vreg(name=f"vt_{n}{j}") for n in ("s", "h", "i"))
            p.add(Instr("v_lshrrev_b32", (ss, Imm(3), kk)), tags)
            p.add(Instr("v_bfe_u32", (hh, kk, Imm(2), Imm(1))), tags)
            p.add(Instr("v_and_b32", (ii, Imm(3), kk)), tags)
            # LDS: c * 8 row bytes + 32 h + 8 s + 2 i (fp8: 16 h + 4 s + i)
            la, lb, lc, lw = (ab.vreg(name=f"vt_l{n}{j}") for n in ("a", "b", "c", "w"))
            p.add(Instr("v_lshlrev_b32", (la, Imm(ab.cfg.in_type.log2_bytes), ii)), tags)
            p.add(Instr("v_lshl_add_u32", (lb, ss, Imm(2 if e8 else 3), la)), tags)
            p.add(Instr("v_lshl_add_u32", (lc, hh, Imm(4 if e8 else 5), lb)), tags)
            p.add(Instr("v_mad_u32_u24", (lw, c, ab.const(8 * rb_), lc)), tags)
        if region_base:
            lw2 = ab.vreg(name=f"vt_lr{j}")
            p.add(Instr("v_add_u32", (lw2, ab.const(region_base), lw)), tags)
            lw = lw2
        items.append((gofs, lw))
    ra, rb = ab.vreg(name="vt_ra"), ab.vreg(name="vt_rb")
    if swz:     # row d = col at 64 d, unit 2 h ^ ((d / 2) % 4)
        kx, h2, hx = ab.vreg(name="vt_rkx"), ab.vreg(name="vt_rh2"), ab.vreg(name="vt_rhx")
        p.add(Instr("v_bfe_u32", (kx, col, Imm(1), Imm(2))), tags)
        p.add(Instr("v_lshlrev_b32", (h2, Imm(1), half)), tags)
        p.add(Instr("v_xor_b32", (hx, h2, kx)), tags)
        p.add(Instr("v_lshlrev_b32", (ra, Imm(4), hx)), tags)
        p.add(Instr("v_lshl_add_u32", (rb, col, Imm(6), ra)), tags)
    else:
        p.add(Instr("v_lshlrev_b32", (ra, Imm(4 if e8 else 5), half)), tags)
        p.add(Instr("v_mad_u32_u24", (rb, col, Imm(rb_) if rb_ <= 64 else ab.const(rb_), ra)), tags)
    if region_base:
        rb2 = ab.vreg(name="vt_rr")
        p.add(Instr("v_add_u32", (rb2, ab.const(region_base), rb)), tags)
        rb = rb2
    if tid is None:
        return VTile(items, rb, fp8=e8)
    return VTile(items, rb, kpi, "V_w", "V_r", swz, fp8=e8)


def load_rows(ab, block, vt: VTile, srd_v: VReg, dst: list | None = None) -> list[list[VReg]]:
    """One key block of V: ``kpi`` 16-byte rows per work item (into ``dst`` when given)."""
    D = ab.cfg.head_dim
    out = []
    for j, (gofs, _) in enumerate(vt.items):
        rows = []
        nd = 2 if vt.fp8 else 4          # dwords of 8 dims
        for i in range(vt.kpi):
            r = dst[j][i] if dst else ab.k.vreg("v", nd, align=nd, name=f"vrow{j}_{i}")
            off = ab.cfg.in_type.nbytes(i * D)
            block.add(Instr("buffer_load_dwordx4" if nd == 4 else "buffer_load_dwordx2",
                            (r, gofs, srd_v, Imm(0)),
                            OFFEN + ((("offset", off),) if off else ())), ("gr_v",))
            rows.append(r)
        out.append(rows)
    return out


def store_rows(ab, block, vt: VTile, rows_by_item: list[list[VReg]], base: VReg | None = None) -> None:
    """In-register pairing of the loaded rows and the transposed LDS writes; ``base`` (an SGPR
    LDS byte offset, the buffer being filled) is added to the write addresses first."""
    for (_, lw), rows in zip(vt.items, rows_by_item):
        if base is not None:
            a = ab.vreg(name="vt_wa")
            block.add(Instr("v_add_u32", (a, base, lw)), ("addr", "lw_v_addr"))
            lw = a
        if vt.fp8:
            _store_rows8(ab, block, vt, lw, rows)
            continue
        rb_ = SWZ_ROW_BYTES if vt.swizzle else ROW_BYTES
        keyed = {0: lw}
        for e in range(8):
            q, b = divmod(e, 2)
            off = e * rb_
            mods = (("offset", off),) if off else ()
            key = ((e >> 1) & 3) << 4 if vt.swizzle else 0
            if key not in keyed:
                a = ab.vreg(name="vt_wx")
                block.add(Instr("v_xor_b32", (a, Imm(key), lw)), ("addr", "lw_v_addr"))
                keyed[key] = a
            lwk = keyed[key]
            if vt.kpi == 1:      # the loaded dword holds dims 2q (low half), 2q + 1 (high half)
                src = rows[0].sub(q)
                if b:   # the emulator has no ds_write_b16_d16_hi: shift the high half down
                    src = ab.vreg(name="vt_hi")
                    block.add(Instr("v_lshrrev_b32", (src, Imm(16), rows[0].sub(q))), ("pack_v",))
                block.add(Instr("ds_write_b16", (lwk, src), mods), ("lw_v",),
                          lds_write=vt.region)
                continue
            sel = ab.const(SEL_HI if b else SEL_LO)
            data = ab.k.vreg("v", vt.kpi // 2, align=2 if vt.kpi == 4 else 1, name="vt_pair")
            for w in range(vt.kpi // 2):
                block.add(Instr("v_perm_b32", (data.sub(w), rows[2 * w + 1].sub(q),
                                               rows[2 * w].sub(q), sel)), ("pack_v",))
            op = "ds_write_b64" if vt.kpi == 4 else "ds_write_b32"
            block.add(Instr(op, (lwk, data), mods), ("lw_v",), lds_write=vt.region)


def _store_rows8(ab, block, vt: VTile, lw: VReg, rows: list[VReg]) -> None:
    """fp8: per dword q (dims 4 q .. 4 q + 3) of the item's ``kpi`` key rows, their bytes
    regrouped per dim and written at row 4 q + e, position of key kpi g: kpi = 4 a 4 x 4 byte
    transpose (eight v_perm_b32: the byte interleaves of rows (0, 1) and (2, 3), then their low /
    high halves) and ds_write_b32s; kpi = 2 the interleave of rows 0, 1 (two v_perm_b32: dims
    4 q, 4 q + 1 in the low / high word, then 4 q + 2, 4 q + 3) and ds_write_b16s; kpi = 1 a
    ds_write_b8 per byte (module docstring)."""
    rb_ = row_bytes(ab.cfg.in_type)
    tg = ("pack_v",)

    def write(op, data, e):
        off = e * rb_
        block.add(Instr(op, (lw, data), (("offset", off),) if off else ()), ("lw_v",),
                  lds_write=vt.region)

    def shifted(x, bits):
        if not bits:
            return x
        t = ab.vreg(name="vt_sh")
        block.add(Instr("v_lshrrev_b32", (t, Imm(bits), x)), tg)
        return t

    il = {n: ab.const(x) for n, x in (("lo", SEL_IL_LO), ("hi", SEL_IL_HI))}
    for q in range(2):
        if vt.kpi == 1:
            for e in range(4):
                write("ds_write_b8", shifted(rows[0].sub(q), 8 * e), 4 * q + e)
            continue
        pair = {}
        for a in range(0, vt.kpi, 2):    # rows a, a + 1: {r_a.b, r_a+1.b, ...} interleaved
            for n in ("lo", "hi"):
                t = ab.vreg(name="vt_il")
                block.add(Instr("v_perm_b32", (t, rows[a + 1].sub(q), rows[a].sub(q), il[n])), tg)
                pair[a, n] = t
        for e in range(4):           # dim 4 q + e: bytes e of the rows
            n = "lo" if e < 2 else "hi"
            if vt.kpi == 2:          # the word e % 2 of the interleave
                write("ds_write_b16", shifted(pair[0, n], 16 * (e % 2)), 4 * q + e)
                continue
            data = ab.vreg(name="vt_t8")
            sel = ab.const(SEL_LO if e % 2 == 0 else SEL_HI)
            block.add(Instr("v_perm_b32", (data, pair[2, n], pair[0, n], sel)), tg)
            write("ds_write_b32", data, 4 * q + e)


def read_regs(ab, vt: VTile) -> list[VReg]:
    """Registers ``read_operands`` reads one V block into (the ping-pong loop carries them):
    one 4-register tuple per ds_read_b128, in the order ``read_operands`` issues them."""
    n = ab.cfg.head_dim // 32 * (1 if vt.fp8 else 2)
    return [ab.k.vreg("v", 4, align=4, name=f"vT{i}") for i in range(n)]


def read_operands(ab, body, vt: VTile, base: VReg | None = None,
                  dst: list[VReg] | None = None) -> dict[tuple[int, int], VReg]:
    """A operands per (k-step s, 32-dim block db): two ds_read_b128 per db; each read holds
    positions 16 h + 8 half + 0..7 = keys 16 half + 4 h + {0..3, 8..11}: two x8 k-steps, or
    one x16 k-step (whose P operand pairs the same keys, ``attention_softmax``). ``base``: an
    SGPR LDS byte offset (the buffer being computed) added to the read address first; ``dst``:
    the registers to read into (``read_regs``), else new ones."""
    regs = iter(dst) if dst else None
    D = ab.cfg.head_dim
    out = {}
    addr = vt.read_addr
    if base is not None:
        addr = ab.vreg(name="vt_ra_buf")
        body.add(Instr("v_add_u32", (addr, base, vt.read_addr)), ("addr", "lr_v_addr"))
    addrs = [addr, addr]
    if vt.swizzle:      # the second unit: XOR 16 (bit 4 of the unit index 2 h ^ x)
        addrs[1] = ab.vreg(name="vt_ra_x")
        body.add(Instr("v_xor_b32", (addrs[1], Imm(16), addr)), ("addr", "lr_v_addr"))
    if vt.fp8:      # one read per db: both 8-byte k-steps (module docstring)
        rb_ = row_bytes(ab.cfg.in_type)
        for db in range(D // 32):
            r = next(regs) if regs else ab.k.vreg("v", 4, align=4, name=f"vT{db}")
            off = db * 32 * rb_
            body.add(Instr("ds_read_b128", (r, addr), (("offset", off),) if off else ()),
                     ("lr_v",), lds_read=vt.read_region)
            out[0, db], out[1, db] = r.sub(0, 2), r.sub(2, 2)
        return out
    rb_ = SWZ_ROW_BYTES if vt.swizzle else ROW_BYTES
    for db in range(D // 32):
        for half in range(2):
            r = next(regs) if regs else ab.k.vreg("v", 4, align=4, name=f"vT{db}_{half}")
            off = db * 32 * rb_ + (0 if vt.swizzle else 16 * half)
            body.add(Instr("ds_read_b128", (r, addrs[half]), (("offset", off),) if off else ()),
                     ("lr_v",), lds_read=vt.read_region)
            if ab.cfg.mfma_k == 16:      # gfx950 x16: one k-step = 8 keys per lane
                out[half, db] = r
            else:
                out[2 * half, db] = r.sub(0, 2)
                out[2 * half + 1, db] = r.sub(2, 2)
    return out


def split_operands(ab, vt: VTile, regs: list[VReg]) -> dict[tuple[int, int], VReg]:
    """The (k-step, 32-dim block) A operands of ``read_regs`` tuples, as ``read_operands``
    returns them (the ping-pong loop's carried V^T operands)."""
    out = {}
    it = iter(regs)
    for db in range(ab.cfg.head_dim // 32):
        if vt.fp8:
            r = next(it)
            out[0, db], out[1, db] = r.sub(0, 2), r.sub(2, 2)
            continue
        for half in range(2):
            r = next(it)
            if ab.cfg.mfma_k == 16:
                out[half, db] = r
            else:
                out[2 * half, db], out[2 * half + 1, db] = r.sub(0, 2), r.sub(2, 2)
    return out
