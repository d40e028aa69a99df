"""The 8-wave ping-pong K/V loop of the attention template (``waves`` = 8, ``kv_buffers`` = 3).

HipKittens' 8-wave attention forward (``kernels/attn/gqa/kernel.cpp``: two warp groups, one
extra ``s_barrier`` for group 1 before the loop, clusters split by ``s_barrier`` with
``s_setprio 1`` over the MFMA clusters; cdna-facts section 9.3) and asmgen's GEMM ping-pong
(``kinds.gemm.pingpong``): waves w and w + 4 share SIMD w % 4; group 0 (waves 0..3) and group 1
(waves 4..7) run the same loop one phase apart, so on every SIMD one wave's MFMAs run while the
other wave's softmax and memory ops issue. The loop is rotated by one block so that one phase
holds MFMAs only. Iteration j (key block j):

  M_j (MFMA phase):  s_setprio 1; S^T_j = K_j Q^T (from the carried K operand registers FK);
                     O^T += V^T_(j-1) P^T_(j-1) (carried FV, P); s_setprio 0
  s_barrier
  V_j (the rest):    online softmax of S^T_j -> P_j (packed into the carried P), O^T *= alpha_j
                     (unmasked body: skipped by a wave-uniform branch when alpha_j = 1 in every
                     lane, ``rescale_unless_stable``, exact);
                     K_(j+3) by LDS-DMA -> K buffer (j + 3) % 3 (this wave's 1/8);
                     the staged V_(j+1) transposed -> V buffer (j + 1) % 2, V_(j+2) -> staging;
                     FK <- ds_read K_(j+1), FV <- ds_read V_j; rotate the buffer bases
  s_barrier

The prologue loads K_0, K_1, K_2 (LDS-DMA) and V_0 into LDS and V_1 into the staging VGPRs,
then after a barrier reads K_0 into FK and zeroes FV and P (so M_0's PV product adds 0, exact);
group 1 then takes one extra barrier (``KernelIR.add_conditional_barrier``), group 0 one at the
start of the epilogue, after which every wave adds the last block's V^T P^T (M_trips without
the QK half) before the normalisation. Barrier intervals after the prologue's common barrier:
group 0 runs M_j in 2j, V_j in 2j + 1; group 1 M_j in 2j + 1, V_j in 2j + 2. LDS safety (a
barrier publishes what a wave wrote before it; the waitcnt pass waits for LDS ops before each
barrier, and for an LDS-DMA at the ``publish_after``-th barrier after it, cdna-facts section 4):

  * K_t is written in V_(t-3): intervals 2t - 5 (group 0), 2t - 4 (group 1); first read in
    V_(t-1): 2t - 1 (group 0). Group 1's DMA passes 3 barriers before it: ``publish_after=3``.
  * K buffer t % 3 was read last (K_(t-3)) in V_(t-4): interval 2t - 6, before 2t - 5.
  * V_t is written in V_(t-1) (2t - 1, 2t), read in V_t (2t + 1, 2t + 2): one barrier between.
  * V buffer t % 2 was read last (V_(t-2)) in V_(t-2): 2t - 2, before 2t - 1.

LDS: three buffers of ``kv_buffer_bytes`` (the K region of all three, the V^T region of the
first two). On gfx950 (16-bit, x16 MFMA; ``v_dma``) V goes by LDS-DMA too (``kinds.attention.
vtr``): V_(j+2) in V_j into V buffer (j + 2) % 3 (the V regions of all three; read in V_(j+2):
the same three barriers as K, and buffer (j + 2) % 3 was read last in V_(j-1)), V_j read into FV
by ``ds_read_b64_tr_b16``. Each wave loads 1/8 of every block: K by ``kinds.attention.ktile`` (1 DMA chunk per
wave on gfx950, 4 on gfx942 at D128), V by ``vtile`` (one key row of 8 dims per thread). Causal
kernels branch per block as ``kvloop`` describes; the test concerns block j (whose softmax V_j
runs), every body keeps M_j's PV half and both barriers; the skip body (no key of block j
visible to the wave) zeroes P instead of the softmax, so the next PV half adds 0.
"""
from __future__ import annotations

from dataclasses import replace

from isa.instr import Instr
from isa.operands import Imm

from . import ktile, vtile, vtr
from . import softmax as sm
from .config import BLOCK_K, PINGPONG_BUFFERS
from .kvloop import kv_loop
from .pipe import advance_kv

