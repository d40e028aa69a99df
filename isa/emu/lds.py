"""The workgroup's LDS: bytes, bounds, and the race detector between waves.

Race rule (docs/design.md): two waves touching the same LDS location, at least one writing, with
no ``s_barrier`` between them is an ``LdsRaceError``. Tracked per dword (a byte write marks its
whole dword, so two waves writing different bytes of one dword in the same barrier epoch are
reported too): the last writer wave and whether that write was an atomic, and the mask of reader
waves, all cleared when a barrier releases. An access is recorded at issue, again when it lands
if a barrier released in between, and again after every barrier release while the issuing wave
has not waited for it (hardware may still be performing it), so a race is found whatever the
random landing times were. Atomics (``ds_add_*`` ...) of different waves do not race with each
other; they race with plain accesses. Reads of LDS bytes written by an LDS-DMA of the same wave
not yet covered by ``s_waitcnt vmcnt`` are ``PendingReadError`` (cdna-facts section 4: LDS-DMA
data needs vmcnt before ds_read).

Bounds (AMD CDNA4 ISA guide section 3.6.1 "Out-of-Range behavior", the same section in the Vega and
CDNA guides; section 3.6.5 "LDS Allocation and Clamping"): LDS is allocated to a workgroup in blocks
(512 bytes on CDNA3, 1280 bytes on CDNA4), so ``limit`` is the requested size rounded up to the
block. A plain LDS read or write at an address >= the limit is not an error: "Writes out-of-range
are discarded ... Reads return the value zero" (``clamp``); an LDS-DMA lane whose LDS address is out
of range is masked off (section 3.11 "Memory Violations": "Memory Buffer to LDS does NOT return a
memory violation if the LDS address is out of range, but masks off EXEC bits of threads that would
go out of range"; section 9.1.9.1 "Clamping Rules": "Set the active-mask to limit buffer reads to
those threads that return data to a legal LDS location"). The guide's clamp is MIN(lds_size, M0); on
gfx9 and later M0 does not bound DS accesses (LLVM's GCNSubtarget ``ldsRequiresM0Init`` is false
from GFX9 on, LLVM-compiled kernels leave M0 arbitrary around ds ops), so only the allocation bounds
them here. What the guide leaves undefined stays ``LdsOutOfBoundsError``: an element partly inside
and partly outside ("it is undefined if SIZE is not a multiple of write-data-size"), and atomics
(the guide speaks of reads and writes only), via ``check_bounds``.
"""
from __future__ import annotations

import numpy as np

from .errors import LdsOutOfBoundsError, LdsRaceError, PendingOverwriteError, PendingReadError


def dwords_of(idx: np.ndarray) -> np.ndarray:
    """Dword indices (flat, may repeat) of byte addresses ``idx`` [lanes, bytes]."""
    if idx.ndim == 2 and idx.shape[1] % 4 == 0 and idx.size and not (idx[:, 0] & 3).any():
        return (idx[:, ::4] >> 2).ravel()
    return (idx >> 2).ravel()


# LDS allocation block and the CU's LDS size, per arch: CDNA3 ISA section 3.6.5 ("contiguous blocks of
# 512 bytes on 512-byte alignment", 64 kB per CU), CDNA4 ISA sections 3.6.5 (1280-byte blocks) and 2.2.1
# (160 kB per CU)
BLOCK = {"gfx942": 512, "gfx950": 1280}
CU_LDS = {"gfx942": 64 * 1024, "gfx950": 160 * 1024}


