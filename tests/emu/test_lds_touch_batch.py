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
