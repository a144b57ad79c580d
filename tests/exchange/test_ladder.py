"""The price ladder: table, tick arithmetic, parsing, messages, fair-price helpers."""

from __future__ import annotations

import hashlib
import re
from decimal import Decimal
from fractions import Fraction
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from exchange.core import ladder
from exchange.core.ladder import InvalidPrice, parse_price, price, tick_down, tick_up
from exchange.core.side import Side

# (first price above the band start, band end, step) — exchange.md's table.
BAND_TABLE = [
    ("1.01", "2", "0.01"),
    ("2.02", "3", "0.02"),
    ("3.05", "4", "0.05"),
    ("4.1", "6", "0.1"),
    ("6.2", "10", "0.2"),
    ("10.5", "20", "0.5"),
    ("21", "30", "1"),
    ("32", "50", "2"),
    ("55", "100", "5"),
    ("110", "1000", "10"),
]


def test_table_has_350_prices_from_1_01_to_1000() -> None:
    assert ladder.TICK_COUNT == len(ladder.PRICES) == len(ladder.PRICE_X100) == 350
    assert price(0) == Decimal("1.01") and price(349) == Decimal("1000")
    assert list(ladder.PRICES) == sorted(set(ladder.PRICES))
    assert all(p == Decimal(x) / 100 for p, x in zip(ladder.PRICES, ladder.PRICE_X100, strict=True))


def test_golden_digest_pins_the_table() -> None:
    digest = hashlib.sha256(",".join(map(str, ladder.PRICES)).encode()).hexdigest()
    assert digest == "6bf85dc829a15af6e498efd5a39ec0701773ec6a82304b957312cab47ce8f262"


@pytest.mark.parametrize(("first", "last", "step"), BAND_TABLE)
def test_every_band_steps_as_the_table_says(first: str, last: str, step: str) -> None:
    t0, t1 = parse_price(first), parse_price(last)
    prices = [price(t) for t in range(t0, t1 + 1)]
    assert all(b - a == Decimal(step) for a, b in pairwise(prices))
    # the step changes exactly at the band boundary
    if t1 < ladder.MAX_TICK:
        assert price(t1 + 1) - price(t1) != Decimal(step)


@pytest.mark.parametrize(
    ("boundary", "below", "above"),
    [
        ("2", "1.99", "2.02"),
        ("3", "2.98", "3.05"),
        ("4", "3.95", "4.1"),
        ("6", "5.9", "6.2"),
        ("10", "9.8", "10.5"),
        ("20", "19.5", "21"),
        ("30", "29", "32"),
        ("50", "48", "55"),
        ("100", "95", "110"),
    ],
)
def test_tick_arithmetic_across_band_boundaries(boundary: str, below: str, above: str) -> None:
    t = parse_price(boundary)
    assert price(tick_up(t)) == Decimal(above)
    assert price(tick_down(t)) == Decimal(below)
    assert tick_up(tick_down(t)) == t


@pytest.mark.parametrize("tick", [-1, -3, 350, True, 2.0, "5"])
def test_a_tick_off_the_ladder_has_no_price(tick: object) -> None:
    """A negative tick is not an index from the other end (``price(-1)`` was 1000: a lay "two ticks under" a
    favourite at 1.02 went in at 1000), nor is a flag or a float a tick."""
    refusal = re.escape(f"tick {tick!r} is not on the ladder: a tick is a whole number from 0")
    for show in (price, ladder.price_str):
        with pytest.raises(ValueError, match=refusal):
            show(tick)  # type: ignore[arg-type]  # a wrong type, on purpose


def test_numpys_numbers_are_ticks_and_prices_as_they_print() -> None:
    """As read from a pandas frame: numpy's integers are ticks, its floats prices as they print (``float32(2.1)``
    is 2.1, not 2.0999999046325684); its ``float64`` once stopped the decimal module (``ConversionSyntax``)."""
    assert price(np.int64(99)) == Decimal("2")  # type: ignore[arg-type]  # numpy's int, on purpose
    assert ladder.is_tick(np.int32(349)) and not ladder.is_tick(np.int64(350))
    assert parse_price(np.float64(2.02)) == 100 and parse_price(np.float32(2.1)) == parse_price("2.1")
    assert parse_price(np.int64(3)) == parse_price("3")
    with pytest.raises(InvalidPrice, match=r"price 2\.03 is not on the ladder"):
        parse_price(np.float64(2.03))
    with pytest.raises(InvalidPrice, match="not a finite number"):
        parse_price(np.float32("nan"))
    with pytest.raises(InvalidPrice, match="is not a number"):
        parse_price(np.bool_(True))
    with pytest.raises(InvalidPrice, match="is not a number"):
        parse_price(np.timedelta64(3))  # numpy registers it as an Integral: it is no odds
    assert not ladder.is_tick(np.timedelta64(5))


