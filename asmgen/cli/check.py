"""CLI subcommand ``check``: run a kernel contract on seeded random inputs against the NumPy
reference of its kind (``config.kind``, looked up in ``asmgen.kinds.registry``; the kind's
``check`` hook draws the inputs and compares): exit 0 match, 1 mismatch, 2 bad input (design.md
"Command line")."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import AsmgenError

EXIT_OK, EXIT_MISMATCH, EXIT_BAD_INPUT = 0, 1, 2


HELP = "run a kernel contract on random inputs vs the NumPy reference"


def register(sub, wanted: str | None = None) -> None:
    """Add ``check``; only its name and help unless ``wanted`` is None or "check" (asmgen.cli)."""
    if wanted not in (None, "check"):
        sub.add_parser("check", help=HELP)
        return
    c = sub.add_parser(
        "check", help=HELP,
        description="Run DIR/<kernel>.json on seeded random inputs on the emulator (or a GPU) and "
                    "compare with its kind's NumPy reference.",
        epilog="exit 0: the kernel matched the reference; 1: it ran and mismatched (or the "
               "emulator caught it misbehaving: race, hazard, unwaited load); 2: bad input (a "
               "missing, damaged or inconsistent contract or code object, a bad option).")
    c.add_argument("contract", help="DIR/<kernel>.json")
    c.add_argument("--backend", default="emu", choices=("emu", "hip", "auto"))
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--allow-hazard", action="append", default=[], metavar="RULE",
                   help="let violations of hazard rule RULE (isa.hazards / docs/hazard-audit.md) run "
                        "on in the emulator; each is counted and reported; repeatable")
    c.add_argument("--size", action="append", default=[], metavar="NAME=VALUE",
                   help="run at this runtime size instead of the contract's (a scalar argument: "
                        "M, N, K, batch, heads, seqlen_q, ...); repeatable. Big kernels emulate "
                        "slowly: check them at a smaller size the contract allows")
    for alias, name in (("--m", "M"), ("--n", "N"), ("--k", "K"), ("--batch", "batch"),
                        ("--heads", "heads"), ("--seqlen-q", "seqlen_q"),
                        ("--seqlen-k", "seqlen_k")):
        c.add_argument(alias, type=int, dest=f"size_{name}", default=None,
                       help=f"shorthand for --size {name}=VALUE")
    c.add_argument("--full", action="store_true",
                   help="check at the contract's own sizes however long the emulation takes "
                        "(default: only when the estimate fits --budget, else at smaller sizes "
                        "the contract allows, named in the output)")
    c.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                   help="emulation time the contract's sizes may take before check picks "
                        "smaller ones (default 30; the estimate is explained in "
                        "asmgen.runtime.check_size)")
    c.add_argument("--processes", type=int, default=None, metavar="N",
                   help="worker processes the emulator runs a big launch's shards on (default: "
                        "the usable CPUs; isa.emu.shards: the result does not depend on it)")
    c.add_argument("--shards", type=int, default=None, metavar="N",
                   help="split the launch's workgroups into N shards run side by side and merged "
                        "exactly (default: 2 for a launch of at least 4 pools of workgroups, "
                        "else 1; the seed and N fix the run)")
    bar = c.add_mutually_exclusive_group()
    bar.add_argument("--progress", action="store_true", default=None,
                     help="draw the progress bar on stderr even when it is not a terminal")
    bar.add_argument("--no-progress", dest="progress", action="store_false",
                     help="never draw the progress bar (default: on a terminal, for runs over "
                          "a few seconds)")
    c.add_argument("--no-reference", action="store_true",
                   help="run and report, no comparison (the only mode for a launch contract of a "
                        "foreign code object)")
    c.set_defaults(func=cmd_check)


def cmd_check(args: argparse.Namespace) -> int:
    from ..api import load
    from ..kinds.consistency import read_checked
    from ..runtime.contract import read_json
    path = Path(args.contract)
    meta = read_json(path)              # missing, a folder, not JSON: ContractError (exit 2)
    from ..profiling.launch import is_launch_contract
    if is_launch_contract(meta):
        return _check_launch(path, args)
    from ..kinds import registry
    from ..runtime.contract import check_meta
    if not isinstance(meta, dict):
        check_meta(meta, str(path))     # null, a list, ...: "not a JSON object"
    try:
        kind = registry.of_contract(meta)
    except registry.UnknownKind:
        name = (meta.get("config") or {}).get("kind") if isinstance(meta, dict) else None
        print(f"asmgen check: error: {path}: kernel kind {name!r} has no checker "
              f"(known: {registry.names()})", file=sys.stderr)
        return EXIT_BAD_INPUT
    meta, hsaco = read_checked(path)    # every self-consistency check before anything runs
    from isa.emu.errors import EmulatorError
    from isa.errors import IsaError
    from isa.hazards import RULES
    known_rules = {r.name for r in RULES}
    bad = [r for r in args.allow_hazard if r not in known_rules]
    if bad:
        print(f"asmgen check: error: --allow-hazard {bad[0]!r} is not a hazard rule; the rules are "
              f"{', '.join(sorted(known_rules))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    sizes = _sizes(args)
    if sizes:
        print(f"checking at runtime sizes {', '.join(f'{k}={v}' for k, v in sizes.items())} "
              f"(the contract's other sizes unchanged)", flush=True)
    if args.budget is not None and not args.budget > 0:
        print(f"asmgen check: error: --budget {args.budget} must be a positive number of seconds",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    for opt in ("processes", "shards"):
        v = getattr(args, opt)
        if v is not None and v < 1:
            print(f"asmgen check: error: --{opt} {v} must be at least 1", file=sys.stderr)
            return EXIT_BAD_INPUT
    bar = None
    try:
        run = load(path, backend=args.backend, seed=args.seed, allow_hazards=args.allow_hazard)
        if getattr(run, "backend", "emu") == "emu":
            run.shards, run.processes = args.shards, args.processes
            sizes, bar = _plan_emulation(kind, meta, hsaco, sizes, args)
            run.progress = bar
        try:
            ok, msg = (kind.check(meta, run, args.seed, sizes) if sizes
                       else kind.check(meta, run, args.seed))
        finally:
            if bar is not None:
                bar.finish()
    except AsmgenError as exc:
        print(f"asmgen check: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except IsaError as exc:        # a code object the decoder rejects: bad input, not a mismatch
        if isinstance(exc, EmulatorError):
            print(f"FAILED {meta.get('kernel')} seed={args.seed}: emulator: {exc}")
            return EXIT_MISMATCH
        print(f"asmgen check: error: the code object is invalid: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except EmulatorError as exc:   # the kernel misbehaved (race, unwaited load, hazard, ...)
        print(f"FAILED {meta.get('kernel')} seed={args.seed}: emulator: {exc}")
        return EXIT_MISMATCH
    _report_shards(getattr(run, "last_emulator", None))
    for (rule, how), n in sorted(getattr(run, "allowed_hazards", {}).items()):
        print(f"allowed hazard {rule} ({how}): {n} violation(s) let through by --allow-hazard")
    if args.no_reference:      # an asmgen contract always has its kind's NumPy reference
        msg += " (--no-reference ignored: asmgen contracts are compared with their reference)"
    print(f"{'OK' if ok else 'MISMATCH'} {meta.get('kernel')} seed={args.seed}: {msg}")
    return EXIT_OK if ok else EXIT_MISMATCH


def _report_shards(emu) -> None:
    """Say how the emulator split the launch (isa.emu.shards), when it did."""
    if emu is None:
        return
    n, procs = getattr(emu, "last_split", (1, 1))
    if getattr(emu, "sharded_launches", 0):
        print(f"emulated as {n} shards of workgroups on {procs} process(es), merged exactly "
              f"(isa.emu.shards)")
    elif getattr(emu, "shard_fallbacks", 0):
        print(f"emulated as one pool: the {n} shards interacted ({emu.shard_fallback_reason})")


def _plan_emulation(kind, meta: dict, hsaco: bytes, sizes: dict, args):
    """The sizes to emulate at and the progress bar. Without ``--size``/``--m``...: the
    contract's sizes when their estimated emulation fits ``--budget`` (or ``--full``), else the
    smaller sizes ``asmgen.runtime.check_size.choose_sizes`` picks, printed with the reason."""
    from ..runtime import check_size as cs
    from ..runtime.progress import Progress
    cfg = kind.config_from_dict(meta["config"])
    shape = kind.check_shape(cfg)
    counts = cs.static_counts(hsaco, meta["kernel"], meta["arch"])
    budget = cs.DEFAULT_BUDGET_S if args.budget is None else args.budget
    if sizes:
        est = cs.estimate(meta, counts, shape or cs.CheckShape(lambda s: 1), sizes)
    else:
        choice = cs.choose_sizes(meta, counts, shape, budget, full=args.full)
        est = choice.estimate
        if choice.reduced:
            sizes = choice.sizes
            contract = cs.resolve_scalars(tuple(cs.as_args(meta["args"])), {})
            given = ", ".join(f"{k}={v}" for k, v in sizes.items())
            was = ", ".join(f"{k}={contract[k]}" for k in sizes)
            kept = "".join(f"; {k} stays: {why}" for k, why in choice.kept.items())
            print(f"checking at runtime sizes {given} instead of the contract's {was}: "
                  f"{choice.reason} (these sizes: {est.describe()}){kept}; --full checks the "
                  f"contract's sizes", flush=True)
        elif choice.full.seconds > budget:
            print(f"checking at the contract's sizes ({choice.reason}): {est.describe()}",
                  flush=True)
    bar = Progress(est.workgroups, estimate_s=est.seconds, enabled=args.progress)
    return sizes, bar


def _check_launch(path: Path, args: argparse.Namespace) -> int:
    """A launch contract (foreign code object): run it, no reference (needs --no-reference)."""
    if not args.no_reference:
        print(f"asmgen check: error: {path} is a launch contract of a foreign code object: it has "
              "no reference to compare with; pass --no-reference to run and report", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.backend != "emu":
        print("asmgen check: error: launch contracts run on the emulator only (--backend emu)",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    from ..profiling.launch_profile import check_launch
    try:
        ok, msg = check_launch(path, seed=args.seed)
    except AsmgenError as exc:
        print(f"asmgen check: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    import json as _json
    kernel = _json.loads(path.read_text()).get("kernel")
    print(f"{'RAN' if ok else 'FAILED'} {kernel} seed={args.seed}: {msg}")
    return EXIT_OK if ok else EXIT_MISMATCH


def _sizes(args: argparse.Namespace) -> dict[str, int]:
    """``--size NAME=VALUE`` and the shorthands, as runtime scalars."""
    from ..errors import ConfigError
    out: dict[str, int] = {}
    for item in args.size:
        name, sep, val = item.partition("=")
        try:
            out[name.strip()] = int(val)
        except ValueError:
            raise ConfigError(f"--size {item!r} is not NAME=INTEGER") from None
        if not sep or not name.strip():
            raise ConfigError(f"--size {item!r} is not NAME=INTEGER")
    for key, val in vars(args).items():
        if key.startswith("size_") and val is not None:
            out[key[5:]] = val
    return out
