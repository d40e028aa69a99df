"""The split GEMM K loop: compute tile i from registers, then the memory work of later tiles,
with the MFMA operands carried in registers across iterations. Arrangements "pingpong" (8 waves,
HipKittens' ping-pong, cdna-facts section 9.3) and "interleave" (4 waves, one barrier per
iteration, the recipe spreads the memory work between the MFMAs) of ``build_gemm``.

Two LDS buffers (``cfg.prefetch`` = 1), tile t in buffer t % 2, written two tiles ahead; one set
of MFMA operand registers F (every fragment of one K-tile). Iteration i:

  C_i (compute): s_setprio 1; the MFMAs of tile i from F; s_setprio 0
  [pingpong: s_barrier]
  M_i (memory):  write tile i + 2 to buffer i % 2 (staged: ds_write the staging VGPRs loaded in
                 M_(i-1), then load tile i + 3 into them; LDS-DMA: buffer_load ... lds of tile
                 i + 2); ds_read tile i + 1 from buffer (i + 1) % 2 into F (each read after the
                 MFMAs of C_i that read its register: a DAG WAR edge); swap the buffer bases
  s_barrier

The prologue puts tiles 0 and 1 in LDS (tile 2 in the staging VGPRs), then, after a barrier,
reads tile 0 into F (interleave: and one more barrier, as M_0 overwrites buffer 0).

Ping-pong (waves w and w + 4 share SIMD w % 4): waves 4..7 (group 1) take one extra s_barrier
at the end of the prologue and waves 0..3 (group 0) one at the start of the epilogue
(``KernelIR.add_conditional_barrier``), so barrier k of group 0 meets barrier k of group 1 and
between two barriers one group runs C while the other runs M. In barrier intervals n (after the
prologue's common barrier): group 0 runs C_i in 2i, M_i in 2i + 1; group 1 C_i in 2i + 1, M_i
in 2i + 2. LDS safety (a barrier publishes what a wave wrote before it; the waitcnt pass waits
for a wave's LDS ops and LDS-DMA before each of its barriers, cdna-facts section 4):
  * tile t is written in M_(t-2): intervals 2t - 3 (group 0) and 2t - 2 (group 1); read in
    M_(t-1): 2t - 1 and 2t: every write precedes every read by a barrier;
  * buffer t % 2 is next written with tile t + 2 in M_t: 2t + 1 and 2t + 2, after the last read
    of tile t (2t).
Interleave (one barrier per iteration) satisfies the same orders with one interval per iteration.
Tiles past K read zeros (``asmgen.kinds.gemm.template`` docstring), so the two tiles the last
iterations prefetch past K, and F's last read, add nothing. MX block scales (``kinds.gemm.
mxscale``) ride in M_i as well: tile i + 1's scales move to the registers C_(i+1) reads, after
C_i's MFMAs, and tile i + 2's are loaded, one iteration before their use.
"""
from __future__ import annotations

import dataclasses

from isa.instr import Instr
from isa.operands import Imm

from ...errors import ConfigError
from ...ir import Block, VReg
from . import tags as T
from .memops import advance_k, emit_global_reads, emit_local_reads, emit_local_writes, emit_mfmas

PINGPONG_WAVES = 8
GROUP_WAVES = 4       # waves per ping-pong group: one per SIMD (wave w runs on SIMD w % 4)
MEM_TAG = T.GemmTag.PHASE_M   # every node of M_i (recipes pin the phases with it)


def check_split(cfg, pingpong: bool) -> None:
    """The split loop's requirements on the config beyond ``GemmConfig``'s own checks (prefetch
    1, staging 1): the wave count of ping-pong (names the bad value)."""
    waves = cfg.waves[0] * cfg.waves[1]
    if pingpong and waves != PINGPONG_WAVES:
        raise ConfigError(f"pingpong needs {PINGPONG_WAVES} waves (two per SIMD), got "
                          f"{cfg.waves[0]}x{cfg.waves[1]} = {waves}")


def _renamed(instr: Instr, mapping: dict) -> Instr:
    """``instr`` with the registers of ``mapping`` replaced, sub-ranges of a mapped register
    (a 32-byte operand read as two ds_read_b128) by the same sub-range of its image."""
    roots = {(r.file, r.id): t for r, t in mapping.items() if r.offset == 0}

    def rename(o):
        if not isinstance(o, VReg):
            return o
        if o in mapping:
            return mapping[o]
        t = roots.get((o.file, o.id))
        return o if t is None else t.sub(o.offset, o.count)
    return Instr(instr.op, tuple(rename(o) for o in instr.operands), instr.mods, instr.encoding)


