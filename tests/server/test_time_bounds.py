"""A date-time in a request (``settledDateRange``, ``itemDateRange``, ``dateRange``, ``matchedSince``) is read to the
exact millisecond: the date an answer shows, given back as a bound, is that very millisecond, so a range from
and to a bet's ``settledDate`` keeps it. Read through a float of seconds, about one date in 160 outside the
years 2016 to 2037 came out a millisecond early (2004-03-15T07:55:47.472Z as .471).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from exchange.betfair import apiformat
from exchange.server.market_filter import parse_time


@given(st.integers(0, 2**42))
def test_a_shown_date_reads_back_as_the_same_millisecond(ms: int) -> None:
    assert parse_time(apiformat.iso(ms), "settledDateRange.to") == ms


def test_dates_a_float_of_seconds_got_wrong() -> None:
    for text, ms in (("2004-03-15T07:55:47.472Z", 1079337347472), ("2039-03-08T19:46:13.411Z", 2183226373411),
                     ("2039-03-08T20:46:13.411+01:00", 2183226373411), ("2039-03-08T19:46:13.4119Z", 2183226373411)):
        assert parse_time(text, "from") == ms, text
