"""Calibrate the cycle model against Triton's own gfx942 GEMM kernels (issue #8): compile a small
Triton matmul for gfx942 offline (no GPU), check each code object on the emulator against NumPy,
profile it through the same cycle model as ``asmgen profile`` (``asmgen.profiling.foreign``), and
print it next to our own GEMM kernels' modeled numbers and the published anchors.

Triton is not a dependency of asmgen and nothing Triton builds is committed: without an importable
``triton`` (with its AMD backend) this script exits 2. Triton links its code objects with its own
bundled lld, so no system ld.lld is needed (triton 3.9: ``amd.link_hsaco``).

    pip install triton
    python benchmarks/triton_calibration.py [--size 8192] [--iters 6] [--check 512x512x256]
                                            [--configs 128x128x64w4 256x256x64w8 ...] [--no-ours]

Columns: ``check`` = worst |emulated - exact| of the ``--check`` problem divided by the tolerance
(one bf16 ulp of the exact value + (K+2) fp32 ulps of sum|a*b|, cdna-facts §2.3): <= 1 passes;
``clk/iter`` = steady-state cycles per K-loop trip on one modeled CU with ``WG/CU`` co-resident
workgroups; ``MFMA`` = steady-state MFMA busy; TFLOP/s for the whole ``size``^3 problem on
MI300X at the 2100 MHz peak clock and at the device's sustained clock (``isa.cycle.params``, the
one place clocks live: 1207 MHz, the median AMD measured with its 708 TF figure) under a dense bf16
GEMM (cdna-timing §5, MAF).
"""
from __future__ import annotations

import argparse
import math
import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# Run as a script, this file's folder comes first on sys.path and ``benchmarks/schedules.py``
# would shadow the ``schedules`` package of recipes: drop that folder.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

DEVICE = "MI300X"
PEAK_MHZ = 2100.0         # MI300X peak engine clock (isa.cycle.params clock_mhz)


def _sustained_mhz() -> float:
    """The device's sustained dense-GEMM clock from the one clock table (isa.cycle.params)."""
    from isa.cycle import params_for
    return params_for("gfx942", DEVICE).sustained_clock_mhz


SUSTAINED_MHZ = _sustained_mhz()
# Published anchors, TFLOP/s (bf16 dense GEMM).
ANCHORS = (
    ("MI300X hipBLASLt bf16 4096x4864x32896 (AMD MAF)", 708.0,
     "cdna-timing §4/§5: 54% of 1307 peak, 94% of peak at its 1207 MHz clock"),
    ("MI325X HipKittens bf16 8192^3", 749.0,
     "cdna-facts §9.4; MI300X's CUs and peak clock at 1000 W: MAF measured 843 TF @1447 MHz"),
    ("MI325X PyTorch matmul (hipBLASLt) bf16 8192^3", 785.0, "cdna-facts §9.4"),
)
# No citable TFLOP/s of a Triton bf16 GEMM on MI300X was found; the closest public statement:
TRITON_NOTE = ("Triton on MI300X (max-autotuned, fp16): 0.66x of torch.matmul at M,K,N = 128,8192,8192 "
               "and 0.73x at 256,16384,16384 (github.com/triton-lang/triton/issues/7199)")
# Our recipes compared by default (benchmarks/schedules.py prints all of them).
OUR_SCHEDULES = ("pgr1", "pgr2", "ck_v4", "attn_basic")
OUR_TILES = ((128, 128, 32),)


@dataclass(frozen=True)
class TritonConfig:
    """One Triton GEMM configuration (the knobs Triton's MI300 autotune lists use)."""

    bm: int
    bn: int
    bk: int
    num_warps: int
    num_stages: int = 2
    nonkdim: int = 16          # matrix_instr_nonkdim: 16 -> 16x16x16 MFMA, 32 -> 32x32x8
    group: int = 8             # GROUP_SIZE_M program swizzle

    @property
    def name(self) -> str:
        return (f"{self.bm}x{self.bn}x{self.bk} w{self.num_warps} s{self.num_stages} "
                f"k{self.nonkdim}")


DEFAULT_CONFIGS = (
    TritonConfig(256, 256, 64, 8),
    TritonConfig(256, 256, 32, 8),
    TritonConfig(128, 128, 64, 4),
    TritonConfig(256, 128, 64, 8),
    TritonConfig(128, 128, 64, 4, nonkdim=32),
)
_CFG_RE = re.compile(r"^(\d+)x(\d+)x(\d+)w(\d+)(?:s(\d+))?(?:k(16|32))?$")


def _config(text: str) -> TritonConfig:
    m = _CFG_RE.match(text.strip().lower())
    if not m:
        raise argparse.ArgumentTypeError(f"config {text!r} is not BMxBNxBKwWARPS[sSTAGES][kNONKDIM], "
                                         "e.g. 256x256x64w8s2k16")
    bm, bn, bk, w, s, k = m.groups()
    return TritonConfig(int(bm), int(bn), int(bk), int(w), int(s or 2), int(k or 16))


