"""GEMM template: ``GemmConfig`` -> tagged ``KernelIR`` (prologue / K-loop body / epilogue).

``C = alpha * op(A) @ op(B) + beta * C`` (+ bias over N, + SiLU/GELU), f16/bf16 in, fp32
accumulation in AGPRs, f32/f16/bf16 out. Workgroup (wg_x, wg_y) owns the C tile at
(wg_x * MT0, wg_y * MT1); its waves split it ``waves[0] x waves[1]`` (M-fastest); each wave
computes ``blocks`` MFMA blocks.

Pipeline with prefetch depth d (``cfg.prefetch``), d + 1 LDS buffers, global -> VGPR -> LDS,
S (``cfg.staging``, 1 or 2) sets of staging VGPRs: K-tile t lives in LDS buffer t % (d + 1). The
prologue loads tiles 0..d-1 into LDS and tiles d..d+S-1 into the staging sets. Iteration i
(the body holds S iterations, one per staging set; trip count ceil(K / (S DepthU)) >= 1):

  lw  (stage d):     write set i % S (tile i + d) to buffer (i + d) % (d + 1)  [read by nobody
                     since iteration i - 1's barrier]
  gr  (stage d + S): load tile i + d + S into set i % S (after lw read it), so each global load
                     has S iterations to land
  lr, mfma (stage 0): ds_read the MFMA operands of tile i from buffer i % (d + 1); accumulate
  bookkeeping: advance the K offsets, rotate the buffer bases
  s_barrier:         publishes the LDS writes and frees buffer i % (d + 1)

With ``direct_to_lds`` the K-contiguous operands skip the staging registers: the prologue
loads tiles 0..d-1 with ``buffer_load_dword(x4) ... lds`` (LDS address M0 + lane * size,
cdna-facts section 6) and iteration i loads tile i + d into buffer (i + d) % (d + 1) (stage d);
the waitcnt pass makes every s_barrier wait for outstanding LDS-DMA (vmcnt).

Fragment registers: with ``cfg.frag_buffers`` = 0 every K-step of the tile reads its MFMA
operands into its own registers; with n > 0 the K-steps use n register sets in turn, so the
reads of step s + n wait (DAG WAR) for the MFMAs of step s while the reads of steps s + 1 ..
s + n - 1 may run ahead of them (n = 2: double-buffered local reads, the ck_v4 pipeline).

That is the "default" loop arrangement. ``cfg.arrangement`` picks another one:
"pingpong" (8 waves in two groups offset by a conditional barrier) and "interleave" (4 waves),
both the split loop of ``asmgen.kinds.gemm.pingpong`` (operands carried in registers, two LDS
buffers written two tiles ahead).

Tiles past K are never special-cased: K-contiguous loads past K are sent to an out-of-range
offset, MN-contiguous loads past K fall beyond num_records (K is their outer dimension), so
they read 0 (cdna-facts section 5) and add nothing. Rows/columns past M/N likewise read 0 and
their stores are dropped. The template places every loop node in that pipeline (the "stage"
above: how many K-tiles ahead of the computed one it works), so a recipe only orders within it.
"""
from __future__ import annotations

from dataclasses import dataclass

from isa.instr import Instr
from isa.operands import Imm, s, v

from ...ir import KernelIR, VReg
from . import epilogue as epi
from . import prologue as pro
from . import tags as T
from .config import ARRANGEMENTS, GemmConfig  # noqa: F401  (ARRANGEMENTS re-exported)
from .layout import global_read_map, lds_layout
from .memops import advance_k, emit_compute, emit_global_reads, emit_local_writes


