"""Decode-attention template: ``DecodeConfig`` -> tagged ``KernelIR`` (``asmgen.kinds.decode.config``
says what a workgroup computes).

It is the one-wave attention kernel of ``asmgen.kinds.attention`` (whose helpers it imports: the
online softmax and epilogue, the V^T tile through LDS, the KV loop with a masked body for the
last blocks) with decode's row and key geometry:

* rows: lane column c (0..31) is query row r = 32 row_block + c of this KV head, token
  t = r // group, head kv_head group + r % group; Q, O and LSE offsets are per lane (rows past
  q_tokens x group read 0 and store nothing: the out-of-range offset, cdna-facts section 5);
* keys: this split's range starts at key ``start`` = split x ceil(blocks / num_splits) x 32; the
  lane's key limit is context_len - q_tokens + 1 + t - start, and blocks wholly below the
  smallest limit (t = 0) run the unmasked body (``kvloop``): every block but the last one or
  two when q_tokens is small;
* K/V rows are kv_heads x head_dim elements apart (``kv_row_bytes``). Dense: the K/V resources
  start at (b, start, kv_head) with num_records ending at the context, and advance by one key
  block per iteration (keys past the context read 0). Paged (``asmgen.kinds.decode.paged``): the
  resources cover the pool; each block's page numbers come from the block table by scalar
  buffer loads and every lane's offset is built from them, keys past the context get the
  out-of-range offset (they read 0, never a stale page's NaN).

fp8 KV (``kv_dtype``): the loads fetch the cache's bytes and ``kvload.dequant`` widens them to
``dtype`` at the top of each block (so the prefetch keeps loading raw bytes); K = k_scale x
k_cache and V = v_scale x v_cache are applied in f32, never to the cache values: k_scale is
folded into the softmax scale (S = Q (k_scale K8)^T scale) and v_scale into the final
normalisation (O = v_scale / l x P V8), so the MFMAs see the cache values exactly. Per-token
scales (``kv_scale`` "token", ``asmgen.kinds.decode.kvscale``) are loaded with each block's K and
V and applied in f32 to the scores (S_j k_scale_j, before the row max) and to P (P_j v_scale_j,
after the row sum, before the pack).

With ``prefetch`` = 1 the next block's K operands and V rows are loaded right after this block's
QK MFMAs, into the same registers, overlapping the softmax and the PV MFMAs.
"""
from __future__ import annotations

from isa.instr import Instr
from isa.operands import Imm, Special

from ...ir import VReg
from ..attention import softmax as sm
from ..attention.template import AttnBuild
from ..common.buffers import OOB_OFFSET, log2
from .arith import imm_or_const, sdiv, vdiv
from .body import cache_loop, cache_source, loop_state
from .config import BLOCK_K, BLOCK_Q, DecodeConfig
from .contract import decode_args
from .resource import TAGS, load_kernargs, srd_base
from .tags import DECODE_TAGS


class DecodeBuild(AttnBuild):
    """The attention builder's state (``AttnBuild``) in decode's tag vocabulary."""

    def __init__(self, cfg) -> None:
        super().__init__(cfg, DECODE_TAGS)


