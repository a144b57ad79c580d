"""Random order flows for property and stress tests, with the invariants checked after every step.

A flow is a list of abstract steps (tuples of small ints); :class:`FlowRunner`
turns each into a meaningful command for the current state (an existing bet
id, a live selection, a market that is open...), executes it and checks:

* ``Exchange._check()`` (books, orders' size identity, back = lay matched per
  price and selection, exposure = recomputation, Σ balances = money paid in);
* no order matched beyond its size;
* no command but ``VoidMatchedSince`` and ``SettleSelection`` lowers an account's
  available to bet below zero, or further below zero: a voided hedge brings back
  the risk it covered, and a hand settled early can make the VOID outcome (bets
  settled early keep their results, the rest are refunded) the account's worst,
  which is then what its exposure on that market is; ``VoidMarket`` may not
  (exposure reserves the loss of the VOID outcome);
* after ``VoidMarket``, no account's balance is below zero, unless matches in
  that market were voided by ``VoidMatchedSince`` or the account was already
  left short by one or by a hand settled early (the documented cases above);
  after a market settles normally, none is unless a ``VoidMatchedSince`` left
  it short;
* after ``VoidMatchedSince``, exactly the accounts party to a voided match that
  were left below zero had their unmatched orders on the market cancelled
  (``ACCOUNT_OVERDRAWN``), and an account still below zero has none left there;
* at every market settlement or void: Σ P&L + rounding = 0, the house gets
  every commission, and each balance moves by P&L − commission;
* replaying the events rebuilds the same state digest (after every step, or
  every ``replay_every`` steps); at the end, so do the JSON round trip of the
  events and the commands.
"""

from __future__ import annotations

import json
import math
import random
from decimal import Decimal
from fractions import Fraction

from exchange.core import ladder
from exchange.core.accounts import Position
from exchange.core.commands import (
    CancelOrder,
    Command,
    CreateMarket,
    Deposit,
    OpenAccount,
    OpenMarket,
    PlaceOrder,
    ReplaceOrder,
    SettleMarket,
    SettleSelection,
    SuspendMarket,
    VoidMarket,
    VoidMatchedSince,
    Withdraw,
    command_from_dict,
)
from exchange.core.events import (
    CancelReason,
    Event,
    MarketSettled,
    MarketVoided,
    MatchVoided,
    OrderCancelled,
    OrderPlaced,
    event_from_dict,
)
from exchange.core.exchange import Exchange
from exchange.core.market import Market, MarketStatus
from exchange.core.side import Side

Step = tuple[int, ...]
SELECTIONS = (11, 22, 33, 44)
HOUSE = "HOUSE"


