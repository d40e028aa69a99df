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
"""
from __future__ import annotations

import numpy as np

from .errors import LdsOutOfBoundsError, LdsRaceError, PendingOverwriteError, PendingReadError


def dwords_of(idx: np.ndarray) -> np.ndarray:
    """Dword indices (flat, may repeat) of byte addresses ``idx`` [lanes, bytes]."""
    if idx.ndim == 2 and idx.shape[1] % 4 == 0 and idx.size and not (idx[:, 0] & 3).any():
        return (idx[:, ::4] >> 2).ravel()
    return (idx >> 2).ravel()


class Lds:
    def __init__(self, size: int, n_waves: int) -> None:
        self.size = size
        self.data = np.zeros(max(size, 4), dtype=np.uint8)
        n_dw = max((size + 3) // 4, 1)
        self.w_wave = np.full(n_dw, -1, dtype=np.int8)
        self.w_atomic = np.zeros(n_dw, dtype=bool)
        self.r_mask = np.zeros(n_dw, dtype=np.uint16)
        self.dma_owner = None          # int8 per dword: wave with an uncovered LDS-DMA write
        self.multi = n_waves > 1       # one wave cannot race with itself: skip the detector
        self.writers: set[int] = set()  # waves that wrote in this barrier epoch
        self.readers: set[int] = set()  # waves that read in this barrier epoch
        self.read_log: list = []        # (wave, dwords) reads not yet folded into r_mask
        self.u32 = self.data[: len(self.data) // 4 * 4].view(np.uint32)
        # _lut[w][x]: is a last-writer value x (-1 = none, at index 16) another wave than w?
        self._lut = [np.array([x not in (w,) for x in range(16)] + [False]) for w in range(16)]

    # bounds ---------------------------------------------------------------------------------
    def check_bounds(self, m, w, idx: np.ndarray, what: str) -> None:
        """``idx``: int64 byte addresses (any shape). Raises when any is outside the allocation."""
        if idx.size == 0:
            return
        lo = int(idx.min())
        hi = int(idx.max())
        if lo < 0 or hi >= self.size:
            bad = lo if lo < 0 else hi
            raise m.error(LdsOutOfBoundsError,
                          f"LDS {what} at byte {bad} is outside the workgroup's LDS allocation of "
                          f"{self.size} bytes (0..{self.size - 1})", w)

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
            rm_all = self.r_mask
            for rw, rdw in self.read_log:
                rm_all[rdw] |= np.uint16(1 << rw)
            self.read_log.clear()
            rm = rm_all[dw]
            hit = (rm & ~np.uint16(1 << wid)) != 0
            if hit.any():
                j = int(np.argmax(hit))
                r = int(rm[j]) & ~(1 << wid)
                self._race(m, op, int(dw[j]), (r & -r).bit_length() - 1, "read")
        self.w_wave[dw] = wid
        self.w_atomic[dw] = op.lds_write == "atomic"
        writers.add(wid)

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
