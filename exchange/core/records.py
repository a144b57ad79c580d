"""JSON projection of the core's frozen records (events, commands, views).

:class:`Record` gives a frozen dataclass ``to_dict()`` (enums as their value,
``Decimal`` and ``Fraction`` as exact strings, tuples as lists, nested records
as dicts) and ``from_dict()`` (the inverse, driven by the type hints), so the
journal can store events or commands as JSON and replay them.
"""

from __future__ import annotations

import dataclasses
import operator
import types
import typing
from collections.abc import Callable
from decimal import Decimal
from enum import Enum
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, Self, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

_HINTS: dict[type, dict[str, Any]] = {}
_D = TypeVar("_D", bound="DataclassInstance")


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
        for name in field_names(type(self)):
            out[name] = _to_json(getattr(self, name))
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Rebuild a record from :meth:`to_dict` output (extra ``"type"`` key ignored)."""
        decoders = _decoders(cls)
        kwargs = {}
        for name, value in data.items():
            if name != "type":
                decode = decoders[name]
                kwargs[name] = value if value is None or decode is None else decode(value)
        return cls(**kwargs)

    def __reduce__(self) -> tuple[Callable[..., object], tuple[type, tuple[Any, ...]]]:
        """Pickle a record as its class and its field values, rebuilt by :func:`_unpickle`.

        A frozen, slotted dataclass otherwise unpickles through the ``__setstate__``
        that ``dataclasses`` gives it, which looks up the fields and sets each one
        through ``object.__setattr__``: two thirds of the time a restart spends
        loading a snapshot of 90,000 cleared orders.
        """
        cls = type(self)
        values = _FIELD_VALUES.get(cls) or _field_values(cls)
        return _unpickle, (cls, values(self))


class NoFastConstructor(TypeError):
    """The class is not one :func:`fast_constructor` can build (a default factory, a ``__post_init__``, slots that
    are not its fields): the class itself must build it."""


def fast_constructor(cls: type[_D]) -> Callable[..., _D]:
    """A function that builds instances of a frozen, slotted dataclass about three times faster.

    A frozen dataclass's ``__init__`` must set each field through
    ``object.__setattr__`` (its own ``__setattr__`` refuses), about 70 ns a
    field.  Events are made on the exchange's hot path (one per order, one per
    fill), so this returns a function, taking the same arguments as the class,
    that fills an unfrozen twin class with the same slots (plain attribute
    stores) and then switches the instance's class to the frozen one, which
    Python allows between classes of identical layout.  The result is an
    ordinary instance of ``cls``: frozen, compared, hashed, printed and
    pickled as usual.  ``default_factory`` and ``__post_init__`` are not
    supported.

    >>> @dataclasses.dataclass(frozen=True, slots=True)
    ... class P(Record):
    ...     x: int
    ...     y: int = 0
    >>> new_p = fast_constructor(P)
    >>> new_p(1), new_p(1, y=2) == P(1, 2), type(new_p(1)) is P
    (P(x=1, y=0), True, True)
    >>> new_p(1).x = 2
    Traceback (most recent call last):
    ...
    dataclasses.FrozenInstanceError: cannot assign to field 'x'
    """
    fields = dataclasses.fields(cls)
    names = tuple(field.name for field in fields)
    builder = mutable_twin(cls)
    namespace: dict[str, Any] = {"_Builder": builder, "_cls": cls}
    params: list[str] = []
    for field in fields:
        if field.default_factory is not dataclasses.MISSING:
            raise NoFastConstructor(f"{cls.__name__}.{field.name}: a fast constructor cannot run a default factory")
        if field.default is dataclasses.MISSING:
            params.append(field.name)
        else:
            namespace[f"_default_{field.name}"] = field.default
            params.append(f"{field.name}=_default_{field.name}")
    source = (
        f"def new_{cls.__name__}({', '.join(params)}):\n"
        "    o = _Builder()\n"
        + "".join(f"    o.{name} = {name}\n" for name in names)
        + "    o.__class__ = _cls\n"
        "    return o\n"
    )
    exec(source, namespace)
    function: Callable[..., _D] = namespace[f"new_{cls.__name__}"]
    function.__doc__ = f"Build a :class:`{cls.__name__}` (fast path; same arguments as the class)."
    return function


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
_FIELD_VALUES: dict[type, Callable[[Any], tuple[Any, ...]]] = {}


def _field_values(cls: type) -> Callable[[Any], tuple[Any, ...]]:
    """A function giving a record's field values as a tuple, in field order (``operator.attrgetter``: C speed,
    a snapshot pickles every cleared order through it)."""
    names = field_names(cls)
    get = operator.attrgetter(*names)
    values = _FIELD_VALUES[cls] = get if len(names) > 1 else (lambda record: (get(record),))
    return values
_UNPICKLERS: dict[type, Callable[..., Any]] = {}


def field_names(cls: type) -> tuple[str, ...]:
    """A record class's field names, in order."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(field.name for field in dataclasses.fields(cls))
    return names


