"""MX block scales of the gfx950 scaled GEMM (``mxfp8``): the E8M0 ``scale_a`` [M, K/32] and
``scale_b`` [N, K/32] (uint8, row-major, contract names of issue 15) read straight from global
memory into one VGPR per MFMA block and K-step, and fed to ``v_mfma_scale_f32_*_f8f6f4``.

Which byte a lane gives the MFMA (AMD CDNA4 ISA guide section 7.2.1, the scale data layouts;
isa.emu.mfma_plan): lane l of an M x K-step operand block gives the scale of row ``l % m``,
K-block ``l // m`` - for mxfp4 the block whose 32 elements the lane holds, for mxfp8 not (an
fp8 lane holds two runs of 16 K of two blocks, ISA 7.1.5.1, ``GemmConfig.k_run``). So lane l of block ``ib`` at K-step ``kb`` of K-tile t
loads byte ``(row0 + wave_row + ib * m + l % m) * K/32 + t * DepthU/32 + kb * mfma_k/32 + l // m``
of the scale buffer: a loop-invariant per-lane offset per block (``voff``), the K-tile in the
buffer resource (base += DepthU/32 and num_records -= DepthU/32 per tile, as the data operands
advance: a soffset would escape the range check, cdna-facts section 5) and the K-step as the
instruction offset. Rows past M (N) fall past num_records and read 0; their data rows read 0 too.

Pipelining: the scales of K-tile t + 1 are loaded while tile t computes (``next``), then copied
to the registers the MFMAs read (``cur``) at the start of the next iteration, by when the loads
issued a whole iteration earlier have landed (the waitcnt pass waits for them there). The last
iteration's loads (a tile past K) are never read. The split loops (``kinds.gemm.pingpong``) keep
the same one-iteration distance: the prologue loads tile 0 into ``cur`` and tile 1 into
``next`` after its data loads (``load_split_prologue``: the loop's order, data then scales, so
the waitcnt pass's vmcnt for the staged data need not wait for scales loaded after them); the memory phase M_i copies ``next`` (tile i + 1) to ``cur`` after the MFMAs of C_i
read it (a DAG WAR edge, like the operand registers F) and loads tile i + 2 into ``next``.

K tails (``cfg.k_tail``: K a multiple of 32 but not of DepthU x staging): lane l's K-block at
K-step s of the tile is ``l // m + s * mfma_k/32``; while loading a tile, ``krem`` holds the
K-blocks left from it, and a lane whose K-block is not below ``krem`` has its offset sent to
OOB_OFFSET, so it reads 0 (E8M0 2**-127) beside its zero data instead of the next row's scale
byte, which may be the NaN 0xFF (NaN x 0 is NaN): the tail adds exactly 0.
"""
from __future__ import annotations

from dataclasses import dataclass

from isa.instr import Instr
from isa.operands import Imm

from ... import kernarg
from ..common.buffers import SRD_DWORD3, log2
from . import tags as T
from .contract import gemm_args

OFFEN = (("offen", True),)
SCALE_BLOCK = 32          # K-elements per E8M0 scale (OCP MX v1.0; isa.mfma_shapes.SCALE_BLOCK)


@dataclass
class ScaleState:
    """Loop-invariant scale-load state and the two register sets."""

    srd: dict             # operand -> 4-SGPR buffer resource
    voff: dict            # operand -> [per-block per-lane byte offset at K-tile 0]
    next: dict            # (operand, k_step, block) -> VReg being loaded
    cur: dict             # (operand, k_step, block) -> VReg the MFMAs read
    kblk: dict | None = None   # K tails: (operand, k_step) -> lane's K-block in the tile
    krem: object = None        # K tails: SGPR, K-blocks left from the tile being loaded


