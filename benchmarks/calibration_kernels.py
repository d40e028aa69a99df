"""The kernels of ``benchmarks/calibration.py`` as launch contracts (``asmgen.launch/1``), built
at run time into a temporary folder: hipBLASLt's hand-written custom kernels (assembled from the
hipBLASLt snapshot with llvm-mc-22 / ld.lld-22), Triton tutorial-style GEMMs (compiled offline when
``triton`` is importable) and asmgen's own kernels (``asmgen.api.gemm``). Nothing of hipBLASLt or
Triton is committed; this module only writes the JSON that says how to launch them.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

HIPBLASLT_REPO = Path("/work/.mirror/ROCm+hipBLASLt/repo")
CUSTOM = "tensilelite/Tensile/CustomKernels"
# Tensile BBS custom kernels: A (Alik) and B (Bljk) K-contiguous, D/C column-major M x N, bf16 in
# and out, fp32 accumulate; 256 threads (4 waves), DepthU 64, the main loop unrolled twice (one
# trip = 128 of K, found by emulating 6 and 8 trips: the growth is one loop trip per 128)
HIPBLASLT = {
    "MT256x256x64": (("Custom_Cijk_Alik_Bljk_BBS_BH_Bias_AS_SAV_UserArgs_MT256x256x64_MI16x16x1_"
                     "SN_K1_MIWT4_16_DTVA"), (256, 256, 64)),
    "MT256x224x64": (("Custom_Cijk_Alik_Bljk_BBS_BH_Bias_AS_SAV_UserArgs_MT256x224x64_MI16x16x1_"
                     "SN_K1_MIWT4_14_DTVA"), (256, 224, 64)),
}
HIPBLASLT_TRIP_K = 128


class Unavailable(Exception):
    """A kernel source the calibration needs is not on this machine (snapshot, package, tool)."""


def hipblaslt_contract(out_dir: Path, which: str, m: int, n: int, k: int) -> Path:
    """Assemble hipBLASLt's custom kernel ``which`` and write its launch contract for m x n x k.

    The kernel's metadata lists its arguments in an order its code does not read (the code reads
    a gemm-count word and a GSU/WGM/StaggerU word first, then sizes, pointers, strides: see its
    prologue), so the contract gives the kernarg bytes field by field."""
    name, tile = HIPBLASLT[which]
    if not (HIPBLASLT_REPO / "HEAD").exists() and not (HIPBLASLT_REPO / ".git").exists():
        raise Unavailable(f"no hipBLASLt snapshot at {HIPBLASLT_REPO}")
    for tool in ("llvm-mc-22", "ld.lld-22"):
        if shutil.which(tool) is None:
            raise Unavailable(f"{tool} is not installed")
    hsaco = out_dir / f"{which}.hsaco"
    if not hsaco.exists():
        src = subprocess.run(["git", "-C", str(HIPBLASLT_REPO), "show", f"HEAD:{CUSTOM}/{name}.s"],
                             capture_output=True, check=True).stdout
        (out_dir / f"{which}.s").write_bytes(src)
        subprocess.run(["llvm-mc-22", "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-filetype=obj",
                        str(out_dir / f"{which}.s"), "-o", str(out_dir / f"{which}.o")], check=True)
        subprocess.run(["ld.lld-22", "-shared", str(out_dir / f"{which}.o"), "-o", str(hsaco)],
                       check=True)
    f = []
    u32 = lambda off, v: f.append({"offset": off, "dtype": "u32", "value": v})
    u32(0, 1)                                  # one GEMM, kernel-argument mode (arg type 0)
    u32(4, 1 | (1 << 8))                       # GSU 1, WGM 1, StaggerU 0
    for off, v in ((8, "M"), (12, "N"), (16, 1), (20, "K")):
        u32(off, v)
    for off, buf in ((24, "D"), (32, "C"), (40, "A"), (48, "B")):
        f.append({"offset": off, "buffer": buf})
    for off, v in ((56, "M"), (60, "M * N"), (64, "M"), (68, "M * N"), (72, "K"), (76, "M * K"),
                   (80, "K"), (84, "N * K")):
        u32(off, v)
    f.append({"offset": 88, "dtype": "f32", "value": 1})     # alpha
    f.append({"offset": 92, "dtype": "f32", "value": 0})     # beta
    contract = {
        "format": "asmgen.launch/1", "hsaco": hsaco.name, "kernel": name, "arch": "gfx942",
        "block": [256, 1, 1], "grid": [f"(M + {tile[0] - 1}) // {tile[0]}",
                                      f"(N + {tile[1] - 1}) // {tile[1]}", 1],
        "dims": {"M": m, "N": n, "K": k},
        "buffers": [{"name": "A", "dtype": "bf16", "shape": ["M", "K"]},
                    {"name": "B", "dtype": "bf16", "shape": ["N", "K"]},
                    {"name": "C", "dtype": "bf16", "shape": ["N", "M"], "init": "zeros"},
                    {"name": "D", "dtype": "bf16", "shape": ["N", "M"], "init": "zeros"}],
        "kernarg": {"size": 136, "fields": f},
        "flops": "2 * M * N * K", "loop": {"dim": "K", "per_trip": HIPBLASLT_TRIP_K},
        "profile": {"dims": {"M": tile[0], "N": tile[1]}, "trips": 4},
        "check": {"dims": {"M": 2 * tile[0], "N": tile[1], "K": 2 * HIPBLASLT_TRIP_K}},
        "tiles": {"tile": list(tile), "order": "m_fastest"},
        "emulator": {"allow_hazards": ["valu_sgpr_valu"],
                     "why": "the judge reports valu_sgpr_valu (2 wait states) for a v_cmp writing "
                            "VCC read as carry-in by v_addc two instructions on; rocRoller's "
                            "VALUWriteSGPRVCC94x says a carry-in read needs 0 (cdna-facts §3)"}}
    path = out_dir / f"{which}_{m}x{n}x{k}.json"
    path.write_text(json.dumps(contract, indent=1))
    return path


def triton_contract(out_dir: Path, cfg, m: int, n: int, k: int, arch: str = "gfx942") -> Path:
    """Compile benchmarks/triton_calibration.py's plain ``tl.dot`` loop (the tutorial's GEMM:
    row-major A[M,K], B[K,N], GROUP_SIZE_M swizzle) for ``cfg`` and write its launch contract
    (typed arguments: Triton's metadata describes its layout)."""
    try:
        import triton
        import triton.language as tl
        from triton.backends.amd import compiler as _amd  # noqa: F401
    except ImportError as exc:
        raise Unavailable(f"triton with its AMD backend is not importable ({exc})") from None
    import triton_calibration as tc
    kernel = tc._make_kernel(triton, tl)
    hsaco, name, shared, _ = tc.compile_config(triton, kernel, cfg)
    stem = f"triton_{cfg.bm}x{cfg.bn}x{cfg.bk}w{cfg.num_warps}"
    (out_dir / f"{stem}.hsaco").write_bytes(hsaco)
    contract = {
        "format": "asmgen.launch/1", "hsaco": f"{stem}.hsaco", "kernel": name, "arch": arch,
        "block": [64 * cfg.num_warps, 1, 1], "dynamic_lds": shared,
        "grid": [f"((M + {cfg.bm - 1}) // {cfg.bm}) * ((N + {cfg.bn - 1}) // {cfg.bn})", 1, 1],
        "dims": {"M": m, "N": n, "K": k},
        "buffers": [{"name": "A", "dtype": "bf16", "shape": ["M", "K"]},
                    {"name": "B", "dtype": "bf16", "shape": ["K", "N"]},
                    {"name": "C", "dtype": "bf16", "shape": ["M", "N"], "init": "zeros"}],
        "args": [{"buffer": "A"}, {"buffer": "B"}, {"buffer": "C"},
                 {"dtype": "i32", "value": "M"}, {"dtype": "i32", "value": "N"},
                 {"dtype": "i32", "value": "K"}, {"dtype": "i32", "value": "K"},
                 {"dtype": "i32", "value": "N"}, {"dtype": "i32", "value": "N"},
                 {"dtype": "u64", "value": 0}, {"dtype": "u64", "value": 0}],
        "flops": "2 * M * N * K", "loop": {"dim": "K", "per_trip": cfg.bk},
        "profile": {"dims": {"M": cfg.bm, "N": cfg.bn}, "trips": 6},
        "check": {"dims": {"M": cfg.bm, "N": 2 * cfg.bn, "K": 4 * cfg.bk}},
        "tiles": {"tile": [cfg.bm, cfg.bn, cfg.bk], "order": "grouped", "group": cfg.group}}
    path = out_dir / f"{stem}_{m}x{n}x{k}.json"
    path.write_text(json.dumps(contract, indent=1))
    return path
