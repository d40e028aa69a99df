"""Online softmax of the attention template (fp32, base 2) and its epilogue.

Per key block, on the S^T accumulator (lane l: query l % 32, keys 8 (r / 4) + 4 (l / 32) + r % 4,
see ``asmgen.kinds.attention.template``):

  c     = scale * log2(e)                  (log2(e) folded into the scale: v_exp_f32 is 2^x)
  S_r   = -inf where key >= the lane's limit (seqlen_k, and the causal diagonal; masked bodies)
  m_new = max(m, max_r S_r), raw scores (8 v_max3_f32 over 16 scores and m), then with lane
          l ^ 32 too (``combine_halves``); mu = m_new, or 0 while m_new = -inf (masked bodies
          only: a row that saw no key yet; avoids -inf - -inf)
  alpha = 2^(fma(m, c, -c mu)) (the ping-pong loop: 2^((m - mu) c), exactly 1 when m = mu,
          ``TailOptions``); p_r = 2^(fma(S_r, c, -c mu)): one v_pk_fma_f32 per two scores
          and exactly one v_exp_f32 per score; l = l * alpha + sum_r p_r, kept as two partial
          sums per lane (one v_pk_fma_f32 and seven v_pk_add_f32); -c mu and alpha each
          sit in a register pair beside another value of the block, broadcast to both halves
          of the packed ops by op_sel / op_sel_hi (``both_from``: no copies)
  O^T  *= alpha (v_pk_mul_f32, 2 per op); P^T operand of k-step s = pack(p_4s .. p_4s+3) in
          f16/bf16 (round to nearest even; gfx950 v_cvt_pk_*_f32, gfx942 has no packed RNE
          conversion to bf16 or f16: v_cvt_pkrtz_f16_f32 truncates)

fp8 (``cfg.fp8``): P is quantised for the 32x32x16 fp8 MFMA as P x F, F the fp8 format's
largest finite value (240 FNUZ, 448 OCP; the Wave plan's 1.0 / F offset, so the small
probabilities keep the format's normal range): F is folded into the exponent, p'_r =
2^(fma(S_r, c, -c mu + log2 F)) (one v_pk_add_f32 per block), while alpha keeps 2^(c m - c mu).
The running sum adds the unquantised p'_r, so l_tot = F l and the normaliser 1 / l_tot x v_scale
undoes the offset (LSE subtracts log2 F). p'_r <= F (m is the row max; v_exp_f32's rounding
stays far below the half-ulp past F where RNE would give NaN), so the non-saturating
v_cvt_pk_fp8_f32 (RNE) needs no clamp: two scores per convert, the dword's two words in place
over the scores (the convert reads its destination), k-step s = registers 8 s, 8 s + 1.
c = scale x q_scale x k_scale x log2(e) (the template).

Epilogue: l_tot = l0 + l1 + (l0 + l1)(lane ^ 32); O = O^T / l_tot (0 when l_tot = 0: a row that
saw no key); LSE = ln 2 * (c mu + log2 l_tot) (natural log; = -inf when l_tot = 0, design.md).
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass

from isa.instr import Instr
from isa.operands import Imm, Special

from ...ir import VReg

NEG_INF = 0xFF800000
TAGS = ("softmax",)
EXP_LAG = 1     # pairs of exponentials between a pair's v_exp_f32 and its sum / pack


def f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


# the per-block pairs of ``_softmax_tail``: dword NMU of {-c mu, m_new} feeds the exponents,
# dword ALPHA of {d, alpha} the running sum and the O rescale, each in both halves of a packed
# op (``both_from``)
NMU, ALPHA = 0, 1


def both_from(nsrc: int, src: int, dword: int) -> tuple:
    """VOP3P modifiers making source ``src`` of a packed f32 op (``nsrc`` sources) feed both
    halves from dword ``dword`` of its register pair, the other sources as usual (CDNA3 ISA
    guide, VOP3P: the low result reads dword op_sel[i] of source i, the high one dword
    op_sel_hi[i]; ``isa.emu.valu_float``). Two values broadcast this way share one pair, both
    dwords written: no copy of either into a second dword."""
    sel = tuple(dword if i == src else 0 for i in range(nsrc))
    hi = tuple(dword if i == src else 1 for i in range(nsrc))
    return ((("op_sel", sel),) if any(sel) else ()) + (("op_sel_hi", hi),)


@dataclass
class SoftmaxState:
    m: VReg             # running max of the raw scores S (unscaled), -inf until a key is seen
    l: VReg             # running partial sums: two per lane (a pair, v_pk_fma_f32)
    o: list[VReg]       # O^T accumulators, one 16-register tuple per 32 head dims
    c: VReg             # scale * log2(e)
    ninf: VReg          # -inf in every lane
    scale_v: VReg       # the scale argument copied to a VGPR (VOP2 src1)
    c2: VReg            # {c, c} (VOP3P src of v_pk_fma_f32)
    negc: VReg          # -c
    poff2: VReg | None = None    # fp8: {log2 F, log2 F} (the P offset, module docstring)


def init_state(ab, head_dim: int, agpr_blocks: int = 0) -> SoftmaxState:
    """Softmax state and the zeroed O^T accumulators, one 16-register tuple per 32 head dims:
    the last ``agpr_blocks`` in AccVGPRs, the others in VGPRs (head_dim 256: its 128 O^T
    registers per lane leave no room for Q, S^T and the operands in the 256 ArchVGPRs; the MFMA
    takes src C / vdst in AGPRs, cdna-facts section 1)."""
    p = ab.k.prologue
    tags = ("init",)
    ninf, m, ts, c, negc = (ab.vreg(name=n) for n in ("ninf", "m", "scale_v", "scale_l2e",
                                                      "neg_scale_l2e"))
    l2 = ab.k.vreg("v", 2, align=2, name="l2")
    c2 = ab.k.vreg("v", 2, align=2, name="scale_l2e2")
    p.add(Instr("v_mov_b32", (ninf, Imm(NEG_INF))), tags)
    p.add(Instr("v_mov_b32", (m, Imm(NEG_INF))), tags)
    p.add(Instr("v_mov_b32", (l2.sub(0), Imm(0))), tags)
    p.add(Instr("v_mov_b32", (l2.sub(1), Imm(0))), tags)
    o = []
    nb = head_dim // 32
    for db in range(nb):
        acc = "a" if db >= nb - agpr_blocks else "v"
        t = ab.k.vreg(acc, 16, align=4, name=f"oT{db}")
        for r in range(16):
            p.add(Instr("v_accvgpr_write_b32" if acc == "a" else "v_mov_b32", (t.sub(r), Imm(0))),
                  tags)
        o.append(t)
    return SoftmaxState(m, l2, o, c, ninf, ts, c2, negc)


def p_offset_log2(cfg) -> float:
    """log2 of the fp8 P offset F (the format's largest finite value)."""
    return math.log2(cfg.in_type.max_finite)


def init_p_offset(ab, st: SoftmaxState) -> None:
    """fp8: the pair {log2 F, log2 F} added to -c mu for P (module docstring)."""
    p = ab.k.prologue
    st.poff2 = ab.k.vreg("v", 2, align=2, name="p_off2")
    bits = f32_bits(p_offset_log2(ab.cfg))
    for i in range(2):
        p.add(Instr("v_mov_b32", (st.poff2.sub(i), Imm(bits))), ("init",))


def set_scale(ab, st: SoftmaxState, scale_sgpr: VReg) -> None:
    """c = scale * log2(e) (VOP2: the literal goes in src0, the VGPR in src1), {c, c} and -c."""
    p = ab.k.prologue
    p.add(Instr("v_mov_b32", (st.scale_v, scale_sgpr)), ("init",))
    p.add(Instr("v_mul_f32", (st.c, Imm(f32_bits(math.log2(math.e))), st.scale_v)), ("init",))
    p.add(Instr("v_mov_b32", (st.c2.sub(0), st.c)), ("init",))
    p.add(Instr("v_mov_b32", (st.c2.sub(1), st.c)), ("init",))
    p.add(Instr("v_mul_f32", (st.negc, Imm(f32_bits(-1.0)), st.c)), ("init",))


@dataclass(frozen=True)
class TailOptions:
    """How the ping-pong loop (``kinds.attention.pingpong``) takes the softmax tail.

    ``exact_alpha``: alpha = 2^((m - mu) c) (``v_sub_f32``, ``v_mul_f32``) instead of
    2^(fma(m, c, -c mu)): exactly 1 when a row's max did not change (m = mu), where the fma
    form leaves the rounding error of c mu in the exponent (alpha within an ulp or two of 1).
    ``defer_rescale``: the O *= alpha multiplies are not emitted; ``online_softmax`` returns
    the alpha pair too, for a rescale the caller branches around (``rescale``).
    ``p_dst``: the registers the P^T operands are packed into (the loop-carried ones), instead
    of fresh ones (16-bit types; fp8 packs in place)."""

    exact_alpha: bool = False
    defer_rescale: bool = False
    p_dst: tuple | None = None


def online_softmax(ab, body, st: SoftmaxState, S: VReg, rem: VReg, kb: VReg,
                   bperm: VReg, mask: bool | None = None, p_scale=None,
                   opts: TailOptions | None = None):
    """Append one block's softmax; returns the P^T operand registers per k-step (with
    ``opts.defer_rescale`` the pair (operands, alpha pair)). ``mask``
    (default ``AttentionConfig.key_mask``): mask the scores per element (``kvloop``).
    ``p_scale``: 16 f32 factors in the scores' order multiplying P after the row sum, before
    the pack (decode's per-token v_scale): ``(one(r), pair(r))`` giving register r and the
    pair r, r + 1."""
    cfg = ab.cfg
    vcc = Special("vcc")
    opts = opts or TailOptions()
    if not (cfg.key_mask if mask is None else mask):    # every key of this block is visible
        return _softmax_tail(ab, body, st, S, bperm, guard=False, p_scale=p_scale, opts=opts)
    # mask limit relative to this block: key offset c_r is visible iff c_r < rem - kb
    rb = ab.vreg(name="krem_blk")
    body.add(Instr("v_subrev_u32", (rb, kb, rem)), ("softmax", "mask"))
    # raw scores, masked (the scale is applied by the max and the fma below)
    xs = ab.k.vreg("v", 16, align=2, name="sm")
    for r in range(16):
        c_r = (r // 4) * 8 + r % 4
        body.add(Instr("v_cmp_lt_i32", (vcc, Imm(c_r), rb)), ("softmax", "mask"))
        body.add(Instr("v_cndmask_b32", (xs.sub(r), st.ninf, S.sub(r), vcc)), ("softmax", "mask"))
    return _softmax_tail(ab, body, st, xs, bperm, guard=True, p_scale=p_scale, opts=opts)


def tri_init(ab, body, st: SoftmaxState, S: VReg, tri: list) -> VReg:
    """The causal diagonal block's mask as the QK product's initial value (``kvloop``): S^T
    register r = -inf in the lanes of lane mask ``tri[r]`` (SGPR pairs,
    ``attention.template.tri_masks``), 0 elsewhere, before the first MFMA, which adds its
    products to it (exact: -inf + finite = -inf, 0 + x = x). Off the scores' critical path (it
    reads no score), and every row sees key 0 of that block: its softmax needs no guard."""
    for r in range(16):
        body.add(Instr("v_cndmask_b32", (S.sub(r), Imm(0), st.ninf, tri[r]), encoding="e64"),
                 ("softmax", "mask"))
    return S


def _softmax_tail(ab, body, st: SoftmaxState, xs: VReg, bperm: VReg, guard: bool,
                  p_scale=None, opts: TailOptions = TailOptions()):
    """Everything after the mask: row max, exponentials, running sum, O rescale, P packing.
    ``xs``: the 16 (masked) raw scores as one tuple (pairs feed v_pk_fma_f32). ``guard``: a row
    may have seen no key yet (masked blocks), so its max can be -inf."""
    cfg = ab.cfg
    vcc = Special("vcc")
    vr = ab.vreg
    # row max over the 16 scores and the running max m (equal in lanes l and l ^ 32): eight
    # v_max3_f32 in-lane, then the partner lane. c > 0 and rounding is monotonic, so the max
    # of the raw scores scaled once equals the max of the scaled scores.
    lvl = [xs.sub(r) for r in range(16)] + [st.m]
    while len(lvl) > 1:     # a queue: 17 values take 8 v_max3_f32
        t = vr(name="mx")
        if len(lvl) >= 3:
            body.add(Instr("v_max3_f32", (t, *lvl[:3])), ("softmax", "rowmax"))
        else:
            body.add(Instr("v_max_f32", (t, *lvl[:2])), ("softmax", "rowmax"))
        lvl = lvl[3:] + [t]
    # two pairs, every dword written: {nmu, m_new} (the exponents read dword NMU) and
    # {d, alpha} (the running sum and the O rescale read dword ALPHA; d = alpha's exponent),
    # each broadcast to both halves of the packed ops (``both_from``): no copies, and the
    # exponents do not wait for alpha's v_exp_f32
    nmu2 = ab.k.vreg("v", 2, align=2, name="m_neg_new")
    alpha2 = ab.k.vreg("v", 2, align=2, name="alpha_pair")
    mn = combine_halves(ab, body, lvl[0], "v_max_f32", bperm, ("softmax", "rowmax"),
                        consume=True, out=nmu2.sub(1 - NMU))
    mu = mn
    if guard:   # mu = m_new, or 0 while m_new = -inf (avoids -inf - -inf)
        mu = vr(name="m_use")
        body.add(Instr("v_cmp_neq_f32", (vcc, st.ninf, mn)), TAGS)
        body.add(Instr("v_cndmask_b32", (mu, Imm(0), mn, vcc)), TAGS)
    # nmu = -c mu; alpha = 2^(c m - c mu) = 2^(fma(m, c, nmu)) (0 while m = -inf)
    body.add(Instr("v_mul_f32", (nmu2.sub(NMU), st.negc, mu)), TAGS)
    d = alpha2.sub(1 - ALPHA)
    alpha = alpha2.sub(ALPHA)
    if opts.exact_alpha:    # (m - mu) c: 0, so alpha = 2^0 = 1 exactly, when m = mu
        body.add(Instr("v_sub_f32", (d, st.m, mu)), TAGS)
        body.add(Instr("v_mul_f32", (d, d, st.c)), TAGS)
    else:
        body.add(Instr("v_fma_f32", (d, st.m, st.c, nmu2.sub(NMU))), TAGS)
    body.add(Instr("v_exp_f32", (alpha, d)), ("softmax", "exp"))
    body.add(Instr("v_mov_b32", (st.m, mn)), TAGS)
    # p_r = 2^(fma(S_r, c, -c mu)): one v_pk_fma_f32 per two scores, then one v_exp_f32 per
    # score, both in place over the scores (a temporary tuple of this block: no new VGPRs);
    # a masked S_r = -inf gives 0
    ps = xs
    nmp = nmu2
    if st.poff2 is not None:    # fp8: p' = p F, F folded into the exponent (module docstring)
        nmp = ab.k.vreg("v", 2, align=2, name="m_negp2")
        body.add(Instr("v_pk_add_f32", (nmp, nmu2, st.poff2), both_from(2, 0, NMU)), TAGS)
    for r in range(0, 16, 2):
        body.add(Instr("v_pk_fma_f32", (ps.sub(r, 2), xs.sub(r, 2), st.c2, nmp),
                       () if nmp is not nmu2 else both_from(3, 2, NMU)), TAGS)
    # l = l * alpha + sum p, two partial sums per lane: one v_pk_fma_f32, then a chain of
    # v_pk_add_f32 into l (no temporaries: VGPRs bound the waves per SIMD). Program order puts
    # pair j's sum (and, 16-bit P without a p_scale, its pack) after the exponentials of pair
    # j + 1 (``EXP_LAG``): the list scheduler follows program order among equal ranks and does
    # not model the v_exp_f32 latency, so a consumer right behind its v_exp_f32 would stall
    # the wave (cdna-timing section 3: 16 clk) and take a wait state (trans -> VALU)
    kpl = cfg.k_per_lane
    per = cfg.in_type.per_dword      # packed P values per register (2: the pack below is 16-bit)
    eager_pack = st.poff2 is None and p_scale is None
    pf = []

    def pair_tail(j: int) -> None:
        r = 2 * j
        if r == 0:
            body.add(Instr("v_pk_fma_f32", (st.l, st.l, alpha2, ps.sub(0, 2)),
                           both_from(3, 1, ALPHA)), ("softmax", "rowsum"))
        else:
            body.add(Instr("v_pk_add_f32", (st.l, st.l, ps.sub(r, 2))), ("softmax", "rowsum"))
        if eager_pack:      # k-step r // kpl, word (r % kpl) // per of its P^T operand
            s_, w = r // kpl, (r % kpl) // per
            if w == 0:
                pf.append(opts.p_dst[s_] if opts.p_dst is not None else ab.k.vreg(
                    "v", kpl // per, align=2 if kpl == 4 else 4, name=f"pT{s_}"))
            _pack(ab, body, pf[s_].sub(w), ps.sub(r), ps.sub(r + 1), cfg.dtype)

    for j in range(8):
        for r in (2 * j, 2 * j + 1):
            body.add(Instr("v_exp_f32", (ps.sub(r), ps.sub(r))), ("softmax", "exp"))
        if j >= EXP_LAG:
            pair_tail(j - EXP_LAG)
    for j in range(8 - EXP_LAG, 8):
        pair_tail(j)
    if not opts.defer_rescale:
        rescale(body, st, alpha2, ab)
    if eager_pack:
        return (pf, alpha2) if opts.defer_rescale else pf
    if p_scale is not None:
        _scale_p(body, ps, p_scale, guard)
    # P^T operands
    # k-step s of the x8 MFMA takes p_4s..p_4s+3 (2 registers); of the gfx950 x16 MFMA
    # p_8s..p_8s+7 (4 registers): keys 16 s + 4 h + {0..3, 8..11}, the order V^T is read in
    if st.poff2 is not None:         # fp8: k-step s = registers 8 s, 8 s + 1, in place
        for s in range(16 // kpl):
            for w in range(2):
                dst, a = ps.sub(kpl * s + w), kpl * s + 4 * w
                for hi in range(2):
                    body.add(Instr("v_cvt_pk_fp8_f32", (dst, ps.sub(a + 2 * hi),
                                                        ps.sub(a + 2 * hi + 1)),
                                   (("op_sel", (0, 0, 1)),) if hi else ()), ("softmax", "pack"))
            pf.append(ps.sub(kpl * s, 2))
        return (pf, alpha2) if opts.defer_rescale else pf
    for s in range(16 // kpl):
        f = (opts.p_dst[s] if opts.p_dst is not None
             else ab.k.vreg("v", kpl // per, align=2 if kpl == 4 else 4, name=f"pT{s}"))
        for w in range(kpl // per):
            lo, hi = ps.sub(kpl * s + per * w), ps.sub(kpl * s + per * w + 1)
            _pack(ab, body, f.sub(w), lo, hi, cfg.dtype)
        pf.append(f)
    return (pf, alpha2) if opts.defer_rescale else pf


def rescale(body, st: SoftmaxState, alpha2: VReg, ab=None) -> None:
    """O^T *= alpha, two accumulators per packed-f32 multiply (VOP3P, gfx940+); an AccVGPR
    tuple (head_dim 256, ``init_state``) through VGPR temporaries of ``ab``."""
    for o in st.o:
        for r in range(0, 16, 2):
            if o.file == "a":   # VALU takes no AccVGPR operand (only MFMAs, memory ops and
                # v_accvgpr_*; CDNA3 ISA guide, AccVGPRs; isa spec tables): out, scale, back
                x = ab.k.vreg("v", 2, align=2, name="o_rs")
                for i in range(2):
                    body.add(Instr("v_accvgpr_read_b32", (x.sub(i), o.sub(r + i))),
                             ("softmax", "rescale"))
                body.add(Instr("v_pk_mul_f32", (x, alpha2, x), both_from(2, 0, ALPHA)),
                         ("softmax", "rescale"))
                for i in range(2):
                    body.add(Instr("v_accvgpr_write_b32", (o.sub(r + i), x.sub(i))),
                             ("softmax", "rescale"))
                continue
            body.add(Instr("v_pk_mul_f32", (o.sub(r, 2), alpha2, o.sub(r, 2)),
                         both_from(2, 0, ALPHA)),
                     ("softmax", "rescale"))


def rescale_unless_stable(ab, body, st_, alpha2, phase=frozenset()):
    """O *= alpha only when some row's max changed: ``v_cmp_neq_f32 vcc, 1.0, alpha`` then
    ``s_cbranch_vccz`` over the multiplies (VCCZ: no lane's alpha differs from 1; lanes l and
    l ^ 32 hold one row, so the test covers the wave's 32 rows). Skipping is exact: alpha is
    exactly 1 there (``TailOptions.exact_alpha``), x * 1.0 = x for every finite x and the
    kernel keeps f32 denormals (``float_denorm_mode_32`` 3). No wait states between a VALU
    write of VCC and s_cbranch_vccz on gfx9 (the VCCZ read bug is SI/CI's: LLVM
    GCNSubtarget::hasReadVCCZBug). ``phase``: tags added to the rescale's nodes (the ping-pong
    recipe's). Returns the block after the branch (the caller's ``body`` goes on there). Used
    by the ping-pong loop and the multi-buffered one at head_dim 256 (``pipe``)."""
    k = ab.k
    resc = k.block(f"{body.name}_rescale")
    post = k.block(f"{body.name}_stable")
    k.branch(body, "s_cbranch_vccz", post,
             Instr("v_cmp_neq_f32", (Special("vcc"), Imm(f32_bits(1.0)), alpha2.sub(ALPHA))))
    rescale(resc, st_, alpha2, ab)
    for n in resc.nodes:
        n.tags = n.tags | phase
    return post


def _scale_p(body, ps: VReg, f, guard: bool) -> None:
    """p_r *= f_r in f32. Masked bodies (``guard``): a masked key's p is 0 and its factor may be
    a stale NaN, so v_mul_legacy_f32 (0 x anything = 0, the ISA guide's DX9 rule); else two per
    v_pk_mul_f32."""
    if guard:
        for r in range(16):
            body.add(Instr("v_mul_legacy_f32", (ps.sub(r), ps.sub(r), f[0](r))),
                     ("softmax", "vscale"))
        return
    for r in range(0, 16, 2):
        body.add(Instr("v_pk_mul_f32", (ps.sub(r, 2), ps.sub(r, 2), f[1](r))),
                 ("softmax", "vscale"))


def combine_halves(ab, block, x: VReg, op: str, bperm: VReg, tags, consume: bool = False,
                   out: VReg | None = None) -> VReg:
    """op(x, x of lane l ^ 32) in every lane: the two lanes holding one query's keys.
    gfx950: ``v_permlane32_swap_b32`` on two copies (VALU only; it swaps lanes 32..63 of the
    first with lanes 0..31 of the second); gfx942: ``ds_bpermute_b32`` from byte address
    4 (l ^ 32) (LDS hardware, no LDS memory). DPP row ops and ds_swizzle stay within 32 lanes.
    ``consume``: ``x`` is a temporary read nowhere else, so the swap may overwrite it (one
    copy instead of two). ``out``: the register to write (else a new one)."""
    out = out or ab.vreg(name="xl_out")
    if ab.cfg.target.has("v_permlane32_swap_b32"):
        a, b = x if consume else ab.vreg(name="xl_a"), ab.vreg(name="xl_b")
        if not consume:
            block.add(Instr("v_mov_b32", (a, x)), tags)
        block.add(Instr("v_mov_b32", (b, x)), tags)
        block.add(Instr("v_permlane32_swap_b32", (a, b)), tuple(tags) + ("xlane",))
        block.add(Instr(op, (out, a, b)), tags)
        return out
    p = ab.vreg(name="xl_p")
    # ds_bpermute moves data between lanes through the LDS crossbar without touching LDS memory:
    # its own region keeps it from aliasing (and waiting for) the K/V buffers' writes and DMA
    block.add(Instr("ds_bpermute_b32", (p, bperm, x)), tuple(tags) + ("xlane",),
              lds_read="xlane")
    block.add(Instr(op, (out, p, x)), tags)
    return out


def _pack(ab, body, dst, lo, hi, dtype: str) -> None:
    """dst = {lo, hi} as two f16/bf16 values, round to nearest even (p is finite, in [0, 1])."""
    tags = ("softmax", "pack")
    if ab.cfg.target.has(f"v_cvt_pk_{dtype}_f32"):  # CDNA4 packed conversions, RNE (MODE default)
        body.add(Instr(f"v_cvt_pk_{dtype}_f32", (dst, lo, hi)), tags)
        return
    if dtype == "f16":
        a, b = ab.vreg(name="h_lo"), ab.vreg(name="h_hi")
        body.add(Instr("v_cvt_f16_f32", (a, lo)), tags)
        body.add(Instr("v_cvt_f16_f32", (b, hi)), tags)
        body.add(Instr("v_pack_b32_f16", (dst, a, b)), tags)
        return
    rs = []
    for x in (lo, hi):
        bit, r = ab.vreg(name="bf_bit"), ab.vreg(name="bf_r")
        body.add(Instr("v_bfe_u32", (bit, x, Imm(16), Imm(1))), tags)
        body.add(Instr("v_add3_u32", (r, x, bit, ab.const(0x7FFF))), tags)
        rs.append(r)
    # high halves: byte selectors 2,3 of src1 (lo) then 2,3 of src0 (hi)
    body.add(Instr("v_perm_b32", (dst, rs[1], rs[0], ab.const(0x07060302))), tags)


def epilogue(ab, e, st: SoftmaxState, bperm, off_o, off_l, srd_o, srd_lse,
             post=None) -> None:
    """O = P V / l (times ``post``, a VGPR factor, when given: decode's fp8 v_scale) and LSE."""
    cfg = ab.cfg
    vcc = Special("vcc")
    vr = ab.vreg
    tags = ("epi",)
    rc, inv = vr(name="l_rcp"), vr(name="l_inv")
    ls = vr(name="l_sum")
    e.add(Instr("v_add_f32", (ls, st.l.sub(0), st.l.sub(1))), tags)
    lt = combine_halves(ab, e, ls, "v_add_f32", bperm, tags, consume=True)
    e.add(Instr("v_rcp_f32", (rc, lt)), tags)
    e.add(Instr("v_cmp_lt_f32", (vcc, Imm(0), lt)), tags)
    e.add(Instr("v_cndmask_b32", (inv, Imm(0), rc, vcc)), tags)
    if post is not None:
        e.add(Instr("v_mul_f32", (inv, post, inv)), tags)
    # LSE = ln2 * (c mu + log2 l_tot) (m holds raw scores: c mu is the max in log2 units)
    mu, lg, t, lse = vr(name="e_mu"), vr(name="e_lg"), vr(name="e_t"), vr(name="lse")
    e.add(Instr("v_cmp_neq_f32", (vcc, st.ninf, st.m)), tags)
    e.add(Instr("v_cndmask_b32", (mu, Imm(0), st.m, vcc)), tags)
    e.add(Instr("v_log_f32", (lg, lt)), tags)
    e.add(Instr("v_fma_f32", (t, mu, st.c, lg)), tags)
    if st.poff2 is not None:     # fp8: l_tot = F l (module docstring)
        t2 = vr(name="e_t2")
        e.add(Instr("v_add_f32", (t2, Imm(f32_bits(-p_offset_log2(cfg))), t)), tags)
        t = t2
    e.add(Instr("v_mul_f32", (lse, Imm(f32_bits(math.log(2.0))), t)), tags)
    e.add(Instr("buffer_store_dword", (lse, off_l, srd_lse, Imm(0)), (("offen", True),)),
          ("epi", "store"))
    # O: lane l holds dims 32 db + 8 g + 4 (l / 32) + 0..3 of query col: one 8-byte store each
    out = getattr(cfg, "out_dtype", cfg.dtype)

    def scaled(dst, o, r) -> None:
        """dst = inv * O^T register r (an AccVGPR is read out first: VALU reads no AGPR)."""
        src = o.sub(r)
        if o.file == "a":
            e.add(Instr("v_accvgpr_read_b32", (dst, src)), tags)
            src = dst
        e.add(Instr("v_mul_f32", (dst, inv, src)), tags)

    blk = e
    ordered = len(st.o) >= 8 or any(o.file == "a" for o in st.o)
    for db, o in enumerate(st.o):
        for g in range(4):
            if ordered:   # head_dim 256: one store after the other (falling node priorities),
                # so the VGPR temporaries of all 128 values are never live at once
                e = _Prioritised(blk, -(4 * db + g) - 1)
            if out == "f32":         # fp8 kernels' f32 O: the four products stored as they are
                data = ab.k.vreg("v", 4, align=4, name="o_out")
                for i in range(4):
                    scaled(data.sub(i), o, 4 * g + i)
                e.add(Instr("buffer_store_dwordx4", (data, off_o, srd_o, Imm(0)),
                            (("offen", True),) + ((("offset", 128 * db + 32 * g),)
                                                  if db or g else ())), ("epi", "store"))
                continue
            data = ab.k.vreg("v", 2, align=2, name="o_out")
            ys = []
            for i in range(4):
                y = vr(name="o_y")
                scaled(y, o, 4 * g + i)
                ys.append(y)
            _pack(ab, e, data.sub(0), ys[0], ys[1], out)
            _pack(ab, e, data.sub(1), ys[2], ys[3], out)
            off = 2 * (32 * db + 8 * g)      # 16-bit O
            e.add(Instr("buffer_store_dwordx2", (data, off_o, srd_o, Imm(0)),
                        (("offen", True),) + ((("offset", off),) if off else ())), ("epi", "store"))


class _Prioritised:
    """A block whose ``add`` gives every node one scheduling priority (higher issues first;
    ``asmgen.sched.list_sched``: the default order is node priority, then height)."""

    def __init__(self, block, priority: int):
        self.block, self.priority = block, priority

    def add(self, instr, tags=(), **kw):
        return self.block.add(instr, tags, priority=self.priority, **kw)
