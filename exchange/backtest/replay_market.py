"""One recorded market of a replayed game: its stream folded to any instant, its prices, the strategy's orders.

A market's state at an instant comes from its ``streams/<marketId>`` recording
(status, runner statuses, the ladders, last traded prices, traded volume), its
equities from the last publication at or before the instant (``equities.parquet``: each
exact, or a Monte Carlo estimate with its standard error, shown as the live snapshot shows it),
and the strategy's orders from ``orders.parquet`` and ``fills.parquet``: matched as
far as the fills by then, cancelled and lapsed at the times recorded. A match a
dealer's error voided later (an exposed card: :mod:`exchange.game.irregular`) is
shown as it was, matched from its time, and voided from the void's: the order's
matched size and average price, and the market's traded volume and last price
(the recording's, which the void takes back), go back then. A market voided whole
mid-game (a misdeal, a technical fault, an operator's void) voids each of its
matches at its time the same way (the exchange's ``MatchVoided``, one a match),
but those on selections it had already settled, which stand; from then on the
market is ``VOID`` (``marketStatus``, as the live snapshot has it).

The average matched price is exact, as the exchange keeps it (the stake-weighted
sum of the ladder's prices in hundredths, over the stake), and rounded only on
the way out, as the live API rounds it (:func:`exchange.betfair.apiformat.price`):

>>> fills = [{"size": 100, "tick": 0}, {"size": 200, "tick": 1}]  # 1.00 at 1.01 (tick 0), 2.00 at 1.02
>>> exact_average(fills), apiformat.price(exact_average(fills))
(Fraction(61, 60), 1.0167)
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from exchange.betfair import apiformat
from exchange.betfair.description import market_type_of
from exchange.betfair.order_changes import matched_position
from exchange.core import ladder
from exchange.core.side import Side
from exchange.game.layouts import MarketKind
from exchange.game.rounds import Window

JsonDict = dict[str, Any]
_RUNNER_STATUS = {"ACTIVE": "IN_PLAY", "WINNER": "WINNER", "LOSER": "LOSER", "REMOVED": "REMOVED"}
#: The exchange's status of a market (``marketStatus`` in the live snapshot) by its stream status, but closed.
_MARKET_STATUS = {"OPEN": "ACTIVE", "SUSPENDED": "SUSPENDED"}


@dataclass(frozen=True)
class PublishedEquity:
    """A selection's equity as the game published it: its share, and the standard error where it is an estimate."""

    share: Fraction
    stderr: Fraction | None = None


@dataclass
class RecordedMarket:
    """A market of a recorded game: what its recording, its published equities and the strategy's orders say."""

    market_id: str
    kind: MarketKind
    names: tuple[str, ...]
    stream: list[tuple[int, JsonDict]]  # (pt, mc entry), in order
    winners: frozenset[int]
    dead_heat: bool
    early: bool
    equities: list[tuple[int, dict[int, PublishedEquity]]] = field(default_factory=list)  # publications, in order
    orders: list[JsonDict] = field(default_factory=list)
    fills: list[JsonDict] = field(default_factory=list)

    @functools.cached_property
    def closed_ms(self) -> int | None:
        """When the recording first says the market is closed (settled or voided); None if it never does."""
        for pt, change in self.stream:
            if (change.get("marketDefinition") or {}).get("status") == "CLOSED":
                return pt
        return None

    def shares_at(self, now_ms: int) -> dict[int, PublishedEquity]:
        """Each selection's equity as last published at or before ``now_ms`` (empty before any, or unrecorded)."""
        shares: dict[int, PublishedEquity] = {}
        for at_ms, published in self.equities:
            if at_ms > now_ms:
                break
            shares = published
        return shares

    def at(self, now_ms: int, markets: int) -> JsonDict:
        """The market at ``now_ms`` as the live snapshot shows it (``markets``: how many the game has)."""
        state = _fold(self.stream, now_ms)
        shares = self.shares_at(now_ms)
        selections = []
        for selection_id, name in enumerate(self.names, start=1):
            atb, atl = state["books"].get(selection_id, ({}, {}))
            selection: JsonDict = {
                "selectionId": selection_id, "name": name,
                "status": _selection_status(state["runners"].get(selection_id, "ACTIVE"), state["status"],
                                            self.dead_heat),
                "bestAvailableToBackPrices": _best(atb, back=True),
                "bestAvailableToLayPrices": _best(atl, back=False),
                "lastPriceTraded": state["ltp"].get(selection_id),
                "totalMatched": state["traded"].get(selection_id, 0.0),
            }
            if selection_id in shares:
                selection.update(apiformat.equity(shares[selection_id].share, shares[selection_id].stderr))
            selections.append(selection)
        out: JsonDict = {"marketId": self.market_id, "marketType": market_type_of(self.market_id),
                         "marketName": self.kind.label if markets > 1 else "Winner", "status": state["status"],
                         "totalMatched": state["total"], "selections": selections}
        status = self._status(state["status"])
        if status is not None:
            out["marketStatus"] = status
        if state["status"] == "CLOSED":
            out["early"] = self.early
        return out

    def _status(self, stream_status: str) -> str | None:
        """The exchange's status for the stream's: a closed market is ``SETTLED`` if it has winners, else ``VOID``
        (the stream says ``CLOSED`` for both); None before the recording opens the market."""
        if stream_status == "CLOSED":
            return "SETTLED" if self.winners else "VOID"
        return _MARKET_STATUS.get(stream_status)


