"""CLI subcommands that generate kernels, one per registered kernel kind (``asmgen gemm``,
``asmgen attention``, ...; design.md "Command line"): the kind adds its arguments
(``KernelKind.add_arguments``) and turns them into ``asmgen.api.generate`` keywords
(``cli_kwargs``); this module adds ``-o`` and writes ``<kernel>.s/.hsaco/.json`` there.
``asmgen FAMILY --mode MODE ...`` is the command of the kind whose ``mode_of`` is (FAMILY, MODE)
(``route_mode``, before parsing: ``asmgen attention --mode decode`` = ``asmgen decode``).
"""
from __future__ import annotations

import argparse

EXIT_OK = 0


def route_mode(argv: list[str]) -> list[str]:
    """``[.., FAMILY, .., --mode MODE, ..]`` -> ``[.., KIND, ..]`` (``--mode`` dropped) for the kind
    registered with ``mode_of`` = (FAMILY, MODE); a mode no kind has is a ConfigError naming the
    family's modes. Other command lines are returned unchanged."""
    from ..errors import ConfigError
    from ..kinds import registry
    argv = list(argv)
    cmd = next((i for i, a in enumerate(argv) if not a.startswith("-")), None)
    if cmd is None:
        return argv
    modes = registry.modes(argv[cmd])
    if not modes:
        return argv
    for i in range(cmd + 1, len(argv)):
        a = argv[i]
        if a == "--mode" or a.startswith("--mode="):
            if a == "--mode":
                if i + 1 >= len(argv):
                    raise ConfigError("--mode needs a value (modes: " + ", ".join(sorted(modes)) + ")")
                mode, rest = argv[i + 1], argv[i + 2:]
            else:
                mode, rest = a.split("=", 1)[1], argv[i + 1:]
            if mode not in modes:
                raise ConfigError(f"--mode {mode!r}: {argv[cmd]} has no such mode (modes: "
                                  f"{', '.join(sorted(modes))})")
            return argv[:cmd] + [modes[mode]] + argv[cmd + 1:i] + rest
    return argv


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
        modes = registry.modes(kind.name)
        if modes:       # shown in --help; route_mode consumes it before parsing
            p.add_argument("--mode", choices=sorted(modes), default=kind.mode_of[1]
                           if kind.mode_of else None,
                           help="; ".join(f"{m}: asmgen {k}" for m, k in sorted(modes.items())))
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
