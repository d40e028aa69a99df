"""Emulator speed: wave-instructions per CPU second (one core) on MFMA-heavy and address-heavy kernels.

    python benchmarks/emu_speed.py [--only gemm,gemm_wg,dsmfma,salu,opencl] [--repeat 3] [--profile]
                                   [--classes]
                                   [--gemm-json saved_kernel.json]

Benchmarks (each run is checked for correct results, so a fast wrong emulator does not pass):
  gemm    asmgen f16 GEMM 128x128x256, pgr2, gfx942, tile 64x64x32, 2x2 waves (4 workgroups)
          through ``asmgen.api.load(kernel, backend="emu")``; the result is compared to NumPy.
  gemm_wg the README's bf16 NT 4096^3 kernel (128x128x32, pgr2, 2x2 waves) launched at 512^3:
          16 workgroups of 4 waves, run side by side (isa.emu.pool); checked against NumPy.
  dsmfma  a tight loop of 2 ds_read_b128 + 2 v_mfma_f32_32x32x8_f16 per iteration, 4 waves.
  salu    a hand-written SALU/VALU address-arithmetic loop (no memory), 4 waves.
  opencl  an LLVM-compiled OpenCL tiled matmul (global loads, LDS tiles, barriers); skipped when
          clang-22 / ld.lld-22 are missing.
Rate = emulator steps (wave-instructions) / process CPU time of the run (compilation and setup
excluded); the best of ``--repeat`` runs is printed. ``--profile`` adds the cProfile top entries
by tottime for each benchmark; ``--classes`` the CPU time of one run per instruction class and step
kind (a group step with the instruction's group binding, one running its members one after the
other, a wave stepping alone), with the waves such steps ran and their mean member count.
design.md ("Correctness without hardware") aims at 1M/s on a GEMM.
"""
from __future__ import annotations

import os

# one core: keep BLAS / OpenMP from spreading work over threads (set before NumPy loads)
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse
import cProfile
import io
import pstats
import shutil
import struct
import subprocess
import sys
import tempfile
import time

# Python puts this script's folder first on sys.path, where benchmarks/schedules.py would shadow
# the ``schedules`` package: drop it and make the repository root importable instead.
_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_HERE)
sys.path = [p for p in sys.path if os.path.abspath(p or os.getcwd()) != _HERE]
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

import numpy as np


class BenchError(RuntimeError):
    """A benchmark kernel produced a wrong result (the speed number would be meaningless)."""


# ------------------------------------------------------------------------------------------------
# benchmark kernels: each make_* returns run() -> steps, raising BenchError on a wrong result
GEMM_JSON = None      # --gemm-json: run a saved NN GEMM contract instead of generating one


def make_gemm():
    from asmgen import api
    if GEMM_JSON:
        return make_saved_gemm(GEMM_JSON)
    from asmgen.kinds.gemm.reference import compare, gemm_random_inputs
    kern = api.gemm(128, 128, 256, dtype="f16", arch="gfx942", schedule="pgr2",
                    tile=(64, 64, 32), waves=(2, 2))
    inp = gemm_random_inputs(kern.config, 0)
    runner = api.load(kern, backend="emu", seed=0)

    def run() -> int:
        out = runner(**inp)
        ok, msg = compare(kern.config, out, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"])
        if not ok:
            raise BenchError(f"gemm result wrong: {msg}")
        return runner.last_emulator.steps
    return run


def make_gemm_wg(size: int = 512):
    """The README's 4096^3 bf16 NT kernel (tile 128x128x32, pgr2, 2x2 waves, prefetch 2) launched
    at ``size``^3: 16 workgroups at 512, which the emulator runs side by side (isa.emu.pool)."""
    import dataclasses

    from asmgen import api
    from asmgen.kinds.gemm.reference import compare, gemm_random_inputs
    kern = api.gemm(4096, 4096, 4096, dtype="bf16", layout="NT", schedule="pgr2",
                    tile=(128, 128, 32), waves=(2, 2), prefetch=2)
    cfg = dataclasses.replace(kern.config, m=size, n=size, k=size)
    inp = gemm_random_inputs(cfg, 0)
    runner = api.load(kern, backend="emu", seed=0)

    def run() -> int:
        out = runner(**inp, M=size, N=size, K=size)
        ok, msg = compare(cfg, out, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"])
        if not ok:
            raise BenchError(f"gemm_wg result wrong: {msg}")
        return runner.last_emulator.steps
    return run


def make_saved_gemm(path: str):
    """A saved NN f16/bf16 GEMM contract (.json beside its .hsaco), checked against float64 NumPy
    (same kernel before and after an emulator change, whatever the generator does meanwhile)."""
    import json

    import ml_dtypes

    from asmgen import api
    with open(path) as f:
        meta = json.load(f)
    cfg = meta["config"]
    if cfg.get("layout") != "NN" or cfg.get("dtype") not in ("f16", "bf16"):
        raise BenchError(f"{path}: only NN f16/bf16 GEMM contracts are supported, got {cfg}")
    dt = np.float16 if cfg["dtype"] == "f16" else ml_dtypes.bfloat16
    m_, n_, k_ = cfg["m"], cfg["n"], cfg["k"]
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m_, k_)).astype(dt)
    b = rng.standard_normal((k_, n_)).astype(dt)
    c = rng.standard_normal((m_, n_)).astype(np.float16 if cfg["out_dtype"] == "f16" else np.float32)
    ref = 1.5 * (a.astype(np.float64) @ b.astype(np.float64)) + 0.5 * c.astype(np.float64)
    runner = api.load(path, backend="emu", seed=0)

    def run() -> int:
        out = runner(A=a, B=b, C=c.copy(), alpha=1.5, beta=0.5)
        err = np.abs(np.asarray(out, np.float64)[:m_, :n_] - ref)
        if not (err <= 0.02 * (1 + np.abs(ref))).all():
            raise BenchError(f"saved gemm result wrong: max error {err.max():.3g}")
        return runner.last_emulator.steps
    return run


