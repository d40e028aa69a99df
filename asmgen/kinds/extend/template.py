"""Extend-attention template: ``ExtendConfig`` -> tagged ``KernelIR``.

The one-wave kernel of varlen causal prefill (``asmgen.kinds.attention.template``) for its query
side, the decode kind's cache loop for its key side:

* workgroup ids (x, y, z) = (head h, sequence b, reversed Q-block): the causal varlen grid
  (``attention.grid``: the Q-blocks with the most keys start first). The scalar loads of
  cu_seqlens_q[b], [b + 1] give the sequence's first packed row and its new tokens
  q_len = cu_seqlens_q[b + 1] - cu_seqlens_q[b]; context_lens[b] (clamped to 0..max_context)
  its keys L. The Q-block is ceil(q_len / 32) - 1 - z; one past the sequence's end (negative:
  max_seqlen_q exceeds q_len) is clamped to start at the end and the workgroup ends after the
  prologue (``KernelIR.add_early_exit``);
* rows: lane column c is new token q0 + c of head h, packed row h total_q + cu_seqlens_q[b] +
  q0 + c; Q, O, LSE buffer resources start at row q0 with num_records ending at q_len, so rows
  past the end read 0 and store nothing (cdna-facts section 5). Query head h reads KV head
  h // group (a build-time division, ``decode.arith``);
* keys: token q0 + c sees keys j < lim = min(L, q0 + c + 1 + L - q_len) (bottom-right causal,
  the new tokens are the last q_len keys); the loop walks the 32-key blocks up to the
  workgroup's last row's limit (at least once, fully masked, when no key is visible), blocks
  wholly below the first row's limit run the unmasked body (``attention.kvloop``);
* K/V come from the cache through ``decode.kvload.DenseKV`` (dense: resources at (b, 0,
  kv_head), num_records ending at L) or ``decode.paged.PagedKV`` (page numbers by scalar loads
  of the block table, per-lane offsets, keys past L out of range: a stale page's NaN is never
  read), and ``decode.body.cache_loop`` runs the loop (prefetch, V^T through LDS, the MFMAs
  around the online softmax of ``attention.softmax``).

fp8 KV (``kv_dtype``, decode's): the cache bytes are widened in registers at the top of each
block (``decode.kvload.dequant``); per-tensor k_scale is folded into the softmax scale and
v_scale into the final normalisation (``decode.body.fold_tensor_scales``), per-token scales
(``kv_scale`` "token", ``decode.kvscale``) are loaded with each block and applied in f32 to the
scores and to P.
"""
from __future__ import annotations

from isa.instr import Instr
from isa.operands import Imm, Special

from ..attention import softmax as sm
from ..attention.template import AttnBuild
from ..common.buffers import OOB_OFFSET, log2
from ..decode.arith import imm_or_const, sdiv
from ..decode.body import cache_loop, cache_source, loop_state
from ..decode.resource import TAGS, load_kernargs, srd_base
from ..decode.tags import DECODE_TAGS
from .config import BLOCK_K, BLOCK_Q, ExtendConfig
from .contract import extend_args


