"""Instructions the exchange refuses: the strategy hears each once, and ``orders.parquet`` has a row for each.

A refused cancel or replace names no market (the exchange reports only the bet id it was
given), unlike a refused placement; and no refusal says all that was asked (a placement's
side, price and size). One session of two ``omaha-hilo`` games from seed 3, a strategy
trading both markets: in each Pre-flop window it rests a back at 900 on each market (far
from any price: nothing matches it) and sends two placements the exchange refuses (a lay at
an odds off the ladder, a back below the minimum stake); when the window has closed (its
backs lapsed) it cancels them, and on the Low market cancels part of a bet id no one has and
asks to replace that bet; at the start of the second game it cancels the first game's bets
once more.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pyarrow as pa
import pytest

from exchange.backtest.bankroll import STRATEGY_ACCOUNT
from exchange.backtest.runner import DEFAULT_BALANCE, EPOCH_MS
from exchange.backtest.strategy import ALL_MARKETS, GameStart, MarketHandle, Strategy
from exchange.backtest.summary import summarise
from exchange.backtest.world import GameSetup, HouseSpec, play_session
from exchange.core import ladder
from exchange.core.errors import ErrorCode
from exchange.core.events import OrderAction, OrderRejected
from exchange.core.orders import OrderView
from exchange.core.side import Side
from exchange.game.rounds import Round
from exchange.tables.outputs import empty_tables

CHANNEL, SEED, GAMES = "omaha-hilo", 3, 2
NO_SUCH_BET = 10**9
#: One Hold'em game of the seed, the strategy on its own with the house.
ONE_HOLDEM_GAME = GameSetup(channel="holdem", seed=SEED, account=STRATEGY_ACCOUNT, balance=DEFAULT_BALANCE,
                            start_ms=EPOCH_MS, latency_ms=None, record_streams=False, house=HouseSpec(),
                            equities=None, games_per_session=1)  # fmt: skip
#: (market id of the handle or row, action, error code, bet id)
Refusal = tuple[str, str, str, int | None]


class LateCanceller(Strategy):
    markets = ALL_MARKETS

    def __init__(self) -> None:
        super().__init__()
        self.bets: dict[int, str] = {}  # bet id -> its market
        self.heard: list[Refusal] = []

    def on_game_start(self, game: GameStart) -> None:
        self.earlier = dict(self.bets)

    def on_market_open(self, market: MarketHandle) -> None:
        kind = market.market_id.endswith("-low")
        for bet, market_id in getattr(self, "earlier", {}).items():
            if market_id.endswith("-low") is kind:
                market.cancel_order(bet)  # a bet of the game before: long lapsed

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        if round is Round.PREFLOP:
            market.place_order(1, Side.BACK, "900", 200)
            market.place_order(1, Side.LAY, "2.03", 300)  # off the ladder
            market.place_order(1, Side.BACK, "900", 150, customer_ref="too-small")  # under the 2.00 minimum

    def process_orders(self, market: MarketHandle, orders: Sequence[OrderView]) -> None:
        self.bets.update((o.bet_id, o.market_id) for o in orders)

    def on_window_close(self, market: MarketHandle, round: Round) -> None:
        if round is not Round.PREFLOP:
            return
        for bet, market_id in self.bets.items():
            if market_id == market.market_id:
                market.cancel_order(bet)  # lapsed at the close
        if market.market_id.endswith("-low"):
            market.cancel_order(NO_SUCH_BET, 300)
            market.replace_order(NO_SUCH_BET, "3.0")

    def on_order_rejected(self, market: MarketHandle, rejection: OrderRejected) -> None:
        if rejection.action is not OrderAction.PLACE:
            self.heard.append((market.market_id, rejection.action.value, rejection.error_code.value, rejection.bet_id))


@dataclass(frozen=True)
class Played:
    strategy: LateCanceller
    tables: dict[str, pa.Table]

    @property
    def orders(self) -> list[dict[str, Any]]:
        return self.tables["orders"].to_pylist()


@pytest.fixture(scope="module")
def played() -> Played:
    setup = GameSetup(channel=CHANNEL, seed=SEED, account=STRATEGY_ACCOUNT, balance=DEFAULT_BALANCE,
                      start_ms=EPOCH_MS, latency_ms=None, record_streams=False, house=HouseSpec(), equities=None,
                      games_per_session=GAMES)  # fmt: skip
    strategy = LateCanceller()
    tables = empty_tables()
    play_session(setup, 0, strategy, tables)
    return Played(strategy, {name: table.to_arrow() for name, table in tables.items()})


def expected(played: Played) -> list[Refusal]:
    """Every refusal of a cancel or replace the strategy caused, under the market of the bet it named (the market
    it was sent through for a bet no one has), in the order it sent them."""
    bets = played.strategy.bets
    [first, second] = [sorted(b for b, m in bets.items() if m.startswith(f"{CHANNEL}.{g}")) for g in range(GAMES)]
    lapsed, unknown = ErrorCode.BET_TAKEN_OR_LAPSED.value, ErrorCode.INVALID_BET_ID.value
    out: list[Refusal] = []
    for game, bets_of_game in ((0, first), (1, second)):
        if game == 1:
            out += [(bets[b], "CANCEL", lapsed, b) for b in first]
        low = f"{CHANNEL}.{game}-low"
        out += [(bets[b], "CANCEL", lapsed, b) for b in bets_of_game]
        out += [(low, "CANCEL", unknown, NO_SUCH_BET), (low, "REPLACE", unknown, NO_SUCH_BET)]
    return out


def refused(played: Played, action: str) -> list[dict[str, Any]]:
    return [r for r in played.orders
            if r["account"] == STRATEGY_ACCOUNT and r["status"] == "REJECTED" and r["action"] == action]  # fmt: skip


def test_the_orders_table_has_a_row_for_every_refused_cancel_and_replace(played: Played) -> None:
    assert len(played.strategy.bets) == 2 * GAMES, "one back a market, each lapsed"
    rows = [(r["market_id"], r["action"], r["error_code"], r["bet_id"])
            for r in refused(played, "CANCEL") + refused(played, "REPLACE")]  # fmt: skip
    assert sorted(rows, key=repr) == sorted(expected(played), key=repr)


def test_a_markets_rows_are_its_bets_and_refusals_in_the_order_they_came(played: Played) -> None:
    """The refusals were written after all of a market's bets (the house's of later windows too): the rows are in
    the order the exchange met them, so the strategy's back at 900 comes before the two placements refused beside
    it, and each refused cancel after the bet it names."""
    by_market: dict[str, list[dict[str, Any]]] = {}
    for row in played.orders:
        by_market.setdefault(row["market_id"], []).append(row)
    for market_id, rows in by_market.items():
        times = [r["placed_ms"] for r in rows]
        assert times == sorted(times), market_id
        mine = [(r["action"], r["error_code"]) for r in rows if r["account"] == STRATEGY_ACCOUNT]
        assert mine[:3] == [("PLACE", None), ("PLACE", "INVALID_ODDS"), ("PLACE", "INVALID_BET_SIZE")], market_id


def test_a_refused_placement_says_what_was_asked(played: Played) -> None:
    """Side, price (its tick if it is on the ladder), size, round and reference of each refused placement, on the
    market it was sent to: what a researcher needs to see what the exchange would not take."""
    rows = sorted(((r["market_id"], r["selection_id"], r["side"], r["price"], r["tick"], r["size"], r["round"],
                    r["customer_ref"], r["error_code"]) for r in refused(played, "PLACE")), key=repr)  # fmt: skip
    preflop, at_900 = int(Round.PREFLOP), ladder.parse_price("900")
    asked = []
    for n, market in enumerate(f"{CHANNEL}.{g}{low}" for g in range(GAMES) for low in ("", "-low")):
        # the reference given to the strategy's second placement in this market: one count over its markets and
        # games (each market's Pre-flop window, the High market's first), with the session's number
        second = f"{STRATEGY_ACCOUNT}-0-{2 * n + 2}"
        asked += [(market, 1, "LAY", 2.03, None, 300, preflop, second, ErrorCode.INVALID_ODDS.value),
                  (market, 1, "BACK", 900.0, at_900, 150, preflop, "too-small", ErrorCode.INVALID_BET_SIZE.value)]
    assert rows == sorted(asked, key=repr)


def test_a_refused_cancel_or_replace_says_what_was_asked(played: Played) -> None:
    """A cancel's size reduction (null: all of it) and, for a bet of the market, its selection and side; a
    replace's new price."""
    bets = {r["bet_id"]: r for r in played.orders if r["status"] != "REJECTED"}
    for row in refused(played, "CANCEL"):
        if row["bet_id"] == NO_SUCH_BET:
            assert (row["size"], row["side"], row["selection_id"], row["price"]) == (300, None, None, None)
        elif row["market_id"] == bets[row["bet_id"]]["market_id"]:
            bet = bets[row["bet_id"]]
            assert (row["size"], row["side"], row["selection_id"]) == (None, bet["side"], bet["selection_id"])
    [replace_0, replace_1] = refused(played, "REPLACE")
    for row in (replace_0, replace_1):
        assert (row["price"], row["tick"], row["size"]) == (3.0, ladder.parse_price("3.0"), None)
        assert row["round"] == int(Round.PREFLOP), "stamped with the round the strategy saw"


