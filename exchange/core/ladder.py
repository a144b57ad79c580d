"""The Betfair price ladder: 350 decimal odds from 1.01 to 1000, held as ticks.

A *tick* is an ``int`` from 0 (price 1.01) to 349 (price 1000).  The core
stores and compares ticks only; :data:`PRICE_X100` gives each price in
hundredths (an ``int``, 101 … 100000) for exact money arithmetic, and
:func:`price` gives it as a ``Decimal`` for output.  Client prices are parsed
through ``Decimal`` (floats via their shortest ``repr``), never via float
arithmetic.

>>> TICK_COUNT, price(0), price(MAX_TICK)
(350, Decimal('1.01'), Decimal('1000'))
>>> parse_price("2.02"), parse_price(2.02), parse_price(Decimal("2.020"))
(100, 100, 100)
>>> parse_price("2.03")
Traceback (most recent call last):
...
exchange.core.ladder.InvalidPrice: price 2.03 is not on the ladder; nearest ticks 2.02, 2.04
>>> price(tick_up(parse_price("1.99"), 3))
Decimal('2.04')
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from decimal import Decimal
from fractions import Fraction
from numbers import Integral
from typing import SupportsFloat

from exchange.core.money import FLOAT_NOISE, as_printed, numpy_kind, to_exact_decimal
from exchange.core.side import Side

#: The ladder's bands as ``(from, to, step)`` in hundredths: prices in
#: ``(from, to]`` step by ``step`` (so the ladder starts at 1.01).
BANDS: tuple[tuple[int, int, int], ...] = (
    (100, 200, 1),
    (200, 300, 2),
    (300, 400, 5),
    (400, 600, 10),
    (600, 1000, 20),
    (1000, 2000, 50),
    (2000, 3000, 100),
    (3000, 5000, 200),
    (5000, 10000, 500),
    (10000, 100000, 1000),
)


def _build() -> tuple[int, ...]:
    prices: list[int] = []
    for low, high, step in BANDS:
        prices.extend(range(low + step, high + 1, step))
    return tuple(prices)


def _decimal_of_x100(x100: int) -> Decimal:
    whole, cents = divmod(x100, 100)
    if cents == 0:
        return Decimal(whole)
    text = f"{whole}.{cents:02d}".rstrip("0")
    return Decimal(text)


#: Each tick's price in hundredths (1.01 -> 101, 1000 -> 100000).
PRICE_X100: tuple[int, ...] = _build()
TICK_COUNT = len(PRICE_X100)
MIN_TICK = 0
MAX_TICK = TICK_COUNT - 1
#: Each tick's price as a ``Decimal`` without trailing zeros (``Decimal('2.5')``).
PRICES: tuple[Decimal, ...] = tuple(_decimal_of_x100(p) for p in PRICE_X100)
_TICK_OF_X100: dict[int, int] = {p: t for t, p in enumerate(PRICE_X100)}
#: ``Decimal`` price -> tick.  ``Decimal`` equality ignores trailing zeros, so
#: ``Decimal("2.50")`` finds the same tick as ``Decimal("2.5")``.
TICK_OF_PRICE: dict[Decimal, int] = {p: t for t, p in enumerate(PRICES)}

if TICK_COUNT != 350:  # Betfair's ladder: every stored tick means its price only on this ladder
    raise ImportError(f"the price ladder has {TICK_COUNT} ticks, not Betfair's 350")


class InvalidPrice(ValueError):
    """A price that is not on the ladder (or not a number); the message names the nearest ticks."""


def price(tick: int) -> Decimal:
    """The decimal price of a tick; ``ValueError`` for a tick off the ladder (``tick_down`` and ``tick_up`` stop
    at its ends), never another end's price as a negative index would give.

    >>> price(99), price(100), price(349)
    (Decimal('2'), Decimal('2.02'), Decimal('1000'))
    >>> price(-1)
    Traceback (most recent call last):
    ...
    ValueError: tick -1 is not on the ladder: a tick is a whole number from 0 (odds 1.01) to 349 (odds 1000)
    """
    if not is_tick(tick):
        raise ValueError(f"tick {tick!r} is not on the ladder: a tick is a whole number from {MIN_TICK} (odds "
                         f"{PRICES[MIN_TICK]}) to {MAX_TICK} (odds {PRICES[MAX_TICK]})")
    return PRICES[tick]


def price_str(tick: int) -> str:
    """The price of a tick as text, as messages and JSON show it (``ValueError`` as :func:`price`).

    >>> price_str(0), price_str(99), price_str(159)
    ('1.01', '2', '3.5')
    """
    return str(price(tick))


def is_tick(tick: object) -> bool:
    """Whether ``tick`` is a valid tick index (a whole number of any integer type, not a ``bool``, in range)."""
    if type(tick) is not int and (isinstance(tick, bool) or not isinstance(tick, Integral)  # ints first: fast
                                  or numpy_kind(tick) not in "iu"):  # (numpy's timedelta64 is registered Integral)
        return False
    return MIN_TICK <= int(tick) <= MAX_TICK


Odds = Decimal | Fraction | int | float | str | SupportsFloat  # (numpy's numbers too)
"""Odds as the ladder's helpers take them: exact (a ``Decimal``, a ``Fraction`` such as a hand's ``fair_odds``, a
whole number), or text, or a float as it prints (``3.05``, numpy's ``float32(2.1)``), as ``place_order`` reads a
price. A float was taken at its binary value, a little off the price it prints: ``tick_of(3.05)`` was None."""


def _odds(value: Odds) -> Decimal | Fraction | int:
    """``value`` exactly (see :data:`Odds`); ``TypeError`` for what is no number, ``ValueError`` for text that is
    not one."""
    if isinstance(value, Decimal | Fraction) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return to_exact_decimal(value, "odds") if isinstance(value, str) else _printed(value)


def _printed(value: object) -> Decimal:
    printed = as_printed(value)
    if printed is None:
        raise TypeError(f"odds {value!r} are not a number: give decimal odds, e.g. Decimal('2.5'), '2.5' or 2.5")
    return printed


def tick_of(value: Odds) -> int | None:
    """The tick of a price given exactly (:data:`Odds`), or ``None`` if it is not on the ladder.

    >>> tick_of(Decimal("1.01")), tick_of(Decimal("1000.0")), tick_of(Decimal("2.03")), tick_of(3.05), tick_of("2")
    (0, 349, None, 150, 99)
    """
    if type(value) is not Decimal:  # (the exchange's own calls give one)
        exact = _odds(value)
        if isinstance(exact, Decimal):
            value = exact
        else:
            above = tick_at_or_above(exact)
            return above if above is not None and PRICES[above] == exact else None
    try:
        return TICK_OF_PRICE.get(value)
    except TypeError:  # signalling NaN is unhashable
        return None


def parse_price(value: object) -> int:
    """Parse a client price into a tick; raise :class:`InvalidPrice` saying what is allowed.

    >>> parse_price("1000"), parse_price(1.01)
    (349, 0)
    >>> parse_price("1.005")
    Traceback (most recent call last):
    ...
    exchange.core.ladder.InvalidPrice: price 1.005 is below the lowest price 1.01
    """
    try:
        exact = to_exact_decimal(value, "price")
    except ValueError as exc:
        raise InvalidPrice(str(exc)) from None
    tick = tick_of(exact)
    if tick is None:
        raise InvalidPrice(invalid_price_message(exact))
    return tick


def invalid_price_message(value: Decimal | Fraction | int) -> str:
    """Explain why an off-ladder price is invalid, naming the nearest valid ticks.

    >>> invalid_price_message(Decimal("2.03"))
    'price 2.03 is not on the ladder; nearest ticks 2.02, 2.04'
    >>> invalid_price_message(Decimal("1001"))
    'price 1001 is above the highest price 1000'
    >>> invalid_price_message(Decimal(repr(3 * 1.1)))  # doctest: +ELLIPSIS
    'price 3.3000000000000003 is not on the ladder: it is 3.3 with a floating-point error, send 3.3 ...'
    >>> invalid_price_message(Decimal("1.0099999999999998"))  # at an end of the ladder too  # doctest: +ELLIPSIS
    'price 1.0099999999999998 is not on the ladder: it is 1.01 with a floating-point error, send 1.01 ...'
    """
    shown = value if not isinstance(value, Fraction) else Decimal(value.numerator) / Decimal(value.denominator)
    below, above = nearest_ticks(value)
    near = next((t for t in (below, above)  # (compared, not subtracted: 1E+9999999 less a price overflows)
                 if t is not None and PRICES[t] - FLOAT_NOISE <= shown <= PRICES[t] + FLOAT_NOISE), None)
    if near is not None:  # what a float sum leaves (3 * 1.1 is 3.3000000000000003): say so, and what to send
        return (f"price {shown} is not on the ladder: it is {price_str(near)} with a floating-point error, "
                f"send {price_str(near)} (round computed prices to the ladder)")
    if below is None:
        return f"price {shown} is below the lowest price {price_str(MIN_TICK)}"
    if above is None:
        return f"price {shown} is above the highest price {price_str(MAX_TICK)}"
    return f"price {shown} is not on the ladder; nearest ticks {price_str(below)}, {price_str(above)}"


def nearest_ticks(value: Decimal | Fraction | int) -> tuple[int | None, int | None]:
    """The ticks strictly below and strictly above ``value`` (``None`` off the ends).

    A value on the ladder returns its neighbours.

    >>> nearest_ticks(Decimal("2.03"))
    (100, 101)
    >>> nearest_ticks(Decimal("1.01")), nearest_ticks(1000)
    ((None, 1), (348, None))

    A value off the ladder's ends is placed by comparison alone: the exact arithmetic below would build an integer
    of about 10**N digits for ``Decimal("1E+N")`` (seconds for N = 10**7, and a trader's strategy may give one).

    >>> nearest_ticks(Decimal("1E+9999999")), nearest_ticks(Decimal("1E-9999999"))
    ((349, None), (None, 0))
    """
    if value > PRICES[MAX_TICK]:
        return MAX_TICK, None
    if value < PRICES[MIN_TICK]:
        return None, MIN_TICK
    x100 = Fraction(value) * 100
    lo = bisect_left(PRICE_X100, x100) - 1
    hi = bisect_right(PRICE_X100, x100)
    return (lo if lo >= 0 else None, hi if hi < TICK_COUNT else None)


def clamp_tick(tick: int) -> int:
    """Clamp an index into the ladder's range.

    >>> clamp_tick(-3), clamp_tick(10), clamp_tick(400)
    (0, 10, 349)
    """
    return MIN_TICK if tick < MIN_TICK else MAX_TICK if tick > MAX_TICK else tick


def tick_up(tick: int, n: int = 1) -> int:
    """``n`` ticks up (longer odds), clamped at 1000.

    >>> price(tick_up(parse_price("1.99"))), price(tick_up(parse_price("2"))), tick_up(MAX_TICK, 5)
    (Decimal('2'), Decimal('2.02'), 349)
    """
    return clamp_tick(tick + n)


def tick_down(tick: int, n: int = 1) -> int:
    """``n`` ticks down (shorter odds), clamped at 1.01.

    >>> price(tick_down(parse_price("3.05"))), tick_down(0)
    (Decimal('3'), 0)
    """
    return clamp_tick(tick - n)


def ticks_between(a: int, b: int) -> int:
    """Signed number of ticks from ``a`` to ``b``.

    >>> ticks_between(parse_price("1.98"), parse_price("2.04"))
    4
    """
    return b - a


def tick_at_or_above(value: Odds) -> int | None:
    """The lowest tick whose price is ``>= value`` (``None`` above 1000).

    >>> price(tick_at_or_above(Fraction(203, 100))), tick_at_or_above(Fraction(1, 2))
    (Decimal('2.04'), 0)
    >>> tick_at_or_above(2.1) == tick_of("2.1")  # a float as it prints (its binary value is a little above 2.1)
    True
    """
    t = bisect_left(PRICE_X100, Fraction(_odds(value)) * 100)
    return t if t < TICK_COUNT else None


def tick_at_or_below(value: Odds) -> int | None:
    """The highest tick whose price is ``<= value`` (``None`` below 1.01).

    >>> price(tick_at_or_below(Fraction(203, 100))), tick_at_or_below(1), tick_at_or_below(5000)
    (Decimal('2.02'), None, 349)
    """
    t = bisect_right(PRICE_X100, Fraction(_odds(value)) * 100) - 1
    return t if t >= 0 else None


def nearest_tick(value: Odds) -> int:
    """The tick nearest ``value``, clamped to the ladder; a tie goes to the shorter price.

    >>> price(nearest_tick(Fraction(2029, 1000))), price(nearest_tick(Fraction(203, 100))), nearest_tick(2000)
    (Decimal('2.02'), Decimal('2.02'), 349)
    """
    exact = _odds(value)
    above = tick_at_or_above(exact)
    if above is None:
        return MAX_TICK
    if above == MIN_TICK:
        return MIN_TICK
    below = above - 1
    x100 = Fraction(exact) * 100
    if x100 - PRICE_X100[below] <= PRICE_X100[above] - x100:
        return below
    return above


def tick_for_fair(fair: Fraction, side: Side) -> int | None:
    """The ladder price to quote a ``side`` order around ``fair`` without giving away edge.

    A backer is better off at longer odds, so a BACK rounds *up* to the first
    tick at or above ``fair``; a layer is better off at shorter odds, so a LAY
    rounds *down*.  ``None`` when no tick is on the better side (fair above
    1000 for a back, below 1.01 for a lay).

    >>> fair = Fraction(203, 100)
    >>> price(tick_for_fair(fair, Side.BACK)), price(tick_for_fair(fair, Side.LAY))
    (Decimal('2.04'), Decimal('2.02'))
    >>> tick_for_fair(Fraction(2), Side.BACK) == tick_for_fair(Fraction(2), Side.LAY) == 99
    True
    """
    return tick_at_or_above(fair) if side is Side.BACK else tick_at_or_below(fair)


def implied_probability(tick: int) -> Fraction:
    """The probability implied by a tick's price: ``1 / price``.

    >>> implied_probability(parse_price("2.5")), implied_probability(MAX_TICK)
    (Fraction(2, 5), Fraction(1, 1000))
    """
    return Fraction(100, PRICE_X100[tick])


def price_of_probability(probability: Fraction) -> Fraction:
    """The fair decimal price of a probability: ``1 / p`` (``p`` in ``(0, 1]``).

    >>> price_of_probability(Fraction(1, 3))
    Fraction(3, 1)
    """
    if not 0 < probability <= 1:
        raise ValueError(f"probability {probability} is not in (0, 1]")
    return 1 / probability


def tick_for_probability(probability: Fraction, side: Side) -> int | None:
    """:func:`tick_for_fair` of the fair price of ``probability``.

    >>> price(tick_for_probability(Fraction(1, 3), Side.BACK)), price(tick_for_probability(Fraction(1, 3), Side.LAY))
    (Decimal('3'), Decimal('3'))
    >>> price(tick_for_probability(Fraction(3, 10), Side.BACK))
    Decimal('3.35')
    """
    return tick_for_fair(price_of_probability(probability), side)