def _selection_status(runner: str, market_status: str, dead_heat: bool) -> str:
    status = _RUNNER_STATUS.get(runner, "IN_PLAY")
    if status == "LOSER" and market_status != "CLOSED":
        return "CAN_NOT_WIN"
    if status == "WINNER" and dead_heat:
        return "TIED_DEAD_HEAT"
    return status


def _fold(stream: Sequence[tuple[int, JsonDict]], now_ms: int) -> JsonDict:
    """The recorded market folded up to ``now_ms``: status, runner statuses, ladders by price, last prices."""
    status = "INACTIVE"
    runners: dict[int, str] = {}
    books: dict[int, tuple[dict[float, float], dict[float, float]]] = {}
    ltp: dict[int, float] = {}
    traded: dict[int, float] = {}
    total = 0.0
    for pt, change in stream:
        if pt > now_ms:
            break
        definition = change.get("marketDefinition")
        if definition is not None:
            status = definition.get("status", status)
            runners.update({r["id"]: r.get("status", "ACTIVE") for r in definition.get("runners", ())})
        if change.get("img"):
            books.clear()
        total = change.get("tv", total)
        for rc in change.get("rc", ()):
            atb, atl = books.setdefault(rc["id"], ({}, {}))
            for key, book in (("atb", atb), ("atl", atl)):
                for price, size in rc.get(key, ()):
                    if size:
                        book[price] = size
                    else:
                        book.pop(price, None)
            if "ltp" in rc:
                ltp[rc["id"]] = rc["ltp"]
            if "tv" in rc:
                traded[rc["id"]] = rc["tv"]
                if not rc["tv"]:  # every match on it voided: nothing traded, no last price (the stream cannot say)
                    ltp.pop(rc["id"], None)
    return {"status": status, "runners": runners, "books": books, "ltp": ltp, "traded": traded, "total": total}


def _best(book: Mapping[float, float], *, back: bool) -> list[JsonDict]:
    prices = sorted(book, reverse=back)[:3]
    return [{"price": p, "size": book[p]} for p in prices]


# --- the strategy's orders -----------------------------------------------------------------------------------------


def exact_average(fills: Iterable[Mapping[str, Any]]) -> Fraction | None:
    """The stake-weighted average price of ``fills`` (each with ``size`` in pennies and ladder ``tick``), exactly;
    None when nothing is matched."""
    matched = value_x100 = 0
    for fill in fills:
        matched += fill["size"]
        value_x100 += fill["size"] * ladder.PRICE_X100[fill["tick"]]
    return Fraction(value_x100, 100 * matched) if matched else None