def test_the_summary_counts_refused_bets_not_refused_cancels(played: Played) -> None:
    """``bets N placed, M rejected`` counts placements: the refused cancels and replaces are not bets, and are
    counted apart."""
    summary = summarise(played.tables, STRATEGY_ACCOUNT)
    assert (summary.bets, summary.rejected, summary.replacing) == (2 * GAMES, 4 * GAMES, 0)
    assert summary.refused_changes == len(expected(played))
    codes = Counter(r["error_code"] for r in played.orders if r["status"] == "REJECTED" and r["action"] == "PLACE")
    assert summary.rejected_codes == tuple(codes.most_common()) and sum(codes.values()) == 4 * GAMES
    said = ", ".join(f"{n} {code}" for code, n in codes.most_common())  # what the strategy got wrong, told
    assert (f"bets            {2 * GAMES} placed, {4 * GAMES} rejected ({said}); {len(expected(played))} cancels or "
            "replaces refused") in summary.lines()


class Replacer(Strategy):
    """Rests a back far from any price in each Pre-flop window and moves it once, with ``replace_order``."""

    def __init__(self) -> None:
        super().__init__()
        self.moved: set[int] = set()

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        if round is Round.PREFLOP:
            market.place_order(1, Side.BACK, "900", 200)

    def process_orders(self, market: MarketHandle, orders: Sequence[OrderView]) -> None:
        for order in orders:
            if order.size_remaining and order.price == Decimal("900") and order.bet_id not in self.moved:
                self.moved.add(order.bet_id)
                market.replace_order(order.bet_id, "800")


