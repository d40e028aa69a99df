"""The K tile of the multi-wave attention template: global -> LDS by LDS-DMA -> MFMA A operands.

A K block is 32 keys x D head dims, row-major in global memory (head-dim contiguous), which is
already the layout the S^T = K Q^T MFMA reads: lane l takes key l % 32 and ``kpl`` contiguous
head dims (cdna-facts section 2.2). So K needs no transpose and goes straight to LDS with
``buffer_load_dword ... lds`` on gfx942 and ``buffer_load_dwordx4 ... lds`` on gfx950 (cdna-facts
section 6: LDS address = M0 + instruction offset + lb lane for lb = 4 / 16 bytes per lane,
completion counted by vmcnt; the instruction offset moves the global address too). One DMA
instruction writes a *chunk* of 64 lb bytes (256 or 1024) = whole key rows (or, D = 256 with
4-byte DMA, half a 512-byte row: chunk j holds units 16 (j % 2) .. + 15 of row j / 2); the block's
``32 * 2 D / chunk`` chunks are dealt to the workgroup's waves, wave w taking the contiguous
chunks w * NJ .. w * NJ + NJ - 1.

LDS layout: unpadded rows of 2 D bytes, 16-byte units XOR-swizzled: unit u of key row r sits at
unit ``u ^ (r & M)`` (M = 7, ``swizzle_mask``), so the 32 rows one
``ds_read`` touches spread over all banks (cdna-facts section 7: the CK XOR pre-shuffle) without
the 6-25 % of padding, which lets two 2-buffer workgroups share gfx942's 64 KiB. Logical unit
U of a row holds, for the x16 MFMA, elements 8 U .. 8 U + 7 (k-step U / 2, lane half U % 2);
for the x8 MFMA the *pair* of k-steps 2 a, 2 a + 1 of lane half h (U = 2 a + h: elements
16 a + 4 h + 0..3, then 16 a + 8 + 4 h + 0..3), so every 32 bytes of a row are one
``ds_read_b128`` in both cases (two x8 operands per read, half the reads of ds_read_b64). Reads:
lane (r = l % 32, h = l / 32) forms ``r * 2 D + 16 (h ^ x)`` once per block (x = r & M) and XORs
``32 a`` for read a: the buffer bases and the V region are multiples of 4096, above the XORed
bits; of 32 a only bits 5 and 6 meet set bits of the lane's offset, the rest goes in the
``ds_read`` instruction offset (``read_operands``). DMA: since the LDS position of lane l is fixed (lb l), the lane loads the *global* bytes
whose logical unit lands there: offset ``G0 ^ key_j`` for chunk j (R rows per chunk, key_j the
XOR by (j R) & M of the unit bits), G0 computed once per lane (the x8 pairing is a dword
permutation, so it needs 4-byte DMA: gfx950 uses dwordx4 only with the x16 MFMA); the chunk's ``j * chunk`` goes in the instruction offset (both addresses), 4096-byte
steps past the 12-bit field (cdna-facts section 5) into a second offset VGPR and M0 (not into
soffset: soffset is not range-checked, so keys past seqlen_k would not read 0).
fp8 (the 32x32x16 fp8 MFMA) reads 8 bytes per lane and k-step (elements 16 st + 8 h .. + 7),
byte for byte the x8 layout's pieces, so it takes the paired layout and 4-byte DMA (``paired``)
with rows of D bytes.
"""
from __future__ import annotations

from dataclasses import dataclass

from isa.instr import Instr
from isa.operands import Imm, Special

from ...ir import VReg
from ...target import MUBUF_OFFSET_MAX
from .lds import BLOCK_K, k_region_bytes, kv_buffer_bytes  # noqa: F401  (re-exported)

# bytes per lane of one LDS-DMA: buffer_load_dword ... lds on gfx942, buffer_load_dwordx4 ... lds
# on gfx950 (cdna-facts section 6: CDNA4 widens LDS-DMA to 128 bits per lane; LDS address
# M0 + offset + 16 lane)
DMA_OP = {4: "buffer_load_dword", 16: "buffer_load_dwordx4"}


def paired(cfg) -> bool:
    """8 bytes per lane and k-step (the 16-bit x8 MFMA, or fp8's 32x32x16): two k-steps' pieces
    of one lane half pair up in a 16-byte unit (the module docstring's x8 layout, which is a
    byte layout, so fp8 takes it as is)."""
    return cfg.in_type.nbytes(cfg.k_per_lane) == 8


