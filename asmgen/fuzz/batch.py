"""Run fuzz cases in batches: K cases' kernels assembled and linked as one code object.

Starting llvm-mc and ld.lld costs ~36 ms of CPU per case whatever its size (a 430-instruction GEMM
assembles in ~3 ms more than an empty file; benchmarks/fuzz_rate.py), a third of a case. A batch
compiles each case up to its ``.s`` text (``asmgen.driver.lower``: template, schedule, passes,
emit, every check of the compiler), emits the kernels of one arch side by side in one ``.s``
(``asmgen.emit.multi.emit_kernels``), assembles and links that once, and checks every case on the
emulator from the shared code object, each kernel loaded by its own symbol, against the NumPy
reference exactly as ``run_case`` does. Nothing is checked less: every schedule is still assembled
by LLVM, run with every emulator check and compared with NumPy.

Naming (the decision; docs/design-notes.md "Fuzz batches"): the ``i``-th kernel of a batch is the
symbol ``<name>__b<i>`` (``asmgen.emit.multi.batch_name``), its labels suffixed ``__b<i>`` too,
and its launch contract's ``kernel`` is that symbol. Kernels of one config share ``<name>``, so
the batch index, not the config, makes them unique. The emulator's decoded-program cache is keyed
by (code object hash, kernel symbol, arch) (``isa.emu.launch``), so a symbol is never confused
with the same symbol of another batch. Batch kernels never enter the on-disk kernel cache
(``asmgen.cache``), and the single-kernel path (``compile``, ``asmgen gemm -o``) is untouched.

Every case that does not pass in a batch is run again alone (``run_case``): its outcome, its
kernel and so its reproducer are the single-kernel ones, exactly as before batching. If the two
runs disagree, the batch's failure kind is kept and the message says what the lone run gave.
When a batch's assembly or link fails, every case of that batch runs alone, so the error names
the kernel that has it.
"""
from __future__ import annotations

import time
from collections.abc import Sequence

from .cases import PASS, Outcome, check_case, compile_failure, lower_case, run_case
from .strategies import FuzzCase

BATCH = 16    # kernels per code object: llvm-mc + ld.lld ~4.4 ms per case at 16, 36 ms alone


def run_batch(cases: Sequence[FuzzCase], toolchain=None) -> list[Outcome]:
    """The outcomes of ``cases`` (in order), their kernels assembled per arch in one code object."""
    from ..driver import finish
    from ..emit.multi import emit_kernels
    outs: list[Outcome | None] = [None] * len(cases)
    starts = [0.0] * len(cases)
    lowered: dict[str, list] = {}          # arch -> [(index, Lowered)]
    for i, case in enumerate(cases):
        starts[i] = time.perf_counter()
        try:
            low = lower_case(case)
        except Exception as exc:  # noqa: BLE001  (classified as run_case does)
            outs[i] = compile_failure(exc, starts[i])
            continue
        starts[i] = time.perf_counter() - starts[i]      # its compile time, for Outcome.seconds
        lowered.setdefault(low.cfg.arch, []).append((i, low))
    for arch, group in lowered.items():
        t0 = time.perf_counter()
        try:
            from ..toolchain import find_toolchain
            tc = toolchain or find_toolchain()
            text, names = emit_kernels([(low.items, low.res) for _, low in group])
            for _, low in group:
                # the batch's kernels keep their .s, code object and contract, not the passes'
                # stream: 16 cases' streams alive at once made every collection of the cyclic
                # garbage collector rescan them (the lone rerun of a failure keeps its own)
                low.items = low.compiled = None
            hsaco = tc.assemble(text, arch)
        except Exception:  # noqa: BLE001  (each case alone attributes the error to its kernel)
            for i, _ in group:
                outs[i] = run_case(cases[i])
            continue
        share = (time.perf_counter() - t0) / len(group)
        for (i, low), name in zip(group, names):
            kern = finish(low, hsaco, tc.version, name=name, asm=text)
            kern.timings["assemble"] = share
            t1 = time.perf_counter() - starts[i] - share
            out = check_case(cases[i], kern, t1)
            if out.kind != PASS:
                out = _alone(cases[i], out)
            outs[i] = out
    return outs


def _alone(case: FuzzCase, batched: Outcome) -> Outcome:
    """A case that did not pass in a batch, run by itself: the single-kernel outcome and kernel
    (what a reproducer is written from), or the batch's failure when the lone run disagrees."""
    alone = run_case(case)
    if alone.kind == batched.kind:
        return alone
    return Outcome(batched.kind, f"{batched.message} (run alone, not in a batch of kernels: "
                   f"{alone.kind}: {alone.message[:300]})", alone.kernel or batched.kernel,
                   batched.seconds + alone.seconds)