DSMFMA = """
      v_lshlrev_b32 v1, 4, v0
      s_mov_b32 s0, {iters}
    L_loop:
      ds_read_b128 v[2:5], v1
      ds_read_b128 v[6:9], v1 offset:1024
      s_waitcnt lgkmcnt(0)
      v_mfma_f32_32x32x8_f16 a[0:15], v[2:3], v[6:7], a[0:15]
      v_mfma_f32_32x32x8_f16 a[0:15], v[4:5], v[8:9], a[0:15]
      s_sub_u32 s0, s0, 1
      s_cmp_lg_u32 s0, 0
      s_cbranch_scc1 L_loop
      s_nop 15
      s_nop 3
      s_endpgm"""


def make_dsmfma(iters: int = 200, n_waves: int = 4):
    from isa.asm_parse import parse_program
    from isa.emu import Emulator
    from isa.mfma_layout import pack_a, pack_b, unpack_d
    name = "v_mfma_f32_32x32x8_f16"
    rng = np.random.default_rng(0)
    # A 32x8 / B 8x32 f16 blocks of small integers: products and sums are exact in f32
    a = rng.integers(-3, 4, (2, 32, 8)).astype(np.float16)
    b = rng.integers(-3, 4, (2, 8, 32)).astype(np.float16)
    ra = [pack_a(name, a[i]) for i in range(2)]      # uint32 [2, 64] each
    rb = [pack_b(name, b[i]) for i in range(2)]
    # LDS: lane l reads 16 bytes at 16*l: dwords (A0 lo, A0 hi, A1 lo, A1 hi); B at +1024
    lds = np.zeros((2, 64, 4), np.uint32)
    lds[0, :, 0:2], lds[0, :, 2:4] = ra[0].T, ra[1].T
    lds[1, :, 0:2], lds[1, :, 2:4] = rb[0].T, rb[1].T
    want = iters * (a[0].astype(np.float32) @ b[0].astype(np.float32)
                    + a[1].astype(np.float32) @ b[1].astype(np.float32))
    instrs, labels = parse_program(DSMFMA.format(iters=iters))
    prog = Emulator().program(instrs, labels)
    lds_bytes = lds.view(np.uint8).ravel()

    def setup(w):
        w.vgpr[0] = np.arange(64, dtype=np.uint32)

    def run() -> int:
        emu = Emulator(seed=0)
        # LDS contents go in through a first "program" that is just the machine's LDS object
        from isa.emu.machine import Machine
        from isa.emu.pool import Pool
        from isa.emu.state import Wave
        waves = []
        for i in range(n_waves):
            w = Wave(i)
            w.set_exec((1 << 64) - 1)
            setup(w)
            waves.append(w)
        m = Machine(prog, waves, emu.mem, 2048, rng=emu.rng)
        m.lds.data[:] = lds_bytes
        Pool.single(m).run()
        for w in waves:
            d = unpack_d(name, w.agpr[0:16])
            if not np.array_equal(d, want):
                raise BenchError(f"dsmfma result wrong on wave {w.wave_id}")
        return m.steps
    return run