def lane_bytes(cfg) -> int:
    """16 (dwordx4) on gfx950 with the 16-bit x16 MFMA; 4 otherwise (gfx942 has no dwordx4 DMA,
    and the paired layout pairs 8-byte pieces that are not contiguous in global memory)."""
    return 4 if paired(cfg) else max(cfg.target.lds_dma_bytes)
OFFEN = (("offen", True),)


def load_q(p, ab, cfg, off: VReg, srd_q: VReg, file: str = "v") -> list[VReg]:
    """Q into registers, one buffer load per MFMA k-step: the B operand of k-step ``st`` is
    Q[row][st * mfma_k + dq .. + k_per_lane - 1] at the constant offset of ``st`` k-steps from
    ``off`` (the prefill and decode kinds both load Q this way, tagged ``gr_q``). ``file`` "a":
    into AccVGPRs (buffer loads write them and an MFMA's A/B may be AGPRs on gfx90a+,
    cdna-facts section 2.1)."""
    nb = cfg.in_type.nbytes(cfg.k_per_lane)          # 8 or 16 bytes per lane and k-step
    load = {8: "buffer_load_dwordx2", 16: "buffer_load_dwordx4"}[nb]
    regs = []
    for st in range(cfg.head_dim // cfg.mfma_k):
        r = ab.k.vreg(file, nb // 4, align=2, name=f"q{st}") if file == "a" else \
            ab.vreg(nb // 4, name=f"q{st}")
        p.add(Instr(load, (r, off, srd_q, Imm(0)),
                    OFFEN + ((("offset", cfg.in_type.nbytes(cfg.mfma_k * st)),) if st else ())),
              ("gr_q",))
        regs.append(r)
    return regs


def swizzle_mask(cfg) -> int:
    """M of the module docstring: 8 units span gfx942's 32 banks. gfx950 has 64 banks, but a
    16-unit key (M = 15 for D = 128) modeled slower (``asmgen profile``: 1152 against 1350
    TFLOP/s for B16 H16 S8192 D128, 4 waves), so both arches use 8."""
    units = cfg.in_type.nbytes(cfg.head_dim) // 16
    return min(units, 8) - 1


@dataclass
class KTile:
    goff: list[VReg]      # per 4096-byte step: per-lane global offset G0 of this wave's chunks
    m0_wave: VReg         # SGPR: this wave's first chunk, bytes within a buffer
    read_addr: VReg       # per-lane LDS byte offset of lane (row l % 32, k-step 0) in a buffer
    chunks: int           # chunks per wave (NJ)
    mask: int             # M
    lane_bytes: int       # 4 (dword) or 16 (dwordx4, gfx950)


def setup(ab, lane: VReg, col: VReg, half: VReg, swave: VReg) -> KTile:
    """Loop-invariant K-tile state (prologue); ``swave`` is the wave index in an SGPR."""
    cfg = ab.cfg
    D = cfg.head_dim
    p = ab.k.prologue
    tags = ("addr",)
    m = swizzle_mask(cfg)
    row_b = cfg.in_type.nbytes(D)
    lg_row = row_b.bit_length() - 1
    lb = lane_bytes(cfg)
    lg_lb = lb.bit_length() - 1
    chunk = 64 * lb
    nj = BLOCK_K * row_b // chunk // cfg.waves
    rows_wave = nj * chunk // row_b                   # chunks hold 1..8 rows, or half a row
    # ---- DMA side: G0 = (row0 + lrow) 2 D + 16 (pu ^ x0) + 4 (l % 4), x0 = (row0 + lrow) & M
    row0 = ab.sreg(name="k_row0")
    p.add(Instr("s_mul_i32", (row0, swave, Imm(rows_wave))), tags)
    lrow, row, x0, pu, pux, t, dw, g0, rbyt = (ab.vreg(name=f"k_{n}") for n in (
        "lrow", "row", "x0", "pu", "pux", "t", "dw", "g0", "rbyt"))
    p.add(Instr("v_lshrrev_b32", (lrow, Imm(lg_row - lg_lb), lane)), tags)     # lb l / 2 D
    p.add(Instr("v_add_u32", (row, row0, lrow)), tags)
    p.add(Instr("v_and_b32", (x0, Imm(m), row)), tags)
    # unit of the lane's bytes within its row: (lb l % 2 D) / 16
    p.add(Instr("v_bfe_u32", (pu, lane, Imm(4 - lg_lb), Imm(lg_row - 4))), tags)
    p.add(Instr("v_xor_b32", (pux, x0, pu)), tags)                           # logical unit U
    if paired(cfg):         # paired units: global dword 8 (U / 2) + 4 (q / 2) + 2 (U % 2) + q % 2
        ua, ub, qa, qb, t1, t2, t3, g = (ab.vreg(name=f"k_p{n}") for n in (
            "ua", "ub", "qa", "qb", "t1", "t2", "t3", "g"))
        p.add(Instr("v_lshrrev_b32", (ua, Imm(1), pux)), tags)
        p.add(Instr("v_and_b32", (ub, Imm(1), pux)), tags)
        p.add(Instr("v_bfe_u32", (qa, lane, Imm(1), Imm(1))), tags)
        p.add(Instr("v_and_b32", (qb, Imm(1), lane)), tags)
        p.add(Instr("v_lshlrev_b32", (t1, Imm(3), ua)), tags)
        p.add(Instr("v_lshl_add_u32", (t2, qa, Imm(2), t1)), tags)
        p.add(Instr("v_lshl_add_u32", (t3, ub, Imm(1), t2)), tags)
        p.add(Instr("v_add_u32", (g, qb, t3)), tags)
        p.add(Instr("v_lshlrev_b32", (g0, Imm(2), g)), tags)
    elif lb == 4:           # the dword within the 16-byte unit
        p.add(Instr("v_lshlrev_b32", (t, Imm(4), pux)), tags)
        p.add(Instr("v_and_b32", (dw, Imm(3), lane)), tags)
        p.add(Instr("v_lshl_add_u32", (g0, dw, Imm(2), t)), tags)
    else:
        p.add(Instr("v_lshlrev_b32", (t, Imm(4), pux)), tags)
        g0 = t
    p.add(Instr("v_lshlrev_b32", (rbyt, Imm(lg_row), row)), tags)
    goff = ab.vreg(name="k_goff")
    p.add(Instr("v_add_u32", (goff, rbyt, g0)), tags)
    goffs = [goff]
    for seg in range(1, ((nj - 1) * chunk) // (MUBUF_OFFSET_MAX + 1) + 1):
        gs = ab.vreg(name=f"k_goff{seg}")
        p.add(Instr("v_add_u32", (gs, ab.const(seg * (MUBUF_OFFSET_MAX + 1)), goff)), tags)
        goffs.append(gs)
    m0w = ab.sreg(name="k_wave_m0")
    p.add(Instr("s_mul_i32", (m0w, swave, Imm(nj * chunk))), tags)
    # ---- read side: r = col, x = r & M: r 2 D + 16 (h ^ x) (unit h of k-step pair / x16 step 0)
    x, ra, rd = ab.vreg(name="k_rx"), ab.vreg(name="k_ra"), ab.vreg(name="k_rd")
    p.add(Instr("v_and_b32", (x, Imm(m), col)), tags)
    p.add(Instr("v_lshlrev_b32", (ra, Imm(lg_row), col)), tags)
    hx = ab.vreg(name="k_rhx")
    p.add(Instr("v_xor_b32", (hx, half, x)), tags)
    p.add(Instr("v_lshl_add_u32", (rd, hx, Imm(4), ra)), tags)
    return KTile(goffs, m0w, rd, nj, m, lb)


def load_block(ab, block, kt: KTile, srd_k: VReg, buf: VReg,
               region: str = "K_w", publish_after: int = 1) -> None:
    """This wave's chunks of one K block into the LDS buffer at ``buf`` (SGPR byte offset) by
    LDS-DMA: M0 = buf + wave chunk base (+ 4096-byte steps), instruction offset j * chunk, per-lane
    offset G0 ^ 16 ((j R) & M) (cdna-facts section 6). ``publish_after``: how many barriers later
    the block is first read (``Node.publish_after``; the waitcnt pass waits for it there)."""
    tags = ("addr", "gr_k_addr")
    D = ab.cfg.head_dim
    chunk = 64 * kt.lane_bytes
    row_b = ab.cfg.in_type.nbytes(D)
    m0b = ab.sreg(name="k_m0b")
    block.add(Instr("s_add_u32", (m0b, kt.m0_wave, buf)), tags)
    cur_seg = None
    for j in range(kt.chunks):
        seg = (j * chunk) // (MUBUF_OFFSET_MAX + 1)
        hi = seg * (MUBUF_OFFSET_MAX + 1)
        imm = j * chunk - hi
        if seg != cur_seg:
            if hi:
                block.add(Instr("s_add_u32", (Special("m0"), m0b, ab.const(hi))), tags)
            else:
                block.add(Instr("s_mov_b32", (Special("m0"), m0b)), tags)
            cur_seg = seg
        k_ = (j * chunk // row_b) & kt.mask     # the chunk's first row (D = 256, 4-byte DMA:
        #                                         two chunks per row, lane l at unit l / 4 of its half)
        # XOR of the logical unit by k_: bits 4.. of the byte offset, or for paired units
        # (x8) U / 2 at dword bit 3 and U % 2 at dword bit 1
        key = (((k_ >> 1) << 5) | ((k_ & 1) << 3)) if paired(ab.cfg) else k_ << 4
        off = kt.goff[seg]
        if key:
            off = ab.vreg(name="k_goff_j")
            block.add(Instr("v_xor_b32", (off, Imm(key) if key <= 64 else ab.const(key),
                                          kt.goff[seg])), tags)
        block.add(Instr(DMA_OP[kt.lane_bytes], (off, srd_k, Imm(0)),
                        OFFEN + ((("offset", imm),) if imm else ()) + (("lds", True),)),
                  ("gr_k", "lw_k"), lds_write=region, publish_after=publish_after)


def read_operands(ab, body, kt: KTile, base: VReg, dst: list[VReg] | None = None,
                  offsets: bool = False) -> list[VReg]:
    """A operands of every k-step of S^T = K Q^T from the buffer at ``base`` (SGPR); ``dst``:
    the 4-register tuples to read into (one per ds_read_b128, ``read_regs``), else new ones.
    ``offsets``: bits 7 and up of each read's XOR key go in the instruction offset (below),
    so at most three XOR'd addresses per block (the ping-pong loop, whose softmax phase is
    VALU-bound); else one XOR per read, each right before its read (the 4-wave loops
    interleave the reads with MFMAs one by one: sharing addresses modeled 7 % slower there,
    gfx950 D128 w4b2 prio_interleave 1733 -> 1860 clk per block)."""
    cfg = ab.cfg
    addr = ab.vreg(name="k_ra_buf")
    body.add(Instr("v_add_u32", (addr, base, kt.read_addr)), ("addr", "lr_k_addr"))
    out = []
    xored = {0: addr}
    # one ds_read_b128 per 32 bytes of the row: x16 k-step a, or x8 k-steps 2a, 2a + 1. The
    # read address is addr ^ 32 a; addr's bits 7 .. log2(row bytes) - 1 are 0 (the module
    # docstring: 16 (h ^ x) < 128, rows from bit log2(row bytes) up, buffer bases multiples of
    # 4096), so 32 a's bits from 7 up are an add: the instruction offset. Only the XOR of bits
    # 5 and 6 needs a VGPR (at most three per block, shared by the reads a, a + 4, ...)
    for a_ in range(cfg.in_type.nbytes(cfg.head_dim) // 32):
        r = dst[a_] if dst else ab.k.vreg("v", 4, align=4, name=f"kf{a_}")
        key = 32 * a_
        low, off = (key & 0x60, key & ~0x7F) if offsets else (key, 0)
        a = xored.get(low)
        if a is None:
            a = ab.vreg(name="k_ra_st")
            if offsets:
                xored[low] = a
            body.add(Instr("v_xor_b32", (a, Imm(low) if low <= 64 else ab.const(low), addr)),
                     ("addr", "lr_k_addr"))
        body.add(Instr("ds_read_b128", (r, a), (("offset", off),) if off else ()), ("lr_k",),
                 lds_read="K_r")
        out.append(r)
    return split_operands(cfg, out)


def read_regs(ab) -> list[VReg]:
    """Registers ``read_operands`` reads one K block into: one 4-register tuple per 32 bytes of
    a key row (the ping-pong loop carries them across iterations)."""
    n = ab.cfg.in_type.nbytes(ab.cfg.head_dim) // 32
    return [ab.k.vreg("v", 4, align=4, name=f"kf{a}") for a in range(n)]


def split_operands(cfg, regs: list[VReg]) -> list[VReg]:
    """The k-step A operands of the ds_read_b128 tuples ``regs``: x8 (paired) two per tuple."""
    if not paired(cfg):
        return list(regs)
    return [h for r in regs for h in (r.sub(0, 2), r.sub(2, 2))]
