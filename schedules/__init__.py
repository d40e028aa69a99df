"""Named schedule recipes: small functions of their parameters, selected by name.

``get_recipe(name, **params)`` returns a recipe object for ``asmgen.sched.list_sched`` (through
``asmgen.passes.manager``): it has ``for_block(role, tags)`` giving, per block ("prologue" |
"loop" | "epilogue"; ``tags`` the block's tag counts, so groups matching no node are left out),
an object with ``groups`` (SchedGroups), ``repeat``, ``seed`` and ``priority(node)``, plus
``name``, ``params``, and the config values it is designed for (``defaults``) or requires
(``requires``): recipes only order, the pipeline shape is the kind's config. Unknown names
raise ``UnknownRecipe`` listing the valid ones.

The registry itself is ``asmgen.recipes`` (asmgen never imports this package; it imports it by
name as a recipe provider): importing ``schedules`` registers every recipe of its modules there.
"""
from __future__ import annotations

from asmgen.recipes import UnknownRecipe, get, names, register


def _load_builtin() -> None:
    """Import every module of this package once: each registers its recipes on import."""
    import importlib
    import pkgutil
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_") and info.name != "common":
            importlib.import_module(f"{__name__}.{info.name}")


def recipe_names() -> list[str]:
    return names()


def get_recipe(name: str, **params):
    """The recipe ``name`` built with ``params`` (each factory checks its own parameters)."""
    return get(name, **params)


_load_builtin()

__all__ = ["UnknownRecipe", "get_recipe", "recipe_names", "register"]
