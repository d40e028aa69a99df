"""The kernel cache over a repeated README session: the README's three generate commands (GEMM
4096^3 pgr2, the 8192^3 ping-pong, the gfx950 causal attention) plus a plain
``asmgen gemm --m 4096 --n 4096 --k 4096``, each a fresh process, the whole session run
``--passes`` times against one fresh cache folder. Prints per command and pass hit or miss and
the wall time, then the hit rate of each pass and of the session.

    python benchmarks/readme_session.py [--passes 2]

The processes start in this checkout (its ``asmgen`` is imported); bytecode follows the
environment (the header says whether PYTHONDONTWRITEBYTECODE is set).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SESSION = [
    ["gemm", "--arch", "gfx942", "--m", "4096", "--n", "4096", "--k", "4096", "--dtype", "bf16",
     "--layout", "NT", "--schedule", "pgr2", "--tile", "128x128x32", "--waves", "2x2",
     "--prefetch", "2"],
    ["gemm", "--arch", "gfx942", "--m", "8192", "--n", "8192", "--k", "8192", "--dtype", "bf16",
     "--layout", "NT", "--schedule", "pingpong", "--waves", "2x4", "--tile", "256x256x32",
     "--prefetch", "1", "--direct-to-lds", "--lds-swizzle", "--k-multiple", "32"],
    ["attention", "--arch", "gfx950", "--batch", "2", "--heads", "8", "--kv-heads", "2",
     "--seqlen-q", "77", "--seqlen-k", "1000", "--head-dim", "128", "--dtype", "f16", "--causal",
     "--waves", "4", "--kv-buffers", "2"],
    ["gemm", "--m", "4096", "--n", "4096", "--k", "4096"],
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--passes", type=int, default=2)
    args = ap.parse_args()
    bytecode = "off" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "on"
    hits_all = 0
    with tempfile.TemporaryDirectory(prefix="asmgen-readme-") as tmp:
        env = dict(os.environ, ASMGEN_CACHE_DIR=str(Path(tmp, "cache")))
        env.pop("ASMGEN_NO_CACHE", None)
        print(f"# {ROOT}: {len(SESSION)} commands x {args.passes} passes, fresh cache; "
              f"bytecode {bytecode}; load {os.getloadavg()[0]:.1f}")
        for n in range(args.passes):
            hits = 0
            for cmd in SESSION:
                t0 = time.perf_counter()
                r = subprocess.run([sys.executable, "-m", "asmgen", *cmd, "-o", str(Path(tmp, "out"))],
                                   cwd=ROOT, env=env, capture_output=True, text=True)
                dt = time.perf_counter() - t0
                if r.returncode != 0:
                    raise SystemExit(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()[-300:]}")
                hit = "(cache hit)" in r.stdout
                hits += hit
                print(f"pass {n + 1}  {'hit ' if hit else 'miss'}  {dt:6.3f} s  asmgen {' '.join(cmd[:1])} "
                      f"{' '.join(cmd[1:])[:70]}")
            hits_all += hits
            print(f"pass {n + 1}: {hits}/{len(SESSION)} hits ({100 * hits / len(SESSION):.0f} %)")
    total = len(SESSION) * args.passes
    print(f"session: {hits_all}/{total} hits ({100 * hits_all / total:.0f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
