"""Flash-attention forward template: ``AttentionConfig`` -> tagged ``KernelIR``.

Each wave owns ``BLOCK_Q`` = 32 query rows of one (batch, head); a workgroup of ``waves`` waves
owns 32 ``waves`` consecutive rows (wave w: rows 32 w ..), workgroup ids x = Q-block, y = head,
z = batch; causal kernels take (head, batch, Q-blocks from the last) so the Q-blocks with the
most key blocks start first (``kinds.attention.grid``). With ``kv_buffers`` >= 2 the waves share every K/V block through LDS
(``attention_pipe``: K by LDS-DMA, V transposed, multi-buffered, one ``s_barrier`` per
iteration; the causal trip count follows the workgroup's last row); what follows describes the
one-wave ``kv_buffers`` = 1 loop, and everything but the K/V loads holds for both. Query head h reads kv head floor(h * kv_heads / heads)
(design.md Contracts: h // (heads / kv_heads)). Every matmul is a 32x32xK MFMA (K = 8; on
gfx950 K = 16 by default, whose k-step s pairs registers 8s..8s+7, see ``attention_softmax``)
computing *transposed* tiles, so that all per-query state lives in one lane (cdna-facts section 2.2:
C/D register r of lane l is row 8 (r / 4) + 4 (l / 32) + r % 4, column l % 32):

  S^T (keys x queries) = K Q^T     A = K rows (lane: key l % 32, 4 head-dim elements)
                                   B = Q^T    (lane: query l % 32, the same 4 elements)
  O^T (dims x queries) += V^T P^T  A = V^T    (lane: dim l % 32, keys 8 s + 4 (l / 32) + 0..3)
                                   B = P^T    (lane: query l % 32, the same 4 keys)

Lane l of S^T holds query l % 32 and keys 8 (r / 4) + 4 (l / 32) + r % 4; registers 4s..4s+3,
converted to f16/bf16 and packed in pairs, are exactly the B operand of k-step s of the second
MFMA, so P never goes through LDS. Row max / row sum need one exchange between lanes l and
l ^ 32 (``ds_bpermute_b32`` on gfx942, ``v_permlane32_swap_b32`` on gfx950; DPP row ops and
ds_swizzle stay within 32 lanes); the running sum is kept per lane and combined once in the epilogue. O^T lane l holds query
l % 32, so rescaling by exp2(m_old - m_new) is one v_mul per accumulator register.

Head dim 256: Q's B operands go to AccVGPRs (an MFMA's A/B may be AGPRs; nothing else reads
them) and O^T too unless four waves share K/V (``AttentionConfig.o_agpr_blocks``): the
softmax rescales AGPR accumulators through ``v_accvgpr_read`` / ``v_accvgpr_write`` and the
epilogue reads them out, one store at a time.

Q is loaded once into registers (B operands of every k-step). K comes straight from global
memory into its operand registers (one 8-byte load per lane and k-step, 16-byte for the x16
MFMA). With ``prefetch`` = 1 (default) the loads of key block i + 1 (K operands and the V rows)
are issued in iteration i right after the QK MFMAs and the V LDS writes have read the staging
registers, so they overlap the softmax and the PV MFMAs (the prologue loads block 0; the K/V
resources advance with num_records clamped at 0, so the prefetch past the last block reads
nothing). V goes through LDS,
transposed on the way in (``attention_vtile``): 16-byte global loads, ``v_perm_b32`` pairing,
``ds_write_b64``, then two ``ds_read_b128`` per 32 head dims. One wave per workgroup and one LDS
buffer: no barrier is needed (LDS ops of one wave complete in order, cdna-facts section 4).

Lengths: buffer resources start at this workgroup's (batch, head) and, for Q/O/LSE, at its first
query row; num_records ends them at seqlen, so rows past the end read 0 and their stores are
dropped (cdna-facts section 5). The K/V resources advance by one key block per iteration with
num_records shrinking, so keys past seqlen_k read 0; their scores are masked to -inf. Causal:
query i sees keys j <= i + seqlen_k - seqlen_q (bottom-right); the trip count stops at the last
key block any row of this Q-block sees (blocks above the diagonal are skipped), and only the
diagonal blocks are masked: each iteration branches (``kvloop``) to the unmasked (non-causal)
body below the diagonal, to a triangle body on the wave's own diagonal block when the lengths
align it (16 constant lane masks, ``tri_masks``, start the QK product at -inf above the
diagonal), to the per-element mask otherwise, and (several waves) to a skip body on blocks
wholly above the wave's rows. A row that sees no key keeps m = -inf, l = 0 and gets O = 0,
LSE = -inf (the loop runs at least once, fully masked, when no block is visible).

Varlen (``cfg.varlen``, docs/launch-contract.md): the batch coordinate picks sequence b, whose
lengths and first packed rows come from scalar loads of cu_seqlens_q[b], [b + 1] and
cu_seqlens_k[b], [b + 1]; everything above then runs with those lengths, rows
h * total_q + cu_seqlens_q[b] + q0 (K/V: kv_head * total_k + cu_seqlens_k[b]). A Q-block past its
sequence's end is clamped to start at the end (nothing read or stored) and the workgroup ends
with ``s_endpgm`` after the prologue (``KernelIR.add_early_exit``).
"""
from __future__ import annotations

