"""GEMM prologue pieces: kernel arguments, buffer resources, tile/wave/lane coordinates and the
loop-invariant per-lane offsets of global loads, LDS writes and LDS (MFMA operand) reads.

Every function appends tagged nodes to a block of a ``GemmBuild`` (``asmgen.kinds.gemm.template``)
and returns the virtual registers it defined. Nothing here waits or inserts nops: the passes do.
Register conventions follow cdna-facts section 8 (s[0:1] kernarg pointer, s2/s3 workgroup id
x/y, v0 work-item id x in bits 9:0).
"""
from __future__ import annotations

from dataclasses import dataclass

from isa.instr import Instr
from isa.operands import Imm, Special

from ... import kernarg
from ...ir import VReg
from ..common.buffers import OOB_OFFSET, SRD_DWORD3, log2
from .contract import gemm_args
from .layout import lds_swizzle, split_swizzled

OFFEN = (("offen", True),)


def imm_or_sgpr(gb, block, value: int, tags=("addr",)):
    """An operand for a VOP3 source: an inline constant (-16..64) or an SGPR holding ``value``
    (VOP3 has no literal on gfx9; at most one SGPR per VALU, the constant-bus limit)."""
    if -16 <= value <= 64:
        return Imm(value)
    r = gb.sreg(name=f"c{value}")
    block.add(Instr("s_mov_b32", (r, Imm(value & 0xFFFFFFFF))), tags)
    return r


@dataclass
class Scalars:
    """SGPR views of the kernel arguments and derived tile values."""

    M: VReg
    N: VReg
    K: VReg
    lda: VReg
    ldb: VReg
    ldc: VReg
    alpha: VReg
    beta: VReg
    scales: VReg = None   # scale_a, scale_b (8-bit inputs, ``cfg.scaled``, both "tensor")
    scale_a: VReg = None  # one SGPR: a per-tensor scale_a (argument or read through its pointer)
    scale_b: VReg = None  # likewise scale_b; vectors ("row"/"col") are read through srds instead
    row0: VReg = None     # first C row of this workgroup
    col0: VReg = None     # first C column
    mrem: VReg = None     # M - row0 (> 0)
    nrem: VReg = None     # N - col0 (> 0)


def load_arguments(gb) -> tuple[dict[str, VReg], Scalars]:
    """s_load the pointers into the first two words of each SRD and the eight scalars."""
    cfg, p = gb.cfg, gb.k.prologue
    args = gemm_args(cfg)      # the launch contract: offsets computed once, from its ArgSpecs
    offs = kernarg.offsets(args)
    srds = {}
    for name in ("A", "B", "C") + (("bias",) if cfg.bias else ()):
        srd = gb.k.vreg("s", 4, name=f"srd_{name}")
        p.add(Instr("s_load_dwordx2", (srd.sub(0, 2), gb.kernarg, Imm(offs[name]))), ("addr", "karg"))
        srds[name] = srd
    sc = gb.k.vreg("s", 8, name="scalars")
    if cfg.bake_sizes:   # sizes are constants of this kernel; only alpha and beta are read
        alpha = kernarg.contiguous(args, ("alpha", "beta"))
        p.add(Instr("s_load_dwordx2", (sc.sub(6, 2), gb.kernarg, Imm(alpha))), ("addr", "karg"))
        for i, name in enumerate(("m", "n", "k", "lda", "ldb", "ldc")):
            p.add(Instr("s_mov_b32", (sc.sub(i), Imm(getattr(cfg, name)))), ("addr", "karg"))
    else:
        first = kernarg.contiguous(args, ("M", "N", "K", "lda", "ldb", "ldc", "alpha", "beta"))
        p.add(Instr("s_load_dwordx8", (sc, gb.kernarg, Imm(first))), ("addr", "karg"))
    scalars = Scalars(*(sc.sub(i) for i in range(8)))
    if cfg.scaled and (cfg.scale_a_mode, cfg.scale_b_mode) == ("tensor", "tensor"):
        scalars.scales = gb.k.vreg("s", 2, align=2, name="scales")
        first = kernarg.contiguous(args, ("scale_a", "scale_b"))
        p.add(Instr("s_load_dwordx2", (scalars.scales, gb.kernarg, Imm(first))), ("addr", "karg"))
    elif cfg.scaled:
        _load_scales(gb, p, offs, srds, scalars)
    return srds, scalars