SALU = """
      s_mov_b32 s0, {iters}
      s_mov_b32 s1, 0
      s_mov_b32 s2, 0x1234
      v_mov_b32 v1, 0
    L_loop:
      s_lshl_b32 s3, s1, 2
      s_add_u32 s4, s3, s2
      s_addc_u32 s5, 0, 0
      v_add_u32_e32 v2, s4, v0
      v_lshlrev_b32_e32 v3, 2, v2
      v_mad_u32_u24 v4, v0, 12, v3
      v_and_b32_e32 v5, 0xffff, v4
      v_xor_b32_e32 v6, v5, v2
      v_add_co_u32_e32 v7, vcc, v6, v3
      v_add_u32_e32 v1, v1, v6
      s_add_u32 s1, s1, 1
      v_addc_co_u32_e32 v8, vcc, 0, v4, vcc
      s_sub_u32 s0, s0, 1
      s_cmp_lg_u32 s0, 0
      s_cbranch_scc1 L_loop
      s_endpgm"""


def make_salu(iters: int = 500, n_waves: int = 4):
    from isa.asm_parse import parse_program
    from isa.emu import Emulator
    instrs, labels = parse_program(SALU.format(iters=iters))
    prog = Emulator().program(instrs, labels)
    lane = np.arange(64, dtype=np.uint64)
    acc = np.zeros(64, np.uint64)
    for i in range(iters):          # the loop's v1 in NumPy (32-bit wrap)
        v2 = (4 * i + 0x1234 + lane) & 0xFFFFFFFF
        v3 = (v2 << 2) & 0xFFFFFFFF
        v4 = (lane * 12 + v3) & 0xFFFFFFFF
        acc = (acc + ((v4 & 0xFFFF) ^ v2)) & 0xFFFFFFFF
    want = acc.astype(np.uint32)

    def run() -> int:
        emu = Emulator(seed=0)
        m = emu.run_program(prog, n_waves=n_waves,
                            setup=lambda w: w.vgpr.__setitem__(0, np.arange(64, dtype=np.uint32)))
        for w in m.waves:
            if not np.array_equal(w.vgpr[1], want):
                raise BenchError(f"salu result wrong on wave {w.wave_id}")
        return m.steps
    return run


OPENCL = r"""
#define TS 16
__kernel void matmul(__global const float* A, __global const float* B, __global float* C,
                     int M, int N, int K) {
  __local float As[TS][TS];
  __local float Bs[TS][TS];
  int tx = __builtin_amdgcn_workitem_id_x();
  int ty = __builtin_amdgcn_workitem_id_y();
  int row = __builtin_amdgcn_workgroup_id_y() * TS + ty;
  int col = __builtin_amdgcn_workgroup_id_x() * TS + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TS) {
    As[ty][tx] = A[row * K + k0 + tx];
    Bs[ty][tx] = B[(k0 + ty) * N + col];
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
    for (int k = 0; k < TS; ++k) acc += As[ty][k] * Bs[k][tx];
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  }
  C[row * N + col] = acc;
}
"""