def split_pipeline(gb, st, pingpong: bool) -> None:
    """Prologue tail, K loop and (pingpong) the conditional barriers (module docstring)."""
    cfg = gb.cfg
    check_split(cfg, pingpong)
    k, p = gb.k, gb.k.prologue
    grs, gms, sc, lr_base, acc = st.grs, st.gms, st.sc, st.lr_base, st.acc
    bufs = [gb.sreg(name=f"lds_buf{x}") for x in range(2)]
    for x, b in enumerate(bufs):
        p.add(Instr("s_mov_b32", (b, Imm(x * gb.lds.buffer_bytes))), ("addr",))

    # prologue: tiles 0, 1 -> LDS buffers 0, 1; staged operands load tile 2 into VGPRs
    staging: dict[str, list] = {}
    for op, gr in grs.items():
        for tile in range(2 if gr.dma else 3):
            region = f"{op.upper()}{tile}"
            if gr.dma:
                emit_global_reads(gb, p, gr, gms[op], lds_buf=bufs[tile], region=region)
            else:
                regs = emit_global_reads(gb, p, gr, gms[op])
                if tile < 2:
                    lw = gb.vreg(name=f"lw_{op}")
                    p.add(Instr("v_add_u32", (lw, bufs[tile], gr.lw_base)), ("addr", T.lw(op)))
                    emit_local_writes(gb, p, gr, gms[op], regs, lw, 0, region=region)
                else:
                    staging[op] = regs
            advance_k(gb, p, gr)
    if st.scales is not None:   # MX: tiles 0 and 1's scales, after the data (kinds.gemm.mxscale)
        from .mxscale import load_split_prologue
        load_split_prologue(gb, p, st.scales)
    p.add(Instr("s_barrier"), ("barrier",))

    # M_i, built first (it defines F), appended to the body after C_i
    mem = Block(k, "loop")
    for op, gr in grs.items():
        region = f"{op.upper()}_w"
        if gr.dma:      # tile i + 2 straight into buffer i % 2 = bufs[0]
            emit_global_reads(gb, mem, gr, gms[op], lds_buf=bufs[0], region=region)
            continue
        lw = gb.vreg(name=f"lw_{op}")
        mem.add(Instr("v_add_u32", (lw, bufs[0], gr.lw_base)), ("addr", T.lw(op)))
        emit_local_writes(gb, mem, gr, gms[op], staging[op], lw, 0, region=region)
    for op, gr in grs.items():
        if not gr.dma:  # tile i + 3 into the staging registers just written to LDS
            emit_global_reads(gb, mem, gr, gms[op], dst=staging[op])
    for gr in grs.values():
        advance_k(gb, mem, gr)
    frags = emit_local_reads(gb, mem, lr_base, bufs[1])     # tile i + 1 into F
    scales = None
    if st.scales is not None:   # MX: tile i + 1's scales to the MFMAs' set, load tile i + 2's
        from .mxscale import load_scales, rotate_scales
        scales = rotate_scales(gb, mem, st.scales)
        load_scales(gb, mem, st.scales)
    tmp = gb.sreg(name="lds_rot")
    mem.add(Instr("s_mov_b32", (tmp, bufs[0])), ("addr",))
    mem.add(Instr("s_mov_b32", (bufs[0], bufs[1])), ("addr",))
    mem.add(Instr("s_mov_b32", (bufs[1], tmp)), ("addr",))
    mem.tag(mem.nodes, MEM_TAG)

    # prologue: tile 0 into F (after the barrier that publishes it)
    first = Block(k, "prologue")
    f0 = emit_local_reads(gb, first, lr_base, bufs[0])
    rename = {f0[key]: frags[key] for key in f0}
    for n in first.nodes:
        p.nodes.append(dataclasses.replace(n, instr=_renamed(n.instr, rename)))

    wave_s = None
    if not pingpong:    # M_0 overwrites buffer 0: every wave's tile-0 reads come first
        p.add(Instr("s_barrier"), ("barrier",))
    if pingpong:    # group 1 (waves 4..7) takes one extra barrier before the loop
        wave_s = gb.sreg(name="wave_id")
        p.add(Instr("v_readfirstlane_b32", (wave_s, st.ids.wave)), ("addr",))
        k.add_conditional_barrier("prologue_end", Instr("s_cmp_ge_u32", (wave_s, Imm(GROUP_WAVES))))

    # trip count ceil(K / DepthU) >= 1
    trips = gb.sreg(name="k_iters")
    du = cfg.tile[2]
    p.add(Instr("s_add_u32", (trips, sc.K, Imm(du - 1))), ("addr",))
    p.add(Instr("s_lshr_b32", (trips, trips, Imm(du.bit_length() - 1))), ("addr",))
    body = k.make_loop(trips, label="loop_k")
    emit_mfmas(gb, body, frags, acc, scales=scales)
    if pingpong:
        body.add(Instr("s_barrier"), ("barrier", "barrier_mid"))
    body.nodes.extend(mem.nodes)
    body.add(Instr("s_barrier"), ("barrier", "barrier_end"))
    if pingpong:    # group 0 (waves 0..3) takes its extra barrier after the loop
        k.add_conditional_barrier("epilogue_start", Instr("s_cmp_lt_u32", (wave_s, Imm(GROUP_WAVES))))