class FlowRunner:
    def __init__(self, accounts: int = 6, markets: int = 2, balance: int = 20_000, replay_every: int = 1) -> None:
        self.ex = Exchange()
        #: replay the event journal and compare digests every this many steps
        self.replay_every = replay_every
        self.steps = 0
        #: bet id -> the size its OrderPlaced event gave
        self.placed_size: dict[int, int] = {}
        self.names = [f"a{i}" for i in range(accounts)]
        self.commands: list[Command] = []
        self.events: list[Event] = []
        self.ts = 0
        self.market_count = 0
        self.settlements = 0
        #: markets where VoidMatchedSince voided a match, and accounts it, or a hand settled early, left below zero
        self.void_since_markets: set[str] = set()
        self.void_since_short: set[str] = set()
        self.settled_early_short: set[str] = set()
        for name in self.names:
            self._run(OpenAccount(self._tick(), name))
            self._run(Deposit(self._tick(), name, balance))
        self.slots = [self._new_market() for _ in range(markets)]

    def _tick(self) -> int:
        self.ts += 1
        return self.ts

    def _new_market(self) -> str:
        self.market_count += 1
        market_id = f"1.{self.market_count}"
        self._run(CreateMarket(self._tick(), market_id, SELECTIONS))
        self._run(OpenMarket(self._tick(), market_id))
        return market_id

    def _run(self, command: Command) -> list[Event]:
        before = {name: account.balance for name, account in self.ex.accounts.items()}
        available = {name: account.available() for name, account in self.ex.accounts.items()}
        events = self.ex.execute(command)
        self.commands.append(command)
        self.events.extend(events)
        self.check(events, before)
        if isinstance(command, VoidMatchedSince):
            self.check_overdrawn_cancels(command.market_id, events)
            if any(isinstance(e, MatchVoided) for e in events):
                self.void_since_markets.add(command.market_id)
            self.void_since_short |= {n for n, a in self.ex.accounts.items() if n != HOUSE and a.available() < 0}
        else:
            for name, account in self.ex.accounts.items():
                if name == HOUSE or name not in available or account.available() >= min(available[name], 0):
                    continue
                assert isinstance(command, SettleSelection), (name, available[name], account.funds())
                pos = account.positions.get(command.market_id)
                assert pos is not None and pos.exposure() == -pos.settled, (name, available[name], account.funds())
                self.settled_early_short.add(name)
        if isinstance(command, VoidMarket) and command.market_id not in self.void_since_markets:
            for name, account in self.ex.accounts.items():
                if name != HOUSE and name not in self.void_since_short | self.settled_early_short:
                    assert account.balance >= 0, (name, command.market_id, account.funds())
        if any(isinstance(e, MarketSettled) for e in events):  # a normal settlement overdraws no one the voids spared
            for name, account in self.ex.accounts.items():
                if name != HOUSE and name not in self.void_since_short:
                    assert account.balance >= 0, (name, command, account.funds())
        return events

    def check_overdrawn_cancels(self, market_id: str, events: list[Event]) -> None:
        """The voids' parties left below zero lost their unmatched orders on the market; no one else did."""
        ex = self.ex
        parties = {a for e in events if isinstance(e, MatchVoided) for a in (e.back_account_id, e.lay_account_id)}
        cancelled: dict[str, dict[int, int]] = {}
        for e in events:
            if isinstance(e, OrderCancelled):
                assert e.reason is CancelReason.ACCOUNT_OVERDRAWN and e.market_id == market_id, e
                cancelled.setdefault(e.account_id, {})[e.bet_id] = e.size
        assert set(cancelled) <= parties, (cancelled, parties)
        for name in parties:
            account = ex.accounts[name]
            pos = account.positions[market_id]
            live = [o.bet_id for o in pos.orders if o.remaining]
            if name in cancelled:
                # it was below zero before the cancels (restore them to see), and every live order went
                others = sum(oracle_exposure(p) for m, p in account.positions.items() if m != market_id)
                restored = account.balance - others - oracle_exposure(pos, cancelled[name])
                assert restored < 0, (name, restored)
                assert not live, (name, live)
            elif live:
                assert account.available() >= 0, (name, account.funds(), live)

    def check(self, events: list[Event], before: dict[str, int]) -> None:
        ex = self.ex
        ex._check()
        for account in ex.accounts.values():
            for pos in account.positions.values():
                assert pos.exposure() == oracle_exposure(pos), (account.account_id, pos.market.market_id)
        for ev in events:
            if isinstance(ev, OrderPlaced):
                self.placed_size[ev.bet_id] = ev.size
        # every order placed is open, or cleared with its closed market (never lost, never both)
        assert self.placed_size.keys() == ex.orders.keys() | ex.cleared.keys()
        assert not ex.orders.keys() & ex.cleared.keys()
        for cleared in ex.cleared.values():
            assert cleared.size == self.placed_size[cleared.bet_id], cleared
        for order in ex.orders.values():
            # the size placed (from the event, not the order's own sum) is split, never exceeded
            placed = self.placed_size[order.bet_id]
            assert order.matched + order.remaining + order.lapsed + order.cancelled + order.voided == placed, order
            assert order.matched <= placed and order.remaining <= placed
        for ev in events:
            if isinstance(ev, MarketSettled | MarketVoided):
                self.settlements += 1
                rounding = ev.rounding if isinstance(ev, MarketSettled) else 0
                assert sum(a.profit for a in ev.accounts) + rounding == 0
                commission = sum(a.commission for a in ev.accounts)
                if isinstance(ev, MarketSettled):
                    check_against_exact(ex, ev)
                for a in ev.accounts:
                    assert 0 <= a.commission <= max(a.profit, 0)
                    if a.account_id != HOUSE:
                        assert ex.accounts[a.account_id].balance - before[a.account_id] == a.profit - a.commission
                house_gain = ex.accounts[HOUSE].balance - before[HOUSE]
                house_own = sum(a.profit - a.commission for a in ev.accounts if a.account_id == HOUSE)
                assert house_gain == commission + rounding + house_own

    # -- steps ---------------------------------------------------------------

    def step(self, step: Step) -> None:
        kind, a, b, c, d = (*step, 0, 0, 0, 0, 0)[:5]
        slot = a % len(self.slots)
        market_id = self.slots[slot]
        market = self.ex.markets[market_id]
        assert isinstance(market, Market)  # a slot always holds an open market: a closed one is replaced
        account = self.names[b % len(self.names)]
        kind %= 100
        if kind < 58:
            if market.status is MarketStatus.SUSPENDED and d % 4:
                self._run(OpenMarket(self._tick(), market_id))  # most of the time the next window opens
            self._place(market_id, account, c, d, kind)
        elif kind < 74:
            self._cancel(account, c, d)
        elif kind < 82:
            self._replace(account, c, d)
        elif kind < 87:
            if market.status is MarketStatus.ACTIVE:
                self._run(SuspendMarket(self._tick(), market_id))
            else:
                self._run(OpenMarket(self._tick(), market_id))
        elif kind < 90:
            live = market.live
            self._run(SettleSelection(self._tick(), market_id, market.selection_ids[live[c % len(live)]]))
        elif kind < 92:
            live = [market.selection_ids[i] for i in market.live]
            mask = c % (2 ** len(live) - 1) + 1
            winners = tuple(s for i, s in enumerate(live) if mask >> i & 1)
            self._run(SettleMarket(self._tick(), market_id, winners))
        elif kind < 93:
            self._run(VoidMarket(self._tick(), market_id))
        elif kind < 95:
            self._run(VoidMatchedSince(self._tick(), market_id, max(0, self.ts - c % 30)))
        elif kind < 97:
            self._run(Deposit(self._tick(), account, 100 + c * 37))
        else:
            self._run(Withdraw(self._tick(), account, 100 + c * 53))
        if not self.ex.markets[market_id].is_open:
            self.slots[slot] = self._new_market()
        self.steps += 1
        if self.steps % self.replay_every == 0:
            assert Exchange.replay(self.events).state_digest() == self.ex.state_digest()

    def _place(self, market_id: str, account: str, c: int, d: int, kind: int) -> None:
        market = self.ex.markets[market_id]
        assert isinstance(market, Market)
        index = c % len(SELECTIONS)
        side = Side.BACK if kind % 2 else Side.LAY
        pos = self.ex.accounts[account].positions.get(market_id)
        matched = (
            [o for o in pos.orders if o.matched and o.sel in market.live] if pos is not None and d % 5 == 0 else []
        )
        if matched:  # a hedge: the other side of the account's latest matched bet (what a card exposure can void)
            index = matched[-1].sel
            side = Side.LAY if matched[-1].is_back else Side.BACK
        sel = market.selection_ids[index]
        # prices cluster around a per-selection mid so that orders cross often
        mid = 40 + 30 * index
        tick = ladder.clamp_tick(mid + (d % 13) - 6)
        size = 150 + (d * 97 + c * 31) % 3000  # some below the 2.00 minimum
        if d % 17 == 0:
            price: Decimal = Decimal("2.03")  # off the ladder
        else:
            price = ladder.PRICES[tick]
        round_ = market.round - 1 if d % 19 == 0 else None
        self._run(PlaceOrder(self._tick(), account, market_id, sel, side, price, size, round_))

    def _own(self, account: str, c: int) -> int:
        mine = [o.bet_id for o in self.ex.orders.values() if o.account_id == account]
        if not mine or c % 11 == 0:
            return c * 7 + 1  # perhaps someone else's, perhaps no one's
        return mine[-1 - c % len(mine)]

    def _cancel(self, account: str, c: int, d: int) -> None:
        reduction = None if d % 3 == 0 else 1 + d * 13 % 2000
        self._run(CancelOrder(self._tick(), account, self._own(account, c), reduction))

    def _replace(self, account: str, c: int, d: int) -> None:
        bet_id = self._own(account, c)
        order = self.ex.orders.get(bet_id)
        tick = ladder.clamp_tick((order.tick if order else 60) + d % 7 - 3)
        self._run(ReplaceOrder(self._tick(), account, bet_id, ladder.PRICES[tick]))

    # -- the end ---------------------------------------------------------------

    def check_replay(self) -> None:
        digest = self.ex.state_digest()
        assert Exchange.replay(self.events).state_digest() == digest
        assert Exchange.replay(self.commands).state_digest() == digest
        as_json = json.loads(json.dumps([e.to_dict() for e in self.events]))
        rebuilt = [event_from_dict(d) for d in as_json]
        assert rebuilt == self.events
        assert Exchange.replay(rebuilt).state_digest() == digest
        commands = [command_from_dict(d) for d in json.loads(json.dumps([c.to_dict() for c in self.commands]))]
        assert commands == self.commands