def test_the_summary_counts_the_bets_replace_order_made_apart() -> None:
    """A replace cancels a bet and places a new one: the summary says how many bets its replaces made, beside the
    placements (which are what ``bets`` counts, as ever)."""
    setup = GameSetup(channel="holdem", seed=SEED, account=STRATEGY_ACCOUNT, balance=DEFAULT_BALANCE,
                      start_ms=EPOCH_MS, latency_ms=None, record_streams=False, house=HouseSpec(), equities=None,
                      games_per_session=GAMES)  # fmt: skip
    strategy, tables = Replacer(), empty_tables()
    play_session(setup, 0, strategy, tables)
    summary = summarise({name: table.to_arrow() for name, table in tables.items()}, STRATEGY_ACCOUNT)
    assert (summary.bets, summary.rejected, summary.replacing, summary.refused_changes) == (GAMES, 0, GAMES, 0)
    assert f"bets            {GAMES} placed, 0 rejected; {GAMES} more by replace_order" in summary.lines()


def test_the_strategy_hears_each_refusal_once_on_the_market_of_the_bet(played: Played) -> None:
    """Both market agents of the strategy are told of a refusal that names no market; the strategy hears it once,
    through the handle of the bet's market (its kind's market of the game now on, for a bet of an earlier game;
    the handle it was sent through for a bet it never had)."""

    def now_on(refusal: Refusal, game: int) -> Refusal:
        market, action, code, bet_id = refusal
        return (f"{CHANNEL}.{game}{'-low' if market.endswith('-low') else ''}", action, code, bet_id)

    refusals = expected(played)
    heard = [now_on(r, 0) for r in refusals[:4]] + [now_on(r, 1) for r in refusals[4:]]
    assert played.strategy.heard == heard


