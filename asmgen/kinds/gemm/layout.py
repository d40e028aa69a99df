"""GEMM data placement: which element each lane loads, where it lives in LDS, which lanes hold
which MFMA operand and result elements (the buffer resource constants: ``kinds.common.buffers``).

Pure arithmetic on a ``GemmConfig`` (no instructions), so tests can check it against NumPy.

LDS: each of the ``prefetch + 1`` buffers holds the A tile then the B tile, both stored
K-contiguous: row r (an M index for A, an N index for B) of ``DepthU + pad`` f16 elements. An MFMA
operand lane reads ``k_per_lane`` consecutive K elements of one row (cdna-facts section 2.2), so one
``ds_read_b64`` (gfx942 shapes) or ``ds_read_b128`` (gfx950 x16/x32 shapes) per block and K-step.
Rows are padded by ``pad`` elements (16 bytes by default) against bank conflicts (cdna-facts
section 7, "row padding"), or, with ``lds_swizzle``, left unpadded and XOR-swizzled
(``LdsSwizzle``): LDS row r keeps its K elements in units of one MFMA operand read (``unit`` bytes)
and unit u of the row holds the tile's unit ``u ^ xor_units(r)``. The swizzle is applied where
the data is fetched: a thread loads the *swizzled* global K index and writes (or LDS-DMAs) it to
its natural LDS place, so the LDS write pattern, LDS-DMA's M0 + lane * size rule included, is
unchanged; an MFMA operand read of logical unit u of row r reads unit ``u ^ xor_units(r)``.

Global reads: thread ``t`` of the workgroup (``threads`` of them, a power of two) issues load
``j`` for vector ``q = t + threads * j`` of the tile. For a K-contiguous operand (A in N, B in T)
vector q covers row ``q >> log2(DepthU / vec)`` and K elements from ``(q & (DepthU / vec - 1)) *
vec``; for an MN-contiguous operand (A in T, B in N) with ``mn_vec`` w (1 or 2 elements per
load of a 16-bit type, 1, 2 or 4 of an 8-bit one) it covers rows ``(q & (MT / w - 1)) * w`` ..
+ w - 1 at K ``d * (q >> log2(MT / w))`` .. + d - 1, d = ``k_rows`` the elements per dword (2 or
4): d loads (one per K row) transposed into w dwords of d K-neighbours, so each LDS dword has
one writing wave. Either way load j sits at a constant (row, k) offset
from load 0 of the same thread (``GlobalReadMap.deltas``), which is what lets the LDS write of
every load share one address register with a constant instruction offset.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..common.buffers import log2
from .config import GemmConfig


@dataclass(frozen=True, slots=True)
class GlobalReadMap:
    """Where a thread's global loads of one operand go, as (row, k) tile coordinates."""

    operand: str        # "a" | "b"
    k_contig: bool      # K is the contiguous dimension in memory
    rows: int           # MT0 for A, MT1 for B
    depth: int          # DepthU
    vec: int            # K elements per vector (the load vector, or 2 K rows when MN-contiguous)
    threads: int
    loads: int          # vectors per thread
    mn_vec: int = 1     # MN rows per vector (MN-contiguous: elements per load)
    k_rows: int = 2     # MN-contiguous: K rows per vector (elements per dword of the type)

    @property
    def k_fast(self) -> bool:
        """MN-contiguous 8-bit operands number their vectors K-quad first (``kq = q % (DepthU /
        4)``, then the MN group): the lanes of one LDS-write phase then cover every K dword of a
        row and several row groups, where MN-first lanes would all write one K dword of rows 4
        apart (4 rows x a 32-byte row = one bank line: an 8-way conflict, cdna-facts section 7).
        A load instruction still reads 4-byte runs of DepthU / 4 MN groups on each K row. fp4
        (8 K rows per dword) numbers its vectors K-octet first the same way."""
        return not self.k_contig and self.k_rows >= 4

    def _at(self, q: int) -> tuple[int, int]:
        """(row, k) of vector ``q``."""
        if self.k_contig:
            vpr = self.depth // self.vec
            return q >> log2(vpr), (q & (vpr - 1)) * self.vec
        if self.k_fast:
            kqs = self.depth // self.k_rows
            return (q >> log2(kqs)) * self.mn_vec, self.k_rows * (q & (kqs - 1))
        vpr = self.rows // self.mn_vec
        return (q & (vpr - 1)) * self.mn_vec, self.k_rows * (q >> log2(vpr))

    def lane0(self, t: int) -> tuple[int, int]:
        """(row, k) of load 0 of thread ``t``."""
        return self._at(t)

    def deltas(self) -> list[tuple[int, int]]:
        """(row, k) offset of load j from load 0 of the same thread (independent of the thread:
        ``threads * j`` is a multiple of every vector-count period below it)."""
        return [self._at(self.threads * j) for j in range(self.loads)]

    def coords(self, t: int, j: int) -> tuple[int, int]:
        """(row, k) of load j of thread t, straight from the vector index (for tests)."""
        q = t + self.threads * j
        if self.k_contig:
            vpr = self.depth // self.vec
            return q >> log2(vpr), (q & (vpr - 1)) * self.vec
        if self.k_fast:
            kqs = self.depth // self.k_rows
            return (q // kqs) * self.mn_vec, self.k_rows * (q % kqs)
        vpr = self.rows // self.mn_vec
        return (q % vpr) * self.mn_vec, self.k_rows * (q // vpr)


def global_read_map(cfg: GemmConfig, operand: str) -> GlobalReadMap:
    rows = cfg.tile[0] if operand == "a" else cfg.tile[1]
    return GlobalReadMap(operand, cfg.k_contig(operand), rows, cfg.tile[2], cfg.kvec(operand),
                         cfg.threads, cfg.loads_per_thread(operand), cfg.mn_vec(operand),
                         cfg.in_type.per_dword)


@dataclass(frozen=True, slots=True)
class LdsLayout:
    """Byte offsets of the LDS tiles (one buffer = A tile then B tile)."""

    row_bytes: int
    a_base: int
    b_base: int
    buffer_bytes: int
    buffers: int
    ebits: int          # bits per element (fp4: 4, two per byte)

    def offset(self, operand: str, row: int, k: int, buffer: int = 0) -> int:
        base = self.a_base if operand == "a" else self.b_base
        return buffer * self.buffer_bytes + base + row * self.row_bytes + self.ebits * k // 8

    def region_base(self, operand: str) -> int:
        return self.a_base if operand == "a" else self.b_base

    def in_region(self, row: int, k: int) -> int:
        """Byte offset of (row, k) from the start of its operand's region."""
        return row * self.row_bytes + self.ebits * k // 8

    @property
    def total(self) -> int:
        return self.buffers * self.buffer_bytes


def lds_layout(cfg: GemmConfig) -> LdsLayout:
    rb = cfg.lds_row_bytes
    return LdsLayout(rb, 0, cfg.tile[0] * rb, cfg.lds_buffer_bytes, cfg.prefetch + 1,
                     cfg.in_type.bits)


@dataclass(frozen=True, slots=True)
class LdsSwizzle:
    """XOR swizzle of unpadded LDS rows (cdna-facts section 7, CK's XOR pre-shuffle): row r's
    unit u (``unit`` bytes, one MFMA operand read) is stored at unit ``u ^ xor_units(r)``, where
    ``xor_units(r) = (r // rep) % units`` and ``rep`` rows share one bank line. The rows one LDS
    phase reads (16 lanes of ds_read_b64, 8 of ds_read_b128, consecutive rows, one unit) then hit
    distinct units of distinct bank lines: no conflict."""

    unit: int      # bytes per unit: the bytes of k_per_lane elements
    units: int     # units per row: row_bytes / unit
    rep: int       # rows per bank line: max(1, bank line / row_bytes)
    ebits: int     # bits per element

    @property
    def unit_elements(self) -> int:
        return self.unit * 8 // self.ebits

    def xor_units(self, row: int) -> int:
        return (row // self.rep) % self.units

    def swizzle_k(self, row: int, k: int) -> int:
        """The K element stored at (row, k) of LDS (an involution: also where k is stored)."""
        return k ^ (self.xor_units(row) * self.unit_elements)


def lds_swizzle(cfg: GemmConfig) -> LdsSwizzle | None:
    """The swizzle of ``cfg`` (None without ``lds_swizzle``)."""
    geo = cfg.swizzle_geometry
    return None if geo is None else LdsSwizzle(*geo, cfg.in_type.bits)


def split_swizzled(cfg) -> bool:
    """Whether the operand reads of ``cfg`` take one LDS address per (K-step, run): two runs per
    lane (``GemmConfig.k_run``) in a swizzled LDS, where the runs lie in different units."""
    return cfg.k_run < cfg.k_per_lane and lds_swizzle(cfg) is not None


def lds_write_width(cfg: GemmConfig, operand: str) -> int:
    """Bytes per ds_write of one vector (the vector lands in one LDS row)."""
    return cfg.in_type.nbytes(cfg.kvec(operand))


DS_WRITE = {1: "ds_write_b8", 2: "ds_write_b16", 4: "ds_write_b32", 8: "ds_write_b64", 16: "ds_write_b128"}
DS_READ = {8: "ds_read_b64", 16: "ds_read_b128"}
BUFFER_LOAD = {1: "buffer_load_ubyte", 2: "buffer_load_ushort", 4: "buffer_load_dword", 8: "buffer_load_dwordx2",
               16: "buffer_load_dwordx4"}


def mfma_operand_coords(cfg: GemmConfig, lane: int) -> tuple[int, int]:
    """(row within an MFMA block, first k within a K-step) of the A (or B) operand of ``lane``:
    row = lane % m, k = k_run * (lane // m) (cdna-facts section 2.2; ``GemmConfig.k_run``)."""
    m = cfg.mfma[0]
    return lane % m, cfg.k_run * (lane // m)


def mfma_operand_k(cfg: GemmConfig, lane: int, e: int) -> int:
    """k within a K-step of element ``e`` of ``lane``'s A (or B) operand: runs of ``k_run``
    elements, run r at ``r * mfma_k / runs`` (one run unless ``k_run < k_per_lane``)."""
    runs = cfg.k_per_lane // cfg.k_run
    return mfma_operand_coords(cfg, lane)[1] + (e // cfg.k_run) * (cfg.mfma[2] // runs) \
        + e % cfg.k_run


def acc_coords(cfg: GemmConfig, reg: int, lane: int) -> tuple[int, int]:
    """(i, j) within an MFMA block of accumulator register ``reg`` in ``lane``: rows come in
    groups of 4 per lane group of n lanes (cdna-facts section 2.2: 32x32: i = 8 (r/4) + 4 (l/32)
    + r%4, j = l%32; 16x16: i = 4 (l/16) + r, j = l%16)."""
    n = cfg.mfma[1]
    groups = 64 // n
    return (reg // 4) * 4 * groups + (lane // n) * 4 + reg % 4, lane % n


def acc_row_offset(cfg: GemmConfig, reg: int) -> int:
    """The lane-independent part of acc_coords' row (lane group 0)."""
    return acc_coords(cfg, reg, 0)[0]


def mfma_name(cfg: GemmConfig) -> str:
    return cfg.target.mfma_for(cfg.mfma, cfg.dtype, cfg.dtype_b).name


def wave_coords(cfg: GemmConfig, wave: int) -> tuple[int, int]:
    """(wave_m, wave_n): waves are numbered M-fastest."""
    return wave % cfg.waves[0], wave // cfg.waves[0]
