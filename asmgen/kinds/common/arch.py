"""``ArchTyped``: the two properties every attention-family config derives from its ``arch`` and
``dtype`` fields, the hardware (``asmgen.target``) and the element type (``asmgen.dtypes``); a
mixin of frozen slotted dataclasses (prefill, decode, extend, the decode combine)."""
from __future__ import annotations

from ...dtypes import DType, dtype_of
from ...target import Target, target_of


class ArchTyped:
    """``target`` and ``in_type`` of a config with ``arch`` and ``dtype`` fields."""

    __slots__ = ()

    @property
    def target(self) -> Target:
        """The hardware of ``arch`` (``asmgen.target``)."""
        return target_of(self.arch)

    @property
    def in_type(self) -> DType:
        """The element type of ``dtype`` (Q, and K/V unless a kind says otherwise)."""
        return dtype_of(self.dtype)