def _unpickle(cls: type[_D], values: tuple[Any, ...]) -> _D:
    """A record from its pickled field values (:meth:`Record.__reduce__`): built by the class's
    :func:`fast_constructor` where it has one, else by the class itself.

    >>> import pickle
    >>> from exchange.core.accounts import AccountFunds
    >>> funds = AccountFunds("alice", 1000, 250, 750)
    >>> pickle.loads(pickle.dumps(funds)) == funds, _unpickle(AccountFunds, ("bob", 5, 0, 5))
    (True, AccountFunds(account_id='bob', balance=5, exposure=0, available=5))
    >>> @dataclasses.dataclass(frozen=True, slots=True)
    ... class P(Record):
    ...     x: int
    >>> @dataclasses.dataclass(frozen=True, slots=True)
    ... class Q(P):  # its own slots are y alone: no fast constructor
    ...     y: int = 0
    >>> _unpickle(Q, (1, 2))
    Q(x=1, y=2)
    """
    build = _UNPICKLERS.get(cls)
    if build is None:
        try:
            build = fast_constructor(cls)
        except NoFastConstructor:  # (a subclass of another slotted dataclass, say): the class builds it
            build = cls
        _UNPICKLERS[cls] = build
    return build(*values)


_TWINS: dict[type, type] = {}


def mutable_twin(cls: type) -> type:
    """An unfrozen builder for a frozen, slotted dataclass (one per class).

    :func:`fast_constructor` fills an instance of it and switches its class
    (``ev = twin(); ev.x = ...; ...; ev.__class__ = cls``, every field set);
    it is the only user.  The twin is a subclass of ``cls`` that adds
    no slots and puts back ``object``'s ``__init__`` (so ``twin()`` makes a
    blank instance, about twice as fast as ``object.__new__(twin)``),
    ``__setattr__`` and ``__delattr__`` (so stores are plain slot stores).
    Being a layout-identical subclass also makes the class switch cheap:
    Python need not compare the two classes' slot lists.

    >>> @dataclasses.dataclass(frozen=True, slots=True)
    ... class P(Record):
    ...     x: int
    >>> p = mutable_twin(P)(); p.x = 1; p.__class__ = P
    >>> p == P(1), mutable_twin(P) is mutable_twin(P)
    (True, True)
    """
    twin = _TWINS.get(cls)
    if twin is None:
        if not (dataclasses.is_dataclass(cls) and "__slots__" in cls.__dict__) or hasattr(cls, "__post_init__"):
            raise NoFastConstructor(f"{cls.__name__}: a twin needs a slotted dataclass with no __post_init__ to skip")
        names = tuple(field.name for field in dataclasses.fields(cls))
        if tuple(cls.__dict__["__slots__"]) != names:
            raise NoFastConstructor(f"{cls.__name__}: its slots {cls.__dict__['__slots__']} are not its fields "
                                    f"{names}")
        twin = _TWINS[cls] = type(
            f"_{cls.__name__}Builder",
            (cls,),
            {
                "__slots__": (),
                "__init__": object.__init__,
                "__setattr__": object.__setattr__,
                "__delattr__": object.__delattr__,
            },
        )
    return twin