def build_extend(cfg: ExtendConfig):
    """The tagged KernelIR of ``cfg`` (see the module docstring)."""
    ab = AttnBuild(cfg, DECODE_TAGS)
    k, p = ab.k, ab.k.prologue
    D = cfg.head_dim
    eb = cfg.in_type.nbytes(1)
    row_bytes = cfg.in_type.nbytes(D)
    vcc = Special("vcc")

    # ---- arguments
    _, srd, sc = load_kernargs(ab, extend_args(cfg), ("total_q",))
    tq, scale, nblocks_arg = sc["total_q"], sc["scale"], sc.get("num_blocks")
    wh, b, wz = ab.wg_x, ab.wg_y, ab.wg_z                        # head, sequence, reversed Q-block

    # ---- sequence b: first packed row, new tokens sq, keys ctx (clamped to 0..max_context)
    bofs = ab.sreg(name="seq_off")
    p.add(Instr("s_lshl_b32", (bofs, b, Imm(2))), TAGS)
    cu = k.vreg("s", 2, align=2, name="cu_q_b")
    p.add(Instr("s_load_dwordx2", (cu, srd["cu_seqlens_q"].sub(0, 2), bofs)), ("addr", "karg"))
    ctx = ab.sreg(name="ctx")
    p.add(Instr("s_load_dword", (ctx, srd["context_lens"].sub(0, 2), bofs)), ("addr", "karg"))
    p.add(Instr("s_max_i32", (ctx, ctx, Imm(0))), TAGS)
    p.add(Instr("s_min_i32", (ctx, ctx, Imm(cfg.max_context))), TAGS)
    sq = ab.sreg(name="q_len")
    p.add(Instr("s_sub_i32", (sq, cu.sub(1), cu.sub(0))), TAGS)
    p.add(Instr("s_max_i32", (sq, sq, Imm(0))), TAGS)

    # ---- Q-block ((sq - 1) >> 5) - z (negative past a short sequence: clamped to the end)
    wq, q0 = ab.sreg(name="qblock"), ab.sreg(name="q0")
    p.add(Instr("s_add_i32", (wq, sq, Imm(-1))), TAGS)
    p.add(Instr("s_ashr_i32", (wq, wq, Imm(log2(BLOCK_Q)))), TAGS)
    p.add(Instr("s_sub_i32", (wq, wq, wz)), TAGS)
    p.add(Instr("s_lshl_b32", (q0, wq, Imm(log2(BLOCK_Q)))), TAGS)
    p.add(Instr("s_min_u32", (q0, q0, sq)), TAGS)
    kvh = sdiv(ab, p, wh, cfg.group, "kv_head")
    rowq, qrem = ab.sreg(name="rowq"), ab.sreg(name="qrem")      # h total_q + cu_q[b] + q0
    p.add(Instr("s_mul_i32", (rowq, wh, tq)), TAGS)
    p.add(Instr("s_add_u32", (rowq, rowq, cu.sub(0))), TAGS)
    p.add(Instr("s_add_u32", (rowq, rowq, q0)), TAGS)
    p.add(Instr("s_sub_i32", (qrem, sq, q0)), TAGS)              # >= 0 (q0 <= sq)
    for n, rb in (("q", row_bytes), ("o", row_bytes), ("lse", 4)):
        srd_base(ab, p, srd[n], rowq, rb)
        p.add(Instr("s_mul_i32", (srd[n].sub(2), qrem, Imm(rb))), TAGS)

    # ---- lane coordinates and offsets (as prefill: row col, head-dim elements dq / kq)
    lane, col, half, kq = (ab.vreg(name=n) for n in ("lane", "col", "half", "kq"))
    p.add(Instr("v_and_b32", (lane, Imm(63), ab.tid)), TAGS)
    p.add(Instr("v_and_b32", (col, Imm(31), lane)), TAGS)
    p.add(Instr("v_lshrrev_b32", (half, Imm(5), lane)), TAGS)
    p.add(Instr("v_lshlrev_b32", (kq, Imm(2), half)), TAGS)
    kpl = cfg.k_per_lane
    dq = kq
    if kpl != 4:
        dq = ab.vreg(name="dq")
        p.add(Instr("v_lshlrev_b32", (dq, Imm(log2(kpl)), half)), TAGS)
    dconst = imm_or_const(ab, D)
    eq, off_q = ab.vreg(name="q_e"), ab.vreg(name="off_q")
    p.add(Instr("v_mad_u32_u24", (eq, col, dconst, dq)), TAGS)
    p.add(Instr("v_lshlrev_b32", (off_q, Imm(log2(eb)), eq)), TAGS)
    off_o = off_q
    if kpl != 4:
        eo, off_o = ab.vreg(name="o_e"), ab.vreg(name="off_o")
        p.add(Instr("v_mad_u32_u24", (eo, col, dconst, kq)), TAGS)
        p.add(Instr("v_lshlrev_b32", (off_o, Imm(log2(eb)), eo)), TAGS)
    big = ab.oob = ab.vreg(name="oob")
    p.add(Instr("v_mov_b32", (big, Imm(OOB_OFFSET))), TAGS)
    tl, off_l = ab.vreg(name="lse_e"), ab.vreg(name="off_lse")
    p.add(Instr("v_lshlrev_b32", (tl, Imm(2), col)), TAGS)
    p.add(Instr("v_cmp_eq_u32", (vcc, Imm(0), half)), TAGS)      # lanes 0..31 store LSE
    p.add(Instr("v_cndmask_b32", (off_l, big, tl, vcc)), TAGS)

    # ---- keys: the causal limit dlt + col, the unmasked blocks, the trip count
    dlt = ab.sreg(name="causal_d")                               # q0 + 1 + ctx - sq
    p.add(Instr("s_sub_i32", (dlt, ctx, sq)), TAGS)
    p.add(Instr("s_add_i32", (dlt, dlt, q0)), TAGS)
    p.add(Instr("s_add_i32", (dlt, dlt, Imm(1))), TAGS)
    ab.full_max = ab.sreg(name="full_max")                       # last block start with no mask
    p.add(Instr("s_min_i32", (ab.full_max, ctx, dlt)), TAGS)
    p.add(Instr("s_sub_i32", (ab.full_max, ab.full_max, Imm(BLOCK_K))), TAGS)
    trips, e = ab.sreg(name="kv_iters"), ab.sreg(name="kv_end")
    p.add(Instr("s_min_i32", (e, qrem, Imm(BLOCK_Q))), TAGS)     # the last row's limit
    p.add(Instr("s_add_i32", (e, e, dlt)), TAGS)
    p.add(Instr("s_sub_i32", (e, e, Imm(1))), TAGS)
    p.add(Instr("s_min_i32", (e, e, ctx)), TAGS)
    p.add(Instr("s_add_i32", (trips, e, Imm(BLOCK_K - 1))), TAGS)
    p.add(Instr("s_ashr_i32", (trips, trips, Imm(log2(BLOCK_K)))), TAGS)
    p.add(Instr("s_max_i32", (trips, trips, Imm(1))), TAGS)
    lim, rem = ab.vreg(name="klim"), ab.vreg(name="krem_lane")

    def mask_limit(block) -> None:
        """rem = min(ctx, dlt + col) - kq at the start of each masked body (``kvloop``)."""
        lc = ab.vreg(name="klim_c")
        block.add(Instr("v_add_u32", (lc, dlt, col)), ("softmax", "mask"))
        block.add(Instr("v_min_i32", (lim, ctx, lc)), ("softmax", "mask"))
        block.add(Instr("v_sub_u32", (rem, lim, kq)), ("softmax", "mask"))
    ab.mask_limit = mask_limit

    # ---- K/V cache geometry (decode's), the V^T tile, bperm, Q into registers
    kv, vt = cache_source(ab, srd, b, ctx, None, kvh, nblocks_arg, dq, lane, col, half)
    bperm, qf, st_, v_post = loop_state(ab, lane, off_q, srd["q"], scale, sc)
    # the Q-block starts at or past its sequence's end: s_endpgm (the loop's prefetch follows)
    k.add_early_exit(Instr("s_cmp_ge_u32", (q0, sq)))
    cache_loop(ab, kv, vt, qf, st_, trips, rem, bperm)
    sm.epilogue(ab, k.epilogue, st_, bperm, off_o, off_l, srd["o"], srd["lse"], v_post)
    return k
