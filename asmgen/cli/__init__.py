"""Command line entry point (``asmgen ...`` / ``python -m asmgen ...``): argparse subcommands.

Each subcommand lives in its own module exposing ``register(subparsers)``, which adds a parser
whose ``func(args) -> int`` is the exit code; this file only collects them (``COMMAND_MODULES``).
The generator subcommands (``asmgen gemm``, ``asmgen attention``, ...) are made by ``generate``,
one per kind of ``asmgen.kinds.registry``; ``check``, ``profile`` and ``fuzz`` dispatch on the
registry too.
Errors: a user mistake (an ``AsmgenError``, a bad path, a code object the loader rejects) is one
line on stderr, exit 2; exit 1 belongs to a kernel that ran and mismatched; any other exception is
a bug, one line and exit 3; Ctrl-C exits 130 quietly; ``--debug`` adds the traceback.
``sys.exit`` is called only here.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from isa.spec import ARCHES  # asmgen.target.ARCHES is this tuple; target costs ~10 ms to import

from ..errors import AsmgenError

# modules that add subcommands (``generate``: one per registered kernel kind)
COMMAND_MODULES = ("asmgen.cli.generate", "asmgen.cli.check", "asmgen.cli.runtime",
                   "asmgen.cli.profile", "asmgen.cli.fuzz")


EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED = 2, 3, 130


def build_parser(wanted: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``wanted`` (the subcommand on the command line, "" for none) only that
    subcommand gets its arguments, the others are a name and a help line (so ``asmgen --help``
    and a cache hit import no kind they do not use); None builds every subcommand in full."""
    parser = argparse.ArgumentParser(
        prog="asmgen", description=f"AMDGPU ({'/'.join(ARCHES)}) kernel generator",
        epilog="exit codes: 0 success; 1 a kernel ran and mismatched (check) or failed (fuzz); "
               "2 bad input (one line naming the value and the rule); 3 an internal error; "
               "130 interrupted")
    parser.add_argument("--debug", action="store_true",
                        help="print the traceback of an error (default: one line)")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub, wanted)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; returns the exit code (module doc and ``--help``'s epilog)."""
    from .generate import route_mode
    try:
        argv = route_mode(list(sys.argv[1:] if argv is None else argv))
    except AsmgenError as exc:
        print(f"asmgen: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    wanted = next((a for a in argv if not a.startswith("-")), "")
    parser = build_parser(wanted)
    args = parser.parse_args(argv)
    debug = bool(getattr(args, "debug", False))
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED                 # quietly: the user asked for it
    except BrokenPipeError:                     # `asmgen cache ls | head`: the reader is gone
        import os
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 0
    except AsmgenError as exc:
        return _report(args, debug, str(exc), EXIT_BAD_INPUT)
    except OSError as exc:                      # a path the user gave (folder, permission, ...)
        where = f" {exc.filename!r}" if exc.filename else ""
        return _report(args, debug, f"{exc.strerror or exc}{where}", EXIT_BAD_INPUT)
    except Exception as exc:  # noqa: BLE001 - a bug: one line unless --debug
        from isa.errors import IsaError
        if isinstance(exc, IsaError):           # a code object the decoder or loader rejects
            return _report(args, debug, f"the code object is invalid: {exc}", EXIT_BAD_INPUT)
        return _report(args, debug, f"internal error: {type(exc).__name__}: {exc} (rerun with "
                       "--debug for the traceback)", EXIT_INTERNAL)


def _report(args, debug: bool, message: str, code: int) -> int:
    if debug:
        import traceback
        traceback.print_exc()
    first = message.strip().splitlines()[0] if message.strip() else message
    rest = message.strip().splitlines()[1:]
    print(f"asmgen {args.command}: error: {first}", file=sys.stderr)
    if rest and debug:
        print("\n".join(rest), file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
