"""The multi-buffered K/V loop of the attention template (``kv_buffers`` = 2 or 3).

The workgroup's ``waves`` waves share every K/V block: each wave loads 1/W of it into LDS (K by
LDS-DMA, ``attention_ktile``; V through VGPRs, transposed by ``ds_write``, ``attention_vtile``),
then every wave reads all its MFMA operands from LDS. Q, the softmax state and O stay per wave
in registers (``attention``). Block t lives in LDS buffer t % B (B = ``kv_buffers``, d = B - 1
blocks loaded ahead). The prologue fills buffers 0..d-1 with blocks 0..d-1 and loads V of block
d into the staging VGPRs; iteration i then:

  K DMA  (stage d):     block i + d -> buffer (i + d) % B
  V lw   (stage d):     staged V of block i + d -> buffer (i + d) % B (transposed ds_writes)
  V gr   (stage d + 1): V of block i + d + 1 -> the staging VGPRs (after the ds_writes read them)
  compute (stage 0):    ds_read K operands of block i from buffer i % B, S^T = K Q^T, online
                        softmax, ds_read V^T operands, O^T += V^T P^T
  rotate the buffer bases, ``s_barrier``

Buffer (i + d) % B = (i - 1) % B was last read in iteration i - 1, before that iteration's
barrier, so no wave overwrites a buffer another still reads; the barrier also publishes the
V ds_writes of block i + d (the waitcnt pass waits lgkmcnt for them before every ``s_barrier``,
cdna-facts section 4), read from iteration i + d on. The K DMA of block i + d is first read d
barriers later (iteration i + d), so it carries ``publish_after=d``: the waitcnt pass waits
vmcnt for it at that barrier, not the next one (with d = 2 the barrier of iteration i waits only
for the DMA of iteration i - 1); prologue block b is read after b + 1 barriers. Loads past the
last key block read 0 (the K/V resources' num_records shrink, clamped at 0; cdna-facts
section 5). All waves run the same trip count (the workgroup's last row decides, causal) so
they meet at every barrier (a non-causal masked arm, the last block only, has none: ``emit``).
Regions: writes ``K_w`` / ``V_w``, reads ``K_r`` / ``V_r`` never
alias within an iteration (different buffers), and every LDS op stays on its side of a barrier.
"""
from __future__ import annotations

from dataclasses import replace

from isa.instr import Instr
from isa.operands import Imm

from . import ktile, vtile
from . import softmax as sm
from .config import AGPR_HEAD_DIM, BLOCK_K
from .kvloop import kv_loop

# head_dim 256: the unmasked body skips O *= alpha (128 accumulators, 64 v_pk_mul_f32 of the
# loop's ~190 vector instructions) when no row's max changed (``softmax.rescale_unless_stable``,
# exact); False builds the always-rescaling loop with the same exact alpha (the tests' A/B
# reference). ``asmgen profile`` B16 H16 S8192 bf16 --seqlen-k-multiple 32: gfx950 basic w4b2
# 1104 TF with every block rescaling, 1223 with no max change after the first block; gfx942
# prio_interleave w4b2 590 / 605 TF at its sustained clock. D64 / D128: no branch (.s unchanged).
RESCALE_BRANCH = True


def advance_kv(ab, block, r, step: int) -> None:
    """Buffer resource ``r`` moves ``step`` bytes (one key block) on; num_records shrinks by as
    much, clamped at 0. Shared by the multi-buffered and the ping-pong loops."""
    tags = ("addr", "kv_adv")
    block.add(Instr("s_add_u32", (r.sub(0), r.sub(0), ab.const(step))), tags)
    block.add(Instr("s_addc_u32", (r.sub(1), r.sub(1), Imm(0))), tags)
    block.add(Instr("s_sub_i32", (r.sub(2), r.sub(2), ab.const(step))), tags)
    block.add(Instr("s_max_i32", (r.sub(2), r.sub(2), Imm(0))), tags)