def build_decode(cfg: DecodeConfig) -> object:
    """The tagged KernelIR of ``cfg`` (see the module docstring)."""
    ab = DecodeBuild(cfg)
    k, p = ab.k, ab.k.prologue
    D, T, H, G, S = cfg.head_dim, cfg.q_tokens, cfg.heads, cfg.group, cfg.num_splits
    eb = cfg.in_type.nbytes(1)
    vcc = Special("vcc")

    # ---- arguments
    _, srd, sc = load_kernargs(ab, decode_args(cfg))
    scale, nblocks_arg = sc["scale"], sc.get("num_blocks")
    split, b = ab.wg_x, ab.wg_z

    # ---- workgroup coordinates: kv head, row block
    RB = cfg.row_blocks
    kvh = sdiv(ab, p, ab.wg_y, RB, "kv_head")
    rb32 = None
    if RB > 1:
        t0 = ab.sreg(name="rb_t")
        rb32 = ab.sreg(name="rb32")
        p.add(Instr("s_mul_i32", (t0, kvh, Imm(RB))), TAGS)
        p.add(Instr("s_sub_u32", (t0, ab.wg_y, t0)), TAGS)
        p.add(Instr("s_lshl_b32", (rb32, t0, Imm(log2(BLOCK_Q)))), TAGS)

    # ---- context length of sequence b, clamped to 0..max_context
    bofs, ctx = ab.sreg(name="ctx_off"), ab.sreg(name="ctx")
    p.add(Instr("s_lshl_b32", (bofs, b, Imm(2))), TAGS)
    p.add(Instr("s_load_dword", (ctx, srd["context_lens"].sub(0, 2), bofs)), ("addr", "karg"))
    p.add(Instr("s_max_i32", (ctx, ctx, Imm(0))), TAGS)
    p.add(Instr("s_min_i32", (ctx, ctx, Imm(cfg.max_context))), TAGS)

    # ---- this split's key blocks: start (keys), trips (>= 1; an empty split runs once masked)
    nblk, trips = ab.sreg(name="nblk"), ab.sreg(name="kv_iters")
    p.add(Instr("s_add_i32", (nblk, ctx, Imm(BLOCK_K - 1))), TAGS)
    p.add(Instr("s_lshr_b32", (nblk, nblk, Imm(log2(BLOCK_K)))), TAGS)
    start = ab.sreg(name="kv_start")
    if S == 1:
        p.add(Instr("s_mov_b32", (start, Imm(0))), TAGS)
        p.add(Instr("s_max_i32", (trips, nblk, Imm(1))), TAGS)
    else:
        t1, sb = ab.sreg(name="nblk_r"), ab.sreg(name="split_blk")
        p.add(Instr("s_add_i32", (t1, nblk, Imm(S - 1))), TAGS)
        bps = sdiv(ab, p, t1, S, "blk_per_split")
        p.add(Instr("s_mul_i32", (sb, split, bps)), TAGS)
        p.add(Instr("s_sub_i32", (trips, nblk, sb)), TAGS)
        p.add(Instr("s_min_i32", (trips, trips, bps)), TAGS)
        p.add(Instr("s_max_i32", (trips, trips, Imm(1))), TAGS)
        p.add(Instr("s_lshl_b32", (start, sb, Imm(log2(BLOCK_K)))), TAGS)
    # dlt = ctx - T + 1 - start: token t sees keys (relative to start) < dlt + t
    dlt = ab.sreg(name="kv_lim0")
    p.add(Instr("s_sub_i32", (dlt, ctx, start)), TAGS)
    if T != 1:
        p.add(Instr("s_add_i32", (dlt, dlt, Imm(1 - T))), TAGS)
    ab.full_max = ab.sreg(name="full_max")        # last block start with no mask (kvloop)
    p.add(Instr("s_sub_i32", (ab.full_max, dlt, Imm(BLOCK_K))), TAGS)

    # ---- lane coordinates: row r -> token t, head offset g; validity
    lane, col, half, kq = (ab.vreg(name=n) for n in ("lane", "col", "half", "kq"))
    p.add(Instr("v_and_b32", (lane, Imm(63), ab.tid)), TAGS)
    p.add(Instr("v_and_b32", (col, Imm(31), lane)), TAGS)
    p.add(Instr("v_lshrrev_b32", (half, Imm(5), lane)), TAGS)
    p.add(Instr("v_lshlrev_b32", (kq, Imm(2), half)), TAGS)
    r = col
    if rb32 is not None:
        r = ab.vreg(name="row")
        p.add(Instr("v_add_u32", (r, rb32, col)), TAGS)
    t = vdiv(ab, p, r, G, "tok")
    qrow = t
    if G > 1:
        tg, g = ab.vreg(name="tok_g"), ab.vreg(name="grp")
        p.add(Instr("v_mul_u32_u24", (tg, t, imm_or_const(ab, G))), TAGS)
        p.add(Instr("v_sub_u32", (g, r, tg)), TAGS)
        qrow = ab.vreg(name="qrow")
        p.add(Instr("v_mad_u32_u24", (qrow, t, imm_or_const(ab, H), g)), TAGS)
    elif H > 1:
        qrow = ab.vreg(name="qrow")
        p.add(Instr("v_mul_u32_u24", (qrow, t, imm_or_const(ab, H))), TAGS)
    big = ab.oob = ab.vreg(name="oob")
    p.add(Instr("v_mov_b32", (big, Imm(OOB_OFFSET))), TAGS)
    valid = k.vreg("s", 2, align=2, name="row_ok")
    p.add(Instr("v_cmp_gt_u32", (valid, imm_or_const(ab, cfg.rows), r)), TAGS)

    def lane_offset(elem_off: VReg, shift: int, name: str) -> VReg:
        """(elem_off << shift) where the row is valid, else the out-of-range offset."""
        x, o = ab.vreg(name=name + "_b"), ab.vreg(name=name)
        p.add(Instr("v_lshlrev_b32", (x, Imm(shift), elem_off)), TAGS)
        p.add(Instr("v_cndmask_b32", (o, big, x, valid)), TAGS)
        return o

    kpl = cfg.k_per_lane
    dq = kq if kpl == 4 else ab.vreg(name="dq")
    if kpl != 4:
        p.add(Instr("v_lshlrev_b32", (dq, Imm(log2(kpl)), half)), TAGS)
    eq, eo = ab.vreg(name="q_e"), ab.vreg(name="o_e")
    dconst = imm_or_const(ab, D)
    p.add(Instr("v_mad_u32_u24", (eq, qrow, dconst, dq)), TAGS)
    off_q = lane_offset(eq, log2(eb), "off_q")
    p.add(Instr("v_mad_u32_u24", (eo, qrow, dconst, kq)), TAGS)
    off_o = lane_offset(eo, log2(eb), "off_o")
    off_l1 = lane_offset(qrow, 2, "off_l1")
    off_l = ab.vreg(name="off_lse")
    p.add(Instr("v_cmp_eq_u32", (vcc, Imm(0), half)), TAGS)      # lanes 0..31 store LSE
    p.add(Instr("v_cndmask_b32", (off_l, big, off_l1, vcc)), TAGS)
    tk = ab.vreg(name="tok_kq")                                  # t - kq: rem = dlt + tk
    p.add(Instr("v_sub_u32", (tk, t, kq)), TAGS)

    # ---- buffer resources of Q and the outputs: base at (b, kv_head's first head)
    head0 = ab.sreg(name="head0")
    p.add(Instr("s_mul_i32", (head0, kvh, Imm(G))), TAGS)
    rows_left = ab.sreg(name="rows_left")                        # T H - kv_head G rows
    p.add(Instr("s_sub_u32", (rows_left, Imm(T * H), head0)), TAGS)

    def row_srd(n: str, first: VReg, rbytes: int) -> None:
        srd_base(ab, p, srd[n], first, rbytes)
        p.add(Instr("s_mul_i32", (srd[n].sub(2), rows_left, Imm(rbytes))), TAGS)

    rq = ab.sreg(name="row_q")                                   # b T H + kv_head G
    p.add(Instr("s_mul_i32", (rq, b, Imm(T * H))), TAGS)
    p.add(Instr("s_add_u32", (rq, rq, head0)), TAGS)
    row_srd("q", rq, cfg.in_type.nbytes(D))
    ro = rq
    if S > 1:                                                    # (b S + split) T H + kv_head G
        ro = ab.sreg(name="row_part")
        p.add(Instr("s_mul_i32", (ro, b, Imm(S))), TAGS)
        p.add(Instr("s_add_u32", (ro, ro, split)), TAGS)
        p.add(Instr("s_mul_i32", (ro, ro, Imm(T * H))), TAGS)
        p.add(Instr("s_add_u32", (ro, ro, head0)), TAGS)
    n_o, n_l = ("o_partial", "lse_partial") if S > 1 else ("o", "lse")
    row_srd(n_o, ro, cfg.in_type.nbytes(D))
    row_srd(n_l, ro, 4)

    # ---- K/V geometry (dense or paged) and the V^T tile's LDS addresses
    kv, vt = cache_source(ab, srd, b, ctx, start, kvh, nblocks_arg, dq, lane, col, half)

    # ---- bperm (gfx942 cross-half exchange), Q into registers, the softmax state
    bperm, qf, st_, v_post = loop_state(ab, lane, off_q, srd["q"], scale, sc)
    rem = ab.vreg(name="krem_lane")

    def mask_limit(block) -> None:
        block.add(Instr("v_add_u32", (rem, dlt, tk)), ("softmax", "mask"))
    ab.mask_limit = mask_limit

    cache_loop(ab, kv, vt, qf, st_, trips, rem, bperm)
    sm.epilogue(ab, k.epilogue, st_, bperm, off_o, off_l, srd[n_o], srd[n_l], v_post)
    return k
