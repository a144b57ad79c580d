"""Money as integer minor units (pennies): client amounts parsed exactly, and formatted for messages.

Every amount inside the core is an ``int`` of minor units (1.00 = 100).  The
edges convert: :func:`to_minor` parses what clients send (strings, ints,
``Decimal``, and floats through their shortest ``repr``), and
:func:`format_minor` writes an amount into a message; the Betfair formats
(:mod:`exchange.betfair`) turn minor units into the wire's numbers themselves.
Nothing here or in the core does float arithmetic.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from numbers import Integral, Rational, Real

MINOR_PER_MAJOR = 100
#: A client's number this close to an exact one (a whole penny, a ladder price) is that one with a binary float's
#: rounding error: ``0.1 + 2.2`` is ``2.3000000000000003`` (doubles carry about 16 digits).
FLOAT_NOISE = Decimal("1e-9")


def to_minor(value: str | int | float | Decimal) -> int:
    """Parse an amount in major units (e.g. ``"2.50"``) into minor units.

    Raises ``ValueError`` if the value is not a finite number with at most two
    decimals.  Floats go through ``repr`` so that ``2.3`` means ``2.30``.

    >>> to_minor("2.50"), to_minor(2), to_minor(2.3), to_minor(Decimal("1000.00"))
    (250, 200, 230, 100000)
    >>> to_minor("2.505")
    Traceback (most recent call last):
    ...
    ValueError: amount 2.505 has more than two decimals
    >>> to_minor(0.1 + 2.2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: amount 2.3000000000000003 has more than two decimals: it is 2.30 with a floating-point error, ...
    """
    amount = to_exact_decimal(value, "amount")
    minor = amount * MINOR_PER_MAJOR
    if minor != minor.to_integral_value():
        pennies = minor.to_integral_value()
        if abs(minor - pennies) <= FLOAT_NOISE * MINOR_PER_MAJOR:  # a float sum's residue: 0.1 + 2.2
            raise ValueError(f"amount {value} has more than two decimals: it is {format_minor(int(pennies))} with a "
                             f"floating-point error, send {format_minor(int(pennies))} (round computed amounts to "
                             "the penny)")
        raise ValueError(f"amount {value} has more than two decimals")
    return int(minor)


def format_minor(minor: int) -> str:
    """Minor units as a string with two decimals: ``format_minor(250) == '2.50'``.

    >>> format_minor(250), format_minor(-1), format_minor(100000), format_minor(0)
    ('2.50', '-0.01', '1000.00', '0.00')
    """
    whole, cents = divmod(abs(minor), MINOR_PER_MAJOR)
    return f"{'-' if minor < 0 else ''}{whole}.{cents:02d}"


def as_printed(value: object) -> Decimal | None:
    """A number as it prints, exactly, or ``None`` for anything that is no number of these kinds (a ``bool``, text,
    a fraction): a ``Decimal``; a whole number of any integer type (numpy's ``int64`` from a frame); a float by its
    shortest ``repr``, numpy's ``float64`` included; another binary float (numpy's ``float32``) as it prints.

    >>> import numpy as np
    >>> as_printed(2.3), as_printed(np.float64(2.5)), as_printed(np.float32(2.1)), as_printed(np.int64(3))
    (Decimal('2.3'), Decimal('2.5'), Decimal('2.1'), Decimal('3'))
    >>> as_printed(True), as_printed("2.5"), as_printed(np.timedelta64(3))
    (None, None, None)
    """
    if type(value) is float:  # JSON's numbers first: the placements' path
        return Decimal(repr(value))
    if type(value) is int or isinstance(value, Decimal):
        return Decimal(value)
    if isinstance(value, bool) or numpy_kind(value) not in "iuf":  # numpy registers its timedelta64 as Integral
        return None
    if isinstance(value, Integral):
        return Decimal(int(value))
    if isinstance(value, float):
        return Decimal(float.__repr__(value))  # the float's own shortest repr: a subclass's may name its type
    if isinstance(value, Real) and not isinstance(value, Rational):
        try:
            return Decimal(str(value))
        except InvalidOperation:
            return None
    return None


def numpy_kind(value: object) -> str:
    """A numpy scalar's kind (``i``, ``u``: integers; ``f``: floats; ``m``: a timedelta; ``b``: a bool), ``i`` for
    anything else (a Python number has no dtype)."""
    kind = getattr(getattr(value, "dtype", None), "kind", "i")
    return kind if isinstance(kind, str) and kind else "i"


def to_exact_decimal(value: object, what: str) -> Decimal:
    """Convert a client value to a finite ``Decimal`` without float arithmetic (text, or a number :func:`as_printed`
    reads)."""
    if isinstance(value, str):
        try:
            result = Decimal(value.strip())
        except InvalidOperation:
            raise ValueError(f"{what} {value!r} is not a number") from None
    else:
        printed = as_printed(value)
        if printed is None:
            raise ValueError(f"{what} {value!r} is not a number")
        result = printed
    if not result.is_finite():
        shown = repr(value) if isinstance(value, str) else str(value)
        raise ValueError(f"{what} {shown} is not a finite number")
    return result

