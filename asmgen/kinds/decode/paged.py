"""Paged K/V for the decode template: vLLM's caches ``[num_blocks, page_size, kv_heads,
head_dim]`` and ``block_table [batch, max_blocks_per_seq]`` int32.

The K/V buffer resources cover the whole pool (num_records = num_blocks x page bytes, so the pool
is at most 4 GiB per cache: cdna-facts section 5, checked by the contract's range on
``num_blocks``); the block table's resource covers sequence b's row only. For each 32-key block
(absolute key ``kabs``) the page numbers are read by one scalar buffer load (``s_buffer_load_dword``
for pages of 32 keys or more, whose block lies in one page; ``_dwordx2`` for 16-key pages, two
per block: lanes of keys 16..31 take the second); a table entry past the row reads 0 (the
prefetch after the last block). Each lane's offset = page x page bytes + key-in-page x row bytes
+ kv_head x head_dim bytes + its elements; keys at or past the context get the out-of-range
offset, so they read 0 whatever the table holds there (stale pages may hold NaN, and 0 x NaN is
NaN in the PV MFMA).
"""
from __future__ import annotations

from isa.instr import Instr
from isa.operands import Imm, Special

from ..common.buffers import SRD_DWORD3, log2
from .arith import imm_or_const
from .config import BLOCK_K
from .kvload import TAGS, load_k, load_v, v_items, v_row_shift