def test_ends_of_the_ladder_clamp() -> None:
    assert tick_down(0) == 0 and tick_down(3, 10) == 0
    assert tick_up(349) == 349 and tick_up(340, 50) == 349
    assert price(tick_up(0)) == Decimal("1.02")
    assert price(tick_down(349)) == Decimal("990")
    assert ladder.clamp_tick(-1) == 0 and ladder.clamp_tick(350) == 349


@pytest.mark.parametrize(
    ("value", "tick"),
    [
        ("1.01", 0),
        ("1000", 349),
        ("1000.00", 349),
        ("2.5", ladder.TICK_OF_PRICE[Decimal("2.5")]),
        ("2.50", ladder.TICK_OF_PRICE[Decimal("2.5")]),
        (" 3.05 ", ladder.TICK_OF_PRICE[Decimal("3.05")]),
        (2, 99),
        (2.02, 100),
        (1.01, 0),
        (4.1, ladder.TICK_OF_PRICE[Decimal("4.1")]),
        (Decimal("6.20"), ladder.TICK_OF_PRICE[Decimal("6.2")]),
    ],
)
def test_parse_accepts_strings_numbers_floats_and_decimals(value: str | int | float | Decimal, tick: int) -> None:
    assert parse_price(value) == tick


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("2.03", "price 2.03 is not on the ladder; nearest ticks 2.02, 2.04"),
        (2.03, "price 2.03 is not on the ladder; nearest ticks 2.02, 2.04"),
        ("1.015", "price 1.015 is not on the ladder; nearest ticks 1.01, 1.02"),
        ("3.01", "price 3.01 is not on the ladder; nearest ticks 3, 3.05"),
        ("999", "price 999 is not on the ladder; nearest ticks 990, 1000"),
        ("1", "price 1 is below the lowest price 1.01"),
        ("1.00", "price 1.00 is below the lowest price 1.01"),
        ("0", "price 0 is below the lowest price 1.01"),
        ("-2", "price -2 is below the lowest price 1.01"),
        ("1001", "price 1001 is above the highest price 1000"),
        ("1000.01", "price 1000.01 is above the highest price 1000"),
        ("abc", "price 'abc' is not a number"),
        ("NaN", "price 'NaN' is not a finite number"),
        ("Infinity", "price 'Infinity' is not a finite number"),
        (float("nan"), "price nan is not a finite number"),
        (True, "price True is not a number"),
    ],
)
def test_off_ladder_prices_name_the_nearest_ticks(value: object, message: str) -> None:
    with pytest.raises(InvalidPrice) as info:
        parse_price(value)
    assert str(info.value) == message


def test_tick_of_exact_decimal_lookup() -> None:
    assert ladder.tick_of(Decimal("1.010")) == 0
    assert ladder.tick_of(Decimal("2.03")) is None
    assert ladder.tick_of(Decimal("sNaN")) is None
    assert ladder.tick_of(Decimal("NaN")) is None


def test_output_formats() -> None:
    assert ladder.price_str(0) == "1.01"
    assert ladder.price_str(99) == "2"
    assert ladder.price_str(ladder.TICK_OF_PRICE[Decimal("4.1")]) == "4.1"
    assert ladder.price_str(349) == "1000"
    assert all(ladder.parse_price(ladder.price_str(t)) == t for t in range(350))


def test_nearest_ticks_and_rounding_helpers() -> None:
    assert ladder.nearest_ticks(Decimal("2.03")) == (100, 101)
    assert ladder.nearest_ticks(Decimal("2")) == (98, 100)
    assert ladder.nearest_ticks(Decimal("1.01")) == (None, 1)
    assert ladder.nearest_ticks(Decimal("1000")) == (348, None)
    assert ladder.nearest_ticks(Decimal("0.5")) == (None, 0)
    assert ladder.nearest_ticks(Decimal("2000")) == (349, None)
    assert ladder.tick_at_or_above(Fraction(1001)) is None
    assert ladder.tick_at_or_below(Fraction(1)) is None
    assert ladder.nearest_tick(Fraction(1, 2)) == 0
    assert ladder.nearest_tick(Fraction(5000)) == 349
    assert price(ladder.nearest_tick(Fraction(2031, 1000))) == Decimal("2.04")
    assert ladder.ticks_between(parse_price("1.98"), parse_price("2.04")) == 4