def _load_scales(gb, p, offs, srds, scalars) -> None:
    """scale_a / scale_b other than both f32 arguments: a "tensor" scale is one s_load_dword of
    the argument, a "ptr" scale one s_load_dword through the pointer argument, a vector ("row" /
    "col") gets an SRD for the epilogue's per-lane loads (num_records from M / N: finish_srds)."""
    cfg = gb.cfg
    for name, mode in (("scale_a", cfg.scale_a_mode), ("scale_b", cfg.scale_b_mode)):
        if mode in ("row", "col"):
            srd = gb.k.vreg("s", 4, name=f"srd_{name}")
            p.add(Instr("s_load_dwordx2", (srd.sub(0, 2), gb.kernarg, Imm(offs[name]))),
                  ("addr", "karg"))
            srds[name] = srd
            continue
        val = gb.sreg(name=name)
        if mode == "tensor":
            p.add(Instr("s_load_dword", (val, gb.kernarg, Imm(offs[name]))), ("addr", "karg"))
        else:
            ptr = gb.k.vreg("s", 2, align=2, name=f"{name}_ptr")
            p.add(Instr("s_load_dwordx2", (ptr, gb.kernarg, Imm(offs[name]))), ("addr", "karg"))
            p.add(Instr("s_load_dword", (val, ptr, Imm(0))), ("addr", "karg"))
        setattr(scalars, name, val)