def orders_at(market: RecordedMarket, now_ms: int, windows: Sequence[Window], end_ms: int) -> list[JsonDict]:
    """The strategy's orders on ``market`` placed by ``now_ms``, as they stood then (API-NG CurrentOrderSummary).

    A fill a dealer's error voided later counts as matched from its time to its void's, and as voided after.
    """
    out = []
    for order in market.orders:
        if order["placed_ms"] > now_ms:
            continue
        bet_id = order["bet_id"]
        mine = [f for f in market.fills if bet_id in (f["back_bet_id"], f["lay_bet_id"])]
        fills = [f for f in mine if f["at_ms"] <= now_ms and not _voided_by(f, now_ms)]
        voided = sum(f["size"] for f in mine if _voided_by(f, now_ms))
        # A folder without void times has no voided fill: its orders' voided part is taken off from the start.
        unplaced = order["size_voided"] - sum(f["size"] for f in mine if f.get("voided"))
        matched = sum(f["size"] for f in fills)
        closes = windows[order["round"] - 1].closes_ms if order["round"] else end_ms
        cancelled = _cancelled_by(order, now_ms, closes)
        lapsed = _lapsed_by(order, now_ms, closes)
        remaining = max(0, order["size"] - matched - voided - cancelled - lapsed - unplaced)
        out.append({
            "betId": str(bet_id), "marketId": market.market_id, "selectionId": order["selection_id"],
            "side": order["side"], "priceSize": {"price": order["price"], "size": apiformat.money(order["size"])},
            "sizeMatched": apiformat.money(matched), "sizeRemaining": apiformat.money(remaining),
            "sizeCancelled": apiformat.money(cancelled), "sizeLapsed": apiformat.money(lapsed),
            "sizeVoided": apiformat.money(voided),
            "averagePriceMatched": apiformat.price(exact_average(fills)),
            "status": "EXECUTABLE" if remaining > 0 else "EXECUTION_COMPLETE",
        })
    return out


def position_at(market: RecordedMarket, now_ms: int) -> JsonDict:
    """The strategy's matched position on ``market`` at ``now_ms`` by fill price, as an Exchange Stream order change
    (``{"id": market, "orc": [{"id": selection, "fullImage": true, "mb": ..., "ml": ...}]}``, every selection), from
    the fills that stand then (those :func:`orders_at` counts): what the page sums "if wins" from, exactly, where
    the average matched price has only four decimals."""
    mine = {order["bet_id"] for order in market.orders}
    rows: dict[int, list[tuple[Side, tuple[tuple[int, int], ...]]]] = {}
    for fill in market.fills:
        if fill["at_ms"] > now_ms or _voided_by(fill, now_ms):
            continue
        for key, side in (("back_bet_id", Side.BACK), ("lay_bet_id", Side.LAY)):
            if fill[key] in mine:
                rows.setdefault(fill["selection_id"], []).append((side, ((fill["tick"], fill["size"]),)))
    return {"id": market.market_id, "orc": [{"id": selection_id, "fullImage": True, **matched_position(rows.get(
        selection_id, ()))} for selection_id in range(1, len(market.names) + 1)]}


def _voided_by(fill: Mapping[str, Any], now_ms: int) -> bool:
    at_ms = fill.get("voided_ms")
    return at_ms is not None and at_ms <= now_ms


def _cancelled_by(order: Mapping[str, Any], now_ms: int, closes_ms: int) -> int:
    """The part of ``order`` cancelled by ``now_ms``: at each recorded cancel's time (at the window's close in a
    folder written before the times were recorded)."""
    cancels = order.get("cancels")
    if cancels is None:
        return int(order["size_cancelled"]) if now_ms >= closes_ms else 0
    return sum(c["size"] for c in cancels if c["at_ms"] <= now_ms)


def _lapsed_by(order: Mapping[str, Any], now_ms: int, closes_ms: int) -> int:
    at_ms = order.get("lapsed_ms", closes_ms if order["size_lapsed"] else None)
    return int(order["size_lapsed"]) if at_ms is not None and at_ms <= now_ms else 0
