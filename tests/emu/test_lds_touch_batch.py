"""The LDS race detector's batched record of a group's reads (isa.emu.lds ``Lds.touch_reads``,
used by isa.emu.mem_lds_group) equals one ``touch`` per read in order: the same race (message:
wave, byte, other wave) or none, and the same detector state after."""
from __future__ import annotations

import numpy as np
import pytest

from isa.emu.errors import LdsRaceError
from isa.emu.lds import Lds
from isa.emu.pending import LDS, AsyncOp
from isa.emu.state import Wave


class _M:
    epoch = 3

    def error(self, cls, what, w=None, pc=None, instr=None):
        return cls(what)


def _state(rng, lds: Lds, n_waves: int) -> None:
    """Random writes (by random waves) and reads already recorded in this epoch."""
    m = _M()
    for _ in range(rng.integers(0, 4)):
        wid = int(rng.integers(0, n_waves))
        dw = rng.integers(0, 64, rng.integers(1, 6)).astype(np.int64)
        op = AsyncOp(Wave(wid), LDS, (), None, 0, None, lds_dw=dw, lds_write=True)
        try:
            lds.touch(m, op)
        except LdsRaceError:
            pass


def _outcome(fn):
    try:
        fn()
    except LdsRaceError as e:
        return str(e)
    return None


@pytest.mark.parametrize("seed", range(40))
def test_batched_reads_equal_single_touches(seed):
    rng = np.random.default_rng(seed)
    n_waves = int(rng.integers(2, 9))
    ids = sorted(rng.choice(n_waves, int(rng.integers(1, n_waves + 1)), replace=False).tolist())
    dws = rng.integers(0, 64, (len(ids), 8)).astype(np.uint32)
    results = []
    for batched in (False, True):
        lds = Lds(256, n_waves)
        _state(np.random.default_rng(seed + 1000), lds, n_waves)
        ops = [AsyncOp(Wave(i), LDS, (), None, 0, None, lds_dw=dws[k]) for k, i in enumerate(ids)]
        m = _M()
        if batched:
            out = _outcome(lambda: lds.touch_reads(m, ops, dws))
        else:
            out = _outcome(lambda: [lds.touch(m, op) for op in ops])
        state = None
        if out is None:
            state = (sorted(lds.readers), [(w, d.tolist()) for w, d in lds.read_log],
                     [op.epoch for op in ops], lds.w_wave.tolist())
        results.append((out, state))
    assert results[0] == results[1]


def test_some_seeds_race_and_some_do_not():
    """The comparison above is not vacuous: both outcomes occur over its seeds."""
    races = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        n_waves = int(rng.integers(2, 9))
        ids = sorted(rng.choice(n_waves, int(rng.integers(1, n_waves + 1)), replace=False).tolist())
        dws = rng.integers(0, 64, (len(ids), 8)).astype(np.uint32)
        lds = Lds(256, n_waves)
        _state(np.random.default_rng(seed + 1000), lds, n_waves)
        ops = [AsyncOp(Wave(i), LDS, (), None, 0, None, lds_dw=dws[k]) for k, i in enumerate(ids)]
        races += _outcome(lambda: lds.touch_reads(_M(), ops, dws)) is not None
    assert 5 <= races <= 35


def _reads(rng, lds: Lds, n_waves: int) -> None:
    """Random reads (by random waves) already recorded in this epoch."""
    m = _M()
    for _ in range(rng.integers(0, 3)):
        wid = int(rng.integers(0, n_waves))
        dw = rng.integers(0, 64, rng.integers(1, 6)).astype(np.int64)
        try:
            lds.touch(m, AsyncOp(Wave(wid), LDS, (), None, 0, None, lds_dw=dw))
        except LdsRaceError:
            pass


def _write_case(seed: int):
    rng = np.random.default_rng(seed)
    n_waves = int(rng.integers(2, 9))
    ids = rng.choice(n_waves, int(rng.integers(1, n_waves + 1)), replace=False).tolist()
    # rows of 8 dwords from a small range (rows share dwords, a row repeats dwords) or apart
    span = int(rng.choice([24, 64, 256]))
    dws = rng.integers(0, span, (len(ids), 8)).astype(np.int64)
    if rng.random() < 0.3:      # disjoint rows, as a group's ds_write of distinct addresses
        dws = (np.arange(len(ids))[:, None] * 8 + np.arange(8)).astype(np.int64)
    return rng, n_waves, ids, dws


def _write_outcomes(seed: int) -> list:
    rng, n_waves, ids, dws = _write_case(seed)
    results = []
    for batched in (False, True):
        lds = Lds(2048, n_waves)
        st = np.random.default_rng(seed + 1000)
        if st.random() < 0.6:
            _state(st, lds, n_waves)
        if st.random() < 0.6:
            _reads(st, lds, n_waves)
        ops = [AsyncOp(Wave(i), LDS, (), None, 0, None, lds_dw=dws[k], lds_write=True)
               for k, i in enumerate(ids)]
        m = _M()
        if batched:
            out = _outcome(lambda: lds.touch_writes(m, ops, dws))
        else:
            out = _outcome(lambda: [lds.touch(m, op) for op in ops])
        state = None
        if out is None:
            lds.touch(m, AsyncOp(Wave(15), LDS, (), None, 0, None,     # fold the read log
                                 lds_dw=np.array([400]), lds_write=True))
            state = (sorted(lds.writers), sorted(lds.readers), [op.epoch for op in ops],
                     lds.w_wave.tolist(), lds.w_atomic.tolist(), lds.r_mask.tolist())
        results.append((out, state))
    return results


@pytest.mark.parametrize("seed", range(60))
def test_batched_writes_equal_single_touches(seed):
    """``Lds.touch_writes`` gives the race (message) the single touches give first, or none and
    the same detector state (writers, readers, last-writer and reader arrays, op epochs)."""
    single, batched = _write_outcomes(seed)
    assert single == batched


def test_batched_write_cases_cover_both_outcomes():
    """Over the seeds above, groups race (with a writer before, a reader, or two rows sharing a
    dword) and groups do not, so the comparison is not vacuous."""
    outs = [_write_outcomes(seed)[0][0] for seed in range(60)]
    races = [o for o in outs if o is not None]
    assert 10 <= len(races) <= 50
    assert any("wrote" in o for o in races) and any("read it" in o for o in races)