def finish_srds(gb, srds: dict[str, VReg], sc: Scalars) -> VReg:
    """Words 1..3 of each buffer resource (cdna-facts section 5): base[47:32] with stride 0,
    num_records in bytes, dword3 = 0x00020000. Returns the C *read* SRD, whose num_records is 0
    when beta == 0 so C is never read then (beta is a runtime argument; a branch-free choice:
    every C load of the epilogue returns 0 and costs no memory traffic)."""
    cfg, p = gb.cfg, gb.k.prologue
    ta, tb = cfg.layout[0] == "T", cfg.layout[1] == "T"
    rows = {"A": sc.K if ta else sc.M, "B": sc.N if tb else sc.K, "C": sc.M}
    lds = {"A": sc.lda, "B": sc.ldb, "C": sc.ldc}
    ebits = {"A": cfg.in_type.bits, "B": cfg.in_type.bits, "C": cfg.out_type.bits}
    for name, srd in srds.items():
        p.add(Instr("s_and_b32", (srd.sub(1), srd.sub(1), Imm(0xFFFF))), ("addr",))
        p.add(Instr("s_mov_b32", (srd.sub(3), Imm(SRD_DWORD3))), ("addr",))
        if name in ("bias", "scale_a", "scale_b"):   # f32 vectors of N (scale_a: of M)
            p.add(Instr("s_lshl_b32", (srd.sub(2), sc.M if name == "scale_a" else sc.N, Imm(2))),
                  ("addr",))
            continue
        t = gb.sreg(name=f"nrec_{name}")
        p.add(Instr("s_mul_i32", (t, rows[name], lds[name])), ("addr",))
        if ebits[name] >= 8:
            p.add(Instr("s_lshl_b32", (srd.sub(2), t, Imm(log2(ebits[name] // 8)))), ("addr",))
        else:       # sub-byte elements (fp4: two per byte)
            p.add(Instr("s_lshr_b32", (srd.sub(2), t, Imm(log2(8 // ebits[name])))), ("addr",))
    c_rd = gb.k.vreg("s", 4, name="srd_C_read")
    flag = gb.sreg(name="beta_nz")
    # flag = (beta is not +-0) as 0/1: clear the sign bit, clamp to 1
    p.add(Instr("s_and_b32", (flag, sc.beta, Imm(0x7FFFFFFF))), ("addr",))
    p.add(Instr("s_min_u32", (flag, flag, Imm(1))), ("addr",))
    for w in (0, 1, 3):
        p.add(Instr("s_mov_b32", (c_rd.sub(w), srds["C"].sub(w))), ("addr",))
    p.add(Instr("s_mul_i32", (c_rd.sub(2), srds["C"].sub(2), flag)), ("addr",))
    return c_rd


def tile_origin(gb, sc: Scalars) -> None:
    """row0 = wg_x * MT0, col0 = wg_y * MT1 and the remaining extents M - row0, N - col0."""
    cfg, p = gb.cfg, gb.k.prologue
    sc.row0, sc.col0 = gb.sreg(name="row0"), gb.sreg(name="col0")
    p.add(Instr("s_lshl_b32", (sc.row0, gb.wg_x, Imm(log2(cfg.tile[0])))), ("addr",))
    p.add(Instr("s_lshl_b32", (sc.col0, gb.wg_y, Imm(log2(cfg.tile[1])))), ("addr",))
    sc.mrem, sc.nrem = gb.sreg(name="mrem"), gb.sreg(name="nrem")
    p.add(Instr("s_sub_u32", (sc.mrem, sc.M, sc.row0)), ("addr",))
    p.add(Instr("s_sub_u32", (sc.nrem, sc.N, sc.col0)), ("addr",))


@dataclass
class LaneIds:
    t: VReg        # work-item id within the workgroup
    lane: VReg     # t % 64
    wave: VReg     # t // 64 (the same in every lane of a wave)
    wave_m: VReg
    wave_n: VReg
    big: VReg      # OOB_OFFSET in every lane


def lane_ids(gb) -> LaneIds:
    cfg, p = gb.cfg, gb.k.prologue
    tags = ("addr",)
    t, lane, wave, wm, wn, big = (gb.vreg(name=n) for n in ("t", "lane", "wave", "wave_m",
                                                            "wave_n", "oob"))
    p.add(Instr("v_and_b32", (t, Imm(0x3FF), gb.tid)), tags)       # work-item id x: bits 9:0
    p.add(Instr("v_and_b32", (lane, Imm(63), t)), tags)
    p.add(Instr("v_lshrrev_b32", (wave, Imm(6), t)), tags)
    p.add(Instr("v_and_b32", (wm, Imm(cfg.waves[0] - 1), wave)), tags)
    p.add(Instr("v_lshrrev_b32", (wn, Imm(log2(cfg.waves[0])), wave)), tags)
    p.add(Instr("v_mov_b32", (big, Imm(OOB_OFFSET))), tags)
    return LaneIds(t, lane, wave, wm, wn, big)


@dataclass
class GlobalReads:
    """Loop-invariant state of one operand's global loads."""

    operand: str
    k_contig: bool
    offsets: list[VReg]            # per load: byte offset from the resource base (row-masked)
    kk: list[VReg | None]       # per load: K index within the tile (K-contiguous only)
    offsets1: list[tuple[VReg, ...] | None]  # MN-contiguous: offsets of K rows + 1, + 2, ...
    lw_base: VReg                  # per lane LDS byte offset of vector 0 (within a buffer)
    step: VReg                     # bytes to advance per K-tile
    srd: VReg
    ld_bytes: VReg | None       # MN-contiguous: bytes from K row k to k + 1 (second load)
    krem: VReg = None              # loop-carried: K - (first K of the next tile to load)
    dma: bool = False              # loads go straight to LDS through M0
    m0_base: VReg | None = None # DMA: region + this wave's first chunk, bytes in a buffer


def global_reads(gb, ids: LaneIds, sc: Scalars, gm, srd: VReg, lds) -> GlobalReads:
    """Per-load offsets, all loop-invariant (the K-tile advance moves the buffer resource's base
    and num_records, ``gemm_memops.advance_k``): element (row, k) of A in N layout is at
    (row0 + row) * lda + k (bytes x2), in T layout at k * lda + row0 + row; likewise B with N/T
    swapped. Rows past M (N) are sent to OOB_OFFSET once here; K past the end is masked per tile
    (K-contiguous operands, only when ``cfg.k_tail``) or falls past num_records (MN-contiguous
    operands, K is the outer dimension). With ``lds_swizzle`` each load fetches the swizzled K
    index of its row (``layout.LdsSwizzle``) and still writes its natural LDS place."""
    cfg, p = gb.cfg, gb.k.prologue
    tags = ("addr",)
    bits = cfg.in_type.bits               # element index -> byte offset: << esh, or >> for fp4
    esh = Imm(log2(bits // 8) if bits >= 8 else 0)

    def to_bytes(dst, idx, add):
        """dst = byte offset of element index ``idx`` + ``add``."""
        if bits >= 8:
            p.add(Instr("v_lshl_add_u32", (dst, idx, esh, add)), tags)
        else:
            half = gb.vreg(name=f"{dst.name}_h")
            p.add(Instr("v_lshrrev_b32", (half, Imm(log2(8 // bits)), idx)), tags)
            p.add(Instr("v_add_u32", (dst, add, half)), tags)
    op = gm.operand
    ld = sc.lda if op == "a" else sc.ldb
    mn0 = sc.row0 if op == "a" else sc.col0
    mnrem = sc.mrem if op == "a" else sc.nrem
    r0, k0 = gb.vreg(name=f"{op}_r0"), gb.vreg(name=f"{op}_k0")
    if gm.k_contig:
        vpr = gm.depth // gm.vec
        p.add(Instr("v_lshrrev_b32", (r0, Imm(log2(vpr)), ids.t)), tags)
        p.add(Instr("v_and_b32", (k0, Imm(vpr - 1), ids.t)), tags)
        if gm.vec > 1:
            k0b = gb.vreg(name=f"{op}_k0v")
            p.add(Instr("v_lshlrev_b32", (k0b, Imm(log2(gm.vec)), k0)), tags)
            k0 = k0b
    elif gm.k_fast:     # vector t: K quad t % kqs, MN group t / kqs (layout.GlobalReadMap)
        kqs = gm.depth // gm.k_rows
        rq, kq = gb.vreg(name=f"{op}_rq"), gb.vreg(name=f"{op}_kq")
        p.add(Instr("v_lshrrev_b32", (rq, Imm(log2(kqs)), ids.t)), tags)
        p.add(Instr("v_lshlrev_b32", (r0, Imm(log2(gm.mn_vec)), rq)), tags)
        p.add(Instr("v_and_b32", (kq, Imm(kqs - 1), ids.t)), tags)
        p.add(Instr("v_lshlrev_b32", (k0, Imm(log2(gm.k_rows)), kq)), tags)
    else:
        vpr = gm.rows // gm.mn_vec
        if gm.mn_vec > 1:
            rq = gb.vreg(name=f"{op}_rq")
            p.add(Instr("v_and_b32", (rq, Imm(vpr - 1), ids.t)), tags)
            p.add(Instr("v_lshlrev_b32", (r0, Imm(log2(gm.mn_vec)), rq)), tags)
        else:
            p.add(Instr("v_and_b32", (r0, Imm(vpr - 1), ids.t)), tags)
        kq = gb.vreg(name=f"{op}_kq")
        p.add(Instr("v_lshrrev_b32", (kq, Imm(log2(vpr)), ids.t)), tags)
        # K rows per vector (one dword of K-neighbours): k0 = per_dword * kq
        p.add(Instr("v_lshlrev_b32", (k0, Imm(log2(gm.k_rows)), kq)), tags)
    # SGPR base in bytes of the tile origin
    sbase = gb.sreg(name=f"{op}_gbase")
    if gm.k_contig:
        p.add(Instr("s_mul_i32", (sbase, mn0, ld)), tags)
        p.add(Instr("s_lshl_b32" if bits >= 8 else "s_lshr_b32",
                    (sbase, sbase, esh if bits >= 8 else Imm(log2(8 // bits)))), tags)
    elif bits >= 8:
        p.add(Instr("s_lshl_b32", (sbase, mn0, esh)), tags)
    else:               # fp4 rows packed along MN: mn0 (a multiple of the tile) / 2 bytes
        p.add(Instr("s_lshr_b32", (sbase, mn0, Imm(log2(8 // bits)))), tags)
    offsets, kks, offsets1 = [], [], []
    kk_by_delta: dict[int, VReg] = {0: k0}
    vcc = Special("vcc")
    sw = lds_swizzle(cfg)
    ld_bytes = None
    if not gm.k_contig:
        ld_bytes = gb.sreg(name=f"{op}_ldbytes")
        p.add(Instr("s_lshl_b32" if bits >= 8 else "s_lshr_b32",
                    (ld_bytes, ld, esh if bits >= 8 else Imm(log2(8 // bits)))), tags)
    for j, (dr, dk) in enumerate(gm.deltas()):
        rj = r0
        if dr:
            rj = gb.vreg(name=f"{op}_row{j}")
            p.add(Instr("v_add_u32", (rj, Imm(dr), r0)), tags)
        if dk not in kk_by_delta:
            kv = gb.vreg(name=f"{op}_kk{dk}")
            p.add(Instr("v_add_u32", (kv, Imm(dk), k0)), tags)
            kk_by_delta[dk] = kv
        kj = kk_by_delta[dk]
        if sw is not None:
            kj = swizzled_k(gb, p, sw, rj, kj, f"{op}{j}")
        # element offset row * ld + k (K-contiguous) or k * ld + row; 24-bit multiply is exact
        # for sizes below 2**24 (GemmConfig's limit), the sum wraps like the 32-bit voffset
        e = gb.vreg(name=f"{op}_off{j}")
        outer, inner = (rj, kj) if gm.k_contig else (kj, rj)
        p.add(Instr("v_mad_u32_u24", (e, outer, ld, inner)), tags)
        eb = gb.vreg(name=f"{op}_goff{j}")
        to_bytes(eb, e, sbase)
        # row mask: row0 + r0 + dr < M  <=>  r0 + dr < M - row0 (VOPC into VCC: no SGPR pair)
        p.add(Instr("v_cmp_gt_u32", (vcc, mnrem, rj)), tags)
        om = gb.vreg(name=f"{op}_goffm{j}")
        p.add(Instr("v_cndmask_b32", (om, ids.big, eb, vcc)), tags)
        offsets.append(om)
        kks.append(kj if gm.k_contig else None)
        if gm.k_contig:
            offsets1.append(None)
        else:   # K rows + 1 .. + k_rows - 1 (an OOB offset stays out of range: 3 ld bytes < 2**26)
            prev, more = om, []
            for i in range(1, gm.k_rows):
                o1 = gb.vreg(name=f"{op}_goff{i}_{j}")
                p.add(Instr("v_add_u32", (o1, ld_bytes, prev)), tags)
                more.append(o1)
                prev = o1
            offsets1.append(tuple(more))
    # LDS write offset of load 0: region + r0 * row_bytes + k0 * element bytes
    lw = gb.vreg(name=f"lw_{op}_base")
    p.add(Instr("v_mul_u32_u24", (lw, Imm(lds.row_bytes), r0)), tags)
    if bits >= 8:
        p.add(Instr("v_lshl_add_u32", (lw, k0, esh, lw)), tags)
    else:
        lwk = gb.vreg(name=f"lw_{op}_k")
        to_bytes(lwk, k0, lw)
        lw = lwk
    if lds.region_base(op):   # in the register, so instruction offsets stay within a region
        lw2 = gb.vreg(name=f"lw_{op}_base2")
        p.add(Instr("v_add_u32", (lw2, Imm(lds.region_base(op)), lw)), tags)
        lw = lw2
    # bytes per K-tile: DepthU elements along K-contiguous rows, DepthU * ld down MN-contiguous ones
    step = gb.sreg(name=f"{op}_kstep")
    tile_k_bytes = cfg.in_type.nbytes(cfg.tile[2])
    if gm.k_contig:
        p.add(Instr("s_mov_b32", (step, Imm(tile_k_bytes))), tags)
    else:
        p.add(Instr("s_mul_i32", (step, ld, Imm(tile_k_bytes))), tags)
    gr = GlobalReads(op, gm.k_contig, offsets, kks, offsets1, lw, step, srd, ld_bytes)
    if cfg.dma(op):
        # LDS-DMA: lane l of wave w writes M0 + 4 l (16 l for dwordx4), cdna-facts section 6.
        # Vector q = t + threads * j sits at LDS byte lane_bytes * q of the unpadded region, so
        # M0 for load j = region + wave * 64 * lane_bytes + j * threads * lane_bytes.
        gr.dma = True
        swave = gb.sreg(name=f"{op}_wave")
        p.add(Instr("v_readfirstlane_b32", (swave, ids.wave)), tags)
        gr.m0_base = gb.sreg(name=f"{op}_m0base")
        lane_bytes = cfg.in_type.nbytes(gm.vec)
        p.add(Instr("s_lshl_b32", (gr.m0_base, swave, Imm(log2(cfg.target.wave_size * lane_bytes)))),
              tags)
        if lds.region_base(op):
            p.add(Instr("s_add_u32", (gr.m0_base, gr.m0_base, Imm(lds.region_base(op)))), tags)
    return gr


def swizzled_k(gb, block, sw, row: VReg, k: VReg, name: str) -> VReg:
    """k ^ (xor_units(row) * unit elements): the K index stored at (row, k) (``LdsSwizzle``)."""
    tags = ("addr",)
    g, gs, kx = (gb.vreg(name=f"swz_{name}_{n}") for n in ("g", "gs", "k"))
    block.add(Instr("v_bfe_u32", (g, row, Imm(log2(sw.rep)), Imm(log2(sw.units)))), tags)
    block.add(Instr("v_lshlrev_b32", (gs, Imm(log2(sw.unit_elements)), g)), tags)
    block.add(Instr("v_xor_b32", (kx, gs, k)), tags)
    return kx


def local_read_base(gb, ids: LaneIds, operand: str, lds) -> list[VReg]:
    """Per-lane LDS byte offsets (within a buffer) of this wave's first MFMA operand element, one
    per K-step: row = wave * wave_tile + lane % m, k = k_run * (lane // m) + K-step * mfma_k
    (cdna-facts section 2.2; ``GemmConfig.k_run``: fp8 f8f6f4 operands are two runs of 16, the
    second at mfma_k / 2, CDNA4 ISA 7.1.5.1). Unswizzled, one register serves every K-step
    (``[base]``, K-steps and runs are instruction offsets); with ``lds_swizzle`` each K-step has
    its own, the unit XORed with the row's pattern (``layout.LdsSwizzle``), and with two runs each
    (K-step, run) pair its own, K-step major (``split_swizzled``)."""
    cfg, p = gb.cfg, gb.k.prologue
    tags = ("addr",)
    mf = cfg.mfma[0] if operand == "a" else cfg.mfma[1]
    wt = cfg.wave_tile[0] if operand == "a" else cfg.wave_tile[1]
    wave = ids.wave_m if operand == "a" else ids.wave_n
    row, kq, base = (gb.vreg(name=f"lr_{operand}_{n}") for n in ("row", "k", "base"))
    p.add(Instr("v_and_b32", (row, Imm(mf - 1), ids.lane)), tags)
    wrow = gb.vreg(name=f"lr_{operand}_wrow")
    p.add(Instr("v_mul_u32_u24", (wrow, Imm(wt), wave)), tags)
    p.add(Instr("v_add_u32", (row, wrow, row)), tags)
    p.add(Instr("v_lshrrev_b32", (kq, Imm(log2(mf)), ids.lane)), tags)
    region = lds.a_base if operand == "a" else lds.b_base
    sw = lds_swizzle(cfg)
    if sw is not None:
        rowb = gb.vreg(name=f"lr_{operand}_rowb")
        p.add(Instr("v_mul_u32_u24", (rowb, Imm(lds.row_bytes), row)), tags)
        if region:
            p.add(Instr("v_add_u32", (rowb, imm_or_sgpr(gb, p, region), rowb)), tags)
        g = gb.vreg(name=f"lr_{operand}_xor")
        p.add(Instr("v_bfe_u32", (g, row, Imm(log2(sw.rep)), Imm(log2(sw.units)))), tags)
        upk = cfg.mfma[2] // cfg.k_per_lane      # swizzle units per K-step
        if split_swizzled(cfg):
            return _split_swizzled_bases(gb, operand, sw, kq, g, rowb, upk)
        out = []
        for kb in range(cfg.tile[2] // cfg.mfma[2]):
            u, ux, b = (gb.vreg(name=f"lr_{operand}{kb}_{n}") for n in ("u", "ux", "b"))
            p.add(Instr("v_add_u32", (u, Imm(kb * upk), kq)), tags)
            p.add(Instr("v_xor_b32", (ux, g, u)), tags)
            p.add(Instr("v_lshl_add_u32", (b, ux, Imm(log2(sw.unit)), rowb)), tags)
            out.append(b)
        return out
    p.add(Instr("v_mul_u32_u24", (base, Imm(lds.row_bytes), row)), tags)
    p.add(Instr("v_lshl_add_u32", (base, kq, Imm(log2(cfg.in_type.nbytes(cfg.k_run))), base)),
          tags)
    if region:
        out = gb.vreg(name=f"lr_{operand}_base2")
        p.add(Instr("v_add_u32", (out, Imm(region), base)), tags)
        base = out
    return [base]


def _split_swizzled_bases(gb, operand: str, sw, kq: VReg, g: VReg, rowb: VReg, upk: int) -> list:
    """Addresses of the two 16-element runs of every K-step in a swizzled LDS (unit = k_per_lane
    = 2 runs): run r of K-step kb of lane group q starts at element kb * mfma_k + r * mfma_k / 2
    + 16 q, i.e. unit kb * upk + r * upk / 2 + q / 2, byte 16 (q % 2) of it."""
    cfg, p = gb.cfg, gb.k.prologue
    tags = ("addr",)
    half, sub, rb2 = (gb.vreg(name=f"lr_{operand}_{n}") for n in ("qh", "qs", "rowb2"))
    p.add(Instr("v_lshrrev_b32", (half, Imm(1), kq)), tags)
    p.add(Instr("v_and_b32", (sub, Imm(1), kq)), tags)
    p.add(Instr("v_lshl_add_u32", (rb2, sub, Imm(log2(cfg.in_type.nbytes(cfg.k_run))), rowb)), tags)
    out = []
    for kb in range(cfg.tile[2] // cfg.mfma[2]):
        for r in range(cfg.k_per_lane // cfg.k_run):
            u, ux, b = (gb.vreg(name=f"lr_{operand}{kb}_{r}_{n}") for n in ("u", "ux", "b"))
            p.add(Instr("v_add_u32", (u, Imm(kb * upk + r * upk // 2), half)), tags)
            p.add(Instr("v_xor_b32", (ux, g, u)), tags)
            p.add(Instr("v_lshl_add_u32", (b, ux, Imm(log2(sw.unit)), rb2)), tags)
            out.append(b)
    return out
