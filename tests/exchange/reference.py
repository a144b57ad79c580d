"""A plain reference model of the exchange, written apart from ``exchange/core``, for differential tests.

It shares with the core only the command and event records (and the enums
they carry), :class:`Side`, :class:`ErrorCode` and the ladder's prices.
Everything else is done the obvious, slow way, straight from the rules in
``shared/spec/exchange.md`` and the core's documented conventions:

* every order of a market sits in one list; the resting order an incoming one
  meets first is found by filtering and sorting (price, then bet id);
* a FILL_OR_KILL order matches only if the crossing orders add up to its minimum fill, and its rest is
  cancelled at once;
* exposure is the worst P&L over every outcome still possible, computed by
  trying each one with ``Fraction``: each live selection winning alone, and
  VOID (bets settled early keep their results, the rest are refunded);
  an unmatched order counts only its downside (a back's stake where its
  selection loses, a lay's liability where it wins);
* settlement applies the dead-heat rule per fill with ``Fraction``, rounds
  each account's exact P&L once to the nearest unit (an exact half down),
  splits it over the bets by largest remainder (ties to the lower bet id),
  posts the residue to the house, and charges ``floor(net × bps / 10000)``
  on a positive net per account per market.

:meth:`Reference.execute` returns the events the core should return, except
that rejections carry an empty message (tests compare their codes); driver
misuse raises :class:`Illegal` where the core raises ``ExchangeError``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from exchange.core.commands import (
    CancelOrder,
    Command,
    CreateMarket,
    Deposit,
    OpenAccount,
    OpenMarket,
    PlaceOrder,
    ReplaceOrder,
    ReplaceOrders,
    SettleMarket,
    SettleSelection,
    SuspendMarket,
    VoidMarket,
    VoidMatchedSince,
    Withdraw,
)
from exchange.core.errors import ErrorCode
from exchange.core.events import (
    AccountCredited,
    AccountDebited,
    AccountOpened,
    AccountResult,
    BetResult,
    CancelReason,
    CommandRejected,
    Event,
    LapseReason,
    MarketCreated,
    MarketOpened,
    MarketSettled,
    MarketSuspended,
    MarketVoided,
    Matched,
    MatchVoided,
    OrderAction,
    OrderCancelled,
    OrderLapsed,
    OrderPlaced,
    OrderRejected,
    SelectionSettled,
)
from exchange.core.ladder import PRICES
from exchange.core.market import SelectionStatus
from exchange.core.orders import BetOutcome, OrderType, PersistenceType
from exchange.core.side import Side

BACK, LAY = Side.BACK, Side.LAY
IN_PLAY, LOSER = SelectionStatus.IN_PLAY, SelectionStatus.LOSER
#: A ladder price (``Decimal``) -> its tick, the index in the ladder.
TICK = {p: t for t, p in enumerate(PRICES)}


def price(tick: int) -> Fraction:
    return Fraction(PRICES[tick])


class Illegal(Exception):
    """A driver's misuse of a lifecycle command (the core raises ``ExchangeError``)."""


class Refused(Exception):
    def __init__(self, code: ErrorCode) -> None:
        super().__init__(code)
        self.code = code


@dataclass(eq=False)
class Match:
    match_id: int
    ts: int
    selection: int
    tick: int
    size: int
    back: Bet
    lay: Bet
    voided: bool = False


@dataclass(eq=False)
class Bet:
    bet_id: int
    account: str
    market: str
    selection: int
    side: Side
    tick: int
    size: int
    placed_ts: int
    round: int
    customer_ref: str | None
    remaining: int
    lapsed: int = 0
    cancelled: int = 0
    fills: list[Match] = field(default_factory=list)
    result: BetResult | None = None
    strategy_ref: str | None = None
    cancelled_ts: int | None = None  # the last cancellation's
    lapsed_ts: int | None = None
    lapse_reason: LapseReason | None = None

    @property
    def matched(self) -> int:
        return sum(m.size for m in self.fills if not m.voided)

    @property
    def voided(self) -> int:
        return sum(m.size for m in self.fills if m.voided)

    def average_price(self) -> Fraction | None:
        live = [m for m in self.fills if not m.voided]
        if not live:
            return None
        return sum((m.size * price(m.tick) for m in live), Fraction(0)) / sum(m.size for m in live)

    def matched_by_tick(self) -> tuple[tuple[int, int], ...]:
        """The stake of the unvoided fills summed per tick, ascending."""
        sums: Counter[int] = Counter()
        for m in self.fills:
            if not m.voided:
                sums[m.tick] += m.size
        return tuple(sorted(sums.items()))

    def pnl(self, winners: tuple[int, ...]) -> Fraction:
        """The exact P&L of the matched part if ``winners`` tie for the win (dead heat when several)."""
        total = Fraction(0)
        for m in self.fills:
            if m.voided:
                continue
            won = m.size * (price(m.tick) / len(winners) - 1) if self.selection in winners else Fraction(-m.size)
            total += won if self.side is BACK else -won
        return total


