"""The core's views in API-NG's JSON shapes (what betfairlightweight's resources read).

Money leaves the core as integer minor units and is shown in major units with
two decimals; prices leave as ladder ``Decimal`` s; times as ISO-8601 UTC with
milliseconds, as Betfair writes them. Field names and which fields are present
follow API-NG (``CurrentOrderSummary``, ``ClearedOrderSummary``, ``MarketBook``,
``Runner``, ``ExchangePrices``, ``AccountFundsResponse``).

>>> money(250), money(-5), iso(0), iso(1_714_564_800_250), iso(-1)
(2.5, -0.05, '1970-01-01T00:00:00.000Z', '2024-05-01T12:00:00.250Z', '1969-12-31T23:59:59.999Z')
"""

from __future__ import annotations

import datetime
import functools
import re
from collections.abc import Iterable
from decimal import Decimal
from fractions import Fraction
from typing import Any

from exchange.betfair.description import in_play
from exchange.betfair.stream import RunnerStatus, market_status, runner_status
from exchange.core import ladder
from exchange.core.accounts import AccountFunds
from exchange.core.book import PriceSize
from exchange.core.market import MarketBook, MarketStatus, RunnerBook
from exchange.core.orders import BetStatus, ClearedOrder, LapseReason, OrderView

JsonDict = dict[str, Any]

#: The longest ``customerRef`` / ``customerOrderRef`` API-NG takes ("up to 32 chars").
CUSTOMER_REF_MAX = 32

#: What breaks a line of text: a control character (NUL, a newline, an escape, ...: Unicode's ``Cc``), or a line or
#: paragraph separator (``Zl``, ``Zp``).
_LINE_BREAKER = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def line_breaker(text: str) -> str | None:
    r"""The first character of ``text`` that is no part of a line of text (:data:`_LINE_BREAKER`), if any: a
    reference or a label holds none.

    >>> line_breaker("order-7"), line_breaker("a\tb"), line_breaker("x\u2028")
    (None, '\t', '\u2028')
    """
    found = _LINE_BREAKER.search(text)
    return None if found is None else found.group()


def money(minor: int) -> float:
    """Minor units as the float API-NG carries (exact to the penny for any realistic amount)."""
    return round(minor / 100, 2)


def price(value: Decimal | Fraction | None) -> float:
    return 0.0 if value is None else round(float(value), 4)


def tick_price(tick: int) -> float:
    """A ladder tick as the price API-NG carries (a ladder price has two decimals: the float is exact to them)."""
    return float(ladder.price(tick))


def equity(share: Fraction, stderr: Fraction | None = None) -> JsonDict:
    """A selection's equity (its dead-heat share of the result) as the games feeds carry it: ``equity`` to six
    decimals for display and plotting (a probability shown to a reader, never money or a price: nothing computes
    with it), and ``equityExact``, the exact fraction, where the share is exact. A Monte Carlo estimate carries
    its standard error, ``equityStderr``, to six decimals likewise, and no ``equityExact``: its fraction is only
    the share of the sampled deals, and a reader must not take it for the exact share.

    >>> equity(Fraction(1, 3))
    {'equity': 0.333333, 'equityExact': '1/3'}
    >>> equity(Fraction(1, 4), stderr=Fraction(1, 125))
    {'equity': 0.25, 'equityStderr': 0.008}
    """
    if stderr is not None:
        return {"equity": round(float(share), 6), "equityStderr": round(float(stderr), 6)}
    return {"equity": round(float(share), 6), "equityExact": f"{share.numerator}/{share.denominator}"}


def iso(ms: int | None) -> str | None:
    """Epoch milliseconds as Betfair writes a date (``2024-05-01T12:00:00.250Z``); each second formatted once."""
    if ms is None:
        return None
    seconds, millis = divmod(ms, 1000)
    return f"{_iso_seconds(seconds)}.{millis:03d}Z"