def setup_scales(gb, sc, ids, split: bool = False) -> ScaleState:
    """Prologue: the scale resources, per-block lane offsets and the K-block offset 0, then the
    loads of tile 0 into ``next`` (``split``: none here, ``load_split_prologue``)."""
    cfg, p = gb.cfg, gb.k.prologue
    tags = ("addr",)
    offs = kernarg.offsets(gemm_args(cfg))
    kb = gb.sreg(name="mx_kblocks")                     # K / 32 scale bytes per row
    p.add(Instr("s_lshr_b32", (kb, sc.K, Imm(log2(SCALE_BLOCK)))), tags)
    srd, voff, kblk = {}, {}, {}
    steps = cfg.tile[2] // cfg.mfma[2]
    per_step = cfg.mfma[2] // SCALE_BLOCK
    for op, rows, mf, wt, wave, mn0, nblk in (
            ("a", sc.M, cfg.mfma[0], cfg.wave_tile[0], ids.wave_m, sc.row0, cfg.blocks[0]),
            ("b", sc.N, cfg.mfma[1], cfg.wave_tile[1], ids.wave_n, sc.col0, cfg.blocks[1])):
        r = gb.k.vreg("s", 4, name=f"srd_scale_{op}")
        p.add(Instr("s_load_dwordx2", (r.sub(0, 2), gb.kernarg, Imm(offs[f"scale_{op}"]))),
              ("addr", "karg"))
        p.add(Instr("s_and_b32", (r.sub(1), r.sub(1), Imm(0xFFFF))), tags)
        p.add(Instr("s_mul_i32", (r.sub(2), rows, kb)), tags)
        p.add(Instr("s_mov_b32", (r.sub(3), Imm(SRD_DWORD3))), tags)
        srd[op] = r
        # row = mn0 + wave * wave_tile + lane % mf; K-block within the step = lane // mf
        row, q, wrow, base = (gb.vreg(name=f"mx_{op}_{n}") for n in ("row", "q", "wrow", "base"))
        p.add(Instr("v_and_b32", (row, Imm(mf - 1), ids.lane)), tags)
        p.add(Instr("v_mul_u32_u24", (wrow, Imm(wt), wave)), tags)
        p.add(Instr("v_add3_u32", (row, row, wrow, mn0)), tags)
        p.add(Instr("v_lshrrev_b32", (q, Imm(log2(mf)), ids.lane)), tags)
        p.add(Instr("v_mad_u32_u24", (base, row, kb, q)), tags)
        if cfg.k_tail:
            kblk[op, 0] = q
            for st_ in range(1, steps):
                kq = gb.vreg(name=f"mx_{op}_kb{st_}")
                p.add(Instr("v_add_u32", (kq, Imm(st_ * per_step), q)), tags)
                kblk[op, st_] = kq
        out = [base]
        if nblk > 1:
            bstep = gb.sreg(name=f"mx_{op}_bstep")          # bytes between blocks: mf rows
            p.add(Instr("s_mul_i32", (bstep, kb, Imm(mf))), tags)
            for ib in range(1, nblk):
                o = gb.vreg(name=f"mx_{op}_off{ib}")
                p.add(Instr("v_add_u32", (o, bstep, out[-1])), tags)
                out.append(o)
        voff[op] = out
    nxt = {(op, s, ib): gb.vreg(name=f"mx_n{op}{s}_{ib}")
           for op in ("a", "b") for s in range(steps) for ib in range(len(voff[op]))}
    cur = {key: gb.vreg(name=f"mx_c{key[0]}{key[1]}_{key[2]}") for key in nxt}
    st = ScaleState(srd, voff, nxt, cur)
    if cfg.k_tail:
        st.kblk, st.krem = kblk, gb.sreg(name="mx_krem")
        p.add(Instr("s_mov_b32", (st.krem, kb)), tags)
    if not split:
        load_scales(gb, p, st)
    return st


def load_split_prologue(gb, block, st: ScaleState) -> None:
    """The split loops' prologue loads: tile 0 into ``cur``, tile 1 into ``next``."""
    load_scales(gb, block, st, dst=st.cur)
    load_scales(gb, block, st)


def load_scales(gb, block, st: ScaleState, dst: dict | None = None) -> None:
    """Load the scales of the tile the resources point at into ``next`` (or ``dst``), then move
    both resources one K-tile on (48-bit base add, num_records clamped at 0)."""
    cfg = gb.cfg
    per_step = cfg.mfma[2] // SCALE_BLOCK
    masks: dict = {}
    for (op, s, ib), reg in (st.next if dst is None else dst).items():
        off = s * per_step
        mods = OFFEN + ((("offset", off),) if off else ())
        addr = st.voff[op][ib]
        if st.krem is not None:     # K tail: K-blocks at or past K read 0 (module docstring)
            if (op, s) not in masks:
                masks[op, s] = gb.mask()
                block.add(Instr("v_cmp_gt_i32", (masks[op, s], st.krem, st.kblk[op, s]),
                                encoding="e64"), ("addr", T.GemmTag.MX_SCALE))
            addr = gb.vreg(name=f"mx_am{op}{s}_{ib}")
            block.add(Instr("v_cndmask_b32", (addr, gb.big, st.voff[op][ib], masks[op, s]),
                            encoding="e64"), ("addr", T.GemmTag.MX_SCALE))
        block.add(Instr("buffer_load_ubyte", (reg, addr, st.srd[op], Imm(0)), mods),
                  (T.gr(op), T.GemmTag.MX_SCALE))
    step = Imm(cfg.tile[2] // SCALE_BLOCK)
    if st.krem is not None:
        block.add(Instr("s_sub_i32", (st.krem, st.krem, step)), ("addr",))
    for srd in st.srd.values():
        block.add(Instr("s_add_u32", (srd.sub(0), srd.sub(0), step)), ("addr",))
        block.add(Instr("s_addc_u32", (srd.sub(1), srd.sub(1), Imm(0))), ("addr",))
        block.add(Instr("s_sub_i32", (srd.sub(2), srd.sub(2), step)), ("addr",))
        block.add(Instr("s_max_i32", (srd.sub(2), srd.sub(2), Imm(0))), ("addr",))


def rotate_scales(gb, block, st: ScaleState) -> dict:
    """``cur`` <- ``next`` (the tile about to be computed); returns ``cur`` for the MFMAs."""
    for key, reg in st.cur.items():
        block.add(Instr("v_mov_b32", (reg, st.next[key])), ("addr", T.GemmTag.MX_SCALE))
    return st.cur