def loss(pnl: Fraction) -> int:
    """The loss of a P&L in whole minor units, rounded up (0 for a gain)."""
    return max(0, math.ceil(-pnl))


def unmatched_downside(selection: int, side: Side, tick: int, remaining: int, winner: int) -> Fraction:
    """What an unmatched order counts for if ``winner`` wins alone: its downside only, never its upside."""
    if side is BACK:
        return Fraction(-remaining) if selection != winner else Fraction(0)
    return -remaining * (price(tick) - 1) if selection == winner else Fraction(0)


@dataclass(eq=False)
class Mkt:
    market_id: str
    selections: tuple[int, ...]
    min_stake: int
    bps: int
    status: str = "SUSPENDED"
    round: int = 0
    sel_status: dict[int, SelectionStatus] = field(default_factory=dict)
    sel_settled_ts: dict[int, int] = field(default_factory=dict)
    closed_ts: int | None = None
    bets: list[Bet] = field(default_factory=list)
    matches: list[Match] = field(default_factory=list)
    #: accounts in the order of their first accepted order on the market
    participants: list[str] = field(default_factory=list)

    @property
    def is_open(self) -> bool:
        return self.status in ("ACTIVE", "SUSPENDED")

    def live(self) -> list[int]:
        return [s for s in self.selections if self.sel_status[s] is IN_PLAY]

    def book_order(self, only: int | None = None) -> list[Bet]:
        """Live orders per selection: backs by price then time, then lays by price then time."""
        out: list[Bet] = []
        for s in self.selections:
            if only is None or s == only:
                for side in (BACK, LAY):
                    level = [b for b in self.bets if b.selection == s and b.side is side and b.remaining]
                    out.extend(sorted(level, key=lambda b: (b.tick, b.bet_id)))
        return out


