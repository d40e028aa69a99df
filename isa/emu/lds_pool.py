"""The LDS race detectors of every workgroup a pool runs (isa.emu.pool) as rows of one array each,
so a group step's ds_read / ds_write whose members come from several workgroups records all of
them in one NumPy test (isa.emu.mem_lds_group) instead of one per workgroup.

``Rows(cap, n_dwords)`` holds [cap, n_dwords] last-writer, atomic and reader-mask arrays; ``adopt``
makes a workgroup's detector (isa.emu.lds ``Lds``) use row ``block`` (its arrays become views of
the row, so every per-wave test and the barrier's reset work on them unchanged). The rows of two
workgroups are disjoint, so the batched tests below are the union of each workgroup's own batch
test (isa.emu.lds ``touch_reads`` / ``touch_writes``, which their docstrings prove equal to one
``touch`` per op in order); when any of them finds a race (or a dword two rows of one workgroup
share), nothing is recorded and each workgroup's own batch runs in member order, so the first
race reported is the one the per-workgroup batches report.
"""
from __future__ import annotations

import numpy as np


class Rows:
    """[cap, n_dwords] race-detector arrays, one row per pool block (a workgroup in flight)."""

    __slots__ = ("n_dw", "r_mask", "w_atomic", "w_wave")

    def __init__(self, cap: int, n_dw: int) -> None:
        self.n_dw = n_dw
        self.w_wave = np.full((cap, n_dw), -1, dtype=np.int8)
        self.w_atomic = np.zeros((cap, n_dw), dtype=bool)
        self.r_mask = np.zeros((cap, n_dw), dtype=np.uint16)


def adopt(lds, rows: Rows, block: int) -> None:
    """``lds`` (a fresh or retired-slot workgroup's detector) records into row ``block``."""
    rows.w_wave[block] = lds.w_wave
    rows.w_atomic[block] = lds.w_atomic
    rows.r_mask[block] = lds.r_mask
    lds.w_wave = rows.w_wave[block]
    lds.w_atomic = rows.w_atomic[block]
    lds.r_mask = rows.r_mask[block]
    lds.rows = rows
    lds.row_off = block * rows.n_dw


def _batch(runs):
    """(rows, global dword indices [R, L], int8 wave ids [R, 1], their list) of ``runs``
    [(machine, ops, dws [k, L])], or None when they do not share one Rows."""
    rows = runs[0][0].lds.rows
    if rows is None or any(mm.lds.rows is not rows for mm, _, _ in runs):
        return None
    gidx = np.concatenate([dws + mm.lds.row_off for mm, _, dws in runs])
    wl = [op.wave.wave_id for _, ops, _ in runs for op in ops]
    return rows, gidx, np.array(wl, np.int8)[:, None], wl


def _fold_reads(rows: Rows, runs) -> None:
    """``Lds._fold_reads`` of every workgroup of ``runs``: their logged reads OR-ed into the
    reader masks, one scatter per reader wave id over all their rows (OR-ing one bit is the same
    whatever the order and repeats)."""
    by_wave: dict = {}
    for mm, _, _ in runs:
        log = mm.lds.read_log
        if log:
            off = mm.lds.row_off
            for rw, rdw in log:
                by_wave.setdefault(rw, []).append(rdw + off)
            log.clear()
    rm = rows.r_mask.reshape(-1)
    for rw, parts in by_wave.items():
        idx = parts[0] if len(parts) == 1 else np.concatenate(parts)
        rm[idx] |= np.uint16(1 << rw)


def touch_reads(runs) -> None:
    """``Lds.touch_reads`` of each run (machine, its plain read ops, their dws) in order."""
    got = _batch(runs) if len(runs) > 1 else None
    if got is not None and any(mm.lds.writers for mm, _, _ in runs):
        rows, gidx, wids, _ = got
        ww = rows.w_wave.reshape(-1)[gidx]
        if np.count_nonzero((ww != wids) & (ww >= 0)):
            got = None          # a race: each run's own test reports the first one
    if got is None:
        for mm, ops, dws in runs:
            mm.lds.touch_reads(mm, ops, dws)
        return
    for mm, ops, _ in runs:     # no other wave wrote what they read: log the reads
        lds = mm.lds
        epoch = mm.epoch
        log = lds.read_log
        for op in ops:
            op.epoch = epoch
            wid = op.wave.wave_id
            log.append((wid, op.lds_dw))
            lds.readers.add(wid)


def touch_writes(runs) -> None:
    """``Lds.touch_writes`` of each run (machine, its plain write ops, their dws) in order."""
    got = _batch(runs) if len(runs) > 1 else None
    if got is None:
        for mm, ops, dws in runs:
            mm.lds.touch_writes(mm, ops, dws)
        return
    rows, gidx, wids, wl = got
    ww = rows.w_wave.reshape(-1)
    count = np.count_nonzero
    clash = False
    if any(mm.lds.writers for mm, _, _ in runs):
        before = ww[gidx]
        clash = count((before != wids) & (before >= 0)) > 0
    else:               # no write in any of their epochs yet: every last writer is -1
        before = -1
    if not clash and any(mm.lds.readers for mm, _, _ in runs):
        _fold_reads(rows, runs)
        keep = np.array([0xFFFF ^ (1 << i) for i in wl], np.uint16)[:, None]   # other waves' bits
        clash = count(rows.r_mask.reshape(-1)[gidx] & keep) > 0
    if not clash:
        ww[gidx] = wids
        if count(ww[gidx] != wids):      # two rows of one workgroup share a dword
            ww[gidx] = before
            clash = True
    if clash:
        for mm, ops, dws in runs:
            mm.lds.touch_writes(mm, ops, dws)
        return
    rows.w_atomic.reshape(-1)[gidx] = False
    for mm, ops, _ in runs:
        epoch = mm.epoch
        writers = mm.lds.writers
        for op in ops:
            op.epoch = epoch
            writers.add(op.wave.wave_id)
