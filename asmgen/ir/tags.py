"""Node tags are declared: each kernel kind has a ``TagVocabulary`` and ``Block.add`` refuses a tag
outside it (``UnknownTag``, naming the tag and the kind).

A vocabulary is the kind's name plus the ``TagEnum`` classes and ``TagFamily`` objects it
declares. ``CoreTag`` (this module) holds the tags the IR and the passes attach themselves
(``wait``, ``nop``, ``branch``, ``cond``, ``loop_ctrl``, ``end``, ``addr``, ``barrier``,
``cond_barrier``); every vocabulary includes it. A kind declares the rest in its own folder
(``asmgen/kinds/<kind>/tags.py``, imported by its template and by its recipes)::

    class ScaleTag(TagEnum):
        LOAD = "load"
        STORE = "store"

    SCALE_TAGS = TagVocabulary("scale", ScaleTag)            # + CoreTag

A parameterised tag (a per-stage or per-buffer index) is a declared ``TagFamily``: ``STAGE =
TagFamily("stage", 4)`` makes ``STAGE[0] .. STAGE[3]`` (tags ``stage0`` .. ``stage3``); an index
outside the family's range is an ``UnknownTag`` too, so the check is never dropped.

Tags are ``str`` subclasses (``enum.StrEnum`` members, ``FamilyTag``), so a node's ``tags`` set,
a listing and a SchedGroup mask compare them as the strings they spell. ``Block.add`` also takes
a declared tag spelled as its string (``"addr"``) and stores the member; an undeclared string is
refused. Recipes must name the members themselves (``SchedGroup`` and the recipes' rank tables
refuse a plain string, ``is_declared``), and a recipe naming a tag the kernel's kind does not
declare is a ``SchedError`` at its first use on that kernel (``asmgen.passes.manager``).
"""
from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from .regs import IRError


class UnknownTag(IRError):
    """A tag that the kernel's kind does not declare (the message names the tag and the kind)."""


class TagEnum(StrEnum):
    """Base of every declared tag enum (members are the strings they spell)."""

    def __repr__(self) -> str:
        return repr(self.value)


class FamilyTag(str):
    """One member of a ``TagFamily``: the string ``f"{family.name}{index}"``."""

    def __new__(cls, family: TagFamily, index: int) -> FamilyTag:  # noqa: PYI034
        obj = super().__new__(cls, f"{family.name}{index}")
        obj.family = family
        obj.index = index
        return obj

    def __repr__(self) -> str:
        return repr(str(self))


class TagFamily:
    """A declared parameterised tag: ``family[i]`` for ``0 <= i < size`` (``UnknownTag`` else)."""

    def __init__(self, name: str, size: int) -> None:
        if not name or not isinstance(size, int) or size < 1:
            raise IRError(f"tag family {name!r}: needs a name and a size >= 1, got {size!r}")
        self.name = name
        self.size = size
        self.members = tuple(FamilyTag(self, i) for i in range(size))

    def __getitem__(self, index: int) -> FamilyTag:
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < self.size:
            raise UnknownTag(f"tag family {self.name!r} has indices 0..{self.size - 1}, not "
                             f"{index!r}")
        return self.members[index]

    def __iter__(self):
        return iter(self.members)

    def __repr__(self) -> str:
        return f"TagFamily({self.name!r}, {self.size})"


def is_declared(tag) -> bool:
    """Whether ``tag`` is a declared tag object (an enum member or a family member), not a bare
    string (recipes must name tags by their declarations)."""
    return isinstance(tag, (TagEnum, FamilyTag))


class CoreTag(TagEnum):
    """Tags the IR and the passes attach: every vocabulary has them."""

    WAIT = "wait"                 # s_waitcnt inserted by the waitcnt pass
    NOP = "nop"                   # s_nop inserted by the hazard pass
    END = "end"                   # the s_endpgm the pass manager appends
    BRANCH = "branch"             # a block terminator's branch (KernelIR.branch / jump)
    COND = "cond"                 # the compare before a conditional branch
    LOOP_CTRL = "loop_ctrl"       # a loop's back-edge control (Loop.control_instrs)
    ADDR = "addr"                 # address / SALU / VALU bookkeeping (the compare above too)
    BARRIER = "barrier"           # s_barrier
    COND_BARRIER = "cond_barrier"  # the s_barrier of KernelIR.add_conditional_barrier


class TagVocabulary:
    """The tags one kernel kind declares: ``CoreTag`` plus its ``enums`` and ``families``."""

    def __init__(self, kind: str, *enums: type[TagEnum], families: Iterable[TagFamily] = ()) -> None:
        self.kind = kind
        self.enums = (CoreTag,) + tuple(e for e in enums if e is not CoreTag)
        self.families = tuple(families)
        self._by_value: dict[str, TagEnum | FamilyTag] = {}
        for e in self.enums:
            if not (isinstance(e, type) and issubclass(e, TagEnum)):
                raise IRError(f"tag vocabulary of {kind}: {e!r} is not a TagEnum")
            for m in e:
                self._add(m, f"{e.__name__}.{m.name}")
        for fam in self.families:
            for m in fam:
                self._add(m, f"family {fam.name!r}")

    def _add(self, member, where: str) -> None:
        old = self._by_value.get(str(member))
        if old is not None:
            raise IRError(f"tag vocabulary of {self.kind}: {str(member)!r} is declared twice "
                          f"({where} and {old!r} of {type(old).__name__})")
        self._by_value[str(member)] = member

    def __contains__(self, tag) -> bool:
        m = self._by_value.get(tag) if isinstance(tag, str) else None
        return m is not None and (m is tag or not is_declared(tag))

    def member(self, tag, where: str = "") -> TagEnum | FamilyTag:
        """The declared member ``tag`` names (a member or its string), or ``UnknownTag``."""
        m = self._by_value.get(tag) if isinstance(tag, str) else None
        # a member of another kind's enum with the same spelling is still foreign
        if m is None or (is_declared(tag) and m is not tag):
            raise UnknownTag(f"tag {tag!r}{' of ' + where if where else ''} is not declared by "
                             f"kind {self.kind} (its tags: {', '.join(self.names())})")
        return m

    def members(self, tags: Iterable, where: str = "") -> frozenset:
        """``frozenset`` of the declared members of ``tags`` (``UnknownTag`` on any other)."""
        if isinstance(tags, str):
            tags = (tags,)
        return frozenset(self.member(t, where) for t in tags)

    def names(self) -> list[str]:
        """Every declared tag's string (families shortened to ``name0..nameN``)."""
        fam = {m for f in self.families for m in f}
        out = sorted(v for v, m in self._by_value.items() if m not in fam)
        return out + [f"{f.name}0..{f.name}{f.size - 1}" for f in self.families]

    def __iter__(self):
        return iter(self._by_value.values())

    def __repr__(self) -> str:
        return f"TagVocabulary({self.kind!r}, {len(self._by_value)} tags)"


__all__ = ["CoreTag", "FamilyTag", "TagEnum", "TagFamily", "TagVocabulary", "UnknownTag",
           "is_declared"]