def _dims(text: str) -> tuple[int, int, int]:
    parts = tuple(int(x) for x in text.lower().split("x"))
    if len(parts) != 3 or min(parts) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not MxNxK")
    return parts


# ----------------------------------------------------------------------------------------------
# the Triton kernel (our own: a plain tiled tl.dot loop, row-major A[M,K], B[K,N], C[M,N])

def _make_kernel(triton, tl):
    @triton.jit
    def bf16_gemm(a_ptr, b_ptr, c_ptr, M, N, K, lda, ldb, ldc,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
        # program id -> (tile row, tile col), GROUP tile rows share their B column panel in L2
        pid = tl.program_id(0)
        tiles_m = tl.cdiv(M, BM)
        tiles_n = tl.cdiv(N, BN)
        per_group = GROUP * tiles_n
        first_m = (pid // per_group) * GROUP
        rows_in_group = min(tiles_m - first_m, GROUP)
        tm = first_m + (pid % per_group) % rows_in_group
        tn = (pid % per_group) // rows_in_group
        offs_m = tm * BM + tl.arange(0, BM)
        offs_n = tn * BN + tl.arange(0, BN)
        offs_k = tl.arange(0, BK)
        a_tile = a_ptr + offs_m[:, None] * lda + offs_k[None, :]
        b_tile = b_ptr + offs_k[:, None] * ldb + offs_n[None, :]
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for _ in range(tl.cdiv(K, BK)):
            acc += tl.dot(tl.load(a_tile), tl.load(b_tile))
            a_tile += BK
            b_tile += BK * ldb
        tl.store(c_ptr + offs_m[:, None] * ldc + offs_n[None, :], acc.to(tl.bfloat16))
    return bf16_gemm


ARG_NAMES = ("A", "B", "C", "M", "N", "K", "lda", "ldb", "ldc")
# Triton (3.x) appends two pointers of its own to every kernel: global and profile scratch.
SCRATCH_NAMES = ("global_scratch", "profile_scratch")


def compile_config(triton, kernel, cfg: TritonConfig):
    """(hsaco bytes, kernel name, dynamic LDS bytes, metadata) of ``cfg`` for gfx942."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    sig = {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*bf16", "M": "i32", "N": "i32",
           "K": "i32", "lda": "i32", "ldb": "i32", "ldc": "i32", "BM": "constexpr",
           "BN": "constexpr", "BK": "constexpr", "GROUP": "constexpr"}
    # What Triton's JIT attaches when it launches on 16-byte aligned torch tensors < 2 GiB with
    # sizes divisible by 16 (backends/compiler.py "D", backends/amd/compiler.py "S"): the
    # pointer-range attribute turns the loads into buffer loads, as on a real MI300X run.
    attrs = {(i,): [["tt.divisibility", 16]] + ([["tt.pointer_range", 32]] if i < 3 else [])
             for i in range(9)}
    src = ASTSource(kernel, sig, constexprs={"BM": cfg.bm, "BN": cfg.bn, "BK": cfg.bk,
                                             "GROUP": cfg.group}, attrs=attrs)
    opts = {"num_warps": cfg.num_warps, "num_stages": cfg.num_stages,
            "matrix_instr_nonkdim": cfg.nonkdim, "enable_fp_fusion": True}
    ck = triton.compile(src, target=GPUTarget("hip", "gfx942", 64), options=opts)
    return ck.asm["hsaco"], ck.metadata.name, int(ck.metadata.shared), ck.metadata


# ----------------------------------------------------------------------------------------------
# emulator check and profile

def _fk(profile_foreign, hsaco, name, shared, cfg):
    return profile_foreign.ForeignKernel(hsaco, name, (64 * cfg.num_warps, 1, 1), shared,
                                         names=ARG_NAMES + SCRATCH_NAMES)


def _values(a, b, c) -> dict:
    m, k = a.shape
    n = b.shape[1]
    return {"A": a, "B": b, "C": c, "M": m, "N": n, "K": k, "lda": k, "ldb": n, "ldc": n,
            "global_scratch": 0, "profile_scratch": 0}


def check(profile_foreign, fk, cfg, dims, seed: int) -> float:
    """Run the whole ``dims`` problem on the emulator; worst error vs NumPy relative to the
    tolerance (``tolerance``): <= 1 passes."""
    import ml_dtypes
    m, n, k = dims
    if m % cfg.bm or n % cfg.bn or k % cfg.bk:
        raise ValueError(f"check size {dims} is not a multiple of the tile {cfg.bm}x{cfg.bn}x{cfg.bk} "
                         "(the kernel has no bounds masks)")
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (m, k)).astype(ml_dtypes.bfloat16)
    b = rng.uniform(-1, 1, (k, n)).astype(ml_dtypes.bfloat16)
    c = np.zeros((m, n), ml_dtypes.bfloat16)
    profile_foreign.launch(fk, ((m // cfg.bm) * (n // cfg.bn), 1, 1), _values(a, b, c), seed=seed)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = a64 @ b64
    err = np.abs(c.astype(np.float64) - ref)
    return float(np.max(err / tolerance(ref, np.abs(a64) @ np.abs(b64), k)))


def tolerance(ref: np.ndarray, abs_sum: np.ndarray, k: int) -> np.ndarray:
    """Allowed |result - exact| of a bf16 GEMM with fp32 accumulation: one bf16 ulp of the exact
    value (the final rounding, 8 significand bits) plus (K + 2) fp32 ulps of sum |a*b| (the fp32
    accumulation, whatever its order: cdna-facts §2.3)."""
    mag = np.maximum(np.abs(ref), np.finfo(np.float32).tiny)
    bf16_ulp = np.exp2(np.floor(np.log2(mag)) - 7)
    return bf16_ulp + (k + 2) * np.finfo(np.float32).eps * abs_sum


def profile_config(profile_foreign, fk, cfg, size: int, iters: int) -> dict:
    """Modeled numbers of the ``size``^3 problem: one tile with ``iters`` (and ``iters`` + 2, for
    the CU's marginal cost per trip) K-trips emulated."""
    import ml_dtypes

    def values(trips: int) -> dict:
        rng = np.random.default_rng(0)
        a = rng.uniform(-1, 1, (cfg.bm, trips * cfg.bk)).astype(ml_dtypes.bfloat16)
        b = rng.uniform(-1, 1, (trips * cfg.bk, cfg.bn)).astype(ml_dtypes.bfloat16)
        return _values(a, b, np.zeros((cfg.bm, cfg.bn), ml_dtypes.bfloat16))

    from isa.cycle.problem import TileGrid
    # the tile grid as the kernel's GROUP_SIZE_M swizzle walks it: its L2 / MALL / HBM traffic
    # and floors, as asmgen's own GEMMs are profiled (asmgen.profiling.device.floored_round)
    grid = TileGrid(size, size, size, (cfg.bm, cfg.bn, cfg.bk), in_bytes=2, order="grouped",
                    group=cfg.group)
    out = profile_foreign.profile_foreign(
        fk, values, flops=2.0 * size ** 3, n_wg=grid.n_wg, loop_iters=grid.trips,
        emulated_iters=iters, device=DEVICE, tiles=grid)
    out["tflops_wave"] = _tflops(out, out["emulated"]["cycles"], out["problem"]["loop_iters"] - iters,
                                 out["cycles_per_iter"])
    return out


def _tflops(out: dict, cycles: float, extra_trips: int, per_trip: float) -> float:
    """Whole-problem TFLOP/s of ``out``'s problem when a round takes ``cycles`` + ``extra_trips``
    x ``per_trip`` clk, the trip raised to ``out``'s memory floors as the profile raises its own
    (isa.cycle.problem.trip_bound; isa.cycle.report.problem_tflops, the device's peak clock)."""
    from isa.cycle import params_for
    from isa.cycle.problem import trip_bound
    from isa.cycle.report import problem_tflops
    trip, _ = trip_bound(per_trip, (out.get("bound") or {}).get("memory_floors_clk") or {})
    p = problem_tflops(params_for("gfx942", DEVICE), out["problem"]["flops"], out["problem"]["n_wg"],
                       cycles + extra_trips * trip, out["wgs_per_cu"])
    return p["tflops"]


# ----------------------------------------------------------------------------------------------

def _row(label, r: dict, check_ratio, secs) -> str:
    """One table line; ``r`` has cpi, cpi_cu, busy, wgs, tf_wave, tf_cu, peak."""
    chk = "-" if check_ratio is None else f"{check_ratio:.3f}"
    tf = r["tf_cu"] if r["tf_cu"] is not None else r["tf_wave"]
    cu = "-" if r["cpi_cu"] is None else f"{r['cpi_cu']:.0f}"
    return (f"{label:<28} {chk:>7} {r['cpi']:>8.0f} {cu:>8} {100 * r['busy']:>6.1f}% {r['wgs']:>5} "
            f"{r['tf_wave']:>8.1f} {tf:>8.1f} {tf * SUSTAINED_MHZ / PEAK_MHZ:>8.1f} "
            f"{100 * tf / r['peak']:>6.1f}%  {secs:.0f}s")


HEADER = (f"{'kernel':<28} {'check':>7} {'clk/it-w':>8} {'clk/it-CU':>8} {'MFMA':>7} {'WG/CU':>5} "
          f"{'TF(w)':>8} {'TF(CU)':>8} {'TF@' + str(int(SUSTAINED_MHZ)):>8} {'%peak':>7}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=8192, help="modeled problem: size^3 bf16 GEMM")
    ap.add_argument("--iters", type=int, default=6, help="K-loop trips emulated per kernel")
    ap.add_argument("--check", type=_dims, default=(512, 512, 256),
                    help="problem run whole on the emulator against NumPy (MxNxK)")
    ap.add_argument("--configs", type=_config, nargs="+", default=list(DEFAULT_CONFIGS))
    ap.add_argument("--no-ours", action="store_true", help="skip our own GEMM kernels")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    try:
        import triton
        import triton.language as tl
        from triton.backends.amd import compiler as _amd  # noqa: F401  (the AMD backend)
    except ImportError as exc:
        print(f"triton_calibration: Triton with its AMD backend is not importable ({exc}); "
              "`pip install triton` first (it is not an asmgen dependency)", file=sys.stderr)
        return 2
    os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="asmgen-triton-cache-"))
    from asmgen.errors import AsmgenError
    from asmgen.profiling import foreign as profile_foreign
    from isa.errors import IsaError
    errors = (AsmgenError, IsaError, ValueError)
    kernel = _make_kernel(triton, tl)
    print(f"bf16 GEMM {args.size}^3 on gfx942 ({DEVICE}, 304 CUs, peak 1307 TF at 2100 MHz); "
          f"Triton {triton.__version__}; emulator check {'x'.join(map(str, args.check))}, "
          f"{args.iters} K-trips emulated per profile")
    print(HEADER)
    failed = 0
    for cfg in args.configs:
        t0 = time.perf_counter()
        label = f"triton {cfg.name}"
        try:
            hsaco, name, shared, _ = compile_config(triton, kernel, cfg)
            fk = _fk(profile_foreign, hsaco, name, shared, cfg)
            ratio = check(profile_foreign, fk, cfg, args.check, args.seed)
            out = profile_config(profile_foreign, fk, cfg, args.size, args.iters)
        except errors as exc:
            failed += 1
            print(f"{label:<28} FAILED {type(exc).__name__}: {str(exc).splitlines()[0][:160]}")
            continue
        if not ratio <= 1.0:
            failed += 1
        r = {"cpi": out["cycles_per_iter"], "cpi_cu": out["cycles_per_iter_cu"],
             "busy": out["mfma_busy"], "wgs": out["wgs_per_cu"], "tf_wave": out["tflops_wave"],
             "tf_cu": out["tflops"], "peak": out["perf"]["peak_tflops"]}
        print(_row(label, r, ratio, time.perf_counter() - t0)
              + ("" if ratio <= 1.0 else "  MISMATCH vs NumPy"))
    if not args.no_ours:
        _ours(args, errors)
    print("\npublished anchors (measured, TFLOP/s):")
    for what, tf, src in ANCHORS:
        print(f"  {what:<50} {tf:>6.0f}  ({src})")
    print(f"  {TRITON_NOTE}")
    return 1 if failed else 0


def _ours(args, errors) -> None:
    """Our own GEMM kernels through ``asmgen profile`` (as benchmarks/schedules.py does), run at
    ``iters`` and ``iters`` + 2 K-trips so the CU's marginal cost per trip is measured too."""
    from asmgen import api
    from asmgen.cli.profile import profile
    from isa.emu.errors import EmulatorError
    errors = (*errors, EmulatorError)
    for tile in OUR_TILES:
        for name in OUR_SCHEDULES:
            t0 = time.perf_counter()
            label = f"asmgen {name} {'x'.join(map(str, tile))}"
            try:
                k = api.gemm(args.size, args.size, args.size, dtype="bf16", arch="gfx942",
                             tile=tile, waves=(2, 2), schedule=name)
                out = profile(k, iters=args.iters, device=DEVICE)
                more = profile(k, iters=args.iters + 2, device=DEVICE)
            except errors as exc:
                print(f"{label:<28} FAILED {type(exc).__name__}: {str(exc).splitlines()[0][:160]}")
                continue
            em = out["emulated"]
            cpi_cu = (more["emulated"]["cycles"] - em["cycles"]) / (more["emulated"]["k_iters"]
                                                                     - em["k_iters"])
            extra = math.ceil(args.size / tile[2]) - em["k_iters"]
            r = {"cpi": out["cycles_per_iter"], "cpi_cu": cpi_cu, "busy": out["mfma_busy"],
                 "wgs": out["wgs_per_cu"], "tf_wave": out["tflops"],
                 "tf_cu": _tflops(out, em["cycles"], extra, cpi_cu),
                 "peak": out["perf"]["peak_tflops"]}
            print(_row(label, r, None, time.perf_counter() - t0))


if __name__ == "__main__":
    sys.exit(main())