def build_loop(ab, st_, qf, kt, vt, srd, trips, kb, rem, bperm) -> None:
    """Prologue fill, the loop body and its barrier (see the module docstring)."""
    cfg, p = ab.cfg, ab.k.prologue
    D = cfg.head_dim
    nb = cfg.kv_buffers
    d = nb - 1
    bb = ktile.kv_buffer_bytes(D, cfg.in_type)
    step = BLOCK_K * cfg.in_type.nbytes(D)

    def advance(block, n: str) -> None:
        advance_kv(ab, block, srd[n], step)

    bufs = [ab.sreg(name=f"kv_buf{x}") for x in range(nb)]
    for x, b in enumerate(bufs):
        p.add(Instr("s_mov_b32", (b, Imm(x * bb))), ("addr",))
    # prologue: blocks 0..d-1 into buffers 0..d-1, V of block d into the staging registers
    for blk in range(d):
        ktile.load_block(ab, p, kt, srd["K"], bufs[blk], region=f"K{blk}",
                         publish_after=blk + 1)
        advance(p, "K")
        rows = vtile.load_rows(ab, p, vt, srd["V"])
        advance(p, "V")
        vt_pro = replace(vt, region=f"V{blk}")
        vtile.store_rows(ab, p, vt_pro, rows, base=bufs[blk])
    staging = vtile.load_rows(ab, p, vt, srd["V"])
    advance(p, "V")
    p.add(Instr("s_barrier"), ("barrier",))

    def emit(body, mask: bool, skip: bool = False, tri=None) -> None:
        """One loop body (``kvloop``: causal, also the triangle, masked by the lane masks
        ``tri``, and the masked body; with several waves ``skip``: the loads, the advance and
        the barrier without the compute)."""
        # ---- block i + d: K by DMA, the staged V transposed into LDS, then V of block i + d + 1
        ktile.load_block(ab, body, kt, srd["K"], bufs[d], publish_after=d)
        advance(body, "K")
        vtile.store_rows(ab, body, vt, staging, base=bufs[d])
        vtile.load_rows(ab, body, vt, srd["V"], staging)
        advance(body, "V")
        if not skip:
            body = _compute(body, mask, tri)
        body.add(Instr("s_add_u32", (kb, kb, Imm(BLOCK_K))), ("addr", "kv_adv"))
        if not skip:
            body.add(Instr("s_setprio", (Imm(0),)), ("setprio", "setprio_lo"))
        # ---- rotate the buffer bases (bufs[x] <- bufs[x + 1]) and release buffer i % B
        tmp = ab.sreg(name="kv_rot")
        body.add(Instr("s_mov_b32", (tmp, bufs[0])), ("addr", "kv_rot"))
        for x in range(d):
            body.add(Instr("s_mov_b32", (bufs[x], bufs[x + 1])), ("addr", "kv_rot"))
        body.add(Instr("s_mov_b32", (bufs[d], tmp)), ("addr", "kv_rot"))
        if not (mask and tri is None and not skip and ab.diag_kb is None):
            body.add(Instr("s_barrier"), ("barrier",))
        # else: the non-causal masked arm runs on the last key block only (``kvloop``: kbase >
        # seqlen_k - 32); after its trip no wave reads LDS (the epilogue works in registers) and
        # its writes (block i + d, to a buffer no wave reads in trip i) need no publishing, so
        # the closing barrier would guard nothing: every wave of the workgroup leaves it out

    def _compute(body, mask: bool, tri):
        """Block i % B's MFMAs and online softmax; returns the block the body goes on in (at
        head_dim 256 the unmasked body skips O *= alpha when no row's max changed, after a
        branch: ``RESCALE_BRANCH``)."""
        # ---- S^T = K Q^T from buffer i % B; s_setprio 1 / 0 around the MFMA work (placed by the
        # recipe's sched groups, cdna-facts 9.3)
        kf = ktile.read_operands(ab, body, kt, bufs[0])
        body.add(Instr("s_setprio", (Imm(1),)), ("setprio", "setprio_hi"))
        S = ab.k.vreg("v", 16, align=4, name="sT")
        c0 = Imm(0) if tri is None else sm.tri_init(ab, body, st_, S, tri)
        for st in range(D // cfg.mfma_k):
            body.add(Instr(cfg.mfma, (S, kf[st], qf[st], S if st else c0)), ("mfma", "mfma_qk"))
        # per-cluster priority (recipe ``attn_prio``): drop to 0 after the QK MFMAs (softmax VALU
        # and memory), raise again over the PV MFMAs; recipes that do not pin these two tags get
        # them placed by priority only, where s_setprio carries no dependence (cdna-facts 9.3)
        body.add(Instr("s_setprio", (Imm(0),)), ("setprio", "setprio_qk_lo"))
        # ---- online softmax -> P^T operands and the rescale of O
        exact = D == AGPR_HEAD_DIM and not mask and tri is None    # alpha exactly 1 if stable
        hot = RESCALE_BRANCH and exact
        opts = sm.TailOptions(exact_alpha=True, defer_rescale=hot) if exact else None
        pf = sm.online_softmax(ab, body, st_, S, rem, kb, bperm, mask and tri is None, opts=opts)
        if hot:
            pf, alpha2 = pf
            body = sm.rescale_unless_stable(ab, body, st_, alpha2)
        # ---- O^T += V^T P^T
        vf = vtile.read_operands(ab, body, vt, bufs[0])
        body.add(Instr("s_setprio", (Imm(1),)), ("setprio", "setprio_pv_hi"))
        for st in range(BLOCK_K // cfg.mfma_k):
            for db in range(D // 32):
                o = st_.o[db]
                body.add(Instr(cfg.mfma, (o, vf[st, db], pf[st], o)), ("mfma", "mfma_pv"))
        return body

    kv_loop(ab, trips, kb, ab.full_max, emit, ab.wave_end, ab.diag_kb, ab.tri)
