"""The V tile of the attention template: global -> VGPRs -> LDS transposed -> MFMA A operands.

The O^T = V^T P^T MFMA (32x32x8, cdna-facts section 2.2) wants, in lane l, dim d = l % 32 of V
and the four keys 8 s + 4 h + 0..3 (h = l / 32) of k-step s: a transpose of V's row-major
[key][dim] layout. It happens on the way into LDS: LDS row d holds the block's 32 keys of
dim d in the order ``pos(8 s + 4 h + i) = 16 h + 4 s + i``, so lane (d, h) finds the operands
of all four k-steps in 32 contiguous bytes: two ``ds_read_b128`` per 32 dims.

Global side: work item w (lane t, item j: w = t + 64 j) loads the four key rows 4 g .. 4 g + 3
(g = w % 8, i.e. s = g / 2, h = g % 2) of dims 8 c .. 8 c + 7 (c = w / 8) with four
``buffer_load_dwordx4``; for each dim, two ``v_perm_b32`` build the pairs (key 4g, 4g+1) and
(4g+2, 4g+3) and one ``ds_write_b64`` stores them at row d, position 16 h + 4 s.
Rows are ``ROW_BYTES`` = 80 (64 + 16 padding, a multiple of 16 for ds_read_b128).
"""
from __future__ import annotations

from dataclasses import dataclass

from isa.instr import Instr
from isa.operands import Imm

from ..ir import VReg

ROW_BYTES = 80
OFFEN = (("offen", True),)
SEL_LO, SEL_HI = 0x05040100, 0x07060302    # v_perm_b32: low / high halves of src1 | src0 << 16
REGION = "Vt"


def lds_bytes(head_dim: int) -> int:
    return head_dim * ROW_BYTES


@dataclass
class VTile:
    items: list[tuple[VReg, VReg]]    # per work item: (global byte offset, LDS write address)
    read_addr: VReg                   # LDS byte address of lane (d = l % 32, h = l / 32)


def setup(ab, lane: VReg, col: VReg, half: VReg) -> VTile:
    """Loop-invariant per-lane addresses (prologue)."""
    D = ab.cfg.head_dim
    p = ab.k.prologue
    tags = ("addr",)
    items = []
    for j in range(D // 8 * 8 // 64):
        w = lane
        if j:
            w = ab.vreg(name=f"vt_w{j}")
            p.add(Instr("v_add_u32", (w, Imm(64 * j) if 64 * j <= 64 else ab.const(64 * j), lane)), tags)
        g, c, hh, ss = (ab.vreg(name=f"vt_{n}{j}") for n in ("g", "c", "h", "s"))
        p.add(Instr("v_and_b32", (g, Imm(7), w)), tags)
        p.add(Instr("v_lshrrev_b32", (c, Imm(3), w)), tags)
        p.add(Instr("v_and_b32", (hh, Imm(1), g)), tags)
        p.add(Instr("v_lshrrev_b32", (ss, Imm(1), g)), tags)
        # global: ((4 g) * D + 8 c) * 2 = g * 8 D + c * 16
        ga, gofs = ab.vreg(name=f"vt_ga{j}"), ab.vreg(name=f"vt_go{j}")
        p.add(Instr("v_lshlrev_b32", (ga, Imm(4), c)), tags)
        p.add(Instr("v_mad_u32_u24", (gofs, g, ab.const(8 * D), ga)), tags)
        # LDS: 8 c * ROW_BYTES + (16 h + 4 s) * 2 = c * 640 + h * 32 + s * 8
        la, lb, lw = (ab.vreg(name=f"vt_l{n}{j}") for n in ("a", "b", "w"))
        p.add(Instr("v_lshlrev_b32", (la, Imm(3), ss)), tags)
        p.add(Instr("v_lshl_add_u32", (lb, hh, Imm(5), la)), tags)
        p.add(Instr("v_mad_u32_u24", (lw, c, ab.const(8 * ROW_BYTES), lb)), tags)
        items.append((gofs, lw))
    ra, rb = ab.vreg(name="vt_ra"), ab.vreg(name="vt_rb")
    p.add(Instr("v_lshlrev_b32", (ra, Imm(5), half)), tags)
    p.add(Instr("v_mad_u32_u24", (rb, col, Imm(ROW_BYTES) if ROW_BYTES <= 64 else ab.const(ROW_BYTES), ra)), tags)
    return VTile(items, rb)


def load_rows(ab, block, vt: VTile, srd_v: VReg, dst: list | None = None) -> list[list[VReg]]:
    """One key block of V: four 16-byte rows per work item (into ``dst`` when given)."""
    D = ab.cfg.head_dim
    out = []
    for j, (gofs, _) in enumerate(vt.items):
        rows = []
        for i in range(4):
            r = dst[j][i] if dst else ab.k.vreg("v", 4, align=4, name=f"vrow{j}_{i}")
            off = i * D * 2
            block.add(Instr("buffer_load_dwordx4", (r, gofs, srd_v, Imm(0)),
                            OFFEN + ((("offset", off),) if off else ())), ("gr_v",),
                      stage=ab.cfg.prefetch)
            rows.append(r)
        out.append(rows)
    return out


def store_rows(ab, block, vt: VTile, rows_by_item: list[list[VReg]]) -> None:
    """In-register pairing of the loaded rows and the transposed LDS writes."""
    for (_, lw), rows in zip(vt.items, rows_by_item):
        for e in range(8):
            q, b = divmod(e, 2)
            sel = ab.const(SEL_HI if b else SEL_LO)
            data = ab.k.vreg("v", 2, align=2, name="vt_pair")
            for w in range(2):
                block.add(Instr("v_perm_b32", (data.sub(w), rows[2 * w + 1].sub(q),
                                               rows[2 * w].sub(q), sel)), ("pack_v",))
            off = e * ROW_BYTES
            block.add(Instr("ds_write_b64", (lw, data), (("offset", off),) if off else ()),
                      ("lw_v",), lds_write=REGION)


def read_operands(ab, body, vt: VTile) -> dict[tuple[int, int], VReg]:
    """A operands per (k-step s, 32-dim block db): two ds_read_b128 per db; each read holds
    positions 16 h + 8 half + 0..7 = keys 16 half + 4 h + {0..3, 8..11}: two x8 k-steps, or
    one x16 k-step (whose P operand pairs the same keys, ``attention_softmax``)."""
    D = ab.cfg.head_dim
    out = {}
    for db in range(D // 32):
        for half in range(2):
            r = ab.k.vreg("v", 4, align=4, name=f"vT{db}_{half}")
            off = db * 32 * ROW_BYTES + 16 * half
            body.add(Instr("ds_read_b128", (r, vt.read_addr), (("offset", off),) if off else ()),
                     ("lr_v",), lds_read=REGION)
            if ab.cfg.mfma_k == 16:      # gfx950 x16: one k-step = 8 keys per lane
                out[half, db] = r
            else:
                out[2 * half, db] = r.sub(0, 2)
                out[2 * half + 1, db] = r.sub(2, 2)
    return out
