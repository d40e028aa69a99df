"""AMD aiter's hand-written flash-attention forward kernels (``hsa/gfx942/fmha_v3_fwd/MI300/*.co``,
hdim 128, bf16) on the judge, every check on, against NumPy, one line per kernel. Not CI: it needs
an aiter snapshot (``fetch`` of github:ROCm/aiter puts one at /work/.mirror/ROCm+aiter/repo);
nothing of aiter is committed (the code objects are read with ``git show`` at run time).

    python benchmarks/aiter_fmha.py [--aiter DIR] [--match REGEX] [--seqlen 256] [--heads 1]
                                    [--batch 1] [--allow-hazard RULE ...]

Kernels run: the batch-mode (mode 0) bf16 rows of ``hsa/gfx942/fmha_v3_fwd/fmha_fwd.csv`` with
hdim_q = hdim_v = 128 (no mask and causal, each of the three bf16 conversions rtne / rtna / rtz);
group mode (varlen) and hdim 192 rows are SKIP.

Arguments, as aiter's ``csrc/cpp_itfs/mha_fwd.cu`` ``init_fmha_fwd_v3_args`` fills
``fmha_fwd_v3_args`` (csrc/include/mha_fwd.h: every field padded to 16 bytes, in declaration
order; the kernel's prologue loads them at those offsets): O, Q, K, V, LSE pointers; scalar =
softmax scale 1/sqrt(d) (the kernel multiplies by log2(e) itself); seqlen_q; Q's byte strides per
token, per ts_qo tile (ts_qo * token stride), per head, per batch; gqa = 1; K's strides; tune_opt
5 (3 for a causal mask when heads % 8 != 0); lse 0; seqlen_k; head dims; heads; V's and O's
strides; lse head stride; the varlen and descale pointers null (the gfx942 code objects' kernarg
segment ends after the varlen pointers: 512 bytes; fields past it are not written). Layout (batch, seq, head, d)
contiguous for Q, K, V, O. Grid ((ceil(sq / ts_qo) + tg_div - 1) / tg_div, heads, batch) with
tg_div 2 for a causal mask, of 512 lanes (``get_grid_dim``). Reference: softmax(q k^T / sqrt(d))
v (top-left causal mask; sq = sk), float64; tolerance 2 bf16 ulps of the result + 2^-7 of
p @ |v| (the bf16 rounding of P before the PV MFMA).

Columns: kernel, PASS / FAIL (with the emulator's error) / SKIP (with why), worst error / tolerance,
emulated wave instructions, seconds.
"""
from __future__ import annotations

import argparse
import csv
import io
import math
import re
import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

DEFAULT_SNAPSHOT = "/work/.mirror/ROCm+aiter/repo"
FMHA_DIR = "hsa/gfx942/fmha_v3_fwd"
# fmha_fwd_v3_args field order (csrc/include/mha_fwd.h); each field takes 16 bytes
FIELDS = ("o", "q", "k", "v", "lse", "scalar", "seq_len", "Seqs", "Ts", "Hs", "Bs", "gqa", "k_Seqs",
          "k_Hs", "k_Bs", "opt", "lse_on", "kv_seq_len", "qk_head_dim", "v_head_dim", "q_head_num",
          "v_Seqs", "v_Hs", "v_Bs", "o_Seqs", "o_Hs", "o_Bs", "qseq", "kseq", "lse_Hs", "qseq_padding",
          "kseq_padding", "q_descale", "k_descale", "v_descale", "dq_Bs", "dq_Hs", "dk_Bs", "dk_Hs",
          "dv_Bs", "dv_Hs")
POINTERS = {"o", "q", "k", "v", "lse", "qseq", "kseq", "qseq_padding", "kseq_padding", "q_descale",
            "k_descale", "v_descale"}


class Skip(Exception):
    """The kernel is not run; the message says why."""


def _git(snapshot: str, *args: str) -> bytes:
    return subprocess.run(["git", "-C", snapshot, *args], check=True, capture_output=True).stdout


def fmha_table(snapshot: str) -> list[dict]:
    text = _git(snapshot, "show", f"HEAD:{FMHA_DIR}/fmha_fwd.csv").decode()
    return list(csv.DictReader(io.StringIO(text)))


