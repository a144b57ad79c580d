"""The Parquet rows of a game, as a projection of the channel's event stream.

A :class:`Collector` listens to every stamped event of a channel and keeps,
in a :class:`~exchange.tables.market_record.MarketRecord` per market, just enough
state to write, when the game ends, its rows of the four tables
(:mod:`exchange.tables.outputs`): the game (cards, the winners of each
market, dead heat), each order's final state, each fill with the matched
selection's equity at that moment, and each account's settlement in each
market (a hi/lo game has two: High and Low). Nothing is read from the exchange's
internals: what the tables say, the events said — but for each account's
balance once the game is over, which is the exchange's own figure (its
``getAccountFunds``), read when the game ends. Every row carries the game's
session and its place in it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence

from engine.cards import format_cards
from exchange.core import ladder
from exchange.core.events import OrderRejected
from exchange.game.events import Stamped
from exchange.tables.market_record import (
    GAME_WIDE,
    HANDLERS,
    MAX_HANDS,
    Asked,
    MarketRecord,
    OrderRecord,
)
from exchange.tables.outputs import Table


class Collector:
    """Builds one game's rows from its events; call :meth:`write` once the game has ended.

    ``accounts`` are every account of the world (the house's included): each gets
    a settlement row, zeros if it did not bet. The game is game ``session_game``
    (from 0) of session ``session`` (by default its own session of one game);
    ``balance(account)`` is read for every row's account when the game ends; ``min_stake`` is the markets'
    minimum stake (minor units), which the game's row carries.
    ``market_id``: the game's market, or all of them (the main one first: a hi/lo
    game's High, then Low). ``asked(rejection)``: the instruction a refusal refused, if
    known (a backtest strategy's :class:`~exchange.backtest.instructions.InstructionLog`), so that
    its row says what was asked.
    """

    def __init__(
        self,
        game_index: int,
        market_id: str | Sequence[str],
        accounts: Iterable[str],
        *,
        session: int | None = None,
        session_game: int = 0,
        balance: Callable[[str], int] | None = None,
        asked: Callable[[OrderRejected], Asked | None] | None = None,
        min_stake: int,
    ) -> None:
        self.accounts = tuple(accounts)
        self._min_stake = min_stake
        self._asked = asked
        ids = (market_id,) if isinstance(market_id, str) else tuple(market_id)
        session_number = game_index if session is None else session
        self._markets = {m: MarketRecord(game_index, m, session_number, session_game) for m in ids}
        self._game = self._markets[ids[0]]
        for market in self._markets.values():  # one game's irregularities: the voids of every market count
            market.irregularities = self._game.irregularities
        self._balance = balance

    @property
    def ended(self) -> bool:
        return self._game.ended

    @property
    def market_ids(self) -> tuple[str, ...]:
        """The game's markets, the main one first."""
        return tuple(self._markets)

    def renumber(self, game_index: int, *, session: int, session_game: int) -> None:
        """Number the game's rows otherwise than it was built with (a live recording numbers games as they end)."""
        for market in self._markets.values():
            market.game_index, market.session, market.session_game = game_index, session, session_game

    def __call__(self, stamped: Stamped) -> None:
        market = self._markets.get(stamped.market_id or "")
        if market is None:
            return
        event = stamped.event
        if type(event) is OrderRejected:
            market.refuse(event, self._instruction(event))
            return
        handler = HANDLERS.get(type(event))
        if handler is None:
            return
        if market is self._game and type(event) in GAME_WIDE:
            for each in self._markets.values():
                handler(each, stamped, event)
        else:
            handler(market, stamped, event)
        if self._game.ended and self._balance is not None and not self._game.balances:
            balance = self._balance
            for each in self._markets.values():
                each.balances = {account: balance(account) for account in self._row_accounts(each)}

    def holds_bet(self, account_id: str, bet_id: int | None) -> bool:
        """Whether ``bet_id`` is an order of ``account_id`` on one of this game's markets."""
        return self._market_of_bet(account_id, bet_id) is not None

    def refused_without_market(self, rejection: OrderRejected) -> None:
        """A refused cancel or replace (the exchange names no market for it): a row of the market of the bet it
        named, else of the market it was sent through (if known), else of the game's main market."""
        asked = self._instruction(rejection)
        market = self._market_of_bet(rejection.account_id, rejection.bet_id)
        if market is None and asked is not None:
            market = self._markets.get(asked.market_id)
        (market or self._game).refuse(rejection, asked)

    def _instruction(self, rejection: OrderRejected) -> Asked | None:
        return None if self._asked is None else self._asked(rejection)

    def _market_of_bet(self, account_id: str, bet_id: int | None) -> MarketRecord | None:
        if bet_id is None:
            return None
        for market in self._markets.values():
            order = market.orders.get(bet_id)
            if order is not None and order.placed.account_id == account_id:
                return market
        return None

    def write(self, tables: dict[str, Table]) -> None:
        """Append this game's rows to ``tables`` (games, orders, fills, settlements)."""
        game = self._game
        if not game.ended:
            raise RuntimeError(f"game {game.market_id} has not ended; its rows are not final")
        self._write_game(tables["games"])
        for market in self._markets.values():
            self._write_orders(tables["orders"], market)
            self._write_fills(tables["fills"], market)
            self._write_settlements(tables["settlements"], market)
            self._write_equities(tables["equities"], market)
        self._write_irregularities(tables["irregularities"])

    def _write_irregularities(self, table: Table) -> None:
        """One row per irregularity of the game, under its main market id; what it voided on every market."""
        g = self._game
        for i in g.irregularities:
            e = i.event
            table.append(game_index=g.game_index, session=g.session, session_game=g.session_game,
                         market_id=g.market_id, at_ms=i.at_ms, round=i.round, rule=e.rule, kind=e.kind,
                         description=e.description, cards=format_cards(e.cards),
                         dead_cards=format_cards(e.dead), outcome=e.outcome,
                         matches_voided=i.matches, stake_voided=i.stake, bets_voided=sorted(i.bets))

    # --- rows ------------------------------------------------------------------------------

    def _write_game(self, table: Table) -> None:
        g = self._game
        low = next((m for m in self._markets.values() if m is not g), None)
        hands = tuple(g.hands) + (None,) * (MAX_HANDS - len(g.hands))
        table.append(
            game_index=g.game_index,
            session=g.session,
            session_game=g.session_game,
            market_id=g.market_id,
            channel=g.channel,
            variant=g.variant,
            start_ms=g.start_ms,
            hand_1=hands[0],
            hand_2=hands[1],
            hand_3=hands[2],
            hand_4=hands[3],
            board=g.board,
            winners=",".join(str(w) for w in g.winners),
            n_winners=len(g.winners),
            dead_heat=len(g.winners) > 1,
            early=g.early,
            status=g.status,
            min_stake=self._min_stake,
            total_matched=g.total_matched,
            low_market_id=None if low is None else low.market_id,
            low_winners=None if low is None else ",".join(str(w) for w in low.winners),
            low_dead_heat=None if low is None else len(low.winners) > 1,
            low_early=None if low is None else low.early,
            low_total_matched=None if low is None else low.total_matched,
            **_draw_columns(g),
            betting_window_ms=g.betting_window_ms,
            playing_window_ms=g.playing_window_ms,
        )

    def _write_orders(self, table: Table, g: MarketRecord) -> None:
        """The market's bets and refused instructions, in the order they came (bet ids are given in that order)."""
        refusals = deque(g.rejected)
        for placed_before, bet_id in enumerate(sorted(g.orders)):
            while refusals and refusals[0][2] <= placed_before:
                self._write_rejected(table, g, *refusals.popleft()[:2])
            self._write_bet(table, g, bet_id)
        for rejection, asked, _ in refusals:
            self._write_rejected(table, g, rejection, asked)

    def _write_bet(self, table: Table, g: MarketRecord, bet_id: int) -> None:
        o = g.orders[bet_id]
        p = o.placed
        table.append(
            game_index=g.game_index,
            session=g.session,
            session_game=g.session_game,
            market_id=g.market_id,
            bet_id=bet_id,
            account=p.account_id,
            selection_id=p.selection_id,
            side=p.side.value,
            tick=p.tick,
            price=ladder.PRICE_X100[p.tick] / 100,
            size=p.size,
            size_matched=o.matched,
            size_lapsed=o.lapsed,
            size_cancelled=o.cancelled,
            size_voided=o.voided,
            average_price_matched=(o.matched_x100 / (100 * o.matched)) if o.matched else None,
            round=p.round,
            placed_ms=p.ts,
            status=_order_status(o),
            outcome=o.outcome,
            profit=o.profit,
            replaces=p.replaces,
            customer_ref=p.customer_ref,
            error_code=None,
            action="PLACE" if p.replaces is None else "REPLACE",
            cancels=o.cancels,
            lapsed_ms=o.lapsed_ms,
        )

    def _write_rejected(self, table: Table, g: MarketRecord, r: OrderRejected, asked: Asked | None) -> None:
        """A refusal's row: what the exchange said, and what was asked where it is known (a placement's side,
        price and size; a cancel's size reduction; a replace's new price; the side and selection of the bet a
        cancel or replace named, if it is one of this market's)."""
        order = g.orders.get(r.bet_id) if r.bet_id is not None else None
        bet = order.placed if order is not None and order.placed.account_id == r.account_id else None
        side = asked.side if asked is not None and asked.side is not None else None if bet is None else bet.side
        price = None if asked is None else asked.price
        selection = r.selection_id if r.selection_id is not None else None if bet is None else bet.selection_id
        table.append(
            game_index=g.game_index,
            session=g.session,
            session_game=g.session_game,
            market_id=g.market_id,
            bet_id=r.bet_id,
            account=r.account_id,
            selection_id=selection,
            side=None if side is None else side.value,
            tick=None if price is None else ladder.tick_of(price),
            price=None if price is None else float("nan") if price.is_snan() else float(price),
            size=None if asked is None else asked.size,
            size_matched=0,
            size_lapsed=0,
            size_cancelled=0,
            size_voided=0,
            average_price_matched=None,
            round=None if asked is None else asked.round,
            placed_ms=r.ts,
            status="REJECTED",
            outcome=None,
            profit=None,
            replaces=None,
            customer_ref=r.customer_ref,
            error_code=r.error_code.value,
            action=r.action.value,
            cancels=[],
            lapsed_ms=None,
        )

    def _write_fills(self, table: Table, g: MarketRecord) -> None:
        for m, rnd, equity in g.fills:
            table.append(
                game_index=g.game_index,
                session=g.session,
                session_game=g.session_game,
                market_id=g.market_id,
                match_id=m.match_id,
                at_ms=m.ts,
                round=rnd,
                selection_id=m.selection_id,
                tick=m.tick,
                price=ladder.PRICE_X100[m.tick] / 100,
                size=m.size,
                back_bet_id=m.back_bet_id,
                lay_bet_id=m.lay_bet_id,
                back_account=m.back_account_id,
                lay_account=m.lay_account_id,
                taker_side=m.taker_side.value,
                equity=None if equity is None else float(equity),
                equity_exact=None if equity is None else str(equity),
                voided=m.match_id in g.voided,
                voided_ms=g.voided.get(m.match_id),
            )

    def _write_equities(self, table: Table, g: MarketRecord) -> None:
        """Every publication of the market's prices: each selection's equity as the game published it."""
        for at_ms, e in g.published:
            for hand in e.hands:
                table.append(game_index=g.game_index, session=g.session, session_game=g.session_game,
                             market_id=g.market_id, at_ms=at_ms, round=None if e.round is None else int(e.round),
                             selection_id=hand.hand, equity=float(hand.equity),  # a probability for pandas
                             equity_exact=str(hand.equity),  # the exact share the game published
                             stderr=None if hand.stderr is None else str(hand.stderr))

    def _row_accounts(self, g: MarketRecord) -> list[str]:
        """The accounts with a settlement row: the world's, then any other that had a result, then the house."""
        accounts = list(self.accounts)
        accounts += sorted(a for a in g.results if a not in accounts)
        if g.house is not None and g.house not in accounts:
            accounts.append(g.house)
        return accounts

    def _write_settlements(self, table: Table, g: MarketRecord) -> None:
        for account in self._row_accounts(g):
            result = g.results.get(account)
            profit = result.profit if result else 0
            commission = result.commission if result else 0
            mine = [o for o in g.orders.values() if o.placed.account_id == account]
            is_house = account == g.house
            table.append(
                game_index=g.game_index,
                session=g.session,
                session_game=g.session_game,
                market_id=g.market_id,
                account=account,
                gross_profit=profit,
                commission=commission,
                net_profit=profit - commission,
                commission_received=g.commission_received if is_house else 0,
                rounding_received=g.rounding if is_house else 0,
                bets=sum(1 for o in mine if o.matched),
                matched_stake=sum(o.matched for o in mine),
                status=g.market_status or g.status,
                balance_after=g.balances.get(account),
            )


def _draw_columns(g: MarketRecord) -> dict[str, str | None]:
    """``dealt_i``, ``discarded_i``, ``drawn_i`` for each hand of a draw game (draws split by ``" / "``); else nulls."""
    out: dict[str, str | None] = {}
    for i in range(MAX_HANDS):
        dealt = g.dealt[i] if i < len(g.dealt) else None
        out[f"dealt_{i + 1}"] = dealt
        out[f"discarded_{i + 1}"] = " / ".join(g.discarded[i]) if dealt is not None and g.discarded else None
        out[f"drawn_{i + 1}"] = " / ".join(g.drawn[i]) if dealt is not None and g.drawn else None
    return out


def _order_status(o: OrderRecord) -> str:
    """The order's final state as ``listClearedOrders`` names it (``EXECUTABLE`` if still live)."""
    if o.outcome is not None:
        return "SETTLED"
    if o.voided:
        return "VOIDED"
    if o.placed.size - o.matched - o.lapsed - o.cancelled - o.voided > 0:
        return "EXECUTABLE"
    if o.matched:
        return "EXECUTION_COMPLETE"
    if o.lapsed:
        return "LAPSED"
    return "CANCELLED"