from isa.instr import Instr
from isa.operands import Imm, Special, s, v

from ... import kernarg
from ...ir import KernelIR, VReg
from ..common.buffers import OOB_OFFSET, SRD_DWORD3
from . import ktile, vtile
from . import pipe as pipeline
from . import softmax as sm
from .config import AGPR_HEAD_DIM, BLOCK_K, BLOCK_Q, AttentionConfig
from .contract import attention_args
from .kvloop import kv_loop
from .tags import ATTN_TAGS

OFFEN = (("offen", True),)
NEG_INF = 0xFF800000
ARG_NAMES = ("Q", "K", "V", "O", "LSE")


class AttnBuild:
    """State while building one attention kernel: the IR, config and shared registers."""

    def __init__(self, cfg: AttentionConfig, tags=ATTN_TAGS) -> None:
        self.cfg = cfg
        self.k = KernelIR(cfg.target, cfg.name, tags=tags)
        self.kernarg = self.k.precolored("s", s(0, 2), "kernarg")
        # workgroup ids x, y, z: (Q-block, head, batch), causal (head, batch, reversed Q-block)
        self.wg_x = self.k.precolored("s", s(2), "wg_qblock")
        self.wg_y = self.k.precolored("s", s(3), "wg_head")
        self.wg_z = self.k.precolored("s", s(4), "wg_batch")
        self.tid = self.k.precolored("v", v(0), "tid")
        self._consts: dict[int, VReg] = {}
        self.full_max: VReg | None = None     # causal: see kvloop
        self.wave_end: VReg | None = None     # causal, several waves: see kvloop
        self.diag_kb: VReg | None = None      # causal: the wave's diagonal key block (kvloop)
        self.tri: list[VReg] | None = None    # causal: its triangle's lane masks (tri_masks)
        self.mask_limit = None                # causal: emits the mask limit into a block

    def sreg(self, count: int = 1, name: str = "") -> VReg:
        return self.k.vreg("s", count, name=name)

    def vreg(self, count: int = 1, name: str = "") -> VReg:
        return self.k.vreg("v", count, align=2 if count > 1 else 1, name=name)

    def const(self, value: int) -> VReg:
        """An SGPR holding ``value`` (VOP3 has no literal on gfx9), set once in the prologue."""
        if value not in self._consts:
            r = self.sreg(name=f"k{value:x}")
            self.k.prologue.add(Instr("s_mov_b32", (r, Imm(value))), ("addr",))
            self._consts[value] = r
        return self._consts[value]


