"""Run one fuzz case (compile with the ``fuzz`` recipe, check on the emulator), classify the outcome,
shrink a failing config, and write/read reproducer files. GEMM and attention cases share every
path; the per-kind parts (compiler, checker, shrink moves) are the tables at the kind's name.

Outcome kinds: ``pass``; ``rejected`` (the config or recipe raised a plain ``ConfigError`` at compile
time: filtered, not a failure); ``refused:<Error>`` (the compiler declined *this schedule* with a
typed resource error, e.g. ``RegisterBudgetError`` when a random order keeps more SGPRs live than
exist - there is no spilling; correct behaviour, counted apart, not a failure); a failure kind = the exception's class name (``VerifyError``,
``RegisterBudgetError``, ``PendingReadError``, ``LdsRaceError``, ... for emulator errors) or
``Mismatch`` (the emulator ran but the result differs from the NumPy reference).
"""
from __future__ import annotations

import json
import shlex
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError, ResourceError
from ..kinds.attention.config import MFMA_K, AttentionConfig
from ..kinds.gemm.config import GemmConfig
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
    import schedules.fuzz  # noqa: F401  (registers "fuzz"; see the FUZZ report)
    from schedules import get_recipe
    return get_recipe("fuzz", **schedule_params(case))


def schedule_params(case: FuzzCase) -> dict:
    """The ``fuzz`` recipe's parameters (it only orders: the pipeline shape is the config's)."""
    return {"seed": case.sched_seed}


def case_config(case: FuzzCase):
    """The config a case compiles: a GEMM's with the loop arrangement its schedule seed picks
    (``fuzz_arrangement``), an attention config as drawn."""
    if case.kind == "attention":
        return case.config
    import dataclasses
    return dataclasses.replace(case.config, arrangement=fuzz_arrangement(case.config,
                                                                         case.sched_seed))


def fuzz_arrangement(cfg, sched_seed: int) -> str:
    """The GEMM loop arrangement a case's schedule seed picks among those its config allows (the
    split loops need prefetch 1 and staging 1; pingpong 8 waves): a function of the case alone,
    so reproducers replay it."""
    if cfg.prefetch != 1 or cfg.staging != 1:
        return "default"
    options = ["default", "interleave"]
    if cfg.waves[0] * cfg.waves[1] == 8:
        options.append("pingpong")
    return options[(sched_seed >> 3) % len(options)]


def compile_case(case: FuzzCase):
    if case.kind == "attention":
        from ..kinds.attention.api import compile_attention
        return compile_attention(case.config, recipe_for(case))
    from ..api import compile_config
    return compile_config(case_config(case), recipe_for(case))


def _checker(kind: str):
    if kind == "attention":
        from ..kinds.attention.cli import check_attention
        return check_attention
    from ..kinds.gemm.cli import check_gemm
    return check_gemm


def run_case(case: FuzzCase) -> Outcome:
    """Compile and check one case; never raises for a kernel problem (it is the outcome)."""
    from isa.emu.errors import EmulatorError

    from ..api import EmuRunner
    check = _checker(case.kind)
    t0 = time.perf_counter()
    try:
        kern = compile_case(case)
    except ResourceError as exc:
        return Outcome(REFUSED + type(exc).__name__, str(exc), None, time.perf_counter() - t0)
    except ConfigError as exc:
        if type(exc).__name__ in ("ConfigError", "UnknownRecipe"):
            return Outcome(REJECTED, str(exc), None, time.perf_counter() - t0)
        return Outcome(type(exc).__name__, str(exc), None, time.perf_counter() - t0)
    except Exception as exc:  # noqa: BLE001  (a compiler crash is a finding, not a fuzzer crash)
        return Outcome(type(exc).__name__, _short(exc), None, time.perf_counter() - t0)
    try:
        ok, msg = check(kern.meta, EmuRunner(kern.meta, kern.hsaco, seed=case.emu_seed),
                        case.emu_seed)
    except EmulatorError as exc:
        return Outcome(type(exc).__name__, str(exc), kern, time.perf_counter() - t0)
    except Exception as exc:  # noqa: BLE001  (an emulator or runner crash is a finding too)
        return Outcome(type(exc).__name__, _short(exc), kern, time.perf_counter() - t0)
    return Outcome(PASS if ok else MISMATCH, msg, kern, time.perf_counter() - t0)


def _short(exc: BaseException) -> str:
    tb = traceback.extract_tb(exc.__traceback__)
    where = f" [{tb[-1].filename}:{tb[-1].lineno}]" if tb else ""
    return f"{exc}{where}"


# ------------------------------------------------------------------------------------------
# shrinking
def _raw(cfg: GemmConfig) -> dict:
    """The config as drawn: derived fields (vectors, packed leading dims) back to None, the
    leading-dimension padding kept as an offset so shrinking M/N/K keeps it meaningful."""
    d = cfg.to_dict()
    ta, tb = cfg.layout[0] == "T", cfg.layout[1] == "T"
    rows = {"lda": cfg.m if ta else cfg.k, "ldb": cfg.k if tb else cfg.n, "ldc": cfg.n}
    for key, row in rows.items():
        d[key + "_pad"] = d.pop(key) - row
    for key in ("vec_a", "vec_b", "lds_pad"):
        d[key] = None
    return d


