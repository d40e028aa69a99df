"""GEMM memory and compute ops of one K-tile: global reads (to VGPRs or straight to LDS), LDS
writes, LDS reads + MFMAs, and the K-offset advance. ``asmgen.kinds.gemm.template`` arranges them into
the prologue and the loop body; see its docstring for the pipeline.
"""
from __future__ import annotations

from isa.instr import Instr
from isa.operands import Imm, Special

from ...ir import VReg
from . import tags as T
from .layout import BUFFER_LOAD, DS_READ, DS_WRITE, mfma_name, split_swizzled

OFFEN = (("offen", True),)


def cache_mods(nontemporal: int) -> tuple:
    """Cache-control modifiers of a global read: gfx942/gfx950 spell them sc0, sc1, nt
    (glc/slc are rejected there; cdna-facts section 5), bitmask as Tensile's NonTemporal."""
    return tuple((name, True) for bit, name in ((1, "sc0"), (2, "sc1"), (4, "nt")) if nontemporal & bit)


def advance_k(gb, block, gr) -> None:
    """Move the operand's buffer resource one K-tile on: base += step (48-bit add with carry),
    num_records -= step clamped at 0 (signed: buffers stay below 2 GiB, ``GemmConfig``), so
    every load offset stays loop-invariant and range-checked (cdna-facts section 5: soffset
    would escape the range check). ``krem`` (K left from the next tile) only feeds the K-tail
    mask."""
    tags = ("addr", T.gr_k(gr.operand))
    srd = gr.srd
    block.add(Instr("s_add_u32", (srd.sub(0), srd.sub(0), gr.step)), tags)
    block.add(Instr("s_addc_u32", (srd.sub(1), srd.sub(1), Imm(0))), tags)
    block.add(Instr("s_sub_i32", (srd.sub(2), srd.sub(2), gr.step)), tags)
    block.add(Instr("s_max_i32", (srd.sub(2), srd.sub(2), Imm(0))), tags)
    if gb.cfg.k_tail and gr.k_contig:
        block.add(Instr("s_sub_i32", (gr.krem, gr.krem, Imm(gb.cfg.tile[2]))), tags)


