"""The KV-cache loop of the one-wave cache-reading templates (``decode`` and ``extend``): K/V of
each 32-key block from a cache source (``kvload.DenseKV`` or ``paged.PagedKV``: ``load`` /
``advance``; ``load`` gives (K operands, V rows, per-token scales or None)), V transposed through
the one LDS buffer (``attention.vtile``), S^T = K Q^T, the per-token k scales (``kvscale``), the
online softmax and O^T += V^T P^T (``attention.softmax``), over ``attention.kvloop`` (the unmasked
body, and the masked one for blocks past ``ab.full_max``; ``ab.mask_limit`` sets the per-lane
key limit ``rem`` there).

With ``prefetch`` = 1 block 0 is loaded in the prologue and the next block's K operands, V rows
(and scales) are loaded right after this block's QK MFMAs, into the same registers, overlapping
the softmax and the PV MFMAs. fp8 caches (``cfg.kv_fp8``) are widened at the top of each block
(``kvload.dequant``), so the prefetch keeps loading raw bytes.
"""
from __future__ import annotations

from isa.instr import Instr
from isa.operands import Imm

from ..attention import ktile, vtile
from ..attention import softmax as sm
from ..attention.kvloop import kv_loop
from ..common.buffers import log2
from . import kvscale
from .config import BLOCK_K
from .kvload import DenseKV, dequant
from .paged import PagedKV
from .resource import TAGS


def cache_source(ab, srd, b, ctx, start, kvh, nblocks, dq, lane, col, half):
    """(K/V source, V^T tile) of sequence ``b`` and KV head ``kvh``: the V^T tile's LDS
    addresses (``attention.vtile``), then ``DenseKV`` or ``PagedKV`` from key ``start`` (None:
    key 0, an SGPR set here) over ``ctx`` keys, with the per-token scales' resources when
    ``kv_scale`` is "token"; ``dq``: the lane's first head-dim element."""
    cfg, k, p = ab.cfg, ab.k, ab.k.prologue
    kvh_off = ab.sreg(name="kvh_off")                            # kv_head D bytes into a row
    p.add(Instr("s_mul_i32", (kvh_off, kvh, Imm(cfg.kv_type.nbytes(cfg.head_dim)))), TAGS)
    dqb = dq
    if cfg.kv_type.nbytes(1) > 1:                                # fp8: one byte per element
        dqb = ab.vreg(name="dq_b")
        p.add(Instr("v_lshlrev_b32", (dqb, Imm(log2(cfg.kv_type.nbytes(1))), dq)), TAGS)
    vt = vtile.setup(ab, lane, col, half)
    k.lds_bytes = cfg.lds_bytes
    if start is None:
        start = ab.sreg(name="kv_start")
        p.add(Instr("s_mov_b32", (start, Imm(0))), TAGS)
    if cfg.paged:
        kv = PagedKV(ab, srd, b, ctx, start, kvh_off, nblocks, col, dqb, lane)
    else:
        kv = DenseKV(ab, srd, b, ctx, start, kvh_off, col, dqb, lane)
    if cfg.token_scales:
        kv.token_scales(kvh, half)
    return kv, vt


def loop_state(ab, lane, off_q, srd_q, scale, sc: dict):
    """(bperm, Q operands, softmax state, v_post) before the loop: gfx942's cross-half
    ``ds_bpermute`` address (None where ``v_permlane32_swap_b32`` exists), Q into registers
    (``attention.ktile.load_q``), the online softmax's state with its scale (per-tensor fp8
    scales folded: ``fold_tensor_scales``)."""
    cfg, p = ab.cfg, ab.k.prologue
    bperm = None
    if not cfg.target.has("v_permlane32_swap_b32"):
        xl, bperm = ab.vreg(name="lane_x32"), ab.vreg(name="bperm")
        p.add(Instr("v_xor_b32", (xl, Imm(32), lane)), TAGS)
        p.add(Instr("v_lshlrev_b32", (bperm, Imm(2), xl)), TAGS)
    qf = ktile.load_q(p, ab, cfg, off_q, srd_q)
    st_ = sm.init_state(ab, cfg.head_dim)
    scale, v_post = fold_tensor_scales(ab, scale, sc)
    sm.set_scale(ab, st_, scale)
    return bperm, qf, st_, v_post