class NotANumber(Strategy):
    """Places at odds that are no finite number: the exchange refuses each, and each refusal still has its row."""

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        if round is Round.PREFLOP:
            market.place_order(1, Side.BACK, Decimal("sNaN"), 200, customer_ref="snan")
            market.place_order(1, Side.BACK, "Infinity", 200, customer_ref="inf")


def test_a_refused_placement_at_odds_that_are_no_number_has_its_row() -> None:
    setup = ONE_HOLDEM_GAME
    tables = empty_tables()
    play_session(setup, 0, NotANumber(), tables)
    rows = [r for r in tables["orders"].to_arrow().to_pylist() if r["status"] == "REJECTED"]
    shown = sorted((r["customer_ref"], r["error_code"], r["tick"], str(r["price"])) for r in rows)
    assert shown == [("inf", ErrorCode.INVALID_ODDS.value, None, "inf"),
                     ("snan", ErrorCode.INVALID_ODDS.value, None, "nan")]


class RestsThenActs(Strategy):
    """Rests a back far from any price in the Pre-flop window; once it is placed, :meth:`act` on it, once."""

    def __init__(self) -> None:
        super().__init__()
        self.bet: int | None = None

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        if round is Round.PREFLOP:
            market.place_order(1, Side.BACK, "900", 300, customer_ref="rest")

    def process_orders(self, market: MarketHandle, orders: Sequence[OrderView]) -> None:
        if self.bet is None and orders:
            self.bet = orders[0].bet_id
            self.act(market, self.bet)

    def act(self, market: MarketHandle, bet: int) -> None:
        """What to do with the resting bet once it is placed (each test's strategy says)."""


class TwiceAtOnce(RestsThenActs):
    """Moves the resting back twice and cuts it twice in one callback: the second of each is refused (the bet was
    replaced), and its row must say what the second asked, not what the first (carried out) did."""

    def act(self, market: MarketHandle, bet: int) -> None:
        market.cancel_order(bet, 50)
        market.replace_order(bet, "3.0")
        market.cancel_order(bet, 70)
        market.replace_order(bet, "4.0")


def test_a_refusal_is_paired_with_its_own_instruction_not_one_carried_out_at_the_same_instant() -> None:
    setup = ONE_HOLDEM_GAME
    tables = empty_tables()
    strategy = TwiceAtOnce()
    play_session(setup, 0, strategy, tables)
    rows = [r for r in tables["orders"].to_arrow().to_pylist() if r["status"] == "REJECTED"]
    shown = sorted((r["action"], r["bet_id"], r["size"], r["price"], r["error_code"]) for r in rows)
    taken = ErrorCode.BET_TAKEN_OR_LAPSED.value
    assert shown == [("CANCEL", strategy.bet, 70, None, taken), ("REPLACE", strategy.bet, None, 4.0, taken)]


class OffLadderMover(RestsThenActs):
    """Asks to move the resting back to odds off the ladder (3.33), and backs at 5.7 written as a Fraction."""

    def __init__(self) -> None:
        super().__init__()
        self.heard: list[tuple[str, str]] = []

    def act(self, market: MarketHandle, bet: int) -> None:
        market.replace_order(bet, "3.33")
        market.place_order(2, Side.BACK, Fraction(57, 10), 200, customer_ref="fraction")

    def on_order_rejected(self, market: MarketHandle, rejection: OrderRejected) -> None:
        self.heard.append((rejection.action.value, rejection.error_code.value))


