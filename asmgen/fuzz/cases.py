"""Run one fuzz case (compile with the ``fuzz`` recipe, check on the emulator), classify the outcome,
shrink a failing config, and write/read reproducer files. Every kernel kind shares every path;
the per-kind parts (the ``fuzz`` recipe's parameters, the checker, the shrink moves) are hooks
of the case's ``KernelKind`` (``asmgen.kinds.registry``).

Outcome kinds: ``pass``; ``rejected`` (the config or recipe raised a plain ``ConfigError`` at compile
time: filtered, not a failure); ``refused:<Error>`` (the compiler declined *this schedule* with a
typed resource error, e.g. ``RegisterBudgetError`` when a random order keeps more SGPRs live than
exist - there is no spilling; correct behaviour, counted apart, not a failure); a failure kind = the exception's class name (``VerifyError``,
``RegisterBudgetError``, ``PendingReadError``, ``LdsRaceError``, ... for emulator errors) or
``Mismatch`` (the emulator ran but the result differs from the NumPy reference).
"""
from __future__ import annotations

import gc
import json
import shlex
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError, ResourceError
from ..kinds import registry
from .strategies import FuzzCase, config_from_dict

PASS, REJECTED, MISMATCH = "pass", "rejected", "Mismatch"
REFUSED = "refused:"


@dataclass
class Outcome:
    kind: str                 # PASS | REJECTED | failure kind
    message: str = ""
    kernel: object = None     # asmgen.api.Kernel when compilation succeeded
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return self.kind not in (PASS, REJECTED) and not self.kind.startswith(REFUSED)


def recipe_for(case: FuzzCase):
    """The ``fuzz`` recipe of a case (registered by the recipe providers, ``asmgen.recipes``)."""
    from .. import recipes
    return recipes.get("fuzz", **schedule_params(case))


def schedule_params(case: FuzzCase) -> dict:
    """The ``fuzz`` recipe's parameters: the kind's (``KernelKind.fuzz_schedule_params``)."""
    return registry.of_config(case.config).fuzz_schedule_params(case.config, case.sched_seed)


def case_config(case: FuzzCase):
    """The config a case compiles (``KernelKind.fuzz_case_config``: a GEMM's with the loop
    arrangement its schedule seed picks, an attention config as drawn)."""
    return registry.of_config(case.config).fuzz_case_config(case.config, case.sched_seed)


def compile_case(case: FuzzCase):
    from ..driver import compile
    return compile(registry.of_config(case.config), case_config(case), recipe_for(case))


def lower_case(case: FuzzCase):
    """``compile_case`` up to the emitter's input (``asmgen.driver.lower``, no ``.s`` text of its
    own): for a batch that emits and assembles several cases' kernels at once
    (``asmgen.fuzz.batch``)."""
    from ..driver import lower
    return lower(registry.of_config(case.config), case_config(case), recipe_for(case), emit=False)


def run_case(case: FuzzCase) -> Outcome:
    """Compile and check one case; never raises for a kernel problem (it is the outcome)."""
    t0 = time.perf_counter()
    try:
        kern = compile_case(case)
    except Exception as exc:  # noqa: BLE001  (classified: compile_failure)
        return compile_failure(exc, t0)
    return check_case(case, kern, t0)


def compile_failure(exc: Exception, t0: float) -> Outcome:
    """The outcome of a case whose compilation raised ``exc`` (started at ``t0``)."""
    if isinstance(exc, ResourceError):
        return Outcome(REFUSED + type(exc).__name__, str(exc), None, time.perf_counter() - t0)
    if isinstance(exc, ConfigError):
        if type(exc).__name__ in ("ConfigError", "UnknownRecipe"):
            return Outcome(REJECTED, str(exc), None, time.perf_counter() - t0)
        return Outcome(type(exc).__name__, str(exc), None, time.perf_counter() - t0)
    # a compiler crash is a finding, not a fuzzer crash
    return Outcome(type(exc).__name__, _short(exc), None, time.perf_counter() - t0)


def check_case(case: FuzzCase, kern, t0: float) -> Outcome:
    """Run the compiled ``kern`` of ``case`` on the emulator with every check and compare it with
    the kind's NumPy reference (``KernelKind.check``); ``t0``: when the case started."""
    from isa.emu.errors import EmulatorError

    from ..runtime.emu import EmuRunner
    check = registry.of_config(case.config).check
    try:
        ok, msg = check(kern.meta, EmuRunner(kern.meta, kern.hsaco, seed=case.emu_seed),
                        case.emu_seed)
    except EmulatorError as exc:
        return Outcome(type(exc).__name__, str(exc), kern, time.perf_counter() - t0)
    except Exception as exc:  # noqa: BLE001  (an emulator or runner crash is a finding too)
        return Outcome(type(exc).__name__, _short(exc), kern, time.perf_counter() - t0)
    return Outcome(PASS if ok else MISMATCH, msg, kern, time.perf_counter() - t0)


