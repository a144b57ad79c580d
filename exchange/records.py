"""JSON projection of the core's frozen records (events, commands, views).

:class:`Record` gives a frozen dataclass ``to_dict()`` (enums as their value,
``Decimal`` and ``Fraction`` as exact strings, tuples as lists, nested records
as dicts) and ``from_dict()`` (the inverse, driven by the type hints), so the
journal can store events or commands as JSON and replay them.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from decimal import Decimal
from enum import Enum
from fractions import Fraction
from typing import Any, ClassVar, Self, TypeVar

_HINTS: dict[type, dict[str, Any]] = {}
_T = TypeVar("_T", bound=type)


class Record:
    """Mixin for frozen dataclasses: JSON-ready ``to_dict`` and its inverse ``from_dict``."""

    __slots__ = ()
    #: The name under which ``to_dict`` tags the record (``{"type": ...}``); set by subclasses that want it.
    TYPE_TAG: ClassVar[str | None] = None

    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON types; a tagged record carries ``"type"`` first."""
        out: dict[str, Any] = {}
        if self.TYPE_TAG is not None:
            out["type"] = self.TYPE_TAG
        for field in dataclasses.fields(self):  # type: ignore[arg-type]
            out[field.name] = _to_json(getattr(self, field.name))
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Rebuild a record from :meth:`to_dict` output (extra ``"type"`` key ignored)."""
        hints = _hints(cls)
        kwargs = {name: _from_json(hints[name], value) for name, value in data.items() if name != "type"}
        return cls(**kwargs)


def fast_init(cls: _T) -> _T:
    """Give a frozen dataclass (without slots) a faster ``__init__`` that fills ``__dict__`` directly.

    A frozen dataclass's generated ``__init__`` sets each field through
    ``object.__setattr__``, which costs about 100 ns a field; events are made
    on the exchange's hot path (one per order and per fill), so this writes
    the instance dictionary instead.  Instances stay frozen (assignment still
    raises ``FrozenInstanceError``), compare and hash as before.  Defaults are
    kept; ``default_factory`` and ``__post_init__`` are not supported.

    >>> @fast_init
    ... @dataclasses.dataclass(frozen=True)
    ... class P:
    ...     x: int
    ...     y: int = 0
    >>> P(1), P(1, y=2) == P(1, 2)
    (P(x=1, y=0), True)
    """
    assert dataclasses.is_dataclass(cls), cls
    assert not hasattr(cls, "__post_init__"), cls
    slots = "__slots__" in cls.__dict__
    params: list[str] = []
    namespace: dict[str, Any] = {}
    lines: list[str] = []
    for field in dataclasses.fields(cls):
        name = field.name
        assert field.default_factory is dataclasses.MISSING, (cls, name)
        if field.default is dataclasses.MISSING:
            params.append(name)
        else:
            namespace[f"_default_{name}"] = field.default
            params.append(f"{name}=_default_{name}")
        if slots:
            namespace[f"_set_{name}"] = cls.__dict__[name].__set__
            lines.append(f"    _set_{name}(self, {name})")
        else:
            lines.append(f"    d[{name!r}] = {name}")
    head = "" if slots else "    d = self.__dict__\n"
    source = f"def __init__(self, {', '.join(params)}):\n{head}" + "\n".join(lines) + "\n"
    exec(source, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls


def _hints(cls: type) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = typing.get_type_hints(cls)
    return hints


def _to_json(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Record):
        return value.to_dict()
    if isinstance(value, tuple | list):
        return [_to_json(v) for v in value]
    if isinstance(value, Decimal | Fraction):
        return str(value)
    return value


def _from_json(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(hint)
    if origin is types.UnionType or origin is typing.Union:
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        return _from_json(options[0], value) if len(options) == 1 else value
    if origin is tuple:
        args = typing.get_args(hint)
        item = args[0]
        return tuple(_from_json(item, v) for v in value)
    if isinstance(hint, type):
        if issubclass(hint, Enum):
            return hint(value)
        if issubclass(hint, Record):
            return hint.from_dict(value)
        if hint is Decimal:
            return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
        if hint is Fraction:
            return Fraction(value)
    return value
