"""CLI subcommands of the runtime: ``devices`` (list ROCm GPUs and their gcnArchName, or say why
there is none) and ``cache ls|clear`` (the on-disk kernel cache of ``asmgen.cache``).

Exit codes: ``devices`` 0 when at least one GPU is listed, 1 when none is usable (the reason goes
to stderr); ``cache`` 0.
"""
from __future__ import annotations

import argparse
import sys
import time

EXIT_OK, EXIT_NONE = 0, 1


HELP = {"devices": "list ROCm GPUs (index, name, gcnArchName, CUs, memory)",
        "cache": "inspect or empty the on-disk kernel cache"}


def register(sub, wanted: str | None = None) -> None:
    """Add ``devices`` and ``cache`` (the one not ``wanted`` as name and help only)."""
    d = sub.add_parser("devices", help=HELP["devices"])
    d.set_defaults(func=cmd_devices)
    if wanted not in (None, "cache"):
        sub.add_parser("cache", help=HELP["cache"])
        return
    c = sub.add_parser("cache", help=HELP["cache"])
    csub = c.add_subparsers(dest="cache_command", required=True)
    ls = csub.add_parser("ls", help="list cache entries (key, kind, size, files, validity)")
    ls.set_defaults(func=cmd_cache_ls)
    clear = csub.add_parser("clear", help="delete every cache entry")
    clear.set_defaults(func=cmd_cache_clear)


def cmd_devices(args: argparse.Namespace) -> int:
    from ..runtime.devices import probe_devices
    devs, why = probe_devices()
    if not devs:
        print(f"no ROCm GPU found: {why}", file=sys.stderr)
        return EXIT_NONE
    for dev in devs:
        print(dev.describe())
    return EXIT_OK


def cmd_cache_ls(args: argparse.Namespace) -> int:
    from ..cache import cache_dir, cache_ls
    entries = cache_ls()
    print(f"# {cache_dir()}: {len(entries)} entries, {sum(e.size for e in entries)} bytes")
    for e in entries:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(e.mtime))
        state = ", ".join(e.files) if e.valid else f"CORRUPT ({e.problem})"
        print(f"{e.key[:16]}  {e.kind or '?':9s} {e.size:9d}  {when}  {state}")
    return EXIT_OK


def cmd_cache_clear(args: argparse.Namespace) -> int:
    from ..cache import cache_clear, cache_dir
    n = cache_clear()
    print(f"removed {n} files from {cache_dir()}")
    return EXIT_OK
