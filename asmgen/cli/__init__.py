"""Command line entry point (``asmgen ...`` / ``python -m asmgen ...``): argparse subcommands.

Each subcommand lives in its own module exposing ``register(subparsers)``, which adds a parser
whose ``func(args) -> int`` is the exit code; this file only collects them (``COMMAND_MODULES``).
The generator subcommands (``asmgen gemm``, ``asmgen attention``, ...) are made by ``generate``,
one per kind of ``asmgen.kinds.registry``; ``check``, ``profile`` and ``fuzz`` dispatch on the
registry too.
Errors of asmgen are printed as one line on stderr with exit code 2 (bad input), never a
traceback; ``sys.exit`` is called only here.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from ..errors import AsmgenError

# modules that add subcommands (``generate``: one per registered kernel kind)
COMMAND_MODULES = ("asmgen.cli.generate", "asmgen.cli.check", "asmgen.cli.runtime",
                   "asmgen.cli.profile", "asmgen.cli.fuzz")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="asmgen", description="AMDGPU (gfx942/gfx950) kernel generator")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except AsmgenError as exc:
        print(f"asmgen {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
