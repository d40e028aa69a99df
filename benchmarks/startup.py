"""Start-up: wall time of whole ``asmgen`` processes beside ``python -c "import numpy"`` measured in
the same run (the machine's load moves every number; the ratio to NumPy's import is the stable one).

    python benchmarks/startup.py [--repeat 5] [--root DIR]

Rows (median wall seconds over ``repeat`` runs, the ratio to ``import numpy``, and the median CPU
seconds (user + sys) of the process, which the machine's load moves far less than the wall time):
- ``python -c pass`` and ``python -c "import numpy"`` (the floor and the yardstick),
- ``python -c "import asmgen"``,
- ``asmgen --help``,
- ``asmgen gemm --m 128 --n 128 --k 32 --schedule pgr2`` cold (``--no-cache`` when the CLI has it,
  else an empty cache folder each run),
- the same command answered from the cache (a warm cache folder; the CLI uses its cache by default).

Targets (issue 13, this 2-core machine): gemm <= 0.5 s, cache hit <= 0.3 s, --help <= 0.2 s.
``--root`` runs another checkout (e.g. main before a change): the processes start in that folder,
so its ``asmgen`` is the one imported. Every process gets a fresh ``ASMGEN_CACHE_DIR``.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GEMM = ["-m", "asmgen", "gemm", "--m", "128", "--n", "128", "--k", "32", "--schedule", "pgr2"]


def wall(cmd: list[str], cwd: Path, env: dict, before=None) -> tuple[float, float]:
    """(wall seconds, CPU seconds user+sys) of one process. Under the load of this shared
    machine the wall time mostly measures waiting for a core; the CPU time is the work."""
    if before is not None:
        before()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, *cmd], cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()[-400:]}")
    return dt, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--root", default=str(Path(__file__).resolve().parent.parent),
                    help="checkout to measure (default: this one)")
    args = ap.parse_args()
    root = Path(args.root).resolve()
    with tempfile.TemporaryDirectory(prefix="asmgen-startup-") as tmp:
        tmp = Path(tmp)
        env = dict(os.environ, ASMGEN_CACHE_DIR=str(tmp / "cache"))
        env.pop("ASMGEN_NO_CACHE", None)
        out = str(tmp / "out")
        cold_env = dict(env)
        cold_dir = tmp / "cold-cache"

        def empty_cache() -> None:
            import shutil
            shutil.rmtree(cold_dir, ignore_errors=True)
        cold_env["ASMGEN_CACHE_DIR"] = str(cold_dir)
        rows = [
            ("python -c pass", ["-c", "pass"], env, None),
            ("python -c 'import numpy'", ["-c", "import numpy"], env, None),
            ("python -c 'import asmgen'", ["-c", "import asmgen"], env, None),
            ("asmgen --help", ["-m", "asmgen", "--help"], env, None),
            ("asmgen gemm 128x128x32 pgr2 (cold)", [*GEMM, "-o", out], cold_env, empty_cache),
        ]
        # warm the cache once, then time the hits
        subprocess.run([sys.executable, *GEMM, "-o", out], cwd=root, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        rows.append(("asmgen gemm 128x128x32 pgr2 (cache hit)", [*GEMM, "-o", out], env, None))
        times: dict[str, list[float]] = {name: [] for name, *_ in rows}
        cpus: dict[str, list[float]] = {name: [] for name, *_ in rows}
        for _ in range(args.repeat):          # interleaved, so load spikes hit every row alike
            for name, cmd, e, before in rows:
                w, c = wall(cmd, root, e, before)
                times[name].append(w)
                cpus[name].append(c)
    numpy_t = statistics.median(times["python -c 'import numpy'"])
    bytecode = "off (PYTHONDONTWRITEBYTECODE set)" if os.environ.get(
        "PYTHONDONTWRITEBYTECODE") else "on"
    print(f"# {root} ({args.repeat} runs each, median wall; load {os.getloadavg()[0]:.1f}, "
          f"{os.cpu_count()} cores; bytecode {bytecode})")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"{name:44s} {med:6.3f} s  {med / numpy_t:5.2f}x import numpy  "
              f"(min {min(ts):.3f})  cpu {statistics.median(cpus[name]):.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
