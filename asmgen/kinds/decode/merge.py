"""The split combine of flash decoding (``decode_combine``): ``CombineConfig`` and its template.

O[b, t, h] = sum_s w_s O_s / sum_s w_s and LSE = m + log sum_s w_s, w_s = exp(LSE_s - m), over
the ``num_splits`` partials the decode kernel wrote (``asmgen.kinds.decode.splits``). A lane owns
8 head-dim elements (one 16-byte load) of one (t, h) row: 64 / (head_dim / 8) rows per workgroup,
grid x = ceil(q_tokens heads / rows), y = batch. The splits are one loop, merged online
(m_new = max(m, LSE_s), rescale by exp(m - m_new): v_exp_f32 is 2^x, the LSEs are scaled by
log2 e first); a split that saw no key (LSE_s = -inf) weighs 0, a row of only such splits gets
O = 0 and LSE = -inf. The resources advance one split per iteration.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from isa.instr import Instr
from isa.operands import Imm, Special

from ... import kernarg
from ...errors import ConfigError
from ...target import ARCHES, DEFAULT_ARCH, IN_DTYPES
from ..attention.config import HEAD_DIMS
from ..attention.softmax import NEG_INF, f32_bits
from ..attention.softmax import _pack as pack_pair
from ..attention.template import AttnBuild
from ..common.arch import ArchTyped
from ..common.buffers import OOB_OFFSET, log2
from .arith import imm_or_const
from .config import BATCH_MAX, HEADS_MAX, Q_TOKENS_MAX, SPLITS_MAX, _int
from .contract import combine_args
from .resource import TAGS, srd_base
from .tags import DECODE_TAGS

ELEMS = 8           # head-dim elements per lane (one 16-byte load of f16/bf16)


@dataclass(frozen=True, slots=True)
class CombineConfig(ArchTyped):
    batch: int = 1
    heads: int = 8
    q_tokens: int = 1
    head_dim: int = 128
    dtype: str = "bf16"
    num_splits: int = 2
    arch: str = DEFAULT_ARCH

    def __post_init__(self) -> None:
        if self.arch not in ARCHES:
            raise ConfigError(f"decode_combine arch={self.arch!r} is not one of {ARCHES}")
        if self.dtype not in IN_DTYPES:
            raise ConfigError(f"decode_combine dtype={self.dtype!r} is not one of {IN_DTYPES}")
        if self.head_dim not in HEAD_DIMS:
            raise ConfigError(f"decode_combine head_dim={self.head_dim!r} is not one of "
                              f"{HEAD_DIMS}")
        _int("batch", self.batch, 1, BATCH_MAX)
        _int("heads", self.heads, 1, HEADS_MAX)
        _int("q_tokens", self.q_tokens, 1, Q_TOKENS_MAX)
        _int("num_splits", self.num_splits, 1, SPLITS_MAX)

    @property
    def lanes_per_row(self) -> int:
        return self.head_dim // ELEMS

    @property
    def rows_per_wg(self) -> int:
        return 64 // self.lanes_per_row

    @property
    def grid(self) -> tuple[int, int, int]:
        return (-(-self.q_tokens * self.heads // self.rows_per_wg), self.batch, 1)

    threads = 64

    @property
    def name(self) -> str:
        return (f"attn_decode_combine_{self.arch}_{self.dtype}_d{self.head_dim}_h{self.heads}"
                f"_t{self.q_tokens}_s{self.num_splits}")

    def to_dict(self) -> dict:
        return asdict(self)


def build_combine(cfg: CombineConfig):
    ab = AttnBuild(cfg, DECODE_TAGS)
    k, p = ab.k, ab.k.prologue
    D, R, S = cfg.head_dim, cfg.q_tokens * cfg.heads, cfg.num_splits
    rb = cfg.in_type.nbytes(D)
    vcc = Special("vcc")
    args = combine_args(cfg)
    offs = kernarg.offsets(args)
    names = ("o_partial", "lse_partial", "o", "lse")
    srd = {n: k.vreg("s", 4, name=f"srd_{n}") for n in names}
    for n in names:
        p.add(Instr("s_load_dwordx2", (srd[n].sub(0, 2), ab.kernarg, Imm(offs[n]))), ("addr", "karg"))
    b = ab.wg_y
    rs = ab.sreg(name="rows_b")                 # b S R (partials) / b R (outputs)
    p.add(Instr("s_mul_i32", (rs, b, Imm(S * R))), TAGS)
    for n, bytes_ in (("o_partial", rb), ("lse_partial", 4)):
        srd_base(ab, p, srd[n], rs, bytes_)
        p.add(Instr("s_mov_b32", (srd[n].sub(2), Imm(S * R * bytes_))), TAGS)
    ro = ab.sreg(name="rows_o")
    p.add(Instr("s_mul_i32", (ro, b, Imm(R))), TAGS)
    for n, bytes_ in (("o", rb), ("lse", 4)):
        srd_base(ab, p, srd[n], ro, bytes_)
        p.add(Instr("s_mov_b32", (srd[n].sub(2), Imm(R * bytes_))), TAGS)
    # lane -> row (t h), element chunk
    LPR = cfg.lanes_per_row
    lane, rl, ch, row = (ab.vreg(name=n) for n in ("lane", "row_l", "chunk", "row"))
    p.add(Instr("v_and_b32", (lane, Imm(63), ab.tid)), TAGS)
    p.add(Instr("v_lshrrev_b32", (rl, Imm(log2(LPR)), lane)), TAGS)
    p.add(Instr("v_and_b32", (ch, Imm(LPR - 1), lane)), TAGS)
    r0 = ab.sreg(name="row0")
    p.add(Instr("s_mul_i32", (r0, ab.wg_x, Imm(cfg.rows_per_wg))), TAGS)
    p.add(Instr("v_add_u32", (row, r0, rl)), TAGS)
    big = ab.vreg(name="oob")
    p.add(Instr("v_mov_b32", (big, Imm(OOB_OFFSET))), TAGS)
    ok = k.vreg("s", 2, align=2, name="row_ok")
    p.add(Instr("v_cmp_gt_u32", (ok, imm_or_const(ab, R), row)), TAGS)
    e, x, off_o, xl, off_l1, off_l = (ab.vreg(name=n) for n in
                                      ("o_e", "o_x", "off_o", "l_x", "off_l1", "off_l"))
    p.add(Instr("v_lshlrev_b32", (e, Imm(log2(ELEMS)), ch)), TAGS)
    p.add(Instr("v_mad_u32_u24", (x, row, imm_or_const(ab, D), e)), TAGS)
    p.add(Instr("v_lshlrev_b32", (x, Imm(cfg.in_type.log2_bytes), x)), TAGS)
    p.add(Instr("v_cndmask_b32", (off_o, big, x, ok)), TAGS)
    p.add(Instr("v_lshlrev_b32", (xl, Imm(2), row)), TAGS)
    p.add(Instr("v_cndmask_b32", (off_l1, big, xl, ok)), TAGS)
    p.add(Instr("v_cmp_eq_u32", (vcc, Imm(0), ch)), TAGS)      # one lane per row stores LSE
    p.add(Instr("v_cndmask_b32", (off_l, big, off_l1, vcc)), TAGS)
    # state: m (log2 units), l, acc[8]
    tg = ("combine",)
    m, l_, ninf, l2e = (ab.vreg(name=n) for n in ("m", "l", "ninf", "log2e"))
    p.add(Instr("v_mov_b32", (m, Imm(NEG_INF))), tg)
    p.add(Instr("v_mov_b32", (ninf, Imm(NEG_INF))), tg)
    p.add(Instr("v_mov_b32", (l_, Imm(0))), tg)
    p.add(Instr("v_mov_b32", (l2e, Imm(f32_bits(math.log2(math.e))))), tg)
    acc = [ab.vreg(name=f"acc{i}") for i in range(ELEMS)]
    for a in acc:
        p.add(Instr("v_mov_b32", (a, Imm(0))), tg)
    trips = ab.sreg(name="splits")
    p.add(Instr("s_mov_b32", (trips, Imm(S))), TAGS)
    body = k.make_loop(trips, label="loop_split")
    ls, od = ab.vreg(name="lse_s"), k.vreg("v", 4, align=4, name="o_s")
    body.add(Instr("buffer_load_dword", (ls, off_l1, srd["lse_partial"], Imm(0)), (("offen", True),)),
             ("gr_lse",))
    body.add(Instr("buffer_load_dwordx4", (od, off_o, srd["o_partial"], Imm(0)), (("offen", True),)),
             ("gr_o",))
    # log2 units: y = LSE_s log2 e; m_new = max(m, y); mu = m_new or 0 while -inf
    y, mn, mu, a, w, da, dw = (ab.vreg(name=n) for n in ("y", "m_new", "mu", "alpha", "w",
                                                          "d_a", "d_w"))
    body.add(Instr("v_mul_f32", (y, l2e, ls)), tg)
    body.add(Instr("v_max_f32", (mn, m, y)), tg)
    body.add(Instr("v_cmp_neq_f32", (vcc, ninf, mn)), tg)
    body.add(Instr("v_cndmask_b32", (mu, Imm(0), mn, vcc)), tg)
    body.add(Instr("v_sub_f32", (da, m, mu)), tg)
    body.add(Instr("v_exp_f32", (a, da)), tg)
    body.add(Instr("v_sub_f32", (dw, y, mu)), tg)
    body.add(Instr("v_exp_f32", (w, dw)), tg)
    body.add(Instr("v_mov_b32", (m, mn)), tg)
    body.add(Instr("v_fma_f32", (l_, l_, a, w)), tg)
    for i in range(ELEMS):
        f = ab.vreg(name="o_f")
        word = od.sub(i // 2)
        if cfg.dtype == "bf16":
            if i % 2:
                body.add(Instr("v_and_b32", (f, ab.const(0xFFFF0000), word)), tg)
            else:
                body.add(Instr("v_lshlrev_b32", (f, Imm(16), word)), tg)
        else:
            src = word
            if i % 2:
                src = ab.vreg(name="o_h")
                body.add(Instr("v_lshrrev_b32", (src, Imm(16), word)), tg)
            body.add(Instr("v_cvt_f32_f16", (f, src)), tg)
        t = ab.vreg(name="o_w")
        body.add(Instr("v_mul_f32", (t, w, f)), tg)
        body.add(Instr("v_fma_f32", (acc[i], acc[i], a, t)), tg)
    for n, bytes_ in (("o_partial", R * rb), ("lse_partial", R * 4)):
        r = srd[n]
        step = imm_or_const(ab, bytes_) if bytes_ <= 64 else Imm(bytes_)
        body.add(Instr("s_add_u32", (r.sub(0), r.sub(0), step)), ("addr", "kv_adv"))
        body.add(Instr("s_addc_u32", (r.sub(1), r.sub(1), Imm(0))), ("addr", "kv_adv"))
        body.add(Instr("s_sub_u32", (r.sub(2), r.sub(2), step)), ("addr", "kv_adv"))
    # epilogue: O = acc / l (0 when l = 0), LSE = ln 2 (mu + log2 l)
    ep = k.epilogue
    rc, inv = ab.vreg(name="l_rcp"), ab.vreg(name="l_inv")
    ep.add(Instr("v_rcp_f32", (rc, l_)), ("epi",))
    ep.add(Instr("v_cmp_lt_f32", (vcc, Imm(0), l_)), ("epi",))
    ep.add(Instr("v_cndmask_b32", (inv, Imm(0), rc, vcc)), ("epi",))
    data = k.vreg("v", 4, align=4, name="o_out")
    ys = []
    for i in range(ELEMS):
        yv = ab.vreg(name="o_y")
        ep.add(Instr("v_mul_f32", (yv, inv, acc[i])), ("epi",))
        ys.append(yv)
    for j in range(4):
        pack_pair(ab, ep, data.sub(j), ys[2 * j], ys[2 * j + 1], cfg.dtype)
    ep.add(Instr("buffer_store_dwordx4", (data, off_o, srd["o"], Imm(0)), (("offen", True),)),
           ("epi", "store"))
    mu2, lg, tt, lse = (ab.vreg(name=n) for n in ("e_mu", "e_lg", "e_t", "lse"))
    ep.add(Instr("v_cmp_neq_f32", (vcc, ninf, m)), ("epi",))
    ep.add(Instr("v_cndmask_b32", (mu2, Imm(0), m, vcc)), ("epi",))
    ep.add(Instr("v_log_f32", (lg, l_)), ("epi",))
    ep.add(Instr("v_add_f32", (tt, mu2, lg)), ("epi",))
    ep.add(Instr("v_mul_f32", (lse, Imm(f32_bits(math.log(2.0))), tt)), ("epi",))
    ep.add(Instr("buffer_store_dword", (lse, off_l, srd["lse"], Imm(0)), (("offen", True),)),
           ("epi", "store"))
    return k