def allocation(size: int, arch: str) -> int:
    """Bytes of LDS a workgroup that asks for ``size`` really gets: whole blocks, at most the CU's."""
    block = BLOCK.get(arch, 512)
    return max(size, min(-(-size // block) * block, CU_LDS.get(arch, 64 * 1024)))


class Lds:
    def __init__(self, size: int, n_waves: int, arch: str = "gfx942") -> None:
        self.size = size                      # what the kernel asked for
        self.limit = limit = allocation(size, arch)   # what it got: accesses at >= limit are out of range
        # ``buf`` (what the instructions index) has two spare dwords past the allocation: ``zero``
        # (out-of-range reads read it; never written) and ``sink`` (out-of-range writes land there;
        # never read); ``data`` / ``u32`` are the allocation itself (what a caller inspects)
        self.buf = np.zeros(limit + 8, dtype=np.uint8)
        self.data = self.buf[:limit]
        self.zero, self.sink = limit, limit + 4
        n_dw = max((limit + 3) // 4, 1)
        self.w_wave = np.full(n_dw, -1, dtype=np.int8)
        self.w_atomic = np.zeros(n_dw, dtype=bool)
        self.r_mask = np.zeros(n_dw, dtype=np.uint16)
        self.dma_owner = None          # int8 per dword: wave with an uncovered LDS-DMA write
        self.multi = n_waves > 1       # one wave cannot race with itself: skip the detector
        self.writers: set[int] = set()  # waves that wrote in this barrier epoch
        self.readers: set[int] = set()  # waves that read in this barrier epoch
        self.read_log: list = []        # (wave, dwords) reads not yet folded into r_mask
        self.rows = None                # isa.emu.lds_pool: the pool's arrays these are a row of
        self.row_off = 0
        self.buf32 = self.buf.view(np.uint32)
        self.u32 = self.buf32[: limit // 4]
        # _lut[w][x]: is a last-writer value x (-1 = none, at index 16) another wave than w?
        self._lut = [np.array([x not in (w,) for x in range(16)] + [False]) for w in range(16)]

    # bounds ---------------------------------------------------------------------------------
    def _where(self) -> str:
        if self.limit == self.size:
            return f"the workgroup's LDS allocation of {self.limit} bytes (0..{self.limit - 1})"
        return (f"the workgroup's LDS allocation of {self.limit} bytes (0..{self.limit - 1}; "
                f"{self.size} requested, rounded up to whole blocks)")

    def check_bounds(self, m, w, idx: np.ndarray, what: str, why: str = "") -> None:
        """``idx``: int64 byte addresses (any shape). Raises when any is outside the allocation:
        for the accesses whose out-of-range behaviour AMD's guide does not define (``why``)."""
        if idx.size == 0:
            return
        lo = int(idx.min())
        hi = int(idx.max())
        if lo < 0 or hi >= self.limit:
            bad = lo if lo < 0 else hi
            raise m.error(LdsOutOfBoundsError,
                          f"LDS {what} at byte {bad} is outside {self._where()}{why}", w)

    def clamp(self, m, w, idx: np.ndarray, elem: int, what: str, write: bool):
        """Out-of-range LDS reads return 0 and writes are discarded (module docstring).

        ``idx``: int64 byte addresses [lanes, k], each row whole elements of ``elem`` bytes. Returns
        (idx, None) when all are in range, else (idx with out-of-range bytes sent to the ``zero``
        dword (reads) or the ``sink`` dword (writes), bool [lanes, k] in range). An element partly
        in range is LdsOutOfBoundsError (undefined by the guide)."""
        if idx.size == 0 or int(idx.max()) < self.limit:
            return idx, None
        oob = idx >= self.limit
        per = oob.reshape(len(idx), -1, elem)
        part = per.any(axis=2) & ~per.all(axis=2)
        if part.any():
            lane, e = (int(x[0]) for x in np.nonzero(part))
            first = int(idx.reshape(len(idx), -1, elem)[lane, e, 0])
            raise m.error(LdsOutOfBoundsError,
                          f"LDS {what} at byte {first} runs past the end of {self._where()}: an "
                          f"element partly out of range is undefined in the ISA guide (section 3.6.1)", w)
        base = self.sink if write else self.zero
        return np.where(oob, base + (idx & 3), idx), ~oob

    def dma_lanes(self, idx: np.ndarray) -> np.ndarray:
        """bool [lanes]: LDS-DMA lanes whose LDS bytes ``idx`` [lanes, k] are all in range (the
        others are masked off, module docstring)."""
        return (idx < self.limit).all(axis=1) if idx.size else np.ones(len(idx), dtype=bool)

    # race detector --------------------------------------------------------------------------
    def new_epoch(self) -> None:
        """A barrier released: accesses before it cannot race with accesses after it."""
        if self.writers:
            self.w_wave.fill(-1)
            self.w_atomic.fill(False)
            self.writers.clear()
        if self.readers:
            self.r_mask.fill(0)
            self.readers.clear()
            self.read_log.clear()

    def touch(self, m, op) -> None:
        """Record an access of ``op`` in the current barrier epoch; raise on a race.

        Cheap in the common case: reads are only logged (the reader mask is built from the log
        when another wave first writes in the epoch), and the writer array is only consulted
        when another wave wrote in this epoch."""
        dw = op.lds_dw
        op.epoch = m.epoch
        wid = op.wave.wave_id
        writers = self.writers
        if writers and (len(writers) > 1 or wid not in writers):
            ww = self.w_wave[dw]
            other = self._lut[wid][ww]
            atomic = op.lds_write == "atomic"
            if atomic:
                other &= ~self.w_atomic[dw]
            if other.any():
                j = int(np.argmax(other))
                self._race(m, op, int(dw[j]), int(ww[j]), "wrote")
        if not op.lds_write:
            self.read_log.append((wid, dw))
            self.readers.add(wid)
            return
        readers = self.readers
        if readers and (len(readers) > 1 or wid not in readers):
            rm_all = self._fold_reads()
            rm = rm_all[dw]
            hit = (rm & ~np.uint16(1 << wid)) != 0
            if hit.any():
                j = int(np.argmax(hit))
                r = int(rm[j]) & ~(1 << wid)
                self._race(m, op, int(dw[j]), (r & -r).bit_length() - 1, "read")
        self.w_wave[dw] = wid
        self.w_atomic[dw] = op.lds_write == "atomic"
        writers.add(wid)

    def _fold_reads(self) -> np.ndarray:
        """The reader mask with the logged reads folded in (the log emptied): one OR per reader
        wave over its logged dwords (OR-ing one bit is the same whatever the order and repeats)."""
        rm_all = self.r_mask
        log = self.read_log
        if log:
            by_wave: dict = {}
            for rw, rdw in log:
                by_wave.setdefault(rw, []).append(rdw)
            for rw, rows in by_wave.items():
                idx = rows[0] if len(rows) == 1 else np.concatenate(rows)
                rm_all[idx] |= np.uint16(1 << rw)
            log.clear()
        return rm_all

    def touch_reads(self, m, ops: list, dws: np.ndarray) -> None:
        """``touch(m, op)`` for each plain read ``op`` of ``ops`` in order, in one NumPy test
        (isa.emu.mem_lds_group): ``dws`` [len(ops), L] holds their ``lds_dw`` rows. Reads change
        no state another read's test looks at (the writers), so testing all of them against the
        writers at once is the sequence of single touches; the race reported is the first one
        that sequence meets (first op, then first dword)."""
        epoch = m.epoch
        wids = []
        for op in ops:
            op.epoch = epoch
            wids.append(op.wave.wave_id)
        writers = self.writers
        if writers and (len(writers) > 1 or any(wid not in writers for wid in wids)):
            ww = self.w_wave[dws]
            other = (ww != np.array(wids, np.int8)[:, None]) & (ww >= 0)
            if np.count_nonzero(other):
                r, j = divmod(int(np.argmax(other)), other.shape[1])
                self._race(m, ops[r], int(dws[r, j]), int(ww[r, j]), "wrote")
        log = self.read_log
        for op, wid in zip(ops, wids):
            log.append((wid, op.lds_dw))
        self.readers.update(wids)

    def touch_writes(self, m, ops: list, dws: np.ndarray) -> None:
        """``touch(m, op)`` for each plain (non-atomic) write ``op`` of ``ops`` in order, the ops
        of distinct waves (isa.emu.mem_lds_group): ``dws`` [len(ops), L] holds their ``lds_dw``
        rows. The sequence of single touches races exactly when some dword of a row was written
        by another wave (before the batch or by an earlier row: distinct waves, so a dword two
        rows share) or read by another wave in this epoch; without such a dword the batch sets the
        state the sequence would. With one, the single touches run in order (the same first race)."""
        wl = [op.wave.wave_id for op in ops]
        wids = np.array(wl, np.int8)[:, None]
        ww = self.w_wave
        count = np.count_nonzero         # (a direct C call: cheaper than ndarray.any here)
        if self.writers:
            before = ww[dws]
            clash = count((before != wids) & (before >= 0)) > 0
        else:               # no write in this epoch yet: every last writer is -1
            before = -1
            clash = False
        readers = self.readers
        if not clash and readers and (len(readers) > 1 or any(i not in readers for i in wl)):
            keep = np.array([0xFFFF ^ (1 << i) for i in wl], np.uint16)[:, None]   # other waves' bits
            clash = count(self._fold_reads()[dws] & keep) > 0
        if not clash:
            ww[dws] = wids
            if count(ww[dws] != wids):        # two rows share a dword: the second one races
                ww[dws] = before
                clash = True
        if clash:
            for op in ops:
                self.touch(m, op)
            return
        self.w_atomic[dws] = False
        epoch = m.epoch
        for op in ops:
            op.epoch = epoch
        self.writers.update(wl)

    def check_dma_pending(self, m, w, dw: np.ndarray, write: bool = False) -> None:
        """A ds read (or write) by ``w`` of dwords its own uncovered LDS-DMA still writes is an
        error: the DMA counts in vmcnt, the ds op in lgkmcnt, so their order is not defined."""
        mine = self.dma_owner[dw] == w.wave_id
        if mine.any():
            j = int(np.argmax(mine))
            if write:
                raise m.error(PendingOverwriteError,
                              f"ds write of LDS byte {4 * int(dw[j])} that a pending LDS-DMA of the "
                              f"same wave still writes (s_waitcnt vmcnt)", w)
            raise m.error(PendingReadError,
                          f"ds read of LDS byte {4 * int(dw[j])} whose LDS-DMA write has not "
                          f"been waited for (s_waitcnt vmcnt)", w)

    def _race(self, m, op, dword: int, other: int, verb: str) -> None:
        mine = "write" if op.lds_write else "read"
        raise m.error(LdsRaceError,
                      f"LDS race at byte {4 * dword}: {mine} by wave {op.wave.wave_id} while wave {other} "
                      f"{verb} it in the same barrier epoch {m.epoch} (no s_barrier between)",
                      op.wave, pc=op.pc)

    # LDS-DMA pending dwords -----------------------------------------------------------------
    def dma_issue(self, m, w, op) -> None:
        """Mark the dwords of a new LDS-DMA of ``w``; its own ds ops on them that are not yet
        covered by lgkmcnt are an error (the two queues are not ordered)."""
        if self.dma_owner is None:
            self.dma_owner = np.full(len(self.w_wave), -1, dtype=np.int8)
        lds_ops = [o for o in w.lgkm_queue if o.lds_dw is not None]
        if lds_ops:
            mark = np.zeros(len(self.w_wave), dtype=bool)
            mark[op.lds_dw] = True
            for o in lds_ops:
                hit = mark[o.lds_dw]
                if hit.any():
                    dword = int(o.lds_dw[int(np.argmax(hit))])
                    raise m.error(PendingOverwriteError,
                                  f"LDS-DMA write of LDS byte {4 * dword} that the {o.instr.op} at pc "
                                  f"{o.pc} of the same wave still accesses (s_waitcnt lgkmcnt)", w)
        self.dma_owner[op.lds_dw] = w.wave_id

    def dma_done(self, w, op) -> None:
        if self.dma_owner is not None and op.lds_dw is not None:
            dw = op.lds_dw
            sel = self.dma_owner[dw] == w.wave_id
            self.dma_owner[dw[sel]] = -1
            for o in w.vm_queue:          # newer DMAs of the wave still pending keep their marks
                if o.dma and o is not op:
                    self.dma_owner[o.lds_dw] = w.wave_id