class GemmBuild:
    """State while building one GEMM kernel: the IR, config and the shared registers."""

    def __init__(self, cfg: GemmConfig) -> None:
        self.cfg = cfg
        self.k = KernelIR(cfg.target, cfg.name, tags=T.GEMM_TAGS)
        self.kernarg = self.k.precolored("s", s(0, 2), "kernarg")
        self.wg_x = self.k.precolored("s", s(2), "wg_x")
        self.wg_y = self.k.precolored("s", s(3), "wg_y")
        self.tid = self.k.precolored("v", v(0), "tid")
        self.lds = lds_layout(cfg)
        self.big: VReg | None = None   # OOB_OFFSET in every lane (set by lane_ids)
        self._consts: dict[int, VReg] = {}

    def sreg(self, count: int = 1, name: str = "") -> VReg:
        return self.k.vreg("s", count, name=name)

    def vreg(self, count: int = 1, name: str = "") -> VReg:
        return self.k.vreg("v", count, name=name)

    def const(self, value: int) -> VReg:
        """An SGPR holding ``value``, set once in the prologue (VOP3 sources cannot be literals
        on gfx9)."""
        if value not in self._consts:
            r = self.sreg(name=f"k{value:x}")
            self.k.prologue.add(Instr("s_mov_b32", (r, Imm(value))), ("addr",))
            self._consts[value] = r
        return self._consts[value]

    def mask(self) -> VReg:
        """A 64-bit lane mask in an SGPR pair (VOP3 compare destination)."""
        return self.k.vreg("s", 2, align=2, name="mask")



@dataclass
class GemmSetup:
    """What every loop arrangement starts from: arguments, lane ids, global-read state per
    operand, LDS read bases and the zeroed accumulators."""

    srds: dict
    sc: pro.Scalars
    c_read: VReg
    ids: pro.LaneIds
    gms: dict
    grs: dict
    lr_base: dict
    acc: list
    scales: object = None     # MX block scales (kinds.gemm.mxscale.ScaleState)


def build_gemm(cfg: GemmConfig) -> KernelIR:
    """The tagged KernelIR of ``cfg``. ``cfg.arrangement``: "default" is the pipeline of the
    module docstring; "pingpong" and "interleave" are the split pipeline of
    ``asmgen.kinds.gemm.pingpong`` (8-wave ping-pong / 4-wave interleave)."""
    arrangement = cfg.arrangement
    gb = GemmBuild(cfg)
    st = setup(gb)
    if arrangement == "default":
        default_pipeline(gb, st)
    else:
        from .pingpong import split_pipeline
        split_pipeline(gb, st, pingpong=arrangement == "pingpong")
    epi.build_epilogue(gb, st.ids, st.sc, st.srds, st.c_read, st.acc)
    return gb.k


def setup(gb: GemmBuild) -> GemmSetup:
    """Prologue part shared by every arrangement (arguments, resources, lane ids, global-read
    offsets, LDS read bases, zeroed accumulators, the loop-carried K state)."""
    cfg = gb.cfg
    k, p = gb.k, gb.k.prologue
    k.lds_bytes = gb.lds.total
    srds, sc = pro.load_arguments(gb)
    c_read = pro.finish_srds(gb, srds, sc)
    pro.tile_origin(gb, sc)
    ids = pro.lane_ids(gb)
    gb.big = ids.big
    gms = {op: global_read_map(cfg, op) for op in ("a", "b")}
    grs = {op: pro.global_reads(gb, ids, sc, gms[op], srds[op.upper()], gb.lds) for op in ("a", "b")}
    lr_base = {op: pro.local_read_base(gb, ids, op, gb.lds) for op in ("a", "b")}

    # accumulators: blocks[0] x blocks[1] tuples of acc_regs AGPRs, zeroed
    bm, bn = cfg.blocks
    acc = [[k.vreg("a", cfg.acc_regs, align=4 if cfg.acc_regs >= 4 else 2, name=f"acc{i}_{j}")
            for j in range(bn)] for i in range(bm)]
    for row in acc:
        for tup in row:
            for r in range(cfg.acc_regs):
                p.add(Instr("v_accvgpr_write_b32", (tup.sub(r), Imm(0))), ("acc_init",))

    # loop-carried K state per operand (the K-tail mask only): the K left from the next tile
    for gr in grs.values():
        if cfg.k_tail and gr.k_contig:
            gr.krem = gb.sreg(name=f"{gr.operand}_krem")
            p.add(Instr("s_mov_b32", (gr.krem, sc.K)), ("addr",))
    scales = None
    if cfg.mx:
        from .mxscale import setup_scales
        scales = setup_scales(gb, sc, ids, split=cfg.arrangement != "default")
    return GemmSetup(srds, sc, c_read, ids, gms, grs, lr_base, acc, scales)