def make_opencl():
    clang, lld = shutil.which("clang-22"), shutil.which("ld.lld-22")
    if not (clang and lld):
        return None
    from isa.emu import Emulator
    with tempfile.TemporaryDirectory() as d:
        src, obj, hs = (os.path.join(d, n) for n in ("k.cl", "k.o", "k.hsaco"))
        with open(src, "w") as f:
            f.write(OPENCL)
        subprocess.run([clang, "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-nogpulib", "-O3",
                        "-Wno-everything", "-x", "cl", "-c", "-o", obj, src], check=True,
                       capture_output=True)
        subprocess.run([lld, "-shared", obj, "-o", hs], check=True, capture_output=True)
        with open(hs, "rb") as f:
            hsaco = f.read()
    rng = np.random.default_rng(1)
    m_, n_, k_ = 64, 64, 64
    a = rng.random((m_, k_), np.float32)
    b = rng.random((k_, n_), np.float32)

    def run() -> int:
        c = np.zeros((m_, n_), np.float32)
        emu = Emulator(seed=2)
        args = struct.pack("<QQQiii", emu.alloc(a), emu.alloc(b), emu.alloc(c), m_, n_, k_)
        emu.launch(hsaco, "matmul", grid=(n_ // 16, m_ // 16, 1), block=(16, 16, 1), kernargs=args)
        if not np.allclose(c, a @ b, rtol=1e-5):
            raise BenchError("opencl matmul result wrong")
        return emu.steps
    return run


BENCHES = {"gemm": make_gemm, "gemm_wg": make_gemm_wg, "dsmfma": make_dsmfma, "salu": make_salu, "opencl": make_opencl}


# ------------------------------------------------------------------------------------------------
def measure(run, repeat: int) -> tuple[int, float]:
    """(steps, best CPU seconds) over ``repeat`` runs (the first also warms caches)."""
    run()
    best = float("inf")
    steps = 0
    for _ in range(repeat):
        t0 = time.process_time()
        steps = run()
        best = min(best, time.process_time() - t0)
    return steps, best


def profile(run, top: int) -> str:
    pr = cProfile.Profile()
    pr.enable()
    run()
    pr.disable()
    out = io.StringIO()
    pstats.Stats(pr, stream=out).sort_stats("tottime").print_stats(top)
    lines = out.getvalue().splitlines()
    start = next((i for i, ln in enumerate(lines) if "ncalls" in ln), 0)
    return "\n".join(lines[start:])


def instr_class(op: str) -> str:
    """The class ``--classes`` counts an instruction in (by mnemonic)."""
    if op.startswith(("v_mfma", "v_smfmac")):
        return "mfma"
    if op.startswith("v_"):
        return "valu"
    if op.startswith("ds_"):
        return "ds"
    if op.startswith(("buffer_", "global_", "flat_", "scratch_", "tbuffer_")):
        return "vmem"
    if op.startswith(("s_load", "s_buffer_", "s_store", "s_atomic", "s_dcache", "s_memtime")):
        return "smem"
    if op == "s_branch" or op.startswith("s_cbranch"):
        return "branch"
    if op in ("s_waitcnt", "s_barrier", "s_endpgm", "s_nop", "s_setprio", "s_sleep"):
        return op
    return "salu"


def classes(run) -> str:
    """One run of ``run`` with the pool's steps timed (CPU) by instruction class and step kind."""
    from collections import defaultdict

    from isa.emu.pool import Pool
    stats: dict = defaultdict(lambda: [0, 0, 0.0])    # calls, waves, seconds
    one, group = Pool._step_one, Pool._group_step
    clock = time.process_time

    def step_one(self, m, w, e, *a):
        t = clock()
        try:
            return one(self, m, w, e, *a)
        finally:
            s = stats[(instr_class(e.instr.op), "alone")]
            s[0] += 1
            s[1] += 1
            s[2] += clock() - t

    def group_step(self, members, e, *a):
        t = clock()
        try:
            return group(self, members, e, *a)
        finally:
            kind = "group" if e.gfn is not None else "member by member"
            s = stats[(instr_class(e.instr.op), kind)]
            s[0] += 1
            s[1] += len(members)
            s[2] += clock() - t
    Pool._step_one, Pool._group_step = step_one, group_step
    try:
        t0 = clock()
        run()
        total = clock() - t0
    finally:
        Pool._step_one, Pool._group_step = one, group
    head = (f"  {'class':10s} {'step kind':16s} {'steps':>6s} {'waves':>7s} {'members':>7s} "
            f"{'CPU ms':>8s} {'share':>6s} {'us/wave-instr':>13s}")
    lines = [head]
    for (cls, kind), (n, waves, secs) in sorted(stats.items(), key=lambda kv: -kv[1][2]):
        lines.append(f"  {cls:10s} {kind:16s} {n:6d} {waves:7d} {waves / n:7.1f} {secs * 1e3:8.2f} "
                     f"{secs / total:6.1%} {secs / waves * 1e6:13.2f}")
    stepped = sum(s[2] for s in stats.values())
    lines.append(f"  (steps {stepped * 1e3:.1f} ms of the run's {total * 1e3:.1f} ms CPU; the rest is "
                 "launch, landing of due memory ops, scheduling and the result check)")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=",".join(BENCHES),
                    help=f"comma-separated subset of {','.join(BENCHES)}")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--profile", action="store_true", help="print cProfile top entries by tottime")
    ap.add_argument("--classes", action="store_true",
                    help="print CPU time per instruction class and step kind (group / alone)")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--gemm-json", default=None,
                    help="gemm: run this saved NN GEMM contract (.json + .hsaco) instead")
    args = ap.parse_args()
    global GEMM_JSON
    GEMM_JSON = args.gemm_json
    names = [n for n in args.only.split(",") if n]
    for n in names:
        if n not in BENCHES:
            ap.error(f"unknown benchmark {n!r}; choose from {', '.join(BENCHES)}")
    for n in names:
        run = BENCHES[n]()
        if run is None:
            print(f"{n:8s} skipped (clang-22 / ld.lld-22 not installed)")
            continue
        steps, secs = measure(run, args.repeat)
        print(f"{n:8s} {steps:9d} wave-instructions in {secs:7.3f} CPU s = "
              f"{steps / secs:11,.0f} wave-instr/s", flush=True)
        if args.profile:
            print(profile(run, args.top), flush=True)
        if args.classes:
            print(classes(run), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
