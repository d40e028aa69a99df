"""The emulator's rate as ``asmgen check`` sees it, and how good ``asmgen.runtime.check_size``'s
up-front estimate is: per kernel the estimated wave-instructions beside the emulator's own count
(``Emulator.steps``), the wall and CPU seconds of the run, and the rates they give.

    PYTHONPATH=. python benchmarks/check_rate.py

``EMU_INSTR_PER_SECOND`` in check_size is the wall rate this prints under the machine's usual
load (it moves with the load: the CPU rate is the stable one). Each kernel is launched once to
decode its code object first, so the timed run is the emulation alone. CPU seconds include the
worker processes of a sharded launch (isa.emu.shards: the last row, 256 workgroups, runs as 2
shards by default; ``shards`` says how many ran, ``wall/s`` is then the rate ``check`` sees and
``cpu/s`` the rate per core).

    PYTHONPATH=. python benchmarks/check_rate.py [--skip-sharded]
"""
from __future__ import annotations

import dataclasses
import resource
import sys
import time
from pathlib import Path

# benchmarks/schedules.py would shadow the ``schedules`` package the recipes live in
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]


def _cpu() -> float:
    """CPU seconds of this process and its ended children (a sharded launch's workers)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    from asmgen import load
    from asmgen.api import attention, gemm
    from asmgen.kinds import registry
    from asmgen.runtime import check_size as cs
    rows = [
        ("gemm NT bf16 128x128x32 pgr2 at 256^3 (README kernel, reduced)",
         gemm(4096, 4096, 4096, dtype="bf16", layout="NT", schedule="pgr2", tile=(128, 128, 32),
              waves=(2, 2), prefetch=2), {"M": 256, "N": 256, "K": 256}),
        ("gemm NN f16 64x64x32 pgr1 192x160x96", gemm(192, 160, 96), {}),
        ("attention f16 d64 b1 h2/1 sq64 sk256", attention(batch=1, heads=2, kv_heads=1,
                                                          seqlen_q=64, seqlen_k=256,
                                                          head_dim=64), {}),
    ]
    if "--skip-sharded" not in sys.argv:
        rows.append(("gemm README kernel at 2048x2048x512 (256 workgroups, sharded)",
                     rows[0][1], {"M": 2048, "N": 2048, "K": 512}))
    print(f"# assumed rate EMU_INSTR_PER_SECOND = {cs.EMU_INSTR_PER_SECOND:.0f} wave-instr/s (wall)")
    print(f"{'kernel':62s} {'estimate':>9s} {'actual':>9s} {'act/est':>7s} {'wall s':>7s} "
          f"{'cpu s':>6s} {'wall/s':>8s} {'cpu/s':>8s} {'shards':>6s}")
    for name, kern, sizes in rows:
        kind = registry.of_contract(kern.meta)
        counts = cs.static_counts(kern.hsaco, kern.meta["kernel"], kern.meta["arch"])
        est = cs.estimate(kern.meta, counts, kind.check_shape(kern.config), sizes)
        cfg = dataclasses.replace(kern.config, **{k.lower(): v for k, v in sizes.items()})
        inputs = kind.random_inputs(cfg, 0)
        run = load(kern)
        run(**inputs, **sizes)                       # decode once
        w0, c0 = time.perf_counter(), _cpu()
        run(**inputs, **sizes)
        wall, cpu = time.perf_counter() - w0, _cpu() - c0
        emu = run.last_emulator
        steps = emu.steps
        shards = 1 if not emu.sharded_launches else cs.launch_shards(
            est.workgroups, -(-kern.meta["block"][0] * kern.meta["block"][1] * kern.meta["block"][2] // 64),
            int(kern.meta.get("lds_bytes", 0) or 0))
        print(f"{name:62s} {est.instructions:9d} {steps:9d} {steps / est.instructions:7.2f} "
              f"{wall:7.2f} {cpu:6.2f} {steps / wall:8.0f} {steps / cpu:8.0f} {shards:6d}", flush=True)


if __name__ == "__main__":
    main()