def oracle_exposure(pos: Position, restore: dict[int, int] | None = None) -> int:
    """Exposure recomputed independently: the worst outright or VOID outcome, exactly, from each order's sizes.

    ``restore``: bet id -> unmatched size to count as if it had not been cancelled.
    """
    market = pos.market
    worst: Fraction | None = None
    for i in market.live:
        pnl = Fraction(0)
        for o in pos.orders:
            remaining = o.remaining + (restore or {}).get(o.bet_id, 0)
            wins = o.sel == i
            avg = Fraction(o.matched_x100, 100 * o.matched) if o.matched else Fraction(0)
            price = Fraction(ladder.PRICE_X100[o.tick], 100)
            if o.is_back:
                pnl += o.matched * (avg - 1) if wins else -o.matched
                pnl += 0 if wins else -remaining  # unmatched: only its downside counts
            else:
                pnl += -o.matched * (avg - 1) if wins else o.matched
                pnl += -remaining * (price - 1) if wins else 0
        worst = pnl if worst is None or pnl < worst else worst
    assert worst is not None
    # the VOID outcome: bets settled early keep their results, every other bet is refunded
    void = sum((Fraction(o.profit or 0) for o in pos.orders if o.outcome is not None), Fraction(0))
    worst = min(worst, void)
    return max(0, math.ceil(-worst))


