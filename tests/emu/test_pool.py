"""Workgroups of a launch run side by side in one pool (isa.emu.pool): the same bits as one after
the other, barriers and LDS races per workgroup, global write races between workgroups in flight,
group steps across workgroups, and the bound on how many run at once."""
from __future__ import annotations

import struct

import numpy as np
import pytest
from test_llvm_kernels import _compile
from test_llvm_kernels_zoo_util import needs_llvm  # the suite's one clang-22/ld.lld-22 skip (CI fails on it)

from isa.emu import Emulator
from isa.emu.errors import GlobalRaceError, LdsRaceError
from isa.emu.pool import POOL_BYTES, POOL_WAVES, capacity


@pytest.fixture(scope="module")
def hsaco(tmp_path_factory):
    return _compile(tmp_path_factory.mktemp("cl"))


def test_capacity_is_bounded_by_waves_and_memory():
    assert capacity(1, 4, 65536) == 1
    assert capacity(3, 4, 0) == 3
    assert capacity(1024, 4, 65536) == POOL_WAVES // 4
    assert capacity(1024, 16, 0) == POOL_WAVES // 16
    big = capacity(10_000, 1, 160 * 1024)          # LDS-bound: the memory bound decides
    assert 1 <= big < POOL_WAVES
    assert big * (2 * 256 * 64 * 4 + 4 * 160 * 1024) <= POOL_BYTES


def _matmul(hsaco, seed, cap):
    rng = np.random.default_rng(seed)
    m_, n_, k_ = 48, 64, 32
    a = rng.standard_normal((m_, k_)).astype(np.float32)
    b = rng.standard_normal((k_, n_)).astype(np.float32)
    c = np.zeros((m_, n_), np.float32)
    emu = Emulator(seed=seed, concurrent_workgroups=cap)
    args = struct.pack("<QQQiii", emu.alloc(a), emu.alloc(b), emu.alloc(c), m_, n_, k_)
    emu.launch(hsaco, "matmul", grid=(n_ // 16, m_ // 16, 1), block=(16, 16, 1), kernargs=args)
    return c, emu, a @ b


@needs_llvm
@pytest.mark.parametrize("seed", [0, 1])
def test_pooled_launch_gives_the_bits_of_one_workgroup_at_a_time(hsaco, seed):
    """12 workgroups of 4 waves with LDS tiles and barriers: one at a time, 3 at once and all at
    once give the same bytes and the same instruction count; the pool did run several at once,
    with group steps mixing their waves."""
    ref, e1, want = _matmul(hsaco, seed, 1)
    assert np.allclose(ref, want, rtol=1e-4, atol=1e-4)
    assert e1.peak_workgroups == 1
    for cap in (3, None):
        got, emu, _ = _matmul(hsaco, seed, cap)
        assert got.tobytes() == ref.tobytes()
        assert emu.steps == e1.steps
        assert emu.peak_workgroups == (3 if cap else 12)
        assert emu.mixed_group_steps > 0


@needs_llvm
@pytest.mark.parametrize("seed", [0, 1])
def test_barriers_and_lds_are_per_workgroup_in_a_pool(hsaco, seed):
    """An LDS tree reduction per workgroup (8 barriers each) is right with 6 workgroups in flight:
    one workgroup's barrier neither waits for nor releases another's waves, each has its own LDS."""
    x = np.random.default_rng(seed).standard_normal(6 * 256).astype(np.float32)
    out = np.zeros(6, np.float32)
    emu = Emulator(seed=seed)
    emu.launch(hsaco, "reduce", grid=(6, 1, 1), block=(256, 1, 1),
               kernargs=struct.pack("<QQ", emu.alloc(x), emu.alloc(out)))
    assert emu.peak_workgroups == 6
    assert np.allclose(out, x.reshape(6, 256).sum(1), rtol=1e-4, atol=1e-4)


@needs_llvm
@pytest.mark.parametrize("seed", [0, 1])
def test_lds_race_is_found_in_a_pool(hsaco, seed):
    x = np.ones(256, np.float32)
    out = np.zeros(1, np.float32)
    emu = Emulator(seed=seed)
    with pytest.raises(LdsRaceError, match="LDS race"):
        emu.launch(hsaco, "reduce_nobarrier", grid=(4, 1, 1), block=(256, 1, 1),
                   kernargs=struct.pack("<QQ", emu.alloc(x), emu.alloc(out)))


@needs_llvm
@pytest.mark.parametrize("cap", [None, 1])
def test_global_write_race_between_workgroups_in_flight(hsaco, cap):
    """Eight workgroups all writing out[0:64] at once: a GlobalRaceError naming two of them, as
    when they run one after the other."""
    out = np.zeros(64, np.uint32)
    emu = Emulator(concurrent_workgroups=cap)
    with pytest.raises(GlobalRaceError, match=r"global write race: byte \d+ of out .* written by "
                       r"workgroup \(\d, 0, 0\) and by workgroup \(\d, 0, 0\)"):
        emu.launch(hsaco, "clobber", grid=(8, 1, 1), block=(64, 1, 1),
                   kernargs=struct.pack("<Q", emu.alloc(out, "out")))
    assert emu.peak_workgroups in ((8,) if cap is None else (0, 1))


def test_concurrent_workgroups_must_be_positive():
    from isa.emu.errors import LaunchError
    with pytest.raises(LaunchError, match="concurrent_workgroups 0 must be at least 1"):
        Emulator(concurrent_workgroups=0)