class Reference:
    """The whole exchange, plainly: balances, markets, bets."""

    def __init__(self, house: str = "HOUSE", min_stake: int = 200, commission_bps: int = 250) -> None:
        self.house = house
        self.min_stake = min_stake
        self.commission_bps = commission_bps
        self.balances: dict[str, int] = {house: 0}
        self.markets: dict[str, Mkt] = {}
        self.bets: dict[int, Bet] = {}
        self.next_bet = 1
        self.next_match = 1

    def execute(self, cmd: Command) -> list[Event]:
        handler = getattr(self, f"_do_{type(cmd).__name__}")
        out: list[Event] = handler(cmd)
        return out

    # -- money ---------------------------------------------------------------------

    def outcomes(
        self,
        account: str,
        m: Mkt,
        extra: Sequence[tuple[int, Side, int, int]] = (),
        without: Collection[int] = (),
    ) -> list[Fraction]:
        """The account's P&L in every outcome still possible on ``m``: each live selection winning alone, then the
        market voided (``extra``: more unmatched orders; ``without``: bet ids whose unmatched part is left out)."""
        bets = [b for b in m.bets if b.account == account]
        outcomes: list[Fraction] = []
        for winner in m.live():
            pnl = Fraction(0)
            for b in bets:
                pnl += b.pnl((winner,))
                if b.bet_id not in without:
                    pnl += unmatched_downside(b.selection, b.side, b.tick, b.remaining, winner)
            for order in extra:
                pnl += unmatched_downside(*order, winner)
            outcomes.append(pnl)
        outcomes.append(Fraction(sum(b.result.profit for b in bets if b.result is not None)))
        return outcomes

    def market_exposure(self, account: str, m: Mkt) -> int:
        """The worst loss over every outcome still possible on ``m``."""
        return loss(min(self.outcomes(account, m)))

    def exposure(self, account: str) -> int:
        return sum(self.market_exposure(account, m) for m in self.markets.values() if m.is_open)

    def available(self, account: str) -> int:
        return self.balances[account] - self.exposure(account)

    def funds(self, account: str) -> tuple[int, int, int]:
        exposure = self.exposure(account)
        return self.balances[account], exposure, self.balances[account] - exposure

    def _affordable(self, account: str, m: Mkt, before: list[Fraction], after: list[Fraction]) -> bool:
        """Every outcome an order makes worse must lose no more than the balance less the other markets' exposure."""
        cover = self.balances[account] - (self.exposure(account) - self.market_exposure(account, m))
        return all(loss(a) <= cover for b, a in zip(before, after, strict=True) if a < b)

    # -- accounts ------------------------------------------------------------------

    def _do_OpenAccount(self, c: OpenAccount) -> list[Event]:
        if not isinstance(c.account_id, str) or not c.account_id:
            return [self._refused(c, ErrorCode.INVALID_ACCOUNT)]
        if c.account_id in self.balances:
            return [self._refused(c, ErrorCode.DUPLICATE_ACCOUNT)]
        self.balances[c.account_id] = 0
        return [AccountOpened(c.ts, c.account_id)]

    def _do_Deposit(self, c: Deposit) -> list[Event]:
        if c.account_id not in self.balances:
            return [self._refused(c, ErrorCode.INVALID_ACCOUNT)]
        if type(c.amount) is not int or c.amount <= 0:
            return [self._refused(c, ErrorCode.INVALID_AMOUNT)]
        self.balances[c.account_id] += c.amount
        return [AccountCredited(c.ts, c.account_id, c.amount, c.reason)]

    def _do_Withdraw(self, c: Withdraw) -> list[Event]:
        if c.account_id not in self.balances:
            return [self._refused(c, ErrorCode.INVALID_ACCOUNT)]
        if type(c.amount) is not int or c.amount <= 0:
            return [self._refused(c, ErrorCode.INVALID_AMOUNT)]
        if c.amount > self.available(c.account_id):
            return [self._refused(c, ErrorCode.INSUFFICIENT_FUNDS)]
        self.balances[c.account_id] -= c.amount
        return [AccountDebited(c.ts, c.account_id, c.amount, c.reason)]

    @staticmethod
    def _refused(c: OpenAccount | Deposit | Withdraw, code: ErrorCode) -> CommandRejected:
        return CommandRejected(c.ts, type(c).__name__, c.account_id, code, "")

    # -- trading -------------------------------------------------------------------

    def _do_PlaceOrder(self, c: PlaceOrder) -> list[Event]:
        try:
            m, tick = self._check_place(c)
        except Refused as r:
            return [
                OrderRejected(
                    c.ts, OrderAction.PLACE, c.account_id, r.code, "", c.market_id, c.selection_id, None, c.customer_ref
                )
            ]
        events = self._place(c.ts, c.account_id, m, c.selection_id, c.side, tick, c.size, c.customer_ref, None,
                             c.strategy_ref, c.fill_or_kill)
        bet = self.bets[self.next_bet - 1]
        if c.fill_or_kill is not None and bet.remaining:  # nothing of it rests: the rest is cancelled at once
            events.append(OrderCancelled(c.ts, bet.bet_id, bet.account, bet.market, bet.selection, bet.remaining,
                                         CancelReason.FILL_OR_KILL))
            bet.cancelled += bet.remaining
            bet.remaining = 0
            bet.cancelled_ts = c.ts
        return events

    def _check_place(self, c: PlaceOrder) -> tuple[Mkt, int]:
        if c.account_id not in self.balances:
            raise Refused(ErrorCode.INVALID_ACCOUNT)
        m = self.markets.get(c.market_id)
        if m is None:
            raise Refused(ErrorCode.INVALID_MARKET_ID)
        if type(c.selection_id) is not int or c.selection_id not in m.selections:
            raise Refused(ErrorCode.INVALID_RUNNER)
        if m.status in ("SETTLED", "VOID"):  # closed: not open, whatever became of the selection
            raise Refused(ErrorCode.MARKET_NOT_OPEN_FOR_BETTING)
        status = m.sel_status[c.selection_id]
        if status is LOSER:
            raise Refused(ErrorCode.SELECTION_ALREADY_LOST)
        if status is not IN_PLAY:
            raise Refused(ErrorCode.SELECTION_ALREADY_WON)
        self._check_window(m, c.round)
        if c.order_type is not OrderType.LIMIT:
            raise Refused(ErrorCode.INVALID_ORDER_TYPE)
        if c.persistence_type is not PersistenceType.LAPSE:
            raise Refused(ErrorCode.INVALID_PERSISTENCE_TYPE)
        tick = parse_tick(c.price)
        if type(c.size) is not int or c.size < m.min_stake:
            raise Refused(ErrorCode.INVALID_BET_SIZE)
        if c.fill_or_kill is not None and (type(c.fill_or_kill) is not int or not 0 < c.fill_or_kill <= c.size):
            raise Refused(ErrorCode.INVALID_MIN_FILL_SIZE)
        before = self.outcomes(c.account_id, m)
        after = self.outcomes(c.account_id, m, extra=((c.selection_id, c.side, tick, c.size),))
        if not self._affordable(c.account_id, m, before, after):
            raise Refused(ErrorCode.INSUFFICIENT_FUNDS)
        return m, tick

    @staticmethod
    def _check_window(m: Mkt, round_: object) -> None:
        if m.status != "ACTIVE":
            raise Refused(ErrorCode.MARKET_NOT_OPEN_FOR_BETTING)
        if round_ is not None and round_ != m.round:
            if type(round_) is int and round_ < m.round:
                raise Refused(ErrorCode.BET_REJECTED_ROUND_STALE)
            raise Refused(ErrorCode.MARKET_NOT_OPEN_FOR_BETTING)

    def _place(
        self,
        ts: int,
        account: str,
        m: Mkt,
        selection: int,
        side: Side,
        tick: int,
        size: int,
        customer_ref: str | None,
        replaces: int | None,
        strategy_ref: str | None = None,
        min_fill: int | None = None,
    ) -> list[Event]:
        """Queue a bet and match it while the book crosses; ``min_fill``: match nothing unless the crossing orders
        can match that much at once (a FILL_OR_KILL order's)."""
        bet = Bet(self.next_bet, account, m.market_id, selection, side, tick, size, ts, m.round, customer_ref, size,
                  strategy_ref=strategy_ref)
        self.next_bet += 1
        self.bets[bet.bet_id] = bet
        m.bets.append(bet)
        if account not in m.participants:
            m.participants.append(account)
        events: list[Event] = [
            OrderPlaced(
                ts, bet.bet_id, account, m.market_id, selection, side, tick, size, m.round, customer_ref, replaces,
                strategy_ref,
            )
        ]
        opposite = LAY if side is BACK else BACK
        matches = min_fill is None or self.crossable(m, selection, side, tick) >= min_fill  # judged once, before
        while bet.remaining and matches:
            crossing = [
                r
                for r in m.bets
                if r.selection == selection
                and r.side is opposite
                and r.remaining
                and (r.tick >= tick if side is BACK else r.tick <= tick)
            ]
            if not crossing:
                break
            # the best price for the incoming order first (highest lay for a back, lowest back for a lay), then time
            resting = min(crossing, key=lambda r: (-r.tick if side is BACK else r.tick, r.bet_id))
            size_now = min(bet.remaining, resting.remaining)
            back, lay = (bet, resting) if side is BACK else (resting, bet)
            match = Match(self.next_match, ts, selection, resting.tick, size_now, back, lay)
            self.next_match += 1
            m.matches.append(match)
            for b in (back, lay):
                b.remaining -= size_now
                b.fills.append(match)
            events.append(
                Matched(
                    ts,
                    match.match_id,
                    m.market_id,
                    selection,
                    resting.tick,
                    size_now,
                    back.bet_id,
                    lay.bet_id,
                    back.account,
                    lay.account,
                    side,
                )
            )
        return events

    @staticmethod
    def crossable(m: Mkt, selection: int, side: Side, tick: int) -> int:
        """What an order on ``side`` at ``tick`` could match now: the opposite side's resting size at its price or
        better."""
        opposite = LAY if side is BACK else BACK
        return sum(r.remaining for r in m.bets if r.selection == selection and r.side is opposite
                   and (r.tick >= tick if side is BACK else r.tick <= tick))

    def _own_live(self, account: str, bet_id: object, market_id: str | None = None) -> Bet:
        if account not in self.balances:
            raise Refused(ErrorCode.INVALID_ACCOUNT)
        bet = self.bets.get(bet_id) if type(bet_id) is int else None
        if bet is None or bet.account != account:
            raise Refused(ErrorCode.INVALID_BET_ID)
        if market_id is not None and bet.market != market_id:  # not one of its bets there, done or not
            raise Refused(ErrorCode.INVALID_BET_ID)
        if not bet.remaining:
            raise Refused(ErrorCode.BET_TAKEN_OR_LAPSED)
        return bet

    def _do_CancelOrder(self, c: CancelOrder) -> list[Event]:
        try:
            bet = self._own_live(c.account_id, c.bet_id, c.market_id)
            if c.size_reduction is None:
                amount = bet.remaining
            elif type(c.size_reduction) is not int or c.size_reduction <= 0:
                raise Refused(ErrorCode.INVALID_BET_SIZE)
            else:
                amount = min(c.size_reduction, bet.remaining)
        except Refused as r:
            return [self._order_refused(c.ts, OrderAction.CANCEL, c.account_id, r.code, c.bet_id)]
        bet.remaining -= amount
        bet.cancelled += amount
        bet.cancelled_ts = c.ts
        return [OrderCancelled(c.ts, bet.bet_id, bet.account, bet.market, bet.selection, amount, CancelReason.BY_USER)]

    def _do_ReplaceOrder(self, c: ReplaceOrder) -> list[Event]:
        return self._move(c.ts, c.account_id, None, ((c.bet_id, c.new_price),), c.round)

    def _do_ReplaceOrders(self, c: ReplaceOrders) -> list[Event]:
        return self._move(c.ts, c.account_id, c.market_id, [(m.bet_id, m.new_price) for m in c.moves], c.round)

    def _move(self, ts: int, account: str, market_id: str | None, moves: Sequence[tuple[int, Any]],
              round_: int | None) -> list[Event]:
        """Betfair's replace: each bet that can be moved is cancelled; then every new bet is placed, or none is
        (one off the ladder, or the final position with all of them unaffordable)."""
        events: list[Event] = []
        moving: list[tuple[Bet, Any]] = []
        for bet_id, price in moves:
            try:
                bet = self._own_live(account, bet_id, market_id)
                if any(b is bet for b, _ in moving):
                    raise Refused(ErrorCode.DUPLICATE_BETIDS)
                self._check_window(self.markets[bet.market], round_)
            except Refused as r:
                events.append(self._order_refused(ts, OrderAction.REPLACE, account, r.code, bet_id))
                continue
            moving.append((bet, price))
        refusal = self._new_bets_refused(account, moving)
        amounts: list[int] = []
        for bet, _ in moving:
            amount, bet.remaining = bet.remaining, 0
            bet.cancelled += amount
            bet.cancelled_ts = ts
            amounts.append(amount)
            events.append(OrderCancelled(ts, bet.bet_id, account, bet.market, bet.selection, amount,
                                         CancelReason.REPLACED))
        if refusal is not None:
            failed, code = refusal
            return events + [self._order_refused(ts, OrderAction.REPLACE, account,
                                                 code if i == failed else ErrorCode.RELATED_ACTION_FAILED, bet.bet_id)
                             for i, (bet, _) in enumerate(moving)]
        for (bet, price), amount in zip(moving, amounts, strict=True):
            events += self._place(ts, account, self.markets[bet.market], bet.selection, bet.side, parse_tick(price),
                                  amount, bet.customer_ref, bet.bet_id, bet.strategy_ref)
        return events

    def _new_bets_refused(self, account: str, moving: Sequence[tuple[Bet, Any]]) -> tuple[int, ErrorCode] | None:
        """Which new bet cannot be placed, and why: the first off the ladder; else, for funds (the position with
        every move made, against the one before), the first lay moved to a longer price on a selection whose
        winning the account cannot cover."""
        ticks: list[int] = []
        for i, (_, price) in enumerate(moving):
            try:
                ticks.append(parse_tick(price))
            except Refused as r:
                return i, r.code
        if not moving:
            return None
        m = self.markets[moving[0][0].market]
        before = self.outcomes(account, m)
        moved = [(b.selection, b.side, t, b.remaining) for (b, _), t in zip(moving, ticks, strict=True)]
        after = self.outcomes(account, m, extra=moved, without={b.bet_id for b, _ in moving})
        cover = self.balances[account] - (self.exposure(account) - self.market_exposure(account, m))
        short = {winner for winner, b, a in zip(m.live(), before, after, strict=False) if a < b and loss(a) > cover}
        return next(((i, ErrorCode.INSUFFICIENT_FUNDS) for i, ((b, _), t) in enumerate(zip(moving, ticks, strict=True))
                     if b.side is LAY and t > b.tick and b.selection in short), None)

    @staticmethod
    def _order_refused(ts: int, action: OrderAction, account: str, code: ErrorCode, bet_id: Any) -> OrderRejected:
        return OrderRejected(ts, action, account, code, "", None, None, bet_id, None)

    # -- the market lifecycle --------------------------------------------------------

    def _open(self, market_id: str) -> Mkt:
        m = self.markets.get(market_id)
        if m is None or not m.is_open:
            raise Illegal(f"market {market_id!r} is not open")
        return m

    def _do_CreateMarket(self, c: CreateMarket) -> list[Event]:
        ids = tuple(c.selection_ids)
        if c.market_id in self.markets:
            raise Illegal("market exists")
        if len(ids) < 2 or len(set(ids)) != len(ids) or any(type(i) is not int for i in ids):
            raise Illegal("selection ids")
        min_stake = self.min_stake if c.min_stake is None else c.min_stake
        bps = self.commission_bps if c.commission_bps is None else c.commission_bps
        if type(min_stake) is not int or min_stake <= 0 or type(bps) is not int or not 0 <= bps <= 10_000:
            raise Illegal("min stake or commission")
        m = Mkt(c.market_id, ids, min_stake, bps, sel_status=dict.fromkeys(ids, IN_PLAY))
        self.markets[c.market_id] = m
        return [MarketCreated(c.ts, c.market_id, ids, min_stake, bps)]

    def _do_OpenMarket(self, c: OpenMarket) -> list[Event]:
        m = self._open(c.market_id)
        if m.status != "SUSPENDED":
            raise Illegal("not suspended")
        m.status = "ACTIVE"
        m.round += 1
        return [MarketOpened(c.ts, c.market_id, m.round)]

    def _do_SuspendMarket(self, c: SuspendMarket) -> list[Event]:
        m = self._open(c.market_id)
        if m.status != "ACTIVE":
            raise Illegal("not active")
        events = self._lapse(m, None, c.ts, c.lapse_reason)
        m.status = "SUSPENDED"
        return [*events, MarketSuspended(c.ts, c.market_id, m.round)]

    @staticmethod
    def _lapse(m: Mkt, only: int | None, ts: int, reason: LapseReason) -> list[Event]:
        events: list[Event] = []
        for bet in m.book_order(only):
            events.append(OrderLapsed(ts, bet.bet_id, bet.account, m.market_id, bet.selection, bet.remaining, reason))
            bet.lapsed += bet.remaining
            bet.remaining = 0
            bet.lapsed_ts, bet.lapse_reason = ts, reason
        return events

    def _do_SettleSelection(self, c: SettleSelection) -> list[Event]:
        m = self._open(c.market_id)
        if c.selection_id not in m.selections or m.sel_status[c.selection_id] is not IN_PLAY:
            raise Illegal("not a selection in play")
        events = self._lapse(m, c.selection_id, c.ts, LapseReason.SELECTION_SETTLED)
        results: list[BetResult] = []
        for account in m.participants:
            for bet in m.bets:
                if bet.account == account and bet.selection == c.selection_id and bet.matched:
                    lost = bet.side is BACK
                    profit = -bet.matched if lost else bet.matched
                    bet.result = BetResult(
                        bet.bet_id, account, bet.selection, BetOutcome.LOST if lost else BetOutcome.WON, profit
                    )
                    results.append(bet.result)
        m.sel_status[c.selection_id] = LOSER
        m.sel_settled_ts[c.selection_id] = c.ts
        events.append(SelectionSettled(c.ts, c.market_id, c.selection_id, LOSER, tuple(results)))
        if len(m.live()) == 1:
            events.extend(self._settle(m, (m.live()[0],), c.ts))
        return events

    def _do_SettleMarket(self, c: SettleMarket) -> list[Event]:
        m = self._open(c.market_id)
        winners = tuple(c.winners)
        if not winners or len(set(winners)) != len(winners):
            raise Illegal("winners")
        if any(w not in m.selections or m.sel_status[w] is not IN_PLAY for w in winners):
            raise Illegal("a winner not in play")
        return self._settle(m, winners, c.ts)

    def _settle(self, m: Mkt, winners: tuple[int, ...], ts: int) -> list[Event]:
        events = self._lapse(m, None, ts, LapseReason.MARKET_SETTLED)
        results: list[BetResult] = []
        accounts: list[AccountResult] = []
        posted = 0
        for account in m.participants:
            mine = [b for b in m.bets if b.account == account]
            before = sum(b.result.profit for b in mine if b.result is not None)
            todo = sorted((b for b in mine if b.result is None and b.matched), key=lambda b: b.bet_id)
            exact = [b.pnl(winners) for b in todo]
            total = round_half_down(sum(exact, Fraction(0)))
            for b, profit in zip(todo, largest_remainder(exact, total), strict=True):
                won = (b.selection in winners) == (b.side is BACK)
                b.result = BetResult(b.bet_id, account, b.selection, BetOutcome.WON if won else BetOutcome.LOST, profit)
                results.append(b.result)
            posted += total
            accounts.append(AccountResult(account, before + total, commission(before + total, m.bps)))
        winner = SelectionStatus.WINNER if len(winners) == 1 else SelectionStatus.TIED_DEAD_HEAT
        for s in m.live():
            m.sel_status[s] = winner if s in winners else LOSER
        self._close(m, "SETTLED", ts, accounts, -posted)
        events.append(MarketSettled(ts, m.market_id, winners, tuple(results), tuple(accounts), -posted, self.house))
        return events

    def _close(self, m: Mkt, status: str, ts: int, accounts: list[AccountResult], rounding: int) -> None:
        for a in accounts:
            self.balances[a.account_id] += a.profit - a.commission
            self.balances[self.house] += a.commission
        self.balances[self.house] += rounding
        m.status = status
        m.closed_ts = ts

    def _void_matches(self, m: Mkt, since: int | None, ts: int, reason: str,
                      first_match_id: int | None = None) -> list[MatchVoided]:
        events: list[MatchVoided] = []
        live = m.live()
        for x in m.matches:
            if x.voided or x.selection not in live or (since is not None and x.ts < since):
                continue
            if first_match_id is not None and x.match_id < first_match_id:
                continue
            x.voided = True
            events.append(
                MatchVoided(
                    ts,
                    x.match_id,
                    m.market_id,
                    x.selection,
                    x.tick,
                    x.size,
                    x.back.bet_id,
                    x.lay.bet_id,
                    x.back.account,
                    x.lay.account,
                    reason,
                )
            )
        return events

    def _do_VoidMarket(self, c: VoidMarket) -> list[Event]:
        m = self._open(c.market_id)
        events: list[Event] = []
        for bet in m.book_order():
            events.append(
                OrderCancelled(
                    c.ts, bet.bet_id, bet.account, m.market_id, bet.selection, bet.remaining, CancelReason.MARKET_VOIDED
                )
            )
            bet.cancelled += bet.remaining
            bet.remaining = 0
            bet.cancelled_ts = c.ts
        events.extend(self._void_matches(m, None, c.ts, c.reason))
        accounts = []
        for account in m.participants:
            net = sum(b.result.profit for b in m.bets if b.account == account and b.result is not None)
            accounts.append(AccountResult(account, net, commission(net, m.bps)))
        self._close(m, "VOID", c.ts, accounts, 0)
        events.append(MarketVoided(c.ts, c.market_id, tuple(accounts), self.house, c.reason))
        return events

    def _do_VoidMatchedSince(self, c: VoidMatchedSince) -> list[Event]:
        m = self._open(c.market_id)
        events: list[Event] = list(self._void_matches(m, c.since_ts, c.ts, c.reason, c.first_match_id))
        parties: list[str] = []
        for ev in events:
            assert isinstance(ev, MatchVoided)
            for account in (ev.back_account_id, ev.lay_account_id):
                if account not in parties:
                    parties.append(account)
        for account in parties:
            if self.available(account) >= 0:
                continue
            for bet in m.bets:
                if bet.account == account and bet.remaining:
                    events.append(
                        OrderCancelled(
                            c.ts,
                            bet.bet_id,
                            account,
                            m.market_id,
                            bet.selection,
                            bet.remaining,
                            CancelReason.ACCOUNT_OVERDRAWN,
                        )
                    )
                    bet.cancelled += bet.remaining
                    bet.remaining = 0
                    bet.cancelled_ts = c.ts
        return events

    # -- reads -----------------------------------------------------------------------

    def cleared_orders(self, account: str) -> list[dict[str, Any]]:
        """``listClearedOrders``: bets on closed markets or on selections settled early, by bet id."""
        out = []
        for bet in sorted(self.bets.values(), key=lambda b: b.bet_id):
            m = self.markets[bet.market]
            if bet.account != account or (m.is_open and m.sel_status[bet.selection] is IN_PLAY):
                continue
            result = bet.result
            if result is not None:
                status = "SETTLED"
            elif bet.voided:
                status = "VOIDED"
            elif bet.lapsed:
                status = "LAPSED"
            else:
                status = "CANCELLED"
            settled_ts = m.sel_settled_ts.get(bet.selection, m.closed_ts)
            by_tick = bet.matched_by_tick()  # kept only when the bet matched at more than one price
            out.append(
                {
                    "bet_id": bet.bet_id,
                    "account_id": account,
                    "market_id": bet.market,
                    "selection_id": bet.selection,
                    "side": bet.side,
                    "price_requested": PRICES[bet.tick],
                    "size": bet.size,
                    "bet_status": status,
                    "bet_outcome": None if result is None else result.outcome,
                    "size_settled": bet.matched if result is not None else 0,
                    "price_matched": bet.average_price(),
                    "profit": 0 if result is None else result.profit,
                    "size_cancelled": bet.cancelled,
                    "size_lapsed": bet.lapsed,
                    "size_voided": bet.voided,
                    "placed_ts": bet.placed_ts,
                    "last_matched_ts": bet.fills[-1].ts if bet.fills else None,
                    "settled_ts": settled_ts,
                    "customer_ref": bet.customer_ref,
                    "round": bet.round,
                    "strategy_ref": bet.strategy_ref,
                    "several_prices": by_tick if len(by_tick) > 1 else (),
                    "cancelled_ts": bet.cancelled_ts,
                    "lapsed_ts": bet.lapsed_ts,
                    "lapse_reason": bet.lapse_reason,
                }
            )
        return out

    def matched_on(self, account: str, market_id: str) -> dict[int, tuple[tuple[Side, str | None, Any], ...]]:
        """The account's bets on a market with an unvoided fill, per selection, by bet id: each one's side,
        strategy ref and stake per tick."""
        out: dict[int, list[tuple[Side, str | None, Any]]] = {}
        for b in sorted(self.bets.values(), key=lambda b: b.bet_id):
            if b.account == account and b.market == market_id and b.matched:
                out.setdefault(b.selection, []).append((b.side, b.strategy_ref, b.matched_by_tick()))
        return {selection: tuple(rows) for selection, rows in out.items()}

    def current_orders(self, account: str) -> list[dict[str, Any]]:
        """``listCurrentOrders``: the account's bets on markets not yet closed, by bet id."""
        out = []
        for bet in sorted(self.bets.values(), key=lambda b: b.bet_id):
            if bet.account != account or not self.markets[bet.market].is_open:
                continue
            out.append(
                {
                    "bet_id": bet.bet_id,
                    "selection_id": bet.selection,
                    "side": bet.side,
                    "tick": bet.tick,
                    "size": bet.size,
                    "status": "EXECUTABLE" if bet.remaining else "EXECUTION_COMPLETE",
                    "size_matched": bet.matched,
                    "average_price_matched": bet.average_price(),
                    "size_remaining": bet.remaining,
                    "size_lapsed": bet.lapsed,
                    "size_cancelled": bet.cancelled,
                    "size_voided": bet.voided,
                    "matched_ts": bet.fills[-1].ts if bet.fills else None,
                    "round": bet.round,
                    "cancelled_ts": bet.cancelled_ts,
                    "lapsed_ts": bet.lapsed_ts,
                    "lapse_reason": bet.lapse_reason,
                }
            )
        return out

    def market_view(self, market_id: str) -> tuple[object, ...]:
        """Status, round, and per selection: status, levels to back (best first), to lay, traded volume,
        last traded tick, total matched.  A closed market shows its books empty."""
        m = self.markets[market_id]
        runners = []
        for s in m.selections:
            resting = [b for b in m.bets if b.selection == s and b.remaining]
            to_back = levels(b for b in resting if b.side is LAY)
            to_lay = levels(b for b in resting if b.side is BACK)
            traded = [x for x in m.matches if x.selection == s and not x.voided]
            volume: dict[int, int] = {}
            for x in traded:
                volume[x.tick] = volume.get(x.tick, 0) + x.size
            runners.append(
                (
                    s,
                    m.sel_status[s],
                    tuple(sorted(to_back, reverse=True)),
                    tuple(sorted(to_lay)),
                    tuple(sorted(volume.items())),
                    traded[-1].tick if traded else None,
                    sum(volume.values()),
                )
            )
        return (m.status, m.round, tuple(runners))


