"""CLI subcommands that generate kernels, one per registered kernel kind (``asmgen gemm``,
``asmgen attention``, ...; design.md "Command line"): the kind adds its arguments
(``KernelKind.add_arguments``) and turns them into ``asmgen.api.generate`` keywords
(``cli_kwargs``); this module adds ``-o`` and writes ``<kernel>.s/.hsaco/.json`` there.
"""
from __future__ import annotations

import argparse

EXIT_OK = 0


def register(sub, wanted: str | None = None) -> None:
    """One subcommand per kind; a kind other than ``wanted`` (None: every kind) is only its name
    and help (``registry.listing``: its modules are not imported)."""
    from ..kinds import registry
    for name, help_ in registry.listing():
        if wanted is not None and name != wanted:
            sub.add_parser(name, help=help_)
            continue
        kind = registry.get(name)
        p = sub.add_parser(kind.name, help=kind.help)
        kind.add_arguments(p)
        p.add_argument("-o", "--output", required=True, help="output folder")
        p.add_argument("--no-cache", action="store_true",
                       help="generate even if the kernel cache holds it (also ASMGEN_NO_CACHE=1)")
        p.set_defaults(func=cmd_generate, kind=kind)


def cmd_generate(args: argparse.Namespace) -> int:
    from ..api import generate
    from ..outputs import prepare_dir
    prepare_dir(args.output)                   # a bad -o fails before any work
    if args.no_cache:
        import functools
        generate = functools.partial(generate, cache=False)
    kern = args.kind.cli_generate(args, generate)
    path = kern.save(args.output)
    r = kern.resources
    hit = "  (cache hit)" if getattr(kern, "cache_hit", False) else ""
    print(f"{path}  vgpr={r['vgpr']} agpr={r['agpr']} sgpr={r['sgpr']} lds={r['lds']} "
          f"waves/simd={r['waves_per_simd']}{hit}")
    return EXIT_OK