GROUP_WAVES = 4      # waves per group: one per SIMD (wave w runs on SIMD w % 4)
K_BUFFERS = PINGPONG_BUFFERS   # K ring (3 ahead), the V ring: the first 2 buffers' V^T regions
PHASE_V = "phase_v"  # every node of V_j (the recipe pins the phases with it)
# the steady-state body skips O *= alpha when no row's max changed (``rescale_unless_stable``);
# False builds the always-rescaling loop, bit-identical in results (the tests' A/B reference)
RESCALE_BRANCH = True


def v_dma(cfg) -> bool:
    """V by LDS-DMA and transposing reads (``kinds.attention.vtr``) where the arch has them
    (gfx950, 16-bit, x16 MFMA): V_(j+2) is DMA'd in V_j like K (publish_after 3, a 3-buffer V
    ring in the V^T regions), V_j read by ``ds_read_b64_tr_b16``; no V staging VGPRs, v_perm or
    ds_write."""
    return vtr.available(cfg)


rescale_unless_stable = sm.rescale_unless_stable   # (moved: the 4-wave D256 loop takes it too)


def build_loop(ab, st_, qf, kt, vt, srd, trips, kb, rem, bperm, swave) -> None:
    """Prologue fill, the rotated loop, the tail PV and the group barriers (module docstring)."""
    cfg, k, p = ab.cfg, ab.k, ab.k.prologue
    D = cfg.head_dim
    bb = ktile.kv_buffer_bytes(D, cfg.in_type)
    step = BLOCK_K * cfg.in_type.nbytes(D)

    def advance(block, n: str) -> None:
        advance_kv(ab, block, srd[n], step)

    vdma = v_dma(cfg)
    kbufs = [ab.sreg(name=f"k_buf{x}") for x in range(K_BUFFERS)]
    vbufs = [ab.sreg(name=f"v_buf{x}") for x in range(3 if vdma else 2)]
    kreg = ktile.k_region_bytes(D, cfg.in_type)
    for x, b in enumerate(kbufs):
        p.add(Instr("s_mov_b32", (b, Imm(x * bb))), ("addr",))
    for x, b in enumerate(vbufs):      # vtile's addresses hold the V^T region's offset already
        p.add(Instr("s_mov_b32", (b, Imm(x * bb + (kreg if vdma else 0)))), ("addr",))
    for blk in range(K_BUFFERS):
        ktile.load_block(ab, p, kt, srd["K"], kbufs[blk], region=f"K{blk}")
        advance(p, "K")
    staging = vtr_ = None
    if vdma:     # V_0, V_1 by DMA (``vtr``)
        vtr_ = vtr.setup(ab, ab.lane, ab.half)
        for blk in range(2):
            ktile.load_block(ab, p, kt, srd["V"], vbufs[blk], region=f"V{blk}")
            advance(p, "V")
    else:
        rows = vtile.load_rows(ab, p, vt, srd["V"])
        advance(p, "V")
        vtile.store_rows(ab, p, replace(vt, region="V0"), rows, base=vbufs[0])
        staging = vtile.load_rows(ab, p, vt, srd["V"])
        advance(p, "V")
    p.add(Instr("s_barrier"), ("barrier",))
    fk = ktile.read_regs(ab)
    ktile.read_operands(ab, p, kt, kbufs[0], dst=fk)
    fv = vtr.read_regs(ab) if vdma else vtile.read_regs(ab, vt)
    kpl, per = cfg.k_per_lane, cfg.in_type.per_dword
    pn = 2 if cfg.fp8 else kpl // per
    pc = [k.vreg("v", pn, align=2 if pn == 2 else 4, name=f"pc{s}") for s in range(16 // kpl)]
    for r in fv + pc:
        for i in range(r.count):
            p.add(Instr("v_mov_b32", (r.sub(i), Imm(0))), ("init",))
    kops = ktile.split_operands(cfg, fk)
    vops = vtr.split(ab, fv) if vdma else vtile.split_operands(ab, vt, fv)
    k.add_conditional_barrier("prologue_end", Instr("s_cmp_ge_u32", (swave, Imm(GROUP_WAVES))))
    # Q (read by every QK MFMA) arrives before the loop: waited for there, not per MFMA in the
    # loop, where the wait would also take the back edge's K/V DMAs (issued blocks ahead)
    k.wait_vm_before_loops = True

    def pv(block) -> None:
        for s in range(BLOCK_K // cfg.mfma_k):
            for db in range(D // 32):
                o = st_.o[db]
                block.add(Instr(cfg.mfma, (o, vops[s, db], pc[s], o)), ("mfma", "mfma_pv"))

    def emit(body, mask: bool, skip: bool = False, tri=None) -> None:
        """One rotated body (``kvloop``'s variants: masked, triangle ``tri``, ``skip``)."""
        # ---- M_j
        body.add(Instr("s_setprio", (Imm(1),)), ("setprio", "setprio_hi"))
        S = None
        if not skip:
            S = k.vreg("v", 16, align=4, name="sT")
            c0 = Imm(0) if tri is None else sm.tri_init(ab, body, st_, S, tri)
            for s, kop in enumerate(kops):
                body.add(Instr(cfg.mfma, (S, kop, qf[s], S if s else c0)), ("mfma", "mfma_qk"))
        pv(body)
        body.add(Instr("s_setprio", (Imm(0),)), ("setprio", "setprio_lo"))
        body.add(Instr("s_barrier"), ("barrier", "barrier_mid"))
        # ---- V_j
        start = len(body.nodes)
        alpha2 = None
        if skip:     # no key of block j visible: P_j = 0, the state unchanged
            for r in pc:
                for i in range(r.count):
                    body.add(Instr("v_mov_b32", (r.sub(i), Imm(0))), ("softmax", "pack"))
        else:
            # the steady-state body (every key visible) leaves O *= alpha to a branch below
            hot = RESCALE_BRANCH and not mask and tri is None
            opts = sm.TailOptions(exact_alpha=True, defer_rescale=hot,
                                  p_dst=None if cfg.fp8 else tuple(pc))
            pf = sm.online_softmax(ab, body, st_, S, rem, kb, bperm, mask and tri is None,
                                   opts=opts)
            if hot:
                pf, alpha2 = pf
            if cfg.fp8:      # fp8 packs in place over the scores: copy to the carried P
                for dst, src in zip(pc, pf):
                    for i in range(dst.count):
                        body.add(Instr("v_mov_b32", (dst.sub(i), src.sub(i))),
                                 ("softmax", "pack"))
        ktile.load_block(ab, body, kt, srd["K"], kbufs[0], publish_after=3)
        advance(body, "K")
        if vdma:     # V_(j+2) by DMA into V buffer (j + 2) % 3, read (V_(j+2)) 3 barriers on
            ktile.load_block(ab, body, kt, srd["V"], vbufs[2], region="V_w", publish_after=3)
        else:
            vtile.store_rows(ab, body, vt, staging, base=vbufs[1])
            vtile.load_rows(ab, body, vt, srd["V"], staging)
        advance(body, "V")
        ktile.read_operands(ab, body, kt, kbufs[1], dst=fk, offsets=True)
        if vdma:
            vtr.read_operands(ab, body, vtr_, vbufs[0], fv)
        else:
            vtile.read_operands(ab, body, vt, vbufs[0], dst=fv)
        body.add(Instr("s_add_u32", (kb, kb, Imm(BLOCK_K))), ("addr", "kv_adv"))
        for bufs in (kbufs, vbufs):      # bufs[x] <- bufs[x + 1]
            tmp = ab.sreg(name="kv_rot")
            body.add(Instr("s_mov_b32", (tmp, bufs[0])), ("addr", "kv_rot"))
            for x in range(len(bufs) - 1):
                body.add(Instr("s_mov_b32", (bufs[x], bufs[x + 1])), ("addr", "kv_rot"))
            body.add(Instr("s_mov_b32", (bufs[-1], tmp)), ("addr", "kv_rot"))
        phase = k.tags.members((PHASE_V,), "the ping-pong V phase")
        for n in body.nodes[start:]:
            n.tags = n.tags | phase
        if alpha2 is not None:
            body = rescale_unless_stable(ab, body, st_, alpha2, phase)
        body.add(Instr("s_barrier"), ("barrier", "barrier_end"))

    kv_loop(ab, trips, kb, ab.full_max, emit, ab.wave_end, ab.diag_kb, ab.tri)
    k.add_conditional_barrier("epilogue_start", Instr("s_cmp_lt_u32", (swave, Imm(GROUP_WAVES))))
    pv(k.epilogue)       # M_trips: the last block's V^T P^T