def layout(*roots: type) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The field names of the dataclasses ``roots`` and of every dataclass their fields hold (in tuples, unions,
    mappings), by qualified name, sorted: what a pickle of them depends on, as records pickle their field values
    by position (:meth:`Record.__reduce__`). A pickle that stores it can refuse to load under a code whose
    layout differs, where the values would otherwise land in the wrong fields without an error.

    >>> from exchange.core.accounts import AccountFunds
    >>> layout(AccountFunds)
    (('exchange.core.accounts.AccountFunds', ('account_id', 'balance', 'exposure', 'available')),)
    """
    found: dict[type, tuple[str, ...]] = {}
    todo = list(roots)
    while todo:
        cls = todo.pop()
        if cls in found or not dataclasses.is_dataclass(cls):
            continue
        found[cls] = field_names(cls)
        for hint in _hints(cls).values():
            todo.extend(_classes_in(hint))
    return tuple(sorted((f"{cls.__module__}.{cls.__qualname__}", names) for cls, names in found.items()))


def _classes_in(hint: Any) -> list[type]:
    """The classes a type hint names: itself, or those of its arguments (``tuple[X, ...]``, ``X | None``)."""
    args = typing.get_args(hint)
    if args:
        return [cls for arg in args for cls in _classes_in(arg)]
    return [hint] if isinstance(hint, type) else []


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


_DECODERS: dict[type, dict[str, Callable[[Any], Any] | None]] = {}


def _decoders(cls: type) -> dict[str, Callable[[Any], Any] | None]:
    """Each field's :func:`_decoder`, worked out from the class's type hints once (a journal replay reads
    millions of records: inspecting the hints per value was most of the time it took to decode one)."""
    decoders = _DECODERS.get(cls)
    if decoders is None:
        decoders = _DECODERS[cls] = {name: _decoder(hint) for name, hint in _hints(cls).items()}
    return decoders


def _decoder(hint: Any) -> Callable[[Any], Any] | None:
    """The function that turns a (non-null) JSON value into the type ``hint`` names; ``None`` where the JSON
    value already is one (ints, strings, booleans).

    >>> _decoder(int) is None, _decoder(tuple[int, ...])([1, 2]), _decoder(Decimal | None)(2.5)
    (True, (1, 2), Decimal('2.5'))
    >>> _decoder(tuple[tuple[int, int], ...])([[1, 2]]), _decoder(tuple[Decimal | None, ...])(["1.5", None])
    (((1, 2),), (Decimal('1.5'), None))
    """
    origin = typing.get_origin(hint)
    if origin is types.UnionType or origin is typing.Union:
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        return _decoder(options[0]) if len(options) == 1 else None
    if origin is tuple:
        item_hint = typing.get_args(hint)[0]
        item = _decoder(item_hint)
        if item is None:
            return tuple
        if type(None) in typing.get_args(item_hint):  # items that may be null
            return lambda values: tuple(v if v is None else item(v) for v in values)
        return lambda values: tuple(map(item, values))
    if isinstance(hint, type):
        if issubclass(hint, Enum):
            return _member_by_value(hint)
        if issubclass(hint, Record):
            return hint.from_dict
        if hint is Decimal:
            return _decimal
        if hint is Fraction:
            return Fraction
    return None


def _member_by_value(enum: type[Enum]) -> Callable[[Any], Enum]:
    """``enum(value)`` by a dict lookup: calling an enum class runs Python code in ``EnumType.__call__`` (about
    a microsecond), and a restart decodes two for each event of the journal's tail. A value that is no member's
    is passed to the class, which raises its ``ValueError``.

    >>> from exchange.core.side import Side
    >>> _member_by_value(Side)("BACK") is Side.BACK
    True
    >>> _member_by_value(Side)("X")
    Traceback (most recent call last):
    ...
    ValueError: 'X' is not a valid Side
    """
    members = {member.value: member for member in enum}

    def member(value: Any) -> Enum:
        try:
            return members[value]
        except (KeyError, TypeError):  # (TypeError: an unhashable value, a list say)
            return enum(value)

    return member


def _decimal(value: Any) -> Decimal:
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