class PagedKV:
    """Per-block offsets from the block table (see the module docstring)."""

    def __init__(self, ab, srd, b, ctx, start, kvh_off, nblocks, col, dqb, lane) -> None:
        cfg, p = ab.cfg, ab.k.prologue
        self.ab, self.srd, self.ctx, self.nblocks = ab, srd, ctx, nblocks
        P, rbk = cfg.page_size, cfg.kv_row_bytes
        self.two = P < BLOCK_K                       # 16-key pages: two per block
        for n in ("k_cache", "v_cache"):
            r = srd[n]
            p.add(Instr("s_and_b32", (r.sub(1), r.sub(1), Imm(0xFFFF))), TAGS)
            p.add(Instr("s_mul_i32", (r.sub(2), nblocks, Imm(cfg.page_bytes))), TAGS)
            p.add(Instr("s_mov_b32", (r.sub(3), Imm(SRD_DWORD3))), TAGS)
        bt = srd["block_table"]
        lo, hi = ab.sreg(name="bt_lo"), ab.sreg(name="bt_hi")
        row = 4 * cfg.max_blocks_per_seq
        p.add(Instr("s_mul_i32", (lo, b, Imm(row))), TAGS)
        p.add(Instr("s_mul_hi_u32", (hi, b, Imm(row))), TAGS)
        p.add(Instr("s_add_u32", (bt.sub(0), bt.sub(0), lo)), TAGS)
        p.add(Instr("s_addc_u32", (bt.sub(1), bt.sub(1), hi)), TAGS)
        p.add(Instr("s_and_b32", (bt.sub(1), bt.sub(1), Imm(0xFFFF))), TAGS)
        p.add(Instr("s_mov_b32", (bt.sub(2), Imm(row))), TAGS)
        p.add(Instr("s_mov_b32", (bt.sub(3), Imm(SRD_DWORD3))), TAGS)
        self.kabs = ab.sreg(name="kv_abs")           # absolute key of the block to load next
        p.add(Instr("s_mov_b32", (self.kabs, start)), TAGS)
        # K: key col of the block; in-page key col % 16 (two pages) or kabs % P + col
        kc = col
        if self.two:
            kc = ab.vreg(name="pk_col")
            p.add(Instr("v_and_b32", (kc, Imm(P - 1), col)), TAGS)
            self.kmask = ab.k.vreg("s", 2, align=2, name="pk_hi")
            p.add(Instr("v_cmp_lt_u32", (self.kmask, Imm(P - 1), col)), TAGS)
        t = ab.vreg(name="pk_t")
        self.koff = ab.vreg(name="pk_off")
        p.add(Instr("v_mad_u32_u24", (t, kc, imm_or_const(ab, rbk), dqb)), TAGS)
        p.add(Instr("v_add_u32", (self.koff, kvh_off, t)), TAGS)
        self.col = col
        # V items: keys 4 g + i; in-page 4 (g % 4) + i (two pages) or kabs % P + 4 g + i
        self.items = []
        for j, (g, c) in enumerate(v_items(ab, lane)):
            g4, c16, gp = ab.vreg(name=f"pv_g4{j}"), ab.vreg(name=f"pv_c16{j}"), g
            p.add(Instr("v_lshlrev_b32", (g4, Imm(2), g)), TAGS)
            p.add(Instr("v_lshlrev_b32", (c16, Imm(v_row_shift(cfg)), c)), TAGS)
            mask = None
            if self.two:
                gp = ab.vreg(name=f"pv_gp{j}")
                p.add(Instr("v_and_b32", (gp, Imm(P // 4 - 1), g)), TAGS)
                mask = ab.k.vreg("s", 2, align=2, name=f"pv_hi{j}")
                p.add(Instr("v_cmp_lt_u32", (mask, Imm(P // 4 - 1), g)), TAGS)
            t1, vb = ab.vreg(name=f"pv_t{j}"), ab.vreg(name=f"pv_off{j}")
            p.add(Instr("v_mad_u32_u24", (t1, gp, imm_or_const(ab, 4 * rbk), c16)), TAGS)
            p.add(Instr("v_add_u32", (vb, kvh_off, t1)), TAGS)
            self.items.append((g4, vb, mask))
        self.kvh_sc = None

    def token_scales(self, kvh, half) -> None:
        """Per-token k_scale / v_scale (``kvscale``): resources over the pool."""
        from . import kvscale
        self.kvh_sc = kvscale.paged_setup(self.ab, self.srd, kvh, self.nblocks, half)
        self.scales = kvscale.Loader(ab=self.ab, srd=self.srd)

    def _pages(self, block):
        """(page byte base SGPR or None, per-lane selector, page numbers, key in page) of the
        block at ``kabs``: one SGPR (one page), or two VGPR copies to pick per lane (two pages);
        the page number SGPRs and the block's first key in its page (SGPR, pages over 32 keys)."""
        ab, cfg = self.ab, self.ab.cfg
        P = cfg.page_size
        tg = ("addr", "page")
        idx = ab.sreg(name="pg_idx")
        block.add(Instr("s_lshr_b32", (idx, self.kabs, Imm(log2(P)))), tg)
        block.add(Instr("s_lshl_b32", (idx, idx, Imm(2))), tg)
        if not self.two:
            ph = ab.sreg(name="page")
            block.add(Instr("s_buffer_load_dword", (ph, self.srd["block_table"], idx)),
                      ("addr", "page", "gr_bt"))
            base = ab.sreg(name="page_b")
            block.add(Instr("s_mul_i32", (base, ph, Imm(cfg.page_bytes))), tg)
            kin = None
            if P > BLOCK_K:
                kin = ab.sreg(name="page_kin")       # kept for the per-token scales' offsets
                kb_ = kin if self.kvh_sc is None else ab.sreg(name="page_kin_b")
                block.add(Instr("s_and_b32", (kin, self.kabs, Imm(P - 1))), tg)
                block.add(Instr("s_mul_i32", (kb_, kin, Imm(cfg.kv_row_bytes))), tg)
                block.add(Instr("s_add_u32", (base, base, kb_)), tg)
            return base, None, (ph,), kin
        ph = ab.k.vreg("s", 2, align=2, name="pages")
        block.add(Instr("s_buffer_load_dwordx2", (ph, self.srd["block_table"], idx)),
                  ("addr", "page", "gr_bt"))
        pair = []
        for i in range(2):
            sb, vb = ab.sreg(name=f"page_b{i}"), ab.vreg(name=f"page_v{i}")
            block.add(Instr("s_mul_i32", (sb, ph.sub(i), Imm(cfg.page_bytes))), tg)
            block.add(Instr("v_mov_b32", (vb, sb)), tg)
            pair.append(vb)
        return None, pair, (ph.sub(0), ph.sub(1)), None

    def _select(self, block, pair, mask):
        """The page base of each lane: ``pair[1]`` where ``mask`` (keys of the second page)."""
        sel = self.ab.vreg(name="pg_sel")
        block.add(Instr("v_cndmask_b32", (sel, pair[0], pair[1], mask)), ("addr", "page"))
        return sel

    def _offset(self, block, base, lane_off, key_lane, keys_left):
        """base (page byte base, SGPR or per-lane VGPR) + lane_off where key_lane < keys_left,
        else out of range."""
        ab = self.ab
        tg = ("addr", "page")
        vcc = Special("vcc")
        o = ab.vreg(name="pg_o")
        block.add(Instr("v_add_u32", (o, base, lane_off)), tg)
        block.add(Instr("v_cmp_gt_i32", (vcc, keys_left, key_lane)), tg)
        ok = ab.vreg(name="pg_ok")
        block.add(Instr("v_cndmask_b32", (ok, ab.oob, o, vcc)), tg)
        return ok

    def load(self, block, kb, dst=None, ahead: bool = False):
        ab, cfg = self.ab, self.ab.cfg
        tg = ("addr", "page")
        left = ab.sreg(name="keys_left")
        block.add(Instr("s_sub_i32", (left, self.ctx, self.kabs)), tg)
        base, pair, pages, kin = self._pages(block)
        kbase = base if pair is None else self._select(block, pair, self.kmask)
        ko = self._offset(block, kbase, self.koff, self.col, left)
        kf = load_k(ab, block, self.srd["k_cache"], [(ko, 0)], dst[0] if dst else None)
        voffs = []
        for g4, vb, mask in self.items:
            vbase = base if pair is None else self._select(block, pair, mask)
            rows = []
            for i in range(4):
                lo, li = vb, left
                if i:
                    lo, li = ab.vreg(name="pv_row"), ab.sreg(name="keys_left_i")
                    block.add(Instr("v_add_u32", (lo, imm_or_const(ab, i * cfg.kv_row_bytes), vb)),
                              tg)
                    block.add(Instr("s_sub_i32", (li, left, Imm(i))), tg)
                rows.append((self._offset(block, vbase, lo, g4, li), 0))
            voffs.append(rows)
        vrows = load_v(ab, block, self.srd["v_cache"], voffs, dst[1] if dst else None)
        sc = None
        if self.kvh_sc is not None:
            from . import kvscale
            offs = kvscale.paged_offsets(ab, block, pages, *self.kvh_sc, kin=kin)
            sc = self.scales.load(block, offs, dst[2] if dst else None, ahead)
        return kf, vrows, sc

    def advance(self, block) -> None:
        block.add(Instr("s_add_u32", (self.kabs, self.kabs, Imm(BLOCK_K))), ("addr", "kv_adv"))