def default_pipeline(gb: GemmBuild, st: GemmSetup) -> None:
    """Prologue tail and K loop of the default arrangement (module docstring)."""
    cfg = gb.cfg
    k, p = gb.k, gb.k.prologue
    grs, gms, sc, lr_base, acc = st.grs, st.gms, st.sc, st.lr_base, st.acc
    d = cfg.prefetch
    bufs = [gb.sreg(name=f"lds_buf{x}") for x in range(d + 1)]
    for x, b in enumerate(bufs):
        p.add(Instr("s_mov_b32", (b, Imm(x * gb.lds.buffer_bytes))), ("addr",))

    # prologue: tiles 0..d-1 to LDS buffers 0..d-1; through VGPRs, tiles d..d+S-1 into the S
    # staging register sets (tile t -> set (t - d) % S)
    S = cfg.staging
    staging: dict[str, list] = {op: [] for op in grs}
    for op, gr in grs.items():
        for tile in range(d if gr.dma else d + S):
            region = f"{op.upper()}{tile}"
            if gr.dma:
                emit_global_reads(gb, p, gr, gms[op], lds_buf=bufs[tile], region=region)
            else:
                regs = emit_global_reads(gb, p, gr, gms[op])
                if tile < d:
                    lw = gb.vreg(name=f"lw_{op}")
                    p.add(Instr("v_add_u32", (lw, bufs[tile], gr.lw_base)), ("addr", T.lw(op)))
                    emit_local_writes(gb, p, gr, gms[op], regs, lw, 0, region=region)
                else:
                    staging[op].append(regs)
            advance_k(gb, p, gr)
    p.add(Instr("s_barrier"), ("barrier",))

    # trip count ceil(K / (S * DepthU)) >= 1 (K >= 1); with S = 2 an odd tile count computes one
    # tile past K, which reads zeros everywhere and adds nothing
    trips = gb.sreg(name="k_iters")
    span = S * cfg.tile[2]
    p.add(Instr("s_add_u32", (trips, sc.K, Imm(span - 1))), ("addr",))
    p.add(Instr("s_lshr_b32", (trips, trips, Imm(span.bit_length() - 1))), ("addr",))
    body = k.make_loop(trips, label="loop_k")
    for copy in range(S):   # the body is unrolled S times, copy c using staging set c
        emit_iteration(gb, body, grs, gms, {op: sg[copy] for op, sg in staging.items() if sg},
                       bufs, lr_base, acc, st.scales)


def emit_iteration(gb: GemmBuild, body, grs, gms, staging, bufs, lr_base, acc,
                   scales=None) -> None:
    """One K-tile i of the loop: lw tile i + d, gr tile i + d + S, compute tile i, advance,
    rotate the LDS buffer bases, barrier (see the module docstring)."""
    d = gb.cfg.prefetch
    # lw: staged tile i + d -> buffer (i + d) % (d + 1) = bufs[d]; DMA operands load it directly
    for op, gr in grs.items():
        region = f"{op.upper()}_w"
        if gr.dma:
            emit_global_reads(gb, body, gr, gms[op], lds_buf=bufs[d], region=region)
            continue
        lw = gb.vreg(name=f"lw_{op}")
        body.add(Instr("v_add_u32", (lw, bufs[d], gr.lw_base)), ("addr", T.lw(op)))
        emit_local_writes(gb, body, gr, gms[op], staging[op], lw, 0, region=region)
    # gr: tile i + d + S -> the staging registers just written to LDS (loop-carried)
    for op, gr in grs.items():
        if not gr.dma:
            emit_global_reads(gb, body, gr, gms[op], dst=staging[op])
    # MX: tile i's scales (loaded one iteration ahead), then tile i + 1's loads
    mx = None
    if scales is not None:
        from .mxscale import load_scales, rotate_scales
        mx = rotate_scales(gb, body, scales)
        load_scales(gb, body, scales)
    # lr + mfma on tile i from buffer i % (d + 1) = bufs[0]
    emit_compute(gb, body, lr_base, bufs[0], acc, mx)
    for gr in grs.values():
        advance_k(gb, body, gr)
    # rotate buffer bases: bufs[x] <- bufs[x + 1]
    tmp = gb.sreg(name="lds_rot")
    body.add(Instr("s_mov_b32", (tmp, bufs[0])), ("addr",))
    for x in range(d):
        body.add(Instr("s_mov_b32", (bufs[x], bufs[x + 1])), ("addr",))
    body.add(Instr("s_mov_b32", (bufs[d], tmp)), ("addr",))
    body.add(Instr("s_barrier"), ("barrier",))