_GC_SETTLED = False


def settle_gc() -> None:
    """Once per fuzzing process, after its first case: freeze what exists (imports, spec tables,
    the decode and binding caches: long-lived) out of the collector's reach and collect the young
    generation less often. A case allocates ~10^5 short-lived objects, and every generation-2
    pass rescanned the caches' few 10^5: about a fifth of a case's CPU time
    (benchmarks/fuzz_rate.py). Speed only; for the campaign loop and the benchmark, never a
    library default."""
    global _GC_SETTLED
    if not _GC_SETTLED:
        _GC_SETTLED = True
        gc.freeze()
        gc.set_threshold(50_000, 20, 100)


def _short(exc: BaseException) -> str:
    tb = traceback.extract_tb(exc.__traceback__)
    where = f" [{tb[-1].filename}:{tb[-1].lineno}]" if tb else ""
    return f"{exc}{where}"


# ------------------------------------------------------------------------------------------
# shrinking
def shrink(case: FuzzCase, kind: str, *, max_attempts: int = 60, max_seconds: float = 180.0,
           log=None) -> tuple[FuzzCase, Outcome | None]:
    """Greedily replace the config by a smaller one while the failure (same kind) persists,
    keeping the schedule and emulator seeds. Returns the smallest failing case and its outcome."""
    best, best_out = case, None
    to_raw, build, candidates = registry.of_config(case.config).shrink_moves()
    raw = to_raw(case.config)
    attempts, t0 = 0, time.monotonic()
    progress = True
    while progress and attempts < max_attempts and time.monotonic() - t0 < max_seconds:
        progress = False
        for cand in candidates(raw):
            if attempts >= max_attempts or time.monotonic() - t0 >= max_seconds:
                break
            try:
                cfg = build(cand)
            except ConfigError:
                continue
            if cfg == best.config:       # a candidate that only re-spells the current config
                continue
            attempts += 1
            trial = FuzzCase(cfg, case.sched_seed, case.emu_seed)
            out = run_case(trial)
            if out.kind == kind:
                if log:
                    log(f"shrink: still {kind} with {trial.describe()}")
                best, best_out, raw, progress = trial, out, to_raw(cfg), True
                break
    return best, best_out


# ------------------------------------------------------------------------------------------
# reproducers
def save_reproducer(directory: Path, index: int, case: FuzzCase, out: Outcome,
                    original: FuzzCase | None = None) -> Path:
    """``DIR/failure_<index>_<kind>/`` with the kernel (when it compiled) and ``repro.json``:
    config, schedule recipe and seed, emulator seed, error, and the exact commands."""
    d = Path(directory) / f"failure_{index:04d}_{out.kind}"
    d.mkdir(parents=True, exist_ok=True)
    check_cmd = None
    if out.kernel is not None:
        path = out.kernel.save(d)
        check_cmd = f"asmgen check {shlex.quote(str(path))} --seed {case.emu_seed}"
    repro = {
        "kind": case.kind, "error_kind": out.kind, "message": out.message[:4000],
        "config": case.config.to_dict() | {"kind": case.kind},
        "schedule": "fuzz", "schedule_params": schedule_params(case),
        "sched_seed": case.sched_seed, "emu_seed": case.emu_seed,
        "check_command": check_cmd,
        "replay_command": f"asmgen fuzz {case.kind} --replay {shlex.quote(str(d / 'repro.json'))}",
        "original_config": original.config.to_dict() if original is not None else None,
    }
    (d / "repro.json").write_text(json.dumps(repro, indent=1) + "\n")
    return d / "repro.json"


def load_reproducer(path: str | Path) -> FuzzCase:
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"reproducer {str(path)!r} is not readable JSON: {exc}") from None
    for key in ("config", "sched_seed", "emu_seed"):
        if key not in data:
            raise ConfigError(f"reproducer {path} lacks the key {key!r}")
    kind = data.get("kind") or data["config"].get("kind")
    return FuzzCase(config_from_dict(data["config"], kind), int(data["sched_seed"]),
                    int(data["emu_seed"]))