def test_fair_price_rounds_toward_the_better_side() -> None:
    fair = Fraction(7, 3)  # 2.333...
    back, lay = ladder.tick_for_fair(fair, Side.BACK), ladder.tick_for_fair(fair, Side.LAY)
    assert back is not None and price(back) == Decimal("2.34")
    assert lay is not None and price(lay) == Decimal("2.32")
    assert ladder.tick_for_fair(Fraction(1001), Side.BACK) is None
    assert ladder.tick_for_fair(Fraction(1001), Side.LAY) == 349
    assert ladder.tick_for_fair(Fraction(1), Side.LAY) is None
    assert ladder.tick_for_fair(Fraction(1), Side.BACK) == 0


def test_probability_conversions() -> None:
    assert ladder.implied_probability(parse_price("4")) == Fraction(1, 4)
    assert ladder.implied_probability(0) == Fraction(100, 101)
    assert ladder.price_of_probability(Fraction(1, 4)) == 4
    with pytest.raises(ValueError):
        ladder.price_of_probability(Fraction(0))
    with pytest.raises(ValueError):
        ladder.price_of_probability(Fraction(3, 2))
    # a quarter each of four hands: fair 4.0 is on the ladder for both sides
    assert ladder.tick_for_probability(Fraction(1, 4), Side.BACK) == ladder.tick_for_probability(
        Fraction(1, 4), Side.LAY
    )


@given(st.integers(0, 349), st.integers(-400, 400))
def test_tick_up_down_are_clamped_inverses(tick: int, n: int) -> None:
    up = tick_up(tick, n)
    assert up == min(349, max(0, tick + n)) and tick_down(tick, n) == min(349, max(0, tick - n))
    if 0 <= tick + n <= 349:
        assert tick_down(up, n) == tick


@given(st.fractions(min_value=Fraction(1, 10), max_value=Fraction(2000)))
def test_fair_rounding_brackets_the_value(fair: Fraction) -> None:
    above = ladder.tick_at_or_above(fair)
    below = ladder.tick_at_or_below(fair)
    assert (above is None) == (fair * 100 > ladder.PRICE_X100[-1])  # None only off the ladder's ends
    assert (below is None) == (fair * 100 < ladder.PRICE_X100[0])
    if above is not None:
        assert ladder.PRICE_X100[above] >= fair * 100
        assert above == 0 or ladder.PRICE_X100[above - 1] < fair * 100
    if below is not None:
        assert ladder.PRICE_X100[below] <= fair * 100
        assert below == 349 or ladder.PRICE_X100[below + 1] > fair * 100
    # the nearer of the two (a tie to the shorter price), clamped to the ladder's end where only one is
    candidates = sorted((abs(ladder.PRICE_X100[t] - fair * 100), ladder.PRICE_X100[t], t)
                        for t in {above, below} if t is not None)
    assert ladder.nearest_tick(fair) == candidates[0][2]


@given(st.decimals(min_value=Decimal("0.5"), max_value=Decimal("1200"), places=3, allow_nan=False))
def test_parse_accepts_exactly_the_ladder(value: Decimal) -> None:
    on_ladder = value in ladder.TICK_OF_PRICE
    try:
        tick = parse_price(str(value))
    except InvalidPrice as exc:
        assert not on_ladder
        assert str(value) in str(exc)
    else:
        assert on_ladder and price(tick) == value


@given(st.integers(ladder.MIN_TICK, ladder.MAX_TICK))
def test_the_odds_helpers_take_a_price_as_it_prints(tick: int) -> None:
    """``tick_of(3.05)`` was None and ``tick_at_or_above(2.1)`` the tick of 2.12: a float was taken at its binary
    value (numpy's float32 was a TypeError), where ``place_order`` reads a price as it prints."""
    odds = ladder.price(tick)
    for given_as in (float(odds), np.float32(odds), np.float64(odds), str(odds), Fraction(odds), odds):
        assert ladder.tick_of(given_as) == tick, given_as
        assert ladder.tick_at_or_above(given_as) == ladder.tick_at_or_below(given_as) == tick, given_as
        assert ladder.nearest_tick(given_as) == tick, given_as
    between = (Fraction(odds) + Fraction(ladder.price(ladder.tick_up(tick)))) / 2
    if tick < ladder.MAX_TICK:
        assert ladder.tick_of(between) is None and ladder.tick_of(float(between)) is None


@pytest.mark.parametrize(("odds", "error", "says"), [
    (True, TypeError, "odds True are not a number"),
    (None, TypeError, "odds None are not a number"),
    ("two", ValueError, "odds 'two' is not a number"),
])
def test_what_is_no_odds_is_refused_by_the_helpers(odds: object, error: type[Exception], says: str) -> None:
    for helper in (ladder.tick_of, ladder.tick_at_or_above, ladder.tick_at_or_below, ladder.nearest_tick):
        with pytest.raises(error, match=re.escape(says)):
            helper(odds)  # type: ignore[arg-type]
