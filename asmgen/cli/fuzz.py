"""CLI subcommand ``fuzz``: ``asmgen fuzz KIND [--budget S] [--seed N] [-o DIR]
[--examples N] [--mutate] [--replay repro.json]`` (design.md "Command line", issue #5).

``--mutate`` runs the mutation proof (``asmgen.fuzz.mutate_campaign``) over the kind's proof
kernels (``--kernels N``: the first N), ``--examples`` sites per class and kernel, until
``--budget`` seconds; it prints killed/total per mutation class and every survivor.

Exit codes: 0 no failure (or every mutation of a correctness class killed with the predicted
error and every neutral one survived), 1 failures (or surviving / mispredicted mutations, or a
proof kernel that fails unmutated), 2 bad input (printed by ``asmgen.cli``).
"""
from __future__ import annotations

import argparse
import sys


HELP = "random configs x random legal schedules on the emulator"


def register(sub, wanted: str | None = None) -> None:
    """Add ``fuzz``; only its name and help unless ``wanted`` is None or "fuzz"."""
    if wanted not in (None, "fuzz"):
        sub.add_parser("fuzz", help=HELP)
        return
    from ..kinds import registry
    f = sub.add_parser("fuzz", help=HELP)
    f.add_argument("kind", choices=[name for name, _ in registry.listing()])
    f.add_argument("--budget", type=float, default=None, help="seconds (default 60 unless --examples)")
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--examples", type=int, default=None,
                   help="stop after this many cases (with --mutate: sites per class and kernel, "
                        "default 4)")
    f.add_argument("--large", action="store_true", help="draw larger tiles/sizes (slower cases)")
    f.add_argument("--no-shrink", action="store_true", help="save failures without shrinking")
    f.add_argument("--mutate", action="store_true",
                   help="mutation proof: break correct kernels one mutation at a time")
    f.add_argument("--kernels", type=int, default=None,
                   help="with --mutate: use only the first N proof kernels of the kind")
    f.add_argument("--replay", default=None, help="re-run a reproducer's repro.json")
    f.add_argument("-o", "--output", default="fuzz_out", help="folder for reproducers")
    f.set_defaults(func=cmd_fuzz)


def cmd_fuzz(args: argparse.Namespace) -> int:
    from ..errors import ConfigError
    import math
    if args.budget is not None and not (math.isfinite(args.budget) and args.budget > 0):
        raise ConfigError(f"--budget {args.budget} must be more than 0 seconds (finite)")
    if args.examples is not None and args.examples < 1:
        raise ConfigError(f"--examples {args.examples} must be at least 1")
    if args.replay:
        from ..fuzz.runner import replay
        out = replay(args.replay)
        print(f"{out.kind}: {out.message}")
        return 1 if out.failed else 0
    if args.kernels is not None and not args.mutate:
        from ..errors import ConfigError
        raise ConfigError(f"--kernels {args.kernels} only applies with --mutate")
    if args.mutate:
        from ..fuzz.mutate import BaselineError
        from ..fuzz.mutate_campaign import mutation_campaign
        try:
            report = mutation_campaign(kind=args.kind, seed=args.seed, budget=args.budget,
                                       per_class=args.examples or 4, kernels=args.kernels,
                                       outdir=args.output, log=_log)
        except BaselineError as exc:
            print(f"mutation proof not run: {exc}")
            return 1
        print(report.text())
        return 0 if report.ok() else 1
    from ..fuzz.runner import campaign
    budget = args.budget if args.budget is not None or args.examples is not None else 60.0
    s = campaign(args.kind, budget=budget, seed=args.seed, outdir=args.output,
                 examples=args.examples, small=not args.large,
                 shrink_failures=not args.no_shrink, log=_log)
    print(s.text())
    return 1 if s.failed else 0


def _log(msg: str) -> None:
    print("\n" + msg, file=sys.stderr, flush=True)