def _build(raw: dict) -> GemmConfig:
    d = dict(raw)
    pads = {k: d.pop(k + "_pad") for k in ("lda", "ldb", "ldc")}
    ta, tb = d["layout"][0] == "T", d["layout"][1] == "T"
    rows = {"lda": d["m"] if ta else d["k"], "ldb": d["k"] if tb else d["n"], "ldc": d["n"]}
    for key, pad in pads.items():
        d[key] = rows[key] + pad if pad else None
    return config_from_dict(d)


def _candidates(raw: dict):
    """Smaller variants of a raw config, most aggressive first."""
    tile, waves = list(raw["tile"]), list(raw["waves"])
    for key, t in (("m", tile[0]), ("n", tile[1]), ("k", tile[2])):
        for val in sorted({1, t, raw[key] // 2, raw[key] - t, raw[key] - 1}):
            if 1 <= val < raw[key]:
                yield {**raw, key: val}
    for i in range(2):
        if waves[i] > 1:
            w = list(waves)
            w[i] //= 2
            t = list(tile)
            t[i] //= 2
            yield {**raw, "waves": w, "tile": t}
            yield {**raw, "waves": w}
    for i in range(3):
        t = list(tile)
        t[i] //= 2
        yield {**raw, "tile": t}
    if raw["prefetch"] > 1:
        yield {**raw, "prefetch": raw["prefetch"] - 1}
    simpler = (("activation", "none"), ("bias", False), ("direct_to_lds", False),
               ("lda_pad", 0), ("ldb_pad", 0), ("ldc_pad", 0), ("out_dtype", None),
               ("layout", "NN"), ("dtype", "f16"), ("arch", "gfx942"), ("mfma", None))
    for key, val in simpler:
        if raw.get(key) != val:
            yield {**raw, key: val}


def _raw_attention(cfg: AttentionConfig) -> dict:
    """The attention config as drawn: the default scale (1/sqrt(D)) and the arch's native
    ``mfma_k`` back to None so they follow a shrunk head_dim / arch; explicit values are kept."""
    d = cfg.to_dict()
    if d["scale"] == 1.0 / cfg.head_dim ** 0.5:
        d["scale"] = None
    if d["mfma_k"] == MFMA_K[cfg.arch][0]:
        d["mfma_k"] = None
    return d


def _candidates_attention(raw: dict):
    """Smaller attention variants, most aggressive first: shorter sequences (one block, one
    row, one block off), fewer heads (keeping kv_heads | heads), batch 1, D 64, then simpler
    features (no causal mask, MHA, f16, gfx942 with its native MFMA, the default prefetch)."""
    for key in ("seqlen_q", "seqlen_k"):
        val0 = raw[key]
        for val in sorted({1, 32, 33, val0 // 2, val0 - 32, val0 - 1}):
            if 1 <= val < val0:
                yield {**raw, key: val}
    if raw["heads"] > 1:
        yield {**raw, "heads": 1, "kv_heads": 1}
        if raw["kv_heads"] < raw["heads"]:
            yield {**raw, "heads": raw["kv_heads"]}                 # MHA with the kv head count
            yield {**raw, "heads": raw["heads"] // raw["kv_heads"], "kv_heads": 1}   # MQA
    if raw["batch"] > 1:
        yield {**raw, "batch": 1}
    if raw["head_dim"] != 64:
        yield {**raw, "head_dim": 64}
    simpler = (("causal", False), ("kv_heads", raw["heads"]), ("dtype", "f16"),
               ("mfma_k", None), ("prefetch", 1), ("scale", None))
    for key, val in simpler:
        if raw.get(key) != val:
            yield {**raw, key: val}
    if raw["arch"] != "gfx942":
        yield {**raw, "arch": "gfx942", "mfma_k": None}


# per kind: config -> raw dict, raw dict -> config (ConfigError = skip), smaller raw dicts
SHRINKERS = {
    "gemm": (_raw, _build, _candidates),
    "attention": (_raw_attention, lambda raw: config_from_dict(raw, "attention"),
                  _candidates_attention),
}


def shrink(case: FuzzCase, kind: str, *, max_attempts: int = 60, max_seconds: float = 180.0,
           log=None) -> tuple[FuzzCase, Outcome | None]:
    """Greedily replace the config by a smaller one while the failure (same kind) persists,
    keeping the schedule and emulator seeds. Returns the smallest failing case and its outcome."""
    best, best_out = case, None
    to_raw, build, candidates = SHRINKERS[case.kind]
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
    kind = data.get("kind") or data["config"].get("kind") or "gemm"
    return FuzzCase(config_from_dict(data["config"], kind), int(data["sched_seed"]),
                    int(data["emu_seed"]))