def build_attention(cfg: AttentionConfig) -> KernelIR:
    """The tagged KernelIR of ``cfg`` (see the module docstring)."""
    ab = AttnBuild(cfg)
    k, p = ab.k, ab.k.prologue
    D = cfg.head_dim
    row_bytes = cfg.in_type.nbytes(D)
    tags = ("addr",)
    vcc = Special("vcc")

    # ---- arguments
    args = attention_args(cfg)     # the launch contract: offsets computed once, from its ArgSpecs
    offs = kernarg.offsets(args)
    srd = {}
    for n in ARG_NAMES:
        srd[n] = k.vreg("s", 4, name=f"srd_{n}")
        p.add(Instr("s_load_dwordx2", (srd[n].sub(0, 2), ab.kernarg, Imm(offs[n]))), ("addr", "karg"))
    sc4 = k.vreg("s", 4, name="sc_a")
    vl = cfg.varlen           # packed sequences: seqlen_q / seqlen_k's slots hold total_q / total_k
    sq_n, sk_n = ("total_q", "total_k") if vl else ("seqlen_q", "seqlen_k")
    first = kernarg.contiguous(args, ("batch", "heads", "kv_heads", sq_n))
    p.add(Instr("s_load_dwordx4", (sc4, ab.kernarg, Imm(first))), ("addr", "karg"))
    sc2 = k.vreg("s", 2, name="sc_b")
    p.add(Instr("s_load_dwordx2", (sc2, ab.kernarg, Imm(kernarg.contiguous(args, (sk_n, "scale"))))),
          ("addr", "karg"))
    heads, kvh_n, sq = sc4.sub(1), sc4.sub(2), sc4.sub(3)
    sk, scale = sc2.sub(0), sc2.sub(1)
    fp8_sc = None
    if cfg.fp8:     # per-tensor q_scale, k_scale (contiguous) and v_scale
        fp8_sc = k.vreg("s", 3, name="fp8_scales")
        p.add(Instr("s_load_dwordx2", (fp8_sc.sub(0, 2), ab.kernarg,
                                       Imm(kernarg.contiguous(args, ("q_scale", "k_scale"))))),
              ("addr", "karg"))
        p.add(Instr("s_load_dword", (fp8_sc.sub(2), ab.kernarg, Imm(offs["v_scale"]))),
              ("addr", "karg"))
    if vl:   # sequence b: its lengths and first packed rows from cu_seqlens[b], [b + 1]
        tq, tk = sq, sk
        cu0, sq, sk = _varlen_lengths(ab, offs, ab.wg_y if cfg.causal else ab.wg_z)

    # ---- workgroup coordinates: q0, kv head (f32 division, exact: kinds.attention.config.HEADS_MAX)
    W = cfg.waves
    wq, wh, wb = ab.wg_x, ab.wg_y, ab.wg_z          # Q-block, head, batch
    if cfg.causal:   # grid (heads, batch, Q-blocks), longest first (kinds.attention.grid):
        # Q-block = ceil(sq / rows) - 1 - z = ((sq - 1) >> log2(rows)) - z (sq >= 1, contract)
        wh, wb = ab.wg_x, ab.wg_y
        wq = ab.sreg(name="qblock")
        p.add(Instr("s_add_i32", (wq, sq, Imm(-1))), tags)
        # varlen: an empty sequence (sq = 0) gives Q-block -1 - z < 0, which exits below
        p.add(Instr("s_ashr_i32" if vl else "s_lshr_b32",
                    (wq, wq, Imm(cfg.rows_per_wg.bit_length() - 1))), tags)
        p.add(Instr("s_sub_i32", (wq, wq, ab.wg_z)), tags)
    q0 = ab.sreg(name="q0")
    swave = None
    if W == 1:
        p.add(Instr("s_lshl_b32", (q0, wq, Imm(5))), tags)
        if vl:
            p.add(Instr("s_min_u32", (q0, q0, sq)), tags)     # varlen: as for W > 1 below
        qwg = q0
    else:   # wave w of the workgroup owns rows qblock * 32 W + 32 w .. + 31
        wv = ab.vreg(name="wave_v")
        p.add(Instr("v_lshrrev_b32", (wv, Imm(6), ab.tid)), tags)
        swave = ab.sreg(name="wave")
        p.add(Instr("v_readfirstlane_b32", (swave, wv)), tags)
        qwg, qw = ab.sreg(name="q0_wg"), ab.sreg(name="q0_wave")
        p.add(Instr("s_lshl_b32", (qwg, wq, Imm(5 + W.bit_length() - 1))), tags)
        if vl:
            # varlen: a Q-block past its sequence's end (or, causal, before its start: the
            # Q-block index is negative when the grid's max_seqlen_q exceeds this sequence)
            # is clamped (unsigned) to start at the end: it reads and stores nothing
            # (num_records 0) and the workgroup ends after the prologue (add_early_exit)
            p.add(Instr("s_min_u32", (qwg, qwg, sq)), tags)
        p.add(Instr("s_lshl_b32", (qw, swave, Imm(5))), tags)
        p.add(Instr("s_add_u32", (q0, qwg, qw)), tags)
    hk = ab.sreg(name="h_x_kvh")
    p.add(Instr("s_mul_i32", (hk, wh, kvh_n)), tags)
    fa, fb, fh, rh, fq, uq = (ab.vreg(name=n) for n in ("gq_a", "gq_b", "gq_h", "gq_r", "gq_q", "gq_u"))
    p.add(Instr("v_cvt_f32_u32", (fa, hk)), tags)
    p.add(Instr("v_add_f32", (fb, Imm(0.5), fa)), tags)
    p.add(Instr("v_cvt_f32_u32", (fh, heads)), tags)
    p.add(Instr("v_rcp_f32", (rh, fh)), tags)
    p.add(Instr("v_mul_f32", (fq, fb, rh)), tags)
    p.add(Instr("v_cvt_u32_f32", (uq, fq)), tags)
    kvh = ab.sreg(name="kv_head")
    p.add(Instr("v_readfirstlane_b32", (kvh, uq)), tags)
    rowq, rowk = ab.sreg(name="rowq"), ab.sreg(name="rowk")
    if vl:   # heads-major packed rows: h * total_q + cu_seqlens_q[b] + q0 (kv: kv_head, total_k)
        p.add(Instr("s_mul_i32", (rowq, wh, tq)), tags)
        p.add(Instr("s_add_u32", (rowq, rowq, cu0[0])), tags)
        p.add(Instr("s_add_u32", (rowq, rowq, q0)), tags)
        p.add(Instr("s_mul_i32", (rowk, kvh, tk)), tags)
        p.add(Instr("s_add_u32", (rowk, rowk, cu0[1])), tags)
    else:
        bh, bkv = ab.sreg(name="bh"), ab.sreg(name="bkv")
        p.add(Instr("s_mul_i32", (bh, wb, heads)), tags)
        p.add(Instr("s_add_u32", (bh, bh, wh)), tags)
        p.add(Instr("s_mul_i32", (bkv, wb, kvh_n)), tags)
        p.add(Instr("s_add_u32", (bkv, bkv, kvh)), tags)
        p.add(Instr("s_mul_i32", (rowq, bh, sq)), tags)
        p.add(Instr("s_add_u32", (rowq, rowq, q0)), tags)
        p.add(Instr("s_mul_i32", (rowk, bkv, sk)), tags)
    qrem = ab.sreg(name="qrem")                       # query rows left from q0 (>= 0)
    p.add(Instr("s_sub_i32", (qrem, sq, q0)), tags)
    p.add(Instr("s_max_i32", (qrem, qrem, Imm(0))), tags)

    # ---- buffer resources (cdna-facts section 5): base at the first row, num_records to the end
    def setup(n: str, row: VReg, rbytes: int, rows_left: VReg) -> None:
        r = srd[n]
        lo, hi = ab.sreg(name=f"{n}_lo"), ab.sreg(name=f"{n}_hi")
        p.add(Instr("s_mul_i32", (lo, row, Imm(rbytes))), tags)
        p.add(Instr("s_mul_hi_u32", (hi, row, Imm(rbytes))), tags)
        p.add(Instr("s_add_u32", (r.sub(0), r.sub(0), lo)), tags)
        p.add(Instr("s_addc_u32", (r.sub(1), r.sub(1), hi)), tags)
        p.add(Instr("s_and_b32", (r.sub(1), r.sub(1), Imm(0xFFFF))), tags)
        p.add(Instr("s_mul_i32", (r.sub(2), rows_left, Imm(rbytes))), tags)
        p.add(Instr("s_mov_b32", (r.sub(3), Imm(SRD_DWORD3))), tags)

    setup("Q", rowq, row_bytes, qrem)
    setup("O", rowq, cfg.out_type.nbytes(D), qrem)
    setup("LSE", rowq, 4, qrem)
    for n in ("K", "V"):
        setup(n, rowk, row_bytes, sk)

    # ---- lane coordinates
    lane, col, half, kq = (ab.vreg(name=n) for n in ("lane", "col", "half", "kq"))
    ab.lane, ab.half = lane, half
    p.add(Instr("v_and_b32", (lane, Imm(63), ab.tid)), tags)
    p.add(Instr("v_and_b32", (col, Imm(31), lane)), tags)
    p.add(Instr("v_lshrrev_b32", (half, Imm(5), lane)), tags)
    p.add(Instr("v_lshlrev_b32", (kq, Imm(2), half)), tags)
    dconst = Imm(D) if D <= 64 else ab.const(D)
    kpl = cfg.k_per_lane             # head-dim elements per lane and k-step (4, or 8 for x16)
    esh = Imm(cfg.in_type.log2_bytes)  # element index -> byte offset
    dq = kq
    if kpl != 4:
        dq = ab.vreg(name="dq")
        p.add(Instr("v_lshlrev_b32", (dq, Imm(kpl.bit_length() - 1), half)), tags)
    t0, off_qk = ab.vreg(name="qk_e"), ab.vreg(name="off_qk")     # (col * D + dq) * bytes
    p.add(Instr("v_mad_u32_u24", (t0, col, dconst, dq)), tags)
    p.add(Instr("v_lshlrev_b32", (off_qk, esh, t0)), tags)
    bperm = None                     # gfx942: ds_bpermute byte address of lane l ^ 32
    if not cfg.target.has("v_permlane32_swap_b32"):
        xl, bperm = ab.vreg(name="lane_x32"), ab.vreg(name="bperm")
        p.add(Instr("v_xor_b32", (xl, Imm(32), lane)), tags)
        p.add(Instr("v_lshlrev_b32", (bperm, Imm(2), xl)), tags)
    pipe = cfg.kv_buffers > 1
    if pipe:
        if swave is None:    # one wave: wave index 0
            swave = ab.sreg(name="wave")
            p.add(Instr("s_mov_b32", (swave, Imm(0))), tags)
        tflat = lane
        if W > 1:
            tflat = ab.vreg(name="tid_wg")
            p.add(Instr("v_and_b32", (tflat, Imm(64 * W - 1), ab.tid)), tags)
        vt = vtile.setup(ab, lane, col, half, tid=tflat,
                         region_base=ktile.k_region_bytes(D, cfg.in_type))
        kt = ktile.setup(ab, lane, col, half, swave)
    else:
        vt = vtile.setup(ab, lane, col, half)
    k.lds_bytes = cfg.lds_bytes

    # ---- per-lane key limit: key j of query q0 + col is visible iff j < lim; rem = lim - kq
    rem = ab.vreg(name="krem_lane")
    if cfg.causal:
        lim = ab.vreg(name="klim")
        dlt = ab.sreg(name="causal_d")                 # q0 + 1 + sk - sq
        p.add(Instr("s_sub_i32", (dlt, sk, sq)), tags)
        p.add(Instr("s_add_i32", (dlt, dlt, q0)), tags)
        p.add(Instr("s_add_i32", (dlt, dlt, Imm(1))), tags)
        # q0 + sk - sq: the triangle block (kvloop); -1 (no block) for a wave with rows past
        # seqlen_q, whose triangle would let those rows see keys past seqlen_k
        ab.diag_kb = ab.sreg(name="diag_kb")
        p.add(Instr("s_add_i32", (ab.diag_kb, dlt, Imm(-1))), tags)
        qe = ab.sreg(name="q_end_wave")
        p.add(Instr("s_add_u32", (qe, q0, Imm(BLOCK_Q))), tags)
        p.add(Instr("s_cmp_le_u32", (qe, sq)), tags)
        p.add(Instr("s_cselect_b32", (ab.diag_kb, ab.diag_kb, Imm(-1))), tags)
        ab.full_max = ab.sreg(name="full_max")         # last key block start with no mask (kvloop)
        p.add(Instr("s_min_i32", (ab.full_max, sk, dlt)), tags)
        p.add(Instr("s_sub_i32", (ab.full_max, ab.full_max, Imm(BLOCK_K))), tags)

        def mask_limit(block) -> None:
            """rem at the start of each masked body (kvloop): not live across the unmasked one."""
            lc = ab.vreg(name="klim_c")
            block.add(Instr("v_add_u32", (lc, dlt, col)), ("softmax", "mask"))
            block.add(Instr("v_min_i32", (lim, sk, lc)), ("softmax", "mask"))
            block.add(Instr("v_sub_u32", (rem, lim, kq)), ("softmax", "mask"))
        ab.mask_limit = mask_limit
        if W > 1:   # one past the last key of the wave's last row (kvloop: the skip body)
            ab.wave_end = ab.sreg(name="wave_end")
            p.add(Instr("s_add_u32", (ab.wave_end, q0, Imm(BLOCK_Q))), tags)
            p.add(Instr("s_min_i32", (ab.wave_end, ab.wave_end, sq)), tags)
            p.add(Instr("s_add_i32", (ab.wave_end, ab.wave_end, sk)), tags)
            p.add(Instr("s_sub_i32", (ab.wave_end, ab.wave_end, sq)), tags)
    elif cfg.key_mask:
        # non-causal, no length promise: blocks kbase <= seqlen_k - 32 are whole and take the
        # unmasked body; only the last, partial block the masked one (kvloop)
        ab.full_max = ab.sreg(name="full_max")
        p.add(Instr("s_sub_i32", (ab.full_max, sk, Imm(BLOCK_K))), tags)

        def mask_limit(block) -> None:
            """rem = seqlen_k - kq at the start of the masked body (kvloop)."""
            block.add(Instr("v_sub_u32", (rem, sk, kq)), ("softmax", "mask"))
        ab.mask_limit = mask_limit

    # ---- trip count: key blocks up to the last key any row of this block sees, at least 1
    trips = ab.sreg(name="kv_iters")
    if cfg.causal:
        e = ab.sreg(name="kv_end")
        p.add(Instr("s_add_u32", (e, qwg, Imm(32 * W))), tags)   # the workgroup's last row
        p.add(Instr("s_min_i32", (e, e, sq)), tags)
        p.add(Instr("s_add_i32", (e, e, sk)), tags)
        p.add(Instr("s_sub_i32", (e, e, sq)), tags)
        p.add(Instr("s_min_i32", (e, e, sk)), tags)
        p.add(Instr("s_add_i32", (trips, e, Imm(BLOCK_K - 1))), tags)
    else:
        p.add(Instr("s_add_i32", (trips, sk, Imm(BLOCK_K - 1))), tags)
    p.add(Instr("s_ashr_i32", (trips, trips, Imm(5))), tags)
    p.add(Instr("s_max_i32", (trips, trips, Imm(1))), tags)
    kb = ab.sreg(name="kbase")
    p.add(Instr("s_mov_b32", (kb, Imm(0))), tags)

    # ---- Q into registers: B operand of k-step st = Q[q0 + col][k st + dq .. + kpl - 1]
    # head_dim 256: Q (64 registers, read only by the QK MFMAs) in AGPRs, so the ArchVGPRs hold
    # O^T (four waves) or the K and V staging registers (one wave, K in registers)
    qf = ktile.load_q(p, ab, cfg, off_qk, srd["Q"], "a" if D == AGPR_HEAD_DIM else "v")

    st_ = sm.init_state(ab, D, cfg.o_agpr_blocks)
    v_post = None
    if cfg.fp8:     # c = q_scale k_scale scale (log2 e below); v_scale in the normalisation
        sc, v_post = ab.vreg(name="qk_scale"), ab.vreg(name="v_scale")
        p.add(Instr("v_mov_b32", (sc, fp8_sc.sub(0))), ("init",))
        p.add(Instr("v_mul_f32", (sc, fp8_sc.sub(1), sc)), ("init",))
        p.add(Instr("v_mul_f32", (sc, scale, sc)), ("init",))
        p.add(Instr("v_mov_b32", (v_post, fp8_sc.sub(2))), ("init",))
        scale = sc
        sm.init_p_offset(ab, st_)
    sm.set_scale(ab, st_, scale)
    if cfg.causal:
        ab.tri = tri_masks(ab)
    if vl:   # the workgroup's Q-block starts at or past its sequence's end: s_endpgm
        k.add_early_exit(Instr("s_cmp_ge_u32", (qwg, sq)))
    if cfg.pingpong:
        from .pingpong import build_loop
        build_loop(ab, st_, qf, kt, vt, srd, trips, kb, rem, bperm, swave)
    elif pipe:
        pipeline.build_loop(ab, st_, qf, kt, vt, srd, trips, kb, rem, bperm)
    else:
        _register_k_loop(ab, st_, qf, vt, srd, trips, kb, rem, bperm, off_qk)
    # ---- epilogue: normalise, store O (rows past seqlen_q dropped) and LSE
    big = ab.vreg(name="oob")
    e_ = k.epilogue
    e_.add(Instr("v_mov_b32", (big, Imm(OOB_OFFSET))), ("epi",))
    off_l, tl = ab.vreg(name="off_lse"), ab.vreg(name="lse_e")
    e_.add(Instr("v_lshlrev_b32", (tl, Imm(2), col)), ("epi",))
    e_.add(Instr("v_cmp_eq_u32", (vcc, Imm(0), half)), ("epi",))     # lanes 0..31 store LSE
    e_.add(Instr("v_cndmask_b32", (off_l, big, tl, vcc)), ("epi",))
    off_o = off_qk                   # O^T C layout: dims 8 g + 4 h + 0..3, i.e. offset (col D + kq) 2
    if kpl != 4:
        t2 = ab.vreg(name="o_e")
        off_o = ab.vreg(name="off_o")
        e_.add(Instr("v_mad_u32_u24", (t2, col, dconst, kq)), ("epi",))
        e_.add(Instr("v_lshlrev_b32", (off_o, Imm(cfg.out_type.log2_bytes), t2)), ("epi",))
    sm.epilogue(ab, e_, st_, bperm, off_o, off_l, srd["O"], srd["LSE"], post=v_post)
    return k


