"""A launch split into shards run in worker processes (isa.emu.shards): the same bytes and steps
whatever the number of processes, the same verdicts as one pool on a correct kernel, on a planted
write race and a planted read race between workgroups of different shards, and on workgroups
that communicate (release -> acquire hand-off, atomics on one word), which the merge detects and
runs again as one pool: the bytes and steps of ``shards=1`` exactly."""
from __future__ import annotations

import struct

import numpy as np
import pytest
from test_global_sync import SOURCE as SYNC_SOURCE
from test_llvm_kernels import _compile
from test_llvm_kernels_zoo_util import build, needs_llvm

from isa.emu import Emulator
from isa.emu.errors import GlobalRaceError, LaunchError
from isa.emu.launch import AUTO_SHARDS, auto_shards
from isa.emu.shards import split


@pytest.fixture(scope="module")
def hsaco(tmp_path_factory):
    return _compile(tmp_path_factory.mktemp("cl"))


def _matmul(hsaco, seed, **kw):
    rng = np.random.default_rng(seed)
    m_, n_, k_ = 48, 64, 32
    a = rng.standard_normal((m_, k_)).astype(np.float32)
    b = rng.standard_normal((k_, n_)).astype(np.float32)
    c = np.zeros((m_, n_), np.float32)
    emu = Emulator(seed=seed, **kw)
    args = struct.pack("<QQQiii", emu.alloc(a), emu.alloc(b), emu.alloc(c), m_, n_, k_)
    done = []
    emu.launch(hsaco, "matmul", grid=(n_ // 16, m_ // 16, 1), block=(16, 16, 1), kernargs=args,
               progress=lambda d, t: done.append((d, t)))
    return c, emu, a @ b, done


def test_split_and_auto_shards():
    assert [list(r) for r in split(7, 3)] == [[0, 1, 2], [3, 4], [5, 6]]
    assert auto_shards(64, 64) == 1 and auto_shards(255, 64) == 1     # 2 pools' worth per shard
    assert auto_shards(256, 64) == 2 and auto_shards(1024, 64) == AUTO_SHARDS
    for bad in (0, -1, 1.5, True):
        with pytest.raises(LaunchError, match="must be a positive integer"):
            Emulator(shards=bad)
        with pytest.raises(LaunchError, match="must be a positive integer"):
            Emulator(processes=bad)


@needs_llvm
@pytest.mark.parametrize("seed", [0, 1])
def test_shards_give_the_same_run_on_any_number_of_processes(hsaco, seed):
    """12 workgroups with LDS tiles and barriers in 3 shards: right against NumPy, merged (no
    fallback), and byte- and step-identical on 1 and 3 processes; progress reaches the total."""
    one, e1, want, _ = _matmul(hsaco, seed, shards=1)
    assert e1.sharded_launches == 0 and np.allclose(one, want, rtol=1e-4, atol=1e-4)
    got, e3, _, done = _matmul(hsaco, seed, shards=3, processes=3)
    assert e3.sharded_launches == 1 and e3.shard_fallbacks == 0
    assert np.allclose(got, want, rtol=1e-4, atol=1e-4)
    assert done[-1] == (12, 12)
    serial, es, _, _ = _matmul(hsaco, seed, shards=3, processes=1)
    assert serial.tobytes() == got.tobytes() and es.steps == e3.steps
    assert e3.steps == e1.steps            # the same instructions, another interleaving
    assert e3.peak_workgroups == 4        # each shard's pool held its 4 workgroups


@needs_llvm
@pytest.mark.parametrize("shards", [1, 2, 8])
def test_planted_write_race_across_shards_is_found(hsaco, shards):
    """Eight workgroups all writing out[0:64]: a GlobalRaceError in one pool and in any split
    (the race between workgroups of two shards is found by the merge's one-pool rerun)."""
    out = np.zeros(64, np.uint32)
    emu = Emulator(shards=shards, processes=2)
    with pytest.raises(GlobalRaceError, match=r"global write race: byte \d+ of out"):
        emu.launch(hsaco, "clobber", grid=(8, 1, 1), block=(64, 1, 1),
                   kernargs=struct.pack("<Q", emu.alloc(out, "out")))
    assert emu.shard_fallbacks == (shards > 1)     # both shards wrote out: rerun as one pool


def _sync_run(kernel, shards, seed, n_out=False):
    from test_global_sync import N
    data, flag = np.zeros(N, np.uint32), np.zeros(1, np.uint32)
    emu = Emulator(seed=seed, shards=shards, processes=2)
    ptrs = [emu.alloc(data, "data"), emu.alloc(flag, "flag")]
    out = None
    if n_out:
        out = np.zeros(N, np.uint32)
        ptrs.append(emu.alloc(out, "out"))
    emu.launch(build(SYNC_SOURCE, "gfx942"), kernel, grid=(2, 1, 1), block=(N, 1, 1),
               kernargs=struct.pack("<" + "Q" * len(ptrs), *ptrs))
    return emu, data, flag, out


@needs_llvm
@pytest.mark.parametrize("seed", [0, 1])
def test_communicating_workgroups_fall_back_to_one_pool_exactly(seed):
    """Workgroup 1 waits for workgroup 0's release flag, then rewrites its data; and eight
    workgroups add into one word: in two shards they would never see each other, so the merge
    finds the shared bytes and reruns the launch as one pool: the bytes and steps of shards=1."""
    e1, d1, f1, _ = _sync_run("handoff", 1, seed)
    e2, d2, f2, _ = _sync_run("handoff", 2, seed)
    assert e2.shard_fallbacks == 1 and e2.sharded_launches == 0
    assert (d2 == 101 + np.arange(len(d2))).all() and f2[0] == 1
    assert d2.tobytes() == d1.tobytes() and e2.steps == e1.steps
    from test_global_sync import N
    counts = []
    for shards in (1, 4):
        data = np.zeros(N, np.uint32)
        emu = Emulator(seed=seed, shards=shards, processes=2)
        emu.launch(build(SYNC_SOURCE, "gfx942"), "count", grid=(8, 1, 1), block=(N, 1, 1),
                   kernargs=struct.pack("<Q", emu.alloc(data, "data")))
        counts.append((data.copy(), emu.steps, emu.shard_fallbacks))
    assert (counts[1][0] == 36).all() and counts[1][0].tobytes() == counts[0][0].tobytes()
    assert counts[1][1] == counts[0][1] and counts[1][2] == 1


@needs_llvm
@pytest.mark.parametrize("seed", [0, 1])
def test_planted_read_race_across_shards_is_found(seed):
    """Workgroup 1 copies workgroup 0's data with no hand-off: a read race in one pool whenever
    the write came first; in two shards the read of another shard's bytes sends the launch to the
    one-pool rerun, which gives the same verdict as shards=1 for the seed."""
    verdicts = []
    for shards in (1, 2):
        try:
            emu, _, _, out = _sync_run("read_nowait", shards, seed, n_out=True)
            verdicts.append(("ran", out.tobytes()))
        except GlobalRaceError as exc:
            verdicts.append(("race", str(exc)))
            emu = None
        if shards == 2 and emu is not None:
            assert emu.shard_fallbacks == 1
    assert verdicts[0] == verdicts[1]


@needs_llvm
def test_an_error_inside_a_shard_is_its_verdict(hsaco):
    """An LDS race of one workgroup (no barrier in its reduction) stops its shard; the shards did
    not interact, so the merge raises that shard's error with its message and attributes."""
    from isa.emu.errors import LdsRaceError
    x = np.ones(4 * 256, np.float32)
    out = np.zeros(4, np.float32)
    emu = Emulator(seed=0, shards=2, processes=2)
    with pytest.raises(LdsRaceError, match="LDS race") as info:
        emu.launch(hsaco, "reduce_nobarrier", grid=(4, 1, 1), block=(256, 1, 1),
                   kernargs=struct.pack("<QQ", emu.alloc(x), emu.alloc(out)))
    assert emu.sharded_launches == 1 and emu.shard_fallbacks == 0
    assert info.value.workgroup is not None and info.value.pc is not None


def test_every_read_of_a_gemm_is_recorded(monkeypatch):
    """The merge is only as good as the read records: every global read path (here the README
    GEMM's group buffer loads of A, B and, with beta != 0, C; its scalar kernarg loads) calls
    check_read, so a launch with reads tracked has read exactly the bytes of A, B and C the
    problem uses (their rows are 4096 elements, the contract's leading dimension)."""
    import dataclasses

    from asmgen import api
    from asmgen.kinds.gemm.reference import compare, gemm_random_inputs
    from isa.emu.memory import GlobalMemory
    kern = api.gemm(4096, 4096, 4096, dtype="bf16", layout="NT", schedule="pgr2",
                    tile=(128, 128, 32), waves=(2, 2), prefetch=2)
    cfg = dataclasses.replace(kern.config, m=256, n=256, k=128)
    inp = dict(gemm_random_inputs(cfg, 0), beta=0.5)
    seen = []
    begin = GlobalMemory.begin_launch

    def tracking(self, races=True):
        begin(self, races)
        self.sync.track_reads()
        seen.append(self)
    monkeypatch.setattr(GlobalMemory, "begin_launch", tracking)
    run = api.load(kern, backend="emu", seed=0)
    out = run(**inp, M=256, N=256, K=128)
    assert compare(cfg, out, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"])[0]
    mem = seen[-1]
    names = {n: k for k, n in enumerate(mem.names)}
    for name in ("A", "B", "C", "kernargs"):
        mask = mem.sync.read_mask(names[name])
        assert mask is not None, name
        if name != "kernargs":
            rows, ld = inp[name].shape
            used = np.zeros((rows, 2 * ld), bool)
            used[:, :2 * (128 if name in "AB" else 256)] = True
            assert (mask == used.ravel()).all(), (name, int(mask.sum()), int(used.sum()))
    c_used = np.zeros((256, 2 * 4096), bool)
    c_used[:, :512] = True
    assert (mem.sync.written(names["C"]) == c_used.ravel()).all()