def levels(bets: Any) -> list[tuple[int, int]]:
    sizes: dict[int, int] = {}
    for b in bets:
        sizes[b.tick] = sizes.get(b.tick, 0) + b.remaining
    return list(sizes.items())


def parse_tick(value: object) -> int:
    """A client price (``Decimal``, text, int, float by its shortest repr) as a ladder tick, else ``INVALID_ODDS``."""
    exact: Decimal | None = None
    try:
        if isinstance(value, bool):
            exact = None
        elif isinstance(value, Decimal):
            exact = value
        elif isinstance(value, int):
            exact = Decimal(value)
        elif isinstance(value, float):
            exact = Decimal(repr(value))
        elif isinstance(value, str):
            exact = Decimal(value.strip())
    except InvalidOperation:
        exact = None
    if exact is None or not exact.is_finite() or exact not in TICK:
        raise Refused(ErrorCode.INVALID_ODDS)
    return TICK[exact]


def round_half_down(x: Fraction) -> int:
    """The nearest integer, an exact half going down: ``ceil(x - 1/2)``."""
    return math.ceil(x - Fraction(1, 2))


def largest_remainder(exact: list[Fraction], total: int) -> list[int]:
    """Floors, then one more unit each to the largest fractional parts (ties: the earlier bet) until ``total``."""
    parts = [math.floor(x) for x in exact]
    extra = total - sum(parts)
    assert 0 <= extra <= len(exact), (exact, total)
    by_remainder = sorted(range(len(exact)), key=lambda i: (-(exact[i] - parts[i]), i))
    for i in by_remainder[:extra]:
        parts[i] += 1
    return parts


def commission(net: int, bps: int) -> int:
    return math.floor(Fraction(net * bps, 10_000)) if net > 0 else 0