def fold_tensor_scales(ab, scale, kv_sc: dict):
    """(softmax scale, v_post) with the per-tensor scales in ``kv_sc`` (SGPRs by name:
    ``resource.tensor_scales``): k_scale
    folded into the softmax scale (scale x k_scale, f32: S = Q (k_scale K8)^T scale) and v_scale
    into the final normalisation (the epilogue's 1 / l times v_scale, f32: O = v_scale / l P V8),
    so the MFMAs see the cache values exactly; (scale, None) without them."""
    if "k_scale" not in kv_sc:
        return scale, None
    p = ab.k.prologue
    ks, v_post = ab.vreg(name="kscale"), ab.vreg(name="v_scale")
    p.add(Instr("v_mov_b32", (ks, kv_sc["k_scale"])), ("init",))
    p.add(Instr("v_mul_f32", (ks, scale, ks)), ("init",))
    p.add(Instr("v_mov_b32", (v_post, kv_sc["v_scale"])), ("init",))
    return ks, v_post


def cache_loop(ab, kv, vt, qf, st_, trips, rem, bperm) -> None:
    """The prologue's block-0 prefetch and the KV loop (see the module docstring); ``qf``: Q's
    B operands per k-step, ``st_``: the softmax state, ``trips``: key blocks (SGPR, >= 1)."""
    cfg, k = ab.cfg, ab.k
    p = k.prologue
    D = cfg.head_dim
    ksteps = D // cfg.mfma_k
    kb = ab.sreg(name="kbase")                                   # keys from start, this block
    p.add(Instr("s_mov_b32", (kb, Imm(0))), TAGS)
    pre = None
    if cfg.prefetch:
        pre = kv.load(p, kb)
        kv.advance(p)

    def emit(body, mask: bool) -> None:
        # prefetch: the next block's scales overwrite these after their last reads (apply_k;
        # the P scaling: ``kvscale.Loader``)
        kf, vrows, sc = pre if cfg.prefetch else kv.load(body, kb)
        if cfg.kv_fp8:
            kf, vrows = dequant(ab, body, kf, vrows)
        vtile.store_rows(ab, body, vt, vrows)
        body.add(Instr("s_setprio", (Imm(1),)), ("setprio", "setprio_hi"))
        Sr = k.vreg("v", 16, align=4, name="sT")
        for st in range(ksteps):
            body.add(Instr(cfg.mfma, (Sr, kf[st], qf[st], Sr if st else Imm(0))), ("mfma", "mfma_qk"))
        if sc is not None:
            kvscale.apply_k(ab, body, Sr, sc[0])
        if cfg.prefetch:
            kv.load(body, kb, dst=pre, ahead=True)
            kv.advance(body)
        vsc = None if sc is None else kvscale.factors(sc[1])
        pf = sm.online_softmax(ab, body, st_, Sr, rem, kb, bperm, mask, p_scale=vsc)
        if vsc is not None and cfg.prefetch:
            kv.scales.flush(body)               # the next block's v scales, after P read these
        vf = vtile.read_operands(ab, body, vt)
        for st in range(BLOCK_K // cfg.mfma_k):
            for db in range(D // 32):
                o = st_.o[db]
                body.add(Instr(cfg.mfma, (o, vf[st, db], pf[st], o)), ("mfma", "mfma_pv"))
        if not cfg.prefetch:
            kv.advance(body)
        body.add(Instr("s_add_u32", (kb, kb, Imm(BLOCK_K))), ("addr", "kv_adv"))
        body.add(Instr("s_setprio", (Imm(0),)), ("setprio", "setprio_lo"))

    kv_loop(ab, trips, kb, ab.full_max, emit)