@functools.lru_cache(maxsize=1024)
def _iso_seconds(seconds: int) -> str:
    return datetime.datetime.fromtimestamp(seconds, tz=datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S")


def price_sizes(levels: Iterable[PriceSize]) -> list[JsonDict]:
    return [{"price": tick_price(level.tick), "size": money(level.size)} for level in levels]


def current_order(view: OrderView) -> JsonDict:
    """``CurrentOrderSummary``."""
    out: JsonDict = {
        "betId": str(view.bet_id),
        "marketId": view.market_id,
        "selectionId": view.selection_id,
        "handicap": 0.0,
        "priceSize": {"price": float(view.price), "size": money(view.size)},
        "bspLiability": 0.0,
        "side": str(view.side),
        "status": str(view.status),
        "persistenceType": str(view.persistence_type),
        "orderType": str(view.order_type),
        "placedDate": iso(view.placed_ts),
        "averagePriceMatched": price(view.average_price_matched),
        "sizeMatched": money(view.size_matched),
        "sizeRemaining": money(view.size_remaining),
        "sizeLapsed": money(view.size_lapsed),
        "sizeCancelled": money(view.size_cancelled),
        "sizeVoided": money(view.size_voided),
        "regulatorCode": "EXCHANGE POKER SIM",
    }
    if view.matched_ts is not None:
        out["matchedDate"] = iso(view.matched_ts)
    if view.cancelled_ts is not None:
        out["cancelledDate"] = iso(view.cancelled_ts)
    if view.lapsed_ts is not None:
        out["lapsedDate"] = iso(view.lapsed_ts)
    if (code := lapse_status_reason(view.lapse_reason)) is not None:
        out["lapseStatusReasonCode"] = code
    if view.customer_ref:
        out["customerOrderRef"] = view.customer_ref
    if view.strategy_ref:
        out["customerStrategyRef"] = view.strategy_ref
    return out


def lapse_status_reason(reason: LapseReason | None) -> str | None:
    """API-NG's ``lapseStatusReasonCode`` of a lapse: Betfair's ``MKT_SUSPENDED`` for a betting window's close and a
    suspension inside it; none (left out) for the reasons Betfair's list has no code for, as Betfair leaves it
    out then (a selection or the market settled; a fill-or-kill order's unmatched rest, in journals written before
    2026-12-06).

    >>> lapse_status_reason(LapseReason.WINDOW_CLOSED), lapse_status_reason(LapseReason.MARKET_SETTLED)
    ('MKT_SUSPENDED', None)
    """
    return "MKT_SUSPENDED" if reason in (LapseReason.WINDOW_CLOSED, LapseReason.MARKET_SUSPENDED) else None


def runner_order(view: OrderView) -> JsonDict:
    """API-NG ``Order`` inside ``Runner.orders`` (listMarketBook with an orderProjection), with its
    ``customerOrderRef`` and ``customerStrategyRef`` when it has them, as ``CurrentOrderSummary`` has."""
    out: JsonDict = {
        "betId": str(view.bet_id),
        "orderType": str(view.order_type),
        "status": str(view.status),
        "persistenceType": str(view.persistence_type),
        "side": str(view.side),
        "price": float(view.price),
        "size": money(view.size),
        "bspLiability": 0.0,
        "placedDate": iso(view.placed_ts),
        "avgPriceMatched": price(view.average_price_matched),
        "sizeMatched": money(view.size_matched),
        "sizeRemaining": money(view.size_remaining),
        "sizeLapsed": money(view.size_lapsed),
        "sizeCancelled": money(view.size_cancelled),
        "sizeVoided": money(view.size_voided),
    }
    if view.customer_ref:
        out["customerOrderRef"] = view.customer_ref
    if view.strategy_ref:
        out["customerStrategyRef"] = view.strategy_ref
    return out


def cleared_order(order: ClearedOrder, event_type_id: str, event_id: str) -> JsonDict:
    """``ClearedOrderSummary`` at bet level.

    As Betfair defines them: ``sizeSettled`` is the size "settled as matched or voided under this item" (the
    matched size of a settled bet, the voided size of a VOIDED one), ``sizeCancelled`` the size "available to
    be matched, before cancellation or lapsing" (cancelled plus lapsed; a voided match is not in it).
    """
    out: JsonDict = {
        "eventTypeId": event_type_id,
        "eventId": event_id,
        "marketId": order.market_id,
        "selectionId": order.selection_id,
        "handicap": 0.0,
        "betId": str(order.bet_id),
        "placedDate": iso(order.placed_ts),
        "persistenceType": "LAPSE",
        "orderType": "LIMIT",
        "side": str(order.side),
        "priceRequested": float(order.price_requested),
        "settledDate": iso(order.settled_ts),
        "betCount": 1,
        "priceReduced": False,
        "sizeSettled": money(order.size_voided if order.bet_status is BetStatus.VOIDED else order.size_settled),
        "sizeCancelled": money(order.size_cancelled + order.size_lapsed),
        "profit": money(order.profit),
    }
    if order.bet_outcome is not None:
        out["betOutcome"] = str(order.bet_outcome)
    if order.price_matched is not None:
        out["priceMatched"] = price(order.price_matched)
    if order.last_matched_ts is not None:
        out["lastMatchedDate"] = iso(order.last_matched_ts)
    if order.customer_ref:
        out["customerOrderRef"] = order.customer_ref
    if order.strategy_ref:
        out["customerStrategyRef"] = order.strategy_ref
    return out


def runner(book: RunnerBook, market: MarketStatus, *, with_prices: bool, depth: int | None, traded: bool) -> JsonDict:
    """API-NG ``Runner`` of a market whose status is ``market``; ``ex`` only when a price projection asked for it (all
    three lists then present)."""
    out: JsonDict = {
        "selectionId": book.selection_id,
        "handicap": 0.0,
        "status": str(runner_status(market, book.status)),
        "totalMatched": money(book.total_matched),
    }
    if book.last_traded_tick is not None:
        out["lastPriceTraded"] = tick_price(book.last_traded_tick)
    if with_prices or traded:
        atb = book.available_to_back if with_prices else ()
        atl = book.available_to_lay if with_prices else ()
        if depth is not None:
            atb, atl = atb[:depth], atl[:depth]
        out["ex"] = {
            "availableToBack": price_sizes(atb),
            "availableToLay": price_sizes(atl),
            "tradedVolume": price_sizes(book.traded_volume) if traded else [],
        }
    return out


def market_book(book: MarketBook, *, version: int, runners: list[JsonDict], last_match_ms: int | None) -> JsonDict:
    """API-NG ``MarketBook``."""
    active = sum(1 for r in book.runners if runner_status(book.status, r.status) is RunnerStatus.ACTIVE)
    available = sum(level.size for r in book.runners for level in (*r.available_to_back, *r.available_to_lay))
    out: JsonDict = {
        "marketId": book.market_id,
        "isMarketDataDelayed": False,
        "status": str(market_status(book.status)),
        "betDelay": 0,
        "bspReconciled": False,
        "complete": True,
        "inplay": in_play(book.round),
        "numberOfWinners": 1,
        "numberOfRunners": len(book.runners),
        "numberOfActiveRunners": active,
        "totalMatched": money(book.total_matched),
        "totalAvailable": money(available),
        "crossMatching": False,
        "runnersVoidable": False,
        "version": version,
        "runners": runners,
    }
    if last_match_ms is not None:
        out["lastMatchTime"] = iso(last_match_ms)
    return out


def account_funds(funds: AccountFunds) -> JsonDict:
    """``AccountFundsResponse``: exposure is negative, as Betfair shows it. The exchange sets an account no
    exposure limit of its own: a bet is taken only while the balance covers the worst outcome, so the limit
    is the balance (``exposureLimit`` negative too)."""
    return {
        "availableToBetBalance": money(funds.available),
        "exposure": money(-funds.exposure),
        "retainedCommission": 0.0,
        "exposureLimit": money(-funds.balance),
        "discountRate": 0.0,
        "pointsBalance": 0,
        "wallet": "UK",
    }


def dealer_error_cards(exposed: Iterable[object], dead: Iterable[object]) -> JsonDict:
    """The Games API ``gameData`` fields of a dealer's error, each only when it has a card: ``exposedCards``
    (every card the error showed before its time) and ``deadCards`` (those of them out of play, burned); the
    live snapshot, the results route and a replay's snapshot alike.

    >>> dealer_error_cards(["7h", "2c"], ["7h"]), dealer_error_cards([], [])
    ({'exposedCards': ['7h', '2c'], 'deadCards': ['7h']}, {})
    """
    fields = {"exposedCards": [str(card) for card in exposed], "deadCards": [str(card) for card in dead]}
    return {name: cards for name, cards in fields.items() if cards}


def hand_draws(discarded: Iterable[Iterable[object]], drawn: Iterable[Iterable[object]]) -> list[JsonDict]:
    """A draw game's hand's ``draws`` as the Games API gives them: at each draw, the cards it threw and those it
    drew instead; the live snapshot, the results route and a replay's snapshot alike.

    >>> hand_draws([["2c", "7d"], []], [["Ah", "Kh"], []])
    [{'discarded': ['2c', '7d'], 'drawn': ['Ah', 'Kh']}, {'discarded': [], 'drawn': []}]
    """
    return [{"discarded": [str(card) for card in thrown], "drawn": [str(card) for card in got]}
            for thrown, got in zip(discarded, drawn, strict=True)]