def run_fmha(snapshot: str, row: dict, batch: int, seqlen: int, heads: int, seed: int, allow):
    """(worst error / tolerance, Emulator) of one aiter fmha v3 forward kernel."""
    import ml_dtypes

    from isa.codeobj import CodeObject
    from isa.emu import Emulator
    if row["dtype"] != "bf16" or row["hdim_q"] != "128" or row["hdim_v"] != "128":
        raise Skip(f"{row['dtype']} hdim {row['hdim_q']}x{row['hdim_v']} not built here")
    if row["mode"] != "0":
        raise Skip("group (varlen) mode not built here")
    causal = row["mask"] != "0"
    d, ts_qo = 128, int(row["ts_qo"])
    co = _git(snapshot, "show", f"HEAD:{FMHA_DIR}/MI300/{row['co_name']}")
    obj = CodeObject.from_bytes(co)
    (kname,) = list(obj.kernels)
    ki = obj.kernels[kname]
    need = 16 * FIELDS.index("lse_Hs") + 4       # older code objects end after the varlen pointers
    if ki.kernarg_segment_size < need:
        raise Skip(f"kernarg segment {ki.kernarg_segment_size} bytes < the {need} fmha_fwd_v3_args needs")
    bf16 = np.dtype(ml_dtypes.bfloat16)
    rng = np.random.default_rng(seed)
    shape = (batch, seqlen, heads, d)
    q, k, v = (rng.uniform(-1, 1, shape).astype(bf16) for _ in range(3))
    o = np.zeros(shape, bf16)
    lse = np.zeros((batch, heads, seqlen), np.float32)
    emu = Emulator(arch="gfx942", seed=seed, allow_hazards=allow)
    ptr = {n: emu.alloc(a, n) for n, a in (("o", o), ("q", q), ("k", k), ("v", v), ("lse", lse))}
    tok, hd, bt = heads * d * 2, d * 2, seqlen * heads * d * 2
    opt = 3 if causal and heads % 8 else 5
    val = {"scalar": 1.0 / math.sqrt(d), "seq_len": seqlen, "Seqs": tok, "Ts": ts_qo * tok, "Hs": hd,
           "Bs": bt, "gqa": 1, "k_Seqs": tok, "k_Hs": hd, "k_Bs": bt, "opt": opt, "lse_on": 0,
           "kv_seq_len": seqlen, "qk_head_dim": d, "v_head_dim": d, "q_head_num": heads, "v_Seqs": tok,
           "v_Hs": hd, "v_Bs": bt, "o_Seqs": tok, "o_Hs": hd, "o_Bs": bt, "lse_Hs": seqlen * 4}
    args = bytearray(ki.kernarg_segment_size)
    for i, name in enumerate(FIELDS):
        if 16 * i + (8 if name in POINTERS else 4) > len(args):
            break
        if name in POINTERS:
            struct.pack_into("<Q", args, 16 * i, ptr.get(name, 0))
        elif name == "scalar":
            struct.pack_into("<f", args, 16 * i, val[name])
        else:
            struct.pack_into("<I", args, 16 * i, val.get(name, 0))
    tg_div = 2 if causal else 1
    grid = ((-(-seqlen // ts_qo) + tg_div - 1) // tg_div, heads, batch)
    emu.launch(co, kname, grid=grid, block=(512, 1, 1), kernargs=bytes(args))
    q64, k64, v64 = (x.astype(np.float64) for x in (q, k, v))
    worst = 0.0
    for b in range(batch):
        for h in range(heads):
            s = q64[b, :, h] @ k64[b, :, h].T / math.sqrt(d)
            if causal:
                s = np.where(np.tril(np.ones((seqlen, seqlen), bool)), s, -np.inf)
            p = np.exp(s - s.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            ref = p @ v64[b, :, h]
            ulp = np.exp2(np.floor(np.log2(np.maximum(np.abs(ref), 1e-30))) - 7)
            tol = 2 * ulp + 2.0 ** -7 * (p @ np.abs(v64[b, :, h]))
            worst = max(worst, float(np.max(np.abs(o[b, :, h].astype(np.float64) - ref) / tol)))
    return worst, emu


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--aiter", default=DEFAULT_SNAPSHOT, help="aiter git snapshot (read only)")
    ap.add_argument("--match", default="", help="only kernels whose .co name matches REGEX")
    ap.add_argument("--seqlen", type=int, default=256)
    ap.add_argument("--heads", type=int, default=1)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--allow-hazard", action="append", default=[], metavar="RULE")
    ns = ap.parse_args(argv)
    if not Path(ns.aiter).exists():
        print(f"error: no aiter snapshot at {ns.aiter}", file=sys.stderr)
        return 2
    if min(ns.seqlen, ns.heads, ns.batch) < 1:
        print("error: --seqlen, --heads and --batch must be >= 1", file=sys.stderr)
        return 2
    for row in fmha_table(ns.aiter):
        if not re.search(ns.match, row["co_name"]):
            continue
        t0 = time.perf_counter()
        try:
            err, emu = run_fmha(ns.aiter, row, ns.batch, ns.seqlen, ns.heads, ns.seed,
                                frozenset(ns.allow_hazard))
            res = "PASS" if err <= 1.0 else "FAIL  mismatch"
            allowed = ", ".join(f"{r}/{kind} x{c}" for (r, kind), c in sorted(emu.allowed_hazards.items()))
            print(f"{row['co_name']:40s} {res:5s} err/tol {err:8.3f} {emu.steps} wave-instrs "
                  f"{time.perf_counter() - t0:6.1f}s" + (f"  allowed: {allowed}" if allowed else ""), flush=True)
        except Skip as e:
            print(f"{row['co_name']:40s} SKIP  {e}", flush=True)
        except Exception as e:  # noqa: BLE001 (the emulator's verdict, whatever it is, is the line)
            print(f"{row['co_name']:40s} FAIL  {type(e).__name__}: {str(e)[:400]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