def check_against_exact(ex: Exchange, ev: MarketSettled) -> None:
    """Each account's settled P&L is its exact dead-heat P&L rounded to the nearest unit (an exact half down), and
    adds up."""
    market = ex.markets[ev.market_id]
    n = len(ev.winners)
    exact: dict[str, Fraction] = {}
    for bet in ev.bets:
        o = ex.cleared[bet.bet_id]  # the market is closed: its orders are cleared records now
        assert o.price_matched is not None
        back = o.size_settled * (o.price_matched / n - 1) if o.selection_id in ev.winners else -o.size_settled
        exact[o.account_id] = exact.get(o.account_id, Fraction(0)) + (back if o.side is Side.BACK else -back)
        status = market.selection_status[market.selection_ids.index(o.selection_id)]
        won = "WINNER" if n == 1 else "TIED_DEAD_HEAT"
        assert status.value == (won if o.selection_id in ev.winners else "LOSER"), (o.selection_id, ev.winners)
    settled_now: dict[str, int] = {}
    for bet in ev.bets:
        settled_now[bet.account_id] = settled_now.get(bet.account_id, 0) + bet.profit
    for account_id, value in exact.items():  # to the nearest unit, an exact half down (towards minus infinity)
        assert settled_now[account_id] == math.ceil(value - Fraction(1, 2)), (account_id, value)
    now = {b.bet_id for b in ev.bets}
    for a in ev.accounts:
        cleared = ex.accounts[a.account_id].cleared[ev.market_id]
        earlier = sum(c.profit for c in cleared if c.bet_id not in now)
        assert a.profit == earlier + settled_now.get(a.account_id, 0)


def random_steps(rng: random.Random, n: int, lifecycle: float = 0.05) -> list[Step]:
    """``n`` steps; a fraction ``lifecycle`` of them suspend, settle, void or move money, the rest trade."""
    out: list[Step] = []
    for _ in range(n):
        kind = rng.randrange(82, 100) if rng.random() < lifecycle else rng.randrange(82)
        out.append((kind, *(rng.randrange(1000) for _ in range(4))))
    return out