def emit_global_reads(gb, block, gr, gm, dst: list | None = None,
                      lds_buf: VReg | None = None, region: str = "") -> list[tuple[VReg, ...]]:
    """One K-tile of one operand at the loop-invariant offsets of ``gemm_prologue.global_reads``
    (the resource base carries the K position). With ``cfg.k_tail``, K-contiguous loads whose K
    index is past K - k0 (signed) go to OOB_OFFSET (cdna-facts section 5). MN-contiguous
    vectors are two loads, K rows k and k + 1. Returns the loaded registers per vector (reusing
    ``dst`` when given). DMA operands (``gr.dma``) load into LDS buffer ``lds_buf`` instead:
    M0 = buffer + region + wave chunk + j * threads * lane bytes."""
    op = gr.operand
    vec = gm.vec if gr.k_contig else gm.mn_vec     # elements per load
    load_bytes = gb.cfg.in_type.nbytes(vec)
    load_mods = OFFEN + cache_mods(gb.cfg.nontemporal)
    if gr.dma:
        dst = []
        m0b = gb.sreg(name=f"{op}_m0")
        block.add(Instr("s_add_u32", (m0b, lds_buf, gr.m0_base)), ("addr", T.gr_addr(op)))
    elif dst is None:
        if gr.k_contig:
            regs = max(vec // gb.cfg.in_type.per_dword, 1)
            dst = [(gb.vreg(regs, name=f"g{op}{j}"),) for j in range(len(gr.offsets))]
        else:   # one register per K row, holding ``vec`` (1, 2 or 4) MN-neighbours
            dst = [tuple(gb.vreg(name=f"g{op}{j}k{i}") for i in range(gm.k_rows))
                   for j in range(len(gr.offsets))]
    tags = ("addr", T.gr_addr(op))
    kmask: dict[int, VReg] = {}
    for j, off in enumerate(gr.offsets):
        if gr.k_contig:
            am = off
            if gb.cfg.k_tail:
                kk = gr.kk[j]
                if kk.id not in kmask:
                    m = gb.mask()
                    block.add(Instr("v_cmp_gt_i32", (m, gr.krem, kk), encoding="e64"), tags)
                    kmask[kk.id] = m
                am = gb.vreg(name=f"gam_{op}{j}")
                block.add(Instr("v_cndmask_b32", (am, gb.big, off, kmask[kk.id]), encoding="e64"),
                          tags)
            if gr.dma:
                block.add(Instr("s_add_u32", (Special("m0"), m0b, Imm(j * gm.threads * load_bytes))),
                          tags)
                block.add(Instr(BUFFER_LOAD[load_bytes], (am, gr.srd, Imm(0)),
                                load_mods + (("lds", True),)), (T.gr(op), T.lw(op)),
                          lds_write=region)
            else:
                block.add(Instr(BUFFER_LOAD[load_bytes], (dst[j][0], am, gr.srd, Imm(0)), load_mods),
                          (T.gr(op),))
        else:
            for reg, addr in zip(dst[j], (off,) + gr.offsets1[j], strict=True):
                block.add(Instr(BUFFER_LOAD[load_bytes], (reg, addr, gr.srd, Imm(0)), load_mods),
                          (T.gr(op),))
    return dst


def emit_local_writes(gb, block, gr, gm, regs: list, addr: VReg, const_off: int,
                      region: str) -> None:
    """ds_write each vector to its LDS row: vector j sits at a constant (row, k) delta from
    vector 0, so every write uses ``addr`` with an instruction offset (16-bit, section 5).
    MN-contiguous pairs are packed first (low half = even K, as MFMA operands expect), 8-bit
    quads byte-transposed (``_pack_bytes``), fp4 octets nibble-transposed (``_pack_nibbles``)."""
    op = gr.operand
    tags = (T.lw(op),)
    for j, (dr, dk) in enumerate(gm.deltas()):
        if gm.k_contig:
            rows = [(dr, regs[j][0])]
        elif gm.k_rows == 4:
            rows = [(dr + w, data) for w, data in enumerate(_pack_bytes(gb, block, regs[j],
                                                                        gm.mn_vec, f"{op}{j}", tags))]
        elif gm.k_rows == 8:    # fp4: an 8 x 8 nibble transpose
            rows = [(dr + w, data) for w, data in enumerate(
                _pack_nibbles(gb, block, regs[j], gm.mn_vec, f"{op}{j}", tags))]
        elif gm.mn_vec == 1:    # (k, r) | (k + 1, r) << 16: low half = even K (section 2.2)
            data = gb.vreg(name=f"pk_{op}{j}")
            block.add(Instr("v_lshl_or_b32", (data, regs[j][1], Imm(16), regs[j][0])), tags)
            rows = [(dr, data)]
        else:                   # 2x2 transpose: row r = low halves, row r + 1 = high halves
            rows = []
            for w, sel in enumerate((0x05040100, 0x07060302)):
                data = gb.vreg(name=f"pk_{op}{j}_{w}")
                block.add(Instr("v_perm_b32", (data, regs[j][1], regs[j][0], gb.const(sel))),
                          tags)
                rows.append((dr + w, data))
        for r, data in rows:
            off = const_off + gb.lds.in_region(r, dk)
            mods = (("offset", off),) if off else ()
            block.add(Instr(DS_WRITE[gb.cfg.in_type.nbytes(gm.vec)], (addr, data), mods), tags,
                      lds_write=region)


# v_perm_b32 selectors (D.byte i = byte sel.byte i of {S0, S1}: 0-3 are S1's bytes, 4-7 S0's;
# CDNA3 ISA guide, V_PERM_B32). With S0 = K row k + 1, S1 = K row k (each 1..4 MN bytes):
_ILV_LO = 0x05010400    # (k, m0) (k+1, m0) (k, m1) (k+1, m1)
_ILV_HI = 0x07030602    # (k, m2) (k+1, m2) (k, m3) (k+1, m3)
# with S0 = the interleave of K rows 2, 3 and S1 = that of rows 0, 1: the 4 K bytes of one MN
_HALF_LO = 0x05040100   # of MN element 0 (of the interleaved pair)
_HALF_HI = 0x07060302   # of MN element 1


def _pack_bytes(gb, block, rows: tuple, mn_vec: int, name: str, tags: tuple) -> list[VReg]:
    """The byte transpose of 4 K rows of ``mn_vec`` (1, 2 or 4) 8-bit MN elements each (byte i of
    ``rows[k]`` = element (k, m + i)) into ``mn_vec`` dwords of 4 K-neighbours, dword i = MN row
    m + i with byte k = K row k (the MFMA operand order, cdna-facts section 2.2). One byte per row
    (zero-extended ubyte loads): three shift-ors; 2 or 4: two v_perm_b32 per dword."""
    k0, k1, k2, k3 = rows
    if mn_vec == 1:
        lo, hi, data = (gb.vreg(name=f"pk_{name}_{n}") for n in ("lo", "hi", "d"))
        block.add(Instr("v_lshl_or_b32", (lo, k1, Imm(8), k0)), tags)
        block.add(Instr("v_lshl_or_b32", (hi, k3, Imm(8), k2)), tags)
        block.add(Instr("v_lshl_or_b32", (data, hi, Imm(16), lo)), tags)
        return [data]
    out = []
    halves = {2: (_ILV_LO,), 4: (_ILV_LO, _ILV_HI)}[mn_vec]   # dword pairs to interleave
    for half, sel in enumerate(halves):
        p01, p23 = (gb.vreg(name=f"pk_{name}_{n}{half}") for n in ("p01_", "p23_"))
        block.add(Instr("v_perm_b32", (p01, k1, k0, gb.const(sel))), tags)
        block.add(Instr("v_perm_b32", (p23, k3, k2, gb.const(sel))), tags)
        for w, sel2 in enumerate((_HALF_LO, _HALF_HI)):
            data = gb.vreg(name=f"pk_{name}_{2 * half + w}")
            block.add(Instr("v_perm_b32", (data, p23, p01, gb.const(sel2))), tags)
            out.append(data)
    return out


# The fp4 nibble transpose (_pack_nibbles): three butterfly stages on pairs of registers, as the
# recursive transpose of an 8 x 8 matrix of nibbles (register k = K row k, nibble i = MN element i).
# Stage 1 swaps the off-diagonal nibbles of 2 x 2 blocks (registers k, k + 1) with v_bfi_b32
# (D = (S0 & S1) | (~S0 & S2), CDNA3 ISA guide V_BFI_B32); stages 2 and 3 the bytes of registers
# k, k + 2 and the halves of k, k + 4 with v_perm_b32 (S0 = the higher register, S1 the lower).
_NIB_LO = 0x0F0F0F0F
_BYTE_SELS = (0x06020400, 0x07030501)     # (lo.b0, hi.b0, lo.b2, hi.b2), (lo.b1, hi.b1, lo.b3, hi.b3)
_HALF_SELS = (_HALF_LO, _HALF_HI)         # (lo.h0, hi.h0), (lo.h1, hi.h1)


def _pack_nibbles(gb, block, rows: tuple, mn_vec: int, name: str, tags: tuple) -> list[VReg]:
    """The nibble transpose of 8 K rows of ``mn_vec`` (2, 4 or 8) E2M1 MN elements each (nibble
    i of ``rows[k]`` = element (k, m + i): two per byte along MN, the launch contract of an
    MN-contiguous fp4 operand) into ``mn_vec`` dwords of 8 K-neighbours, dword i = MN row m + i
    with nibble k = K row k (even K in the low nibble, as K-contiguous fp4 lies in LDS and the
    f8f6f4 MFMA reads it, CDNA4 ISA guide 7.1.5.1). Only the operations whose results reach one
    of the ``mn_vec`` outputs are emitted: 22 VALU ops for 2 elements, 28 for 4, 32 for 8."""
    need = [set(range(mn_vec))]           # registers needed after stage 3, 2, 1 (backwards)
    for d in (4, 2):
        need.append({x for i in need[-1] for x in (i & ~d, i | d)})
    need.append(set(range(8)))
    x = list(rows)
    mask = gb.const(_NIB_LO)
    for stage, d in enumerate((1, 2, 4)):
        want = need[2 - stage]
        nx = list(x)
        for lo in (i for i in range(8) if not i & d):
            a, b = x[lo], x[lo | d]
            for out, hi_half in ((lo, 0), (lo | d, 1)):
                if out not in want:
                    continue
                r = gb.vreg(name=f"nib_{name}_{stage}_{out}")
                if d == 1:      # out lo: a's low nibbles | b's low nibbles << 4; hi: a >> 4 | b's high
                    t = gb.vreg(name=f"nib_{name}_s{out}")
                    block.add(Instr("v_lshrrev_b32" if hi_half else "v_lshlrev_b32",
                                    (t, Imm(4), a if hi_half else b)), tags)
                    block.add(Instr("v_bfi_b32", (r, mask, t, b) if hi_half else
                                    (r, mask, a, t)), tags)
                else:
                    sel = (_BYTE_SELS if d == 2 else _HALF_SELS)[hi_half]
                    block.add(Instr("v_perm_b32", (r, b, a, gb.const(sel))), tags)
                nx[out] = r
        x = nx
    return x[:mn_vec]


def emit_compute(gb, block, lr_base: dict[str, VReg], rbuf: VReg, acc, scales=None) -> None:
    """ds_read every MFMA operand of the tile (one ds_read_b64/b128 per block and K-step) and
    the MFMAs, K-step by K-step, with ``s_setprio 1`` around the MFMA cluster (section 9.3).
    Program order: with one register set per K-step (``frag_buffers`` = 0) every read, then every
    MFMA; with n sets, the reads of steps 0..n-1, then per step s its MFMAs followed by the reads
    of step s + n into the set those MFMAs just read (so the DAG holds the WAR edge)."""
    sets = frag_sets(gb.cfg)
    steps = gb.cfg.tile[2] // gb.cfg.mfma[2]
    if sets == steps:
        frags = emit_local_reads(gb, block, lr_base, rbuf)
        emit_mfmas(gb, block, frags, acc, scales=scales)
        return
    addr = _read_addrs(gb, block, lr_base, rbuf)
    regs: dict = {}
    frags: dict = {}
    for kb in range(sets):
        frags |= _step_reads(gb, block, lr_base, addr, kb, regs, sets)
    block.add(Instr("s_setprio", (Imm(1),)), ("setprio", "setprio_hi"))
    for kb in range(steps):
        _step_mfmas(gb, block, frags, acc, kb, scales)
        if kb + sets < steps:
            frags |= _step_reads(gb, block, lr_base, addr, kb + sets, regs, sets)
    block.add(Instr("s_setprio", (Imm(0),)), ("setprio", "setprio_lo"))


def _read_addrs(gb, block, lr_base: dict[str, list[VReg]], rbuf: VReg) -> dict:
    """The LDS read addresses ``{(operand, x): VReg}`` of buffer ``rbuf`` (one per base)."""
    addr = {}
    for op in ("a", "b"):
        for x, base in enumerate(lr_base[op]):
            addr[op, x] = gb.vreg(name=f"lr_{op}{x}")
            block.add(Instr("v_add_u32", (addr[op, x], rbuf, base)), ("addr", T.lr(op)))
    return addr


def _step_reads(gb, block, lr_base, addr: dict, kb: int, regs: dict, sets: int) -> dict:
    """The ds_reads of K-step ``kb`` into register set ``kb % sets`` (``regs`` holds the sets).
    A lane's operand is ``runs`` runs of ``k_run`` K-elements (two for fp8 f8f6f4 operands, the
    second mfma_k / 2 further along the row, CDNA4 ISA 7.1.5.1), each one or more ds_read_b128."""
    cfg = gb.cfg
    bm, bn = cfg.blocks
    rb = gb.lds.row_bytes
    nbytes = cfg.in_type.nbytes(cfg.k_per_lane)
    runs = cfg.k_per_lane // cfg.k_run
    run_bytes = cfg.in_type.nbytes(cfg.k_run)
    run_step = cfg.in_type.nbytes(cfg.mfma[2] // runs)      # bytes from one run to the next
    per_run = split_swizzled(cfg)                           # an address per (K-step, run)
    frags = {}
    for op, nblk, mf in (("a", bm, cfg.mfma[0]), ("b", bn, cfg.mfma[1])):
        per_step = len(lr_base[op]) > 1
        for ib in range(nblk):
            key = (op, kb % sets, ib)
            if key not in regs:
                regs[key] = gb.vreg(cfg.operand_regs, name=f"f{op}{kb % sets}_{ib}")
            f = regs[key]
            off = ib * mf * rb + (0 if per_step else cfg.in_type.nbytes(kb * cfg.mfma[2]))
            # operands above 16 bytes (f8f6f4 fp8: 32) are several ds_read_b128 of one row
            piece = min(run_bytes, max(DS_READ))
            for x in range(nbytes // piece):
                r, within = divmod(x * piece, run_bytes)
                o = off + within + (0 if per_run else r * run_step)
                at = addr[op, kb * runs + r] if per_run else addr[op, kb if per_step else 0]
                mods = (("offset", o),) if o else ()
                dst = f if piece == nbytes else f.sub(x * piece // 4, piece // 4)
                block.add(Instr(DS_READ[piece], (dst, at), mods),
                          (T.lr(op),), lds_read=f"{op.upper()}_r", comment=f"kstep {kb}")
            frags[op, kb, ib] = f
    return frags


def emit_local_reads(gb, block, lr_base: dict[str, list[VReg]], rbuf: VReg) -> dict:
    """ds_read every MFMA operand of the tile in LDS buffer ``rbuf`` (an SGPR byte base), each
    K-step into its own registers: returns ``{(operand, k_step, block): VReg}`` for
    ``emit_mfmas``. ``lr_base[op]`` is ``gemm_prologue.local_read_base``'s list: one base (K-steps
    as instruction offsets) or one per K-step (swizzled LDS)."""
    steps = gb.cfg.tile[2] // gb.cfg.mfma[2]
    addr = _read_addrs(gb, block, lr_base, rbuf)
    regs: dict = {}
    frags = {}
    for kb in range(steps):
        frags |= _step_reads(gb, block, lr_base, addr, kb, regs, steps)
    return frags


def frag_sets(cfg) -> int:
    """Fragment register sets of one tile's local reads: ``cfg.frag_buffers`` sets used in turn
    (K-step s reads into set s % frag_buffers, so the reads of step s + frag_buffers wait in the
    DAG (WAR) for the MFMAs of step s), or, with ``frag_buffers`` = 0, one set per K-step."""
    steps = cfg.tile[2] // cfg.mfma[2]
    return min(cfg.frag_buffers, steps) if cfg.frag_buffers else steps


def f8f6f4_mods(cfg) -> tuple:
    """cbsz/blgp of a gfx950 f8f6f4 MFMA: the A and B element formats (``DType.f8f6f4_code``;
    0 = E4M3 is the default and not written), () for every other MFMA."""
    if cfg.target.mfma_for(cfg.mfma, cfg.dtype, cfg.dtype_b).a_type != "f8f6f4":
        return ()
    ca = cfg.in_type.f8f6f4_code
    cb = cfg.b_type.f8f6f4_code
    return tuple((k, c) for k, c in (("cbsz", ca), ("blgp", cb)) if c)


def _step_mfmas(gb, block, frags: dict, acc, kb: int, scales=None) -> None:
    """The MFMAs of K-step ``kb`` into the AGPR accumulators ``acc[i][j]``; with MX ``scales``
    (``{(operand, k_step, block): VReg}``, byte 0 of each lane) the block-scaled form, A and B
    formats in cbsz/blgp (the dtype's f8f6f4 code)."""
    bm, bn = gb.cfg.blocks
    name = mfma_name(gb.cfg)
    mods = f8f6f4_mods(gb.cfg)
    if scales is not None:
        name = gb.cfg.target.mfma_for(gb.cfg.mfma, gb.cfg.dtype, gb.cfg.dtype_b).scaled
        mods = (("op_sel_hi", (0, 0, 0)),) + mods
    for ib in range(bm):
        for jb in range(bn):
            c = acc[ib][jb]
            ops = (c, frags["a", kb, ib], frags["b", kb, jb], c)
            if scales is not None:
                ops += (scales["a", kb, ib], scales["b", kb, jb])
            block.add(Instr(name, ops, mods), ("mfma",), comment=f"kstep {kb}")


def emit_mfmas(gb, block, frags: dict, acc, setprio: int | None = 1, scales=None) -> None:
    """The tile's MFMAs, K-step by K-step, from ``emit_local_reads``' fragments into the AGPR
    accumulators ``acc[i][j]``; ``setprio`` (None: none) is raised over the cluster and dropped
    to 0 after it (tags ``setprio_hi`` / ``setprio_lo``)."""
    steps = gb.cfg.tile[2] // gb.cfg.mfma[2]
    if setprio is not None:
        block.add(Instr("s_setprio", (Imm(setprio),)), ("setprio", "setprio_hi"))
    for kb in range(steps):
        _step_mfmas(gb, block, frags, acc, kb, scales)
    if setprio is not None:
        block.add(Instr("s_setprio", (Imm(0),)), ("setprio", "setprio_lo"))
