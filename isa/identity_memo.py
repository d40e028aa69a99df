"""A memo keyed by an object's identity (hashing an ``Instr`` is slow) and a tag the entry must
also match (an arch name, a spec). Each entry holds its object, so an id is not reused while the
entry lives; past ``limit`` entries the memo is cleared whole. Used by ``isa.access``,
``asmgen.passes.effects`` and ``asmgen.passes.hazards`` (one mechanism, three memos)."""
from __future__ import annotations

MISS = object()


class IdentityMemo:
    __slots__ = ("_d", "_limit")

    def __init__(self, limit: int) -> None:
        self._d: dict[int, tuple] = {}
        self._limit = limit

    def get(self, obj, tag):
        """The value stored for ``obj`` under ``tag``, or ``MISS``."""
        m = self._d.get(id(obj))
        if m is not None and m[0] is obj and (m[1] is tag or m[1] == tag):
            return m[2]
        return MISS

    def put(self, obj, tag, value):
        if len(self._d) > self._limit:
            self._d.clear()
        self._d[id(obj)] = (obj, tag, value)
        return value