def _register_k_loop(ab, st_, qf, vt, srd, trips, kb, rem, bperm, off_qk) -> None:
    """The one-wave loop (kv_buffers = 1): K straight into operand registers, V through one LDS
    buffer, no barrier (see the module docstring)."""
    cfg, p = ab.cfg, ab.k.prologue
    D = cfg.head_dim
    row_bytes = cfg.in_type.nbytes(D)
    kpl = cfg.k_per_lane
    qk_load = {8: "buffer_load_dwordx2", 16: "buffer_load_dwordx4"}[cfg.in_type.nbytes(kpl)]
    ksteps = D // cfg.mfma_k
    step = BLOCK_K * row_bytes

    def load_k(block, dst=None) -> list[VReg]:
        """K block: A operand of k-step st = K[kb + col][k st + dq .. + kpl - 1]."""
        out = []
        for st in range(ksteps):
            r = dst[st] if dst else ab.vreg(kpl // cfg.in_type.per_dword, name=f"k{st}")
            koff = cfg.in_type.nbytes(cfg.mfma_k * st)
            block.add(Instr(qk_load, (r, off_qk, srd["K"], Imm(0)),
                            OFFEN + ((("offset", koff),) if st else ())), ("gr_k",))
            out.append(r)
        return out

    def advance(block) -> None:
        """K/V resources move one key block on; num_records shrinks, clamped at 0 so a prefetch
        past the last block reads nothing (cdna-facts section 5)."""
        for n in ("K", "V"):
            r = srd[n]
            block.add(Instr("s_add_u32", (r.sub(0), r.sub(0), ab.const(step))), ("addr", "kv_adv"))
            block.add(Instr("s_addc_u32", (r.sub(1), r.sub(1), Imm(0))), ("addr", "kv_adv"))
            block.add(Instr("s_sub_i32", (r.sub(2), r.sub(2), ab.const(step))), ("addr", "kv_adv"))
            block.add(Instr("s_max_i32", (r.sub(2), r.sub(2), Imm(0))), ("addr", "kv_adv"))

    kf0 = vrows0 = None
    if cfg.prefetch:    # block 0 into the staging registers before the loop
        kf0 = load_k(p)
        vrows0 = vtile.load_rows(ab, p, vt, srd["V"])
        advance(p)

    def emit(body, mask: bool, tri: list[VReg] | None = None) -> None:
        """One loop body (``kvloop``: three times when causal, unmasked, the triangle masked by
        the lane masks ``tri``, and masked per element)."""
        kf, vrows = kf0, vrows0
        if not cfg.prefetch:
            kf = load_k(body)
            vrows = vtile.load_rows(ab, body, vt, srd["V"])
        # ---- V: this block into LDS, transposed (attention_vtile)
        vtile.store_rows(ab, body, vt, vrows)
        # s_setprio 1 / 0 around the MFMA work (cdna-facts 9.3, HipKittens): placed by the recipe's
        # sched groups (tags setprio_hi / setprio_lo); they carry no dependences of their own
        body.add(Instr("s_setprio", (Imm(1),)), ("setprio", "setprio_hi"))
        # ---- S^T = K Q^T
        S = ab.k.vreg("v", 16, align=4, name="sT")
        c0 = Imm(0) if tri is None else sm.tri_init(ab, body, st_, S, tri)
        for st in range(ksteps):
            body.add(Instr(cfg.mfma, (S, kf[st], qf[st], S if st else c0)), ("mfma", "mfma_qk"))
        if cfg.prefetch:    # the next block into the same registers, once this one's readers issued
            load_k(body, kf)
            vtile.load_rows(ab, body, vt, srd["V"], vrows)
            advance(body)
        # ---- online softmax -> P^T operands and the rescale of O
        pf = sm.online_softmax(ab, body, st_, S, rem, kb, bperm, mask and tri is None)
        # ---- O^T += V^T P^T
        vf = vtile.read_operands(ab, body, vt)
        for st in range(BLOCK_K // cfg.mfma_k):
            for db in range(D // 32):
                o = st_.o[db]
                body.add(Instr(cfg.mfma, (o, vf[st, db], pf[st], o)), ("mfma", "mfma_pv"))
        if not cfg.prefetch:
            advance(body)
        body.add(Instr("s_add_u32", (kb, kb, Imm(BLOCK_K))), ("addr", "kv_adv"))
        body.add(Instr("s_setprio", (Imm(0),)), ("setprio", "setprio_lo"))

    kv_loop(ab, trips, kb, ab.full_max, emit, diag_kb=ab.diag_kb, tri=ab.tri)


def tri_masks(ab) -> list[VReg]:
    """The diagonal block's mask as 16 constant lane masks (``kvloop``, the triangle body): when
    a key block starts at ``q0 + seqlen_k - seqlen_q`` (bottom-right alignment puts the wave's
    32 rows on its 32 keys; only for a wave whose rows all lie before seqlen_q: the last,
    partial wave of a sequence takes the per-element mask, one block per sequence), key offset c of S^T register r, lane l (c = 8 (r / 4) + 4 (l / 32)
    + r % 4) is hidden from row l % 32 iff c > l % 32, whatever the block or the lengths: lanes
    0..31 below c_r, lanes 32..63 below c_r + 4. One ``v_cndmask_b32`` per score with an SGPR
    pair (no compare, no per-lane limit); every row sees key 0, so the row max is finite (no
    guard). Built once, in the prologue: 32 SGPRs."""
    p, tags = ab.k.prologue, ("init",)
    out = []
    for r in range(16):
        c_r = (r // 4) * 8 + r % 4
        m = ab.k.vreg("s", 2, align=2, name=f"tri_m{r}")
        p.add(Instr("s_mov_b32", (m.sub(0), Imm((1 << c_r) - 1))), tags)
        p.add(Instr("s_mov_b32", (m.sub(1), Imm((1 << (c_r + 4)) - 1))), tags)
        out.append(m)
    return out


def _varlen_lengths(ab, offs, wb) -> tuple[tuple[VReg, VReg], VReg, VReg]:
    """Scalar loads of cu_seqlens_q[b], [b + 1] and cu_seqlens_k[b], [b + 1] (b = ``wb``):
    ((first Q row, first K row), seqlen_q, seqlen_k) of sequence b, lengths clamped at 0."""
    p, tags = ab.k.prologue, ("addr",)
    bofs = ab.sreg(name="cu_off")
    p.add(Instr("s_lshl_b32", (bofs, wb, Imm(2))), tags)
    firsts, lens = [], []
    for n in ("cu_seqlens_q", "cu_seqlens_k"):
        ptr = ab.k.vreg("s", 2, name=f"{n}_ptr")
        p.add(Instr("s_load_dwordx2", (ptr, ab.kernarg, Imm(offs[n]))), ("addr", "karg"))
        pair = ab.k.vreg("s", 2, name=f"{n}_b")
        p.add(Instr("s_load_dwordx2", (pair, ptr, bofs)), ("addr", "karg"))
        ln = ab.sreg(name=f"{n}_len")
        p.add(Instr("s_sub_i32", (ln, pair.sub(1), pair.sub(0))), tags)
        p.add(Instr("s_max_i32", (ln, ln, Imm(0))), tags)
        firsts.append(pair.sub(0))
        lens.append(ln)
    return (firsts[0], firsts[1]), lens[0], lens[1]