def test_a_replace_to_odds_off_the_ladder_is_refused_as_a_placement_is_and_a_fraction_is_a_price() -> None:
    """``replace_order`` raised ``InvalidPrice`` at the call (stopping the backtest) where ``place_order`` hears
    INVALID_ODDS; a ``Fraction`` price (the handle's own fair odds are) was "not a number"."""
    setup = ONE_HOLDEM_GAME
    tables = empty_tables()
    strategy = OffLadderMover()
    play_session(setup, 0, strategy, tables)
    assert strategy.heard == [("REPLACE", ErrorCode.INVALID_ODDS.value)]
    rows = tables["orders"].to_arrow().to_pylist()
    [refused] = [r for r in rows if r["status"] == "REJECTED"]
    assert (refused["action"], refused["bet_id"], refused["price"], refused["tick"]) == (
        "REPLACE", strategy.bet, 3.33, None)
    [placed] = [r for r in rows if r["customer_ref"] == "fraction"]
    assert (placed["price"], placed["tick"]) == (5.7, ladder.parse_price("5.7"))


@pytest.mark.parametrize(("call", "says"), [
    (lambda m: m.place_order(1, Side.BACK, "3", 2**63), "size 9223372036854775808 is past what any order carries"),
    (lambda m: m.cancel_order(2**64), "bet id 18446744073709551616 is past what any order carries"),
    (lambda m: m.place_order(1, Side.BACK, Fraction(1, 3), 200), "price 1/3 has no exact decimal"),
])
def test_a_number_no_order_can_carry_is_refused_at_the_call(call: Any, says: str) -> None:
    """A stake of 2**63 was sent, refused by the exchange, and then stopped the whole run writing its tables
    (pyarrow's OverflowError, naming no strategy); a bet id past 64 bits too."""
    class Asks(Strategy):
        def on_window_open(self, market: MarketHandle, round: Round) -> None:
            call(market)

    setup = ONE_HOLDEM_GAME
    with pytest.raises(ValueError, match=re.escape(says)):
        play_session(setup, 0, Asks(), empty_tables())


class OverReacher(Strategy):
    """Rests a lay of 990.00 at 1.01 in the Pre-flop window (liability 9.90) and moves it once to 50.0, whose
    liability of 48,510.00 is past its balance of 10,000.00."""

    def __init__(self) -> None:
        super().__init__()
        self.moved: int | None = None
        self.seen: list[OrderView] = []
        self.heard: list[OrderRejected] = []

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        if round is Round.PREFLOP:
            market.place_order(1, Side.LAY, "1.01", 99_000)

    def process_orders(self, market: MarketHandle, orders: Sequence[OrderView]) -> None:
        self.seen += orders
        for order in orders:
            if self.moved is None and order.size_remaining:
                self.moved = order.bet_id
                market.replace_order(order.bet_id, "50")

    def on_order_rejected(self, market: MarketHandle, rejection: OrderRejected) -> None:
        self.heard.append(rejection)


def test_a_replace_the_strategy_cannot_cover_cancels_the_bet_and_is_heard_refused() -> None:
    """As Betfair's replace, the cancel is done first and stands: the strategy's bet is cancelled, whole, and the
    strategy hears the new bet's refusal (``INSUFFICIENT_FUNDS``, the replace's, naming the old bet)."""
    strategy, tables = OverReacher(), empty_tables()
    play_session(ONE_HOLDEM_GAME, 0, strategy, tables)
    assert strategy.moved is not None
    [refusal] = strategy.heard
    assert (refusal.action, refusal.error_code, refusal.bet_id) == (
        OrderAction.REPLACE, ErrorCode.INSUFFICIENT_FUNDS, strategy.moved)
    last = [o for o in strategy.seen if o.bet_id == strategy.moved][-1]
    assert (last.size_remaining, last.size_cancelled) == (0, 99_000)
    rows = [r for r in tables["orders"].to_arrow().to_pylist() if r["account"] == STRATEGY_ACCOUNT]
    assert [(r["action"], r["status"], r["error_code"]) for r in rows] == [
        ("PLACE", "CANCELLED", None), ("REPLACE", "REJECTED", "INSUFFICIENT_FUNDS")]
