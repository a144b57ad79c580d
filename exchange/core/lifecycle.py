"""Accounts and the market lifecycle: the drivers' commands, decided and applied.

Account commands (``OpenAccount``, ``Deposit``, ``Withdraw``) come from users
through a driver; a refused one is a ``CommandRejected`` event.  Market
commands come from the game driver, which owns the clock and the cards: misuse
(an unknown market, settling twice) raises :class:`ExchangeError`, a bug in
the driver rather than a request to refuse.

Like :mod:`exchange.core.trading`, each function applies its events through
the state's ``apply_*`` functions as it decides them.
"""

from __future__ import annotations

from exchange.core.commands import (
    CreateMarket,
    Deposit,
    OpenAccount,
    OpenMarket,
    ResumeMarket,
    SettleMarket,
    SettleSelection,
    SuspendMarket,
    VoidMarket,
    VoidMatchedSince,
    Withdraw,
)
from exchange.core.errors import ErrorCode, ExchangeError
from exchange.core.events import (
    AccountCredited,
    AccountDebited,
    AccountOpened,
    CancelReason,
    CommandRejected,
    Event,
    LapseReason,
    MarketCreated,
    MarketOpened,
    MarketSettled,
    MarketSuspended,
    MarketVoided,
    MatchVoided,
    SelectionSettled,
    new_order_lapsed,
    order_cancelled,
)
from exchange.core.market import Market, MarketStatus, SelectionStatus
from exchange.core.money import format_minor
from exchange.core.settlement import final_results, loser_results, void_results
from exchange.core.state import ExchangeState

# -- accounts ------------------------------------------------------------------------


def open_account(state: ExchangeState, cmd: OpenAccount) -> list[Event]:
    if not isinstance(cmd.account_id, str) or not cmd.account_id:
        return [_rejected(cmd, ErrorCode.INVALID_ACCOUNT, "account id must be a non-empty string")]
    if cmd.account_id in state.accounts:
        return [_rejected(cmd, ErrorCode.DUPLICATE_ACCOUNT, f"account {cmd.account_id!r} already exists")]
    ev = AccountOpened(cmd.ts, cmd.account_id)
    state.apply_account_opened(ev)
    return [ev]


def deposit(state: ExchangeState, cmd: Deposit) -> list[Event]:
    refusal = _check_amount(state, cmd)
    if refusal is not None:
        return [refusal]
    ev = AccountCredited(cmd.ts, cmd.account_id, cmd.amount, cmd.reason)
    state.apply_account_credited(ev)
    return [ev]


def withdraw(state: ExchangeState, cmd: Withdraw) -> list[Event]:
    refusal = _check_amount(state, cmd)
    if refusal is not None:
        return [refusal]
    available = state.accounts[cmd.account_id].available()
    if cmd.amount > available:
        message = f"cannot withdraw {format_minor(cmd.amount)}; available {format_minor(max(available, 0))}"
        return [_rejected(cmd, ErrorCode.INSUFFICIENT_FUNDS, message)]
    ev = AccountDebited(cmd.ts, cmd.account_id, cmd.amount, cmd.reason)
    state.apply_account_debited(ev)
    return [ev]


def _check_amount(state: ExchangeState, cmd: Deposit | Withdraw) -> CommandRejected | None:
    if type(cmd.account_id) is not str or cmd.account_id not in state.accounts:
        return _rejected(cmd, ErrorCode.INVALID_ACCOUNT, f"account {cmd.account_id!r:.40} does not exist")
    if type(cmd.amount) is not int or cmd.amount <= 0:
        return _rejected(cmd, ErrorCode.INVALID_AMOUNT, f"amount {cmd.amount!r} must be positive")
    return None


def _rejected(cmd: OpenAccount | Deposit | Withdraw, code: ErrorCode, message: str) -> CommandRejected:
    return CommandRejected(cmd.ts, type(cmd).__name__, cmd.account_id, code, message)


# -- the market lifecycle --------------------------------------------------------------


def create_market(state: ExchangeState, cmd: CreateMarket) -> list[Event]:
    """A new market, SUSPENDED at round 0, with any number of selections from two up."""
    if type(cmd.market_id) is not str or not cmd.market_id:
        raise ExchangeError(f"a market id is a non-empty string, not {cmd.market_id!r:.40}")
    if cmd.market_id in state.markets:
        raise ExchangeError(f"market {cmd.market_id!r} already exists")
    ids = tuple(cmd.selection_ids) if isinstance(cmd.selection_ids, tuple | list) else ()
    if len(ids) < 2 or len(set(ids)) != len(ids) or not all(type(i) is int for i in ids):
        raise ExchangeError(f"selection ids must be at least two distinct ints, not {cmd.selection_ids!r:.60}")
    min_stake = state.config.min_stake if cmd.min_stake is None else cmd.min_stake
    bps = state.config.commission_bps if cmd.commission_bps is None else cmd.commission_bps
    if type(min_stake) is not int or min_stake <= 0:
        raise ExchangeError(f"minimum stake must be a positive int of minor units, not {min_stake!r}")
    if type(bps) is not int or not 0 <= bps <= 10_000:
        raise ExchangeError(f"commission must be 0..10000 basis points, not {bps!r}")
    ev = MarketCreated(cmd.ts, cmd.market_id, ids, min_stake, bps)
    state.apply_market_created(ev)
    return [ev]


def open_market(state: ExchangeState, cmd: OpenMarket) -> list[Event]:
    market = state.require_open_market(cmd.market_id, "open")
    if market.status is not MarketStatus.SUSPENDED:
        raise ExchangeError(f"cannot open market {cmd.market_id}: it is {market.status}")
    ev = MarketOpened(cmd.ts, cmd.market_id, market.round + 1)
    state.apply_market_opened(ev)
    return [ev]


def resume_market(state: ExchangeState, cmd: ResumeMarket) -> list[Event]:
    """Reopen a suspended market in the round it was suspended in (no new round: nothing lapses or is turned)."""
    market = state.require_open_market(cmd.market_id, "resume")
    if market.status is not MarketStatus.SUSPENDED or market.round < 1:
        raise ExchangeError(f"cannot resume market {cmd.market_id}: it is {market.status} in round {market.round}")
    ev = MarketOpened(cmd.ts, cmd.market_id, market.round)
    state.apply_market_opened(ev)
    return [ev]


def suspend_market(state: ExchangeState, cmd: SuspendMarket) -> list[Event]:
    """Close the betting window, or suspend the market inside it: every unmatched order lapses."""
    market = state.require_open_market(cmd.market_id, "suspend")
    if market.status is not MarketStatus.ACTIVE:
        raise ExchangeError(f"cannot suspend market {cmd.market_id}: it is {market.status}")
    events = _lapse(state, market, None, cmd.ts, cmd.lapse_reason)
    ev = MarketSuspended(cmd.ts, cmd.market_id, market.round)
    state.apply_market_suspended(ev)
    events.append(ev)
    return events


def _lapse(state: ExchangeState, market: Market, only: int | None, ts: int, reason: LapseReason) -> list[Event]:
    """Lapse every live order of a market (or of selection index ``only``), in book order."""
    events: list[Event] = []
    for sel, book in enumerate(market.books):
        if only is None or sel == only:
            for o in book.live_orders():
                ev = new_order_lapsed(ts, o.bet_id, o.account_id, o.market_id, o.selection_id, o.remaining, reason)
                state.apply_order_lapsed(ev)
                events.append(ev)
    return events


def settle_selection(state: ExchangeState, cmd: SettleSelection) -> list[Event]:
    """A hand that can no longer win or tie loses now; the last one standing wins the market."""
    market = state.require_open_market(cmd.market_id, "settle a selection of")
    sel = market.index.get(cmd.selection_id) if type(cmd.selection_id) is int else None
    if sel is None:
        raise ExchangeError(f"selection {cmd.selection_id!r:.40} is not in market {cmd.market_id}")
    if market.selection_status[sel] is not SelectionStatus.IN_PLAY:
        raise ExchangeError(f"selection {cmd.selection_id} is already {market.selection_status[sel]}")
    events = _lapse(state, market, sel, cmd.ts, LapseReason.SELECTION_SETTLED)
    bets = loser_results(o for pos in market.positions.values() for o in pos.orders if o.sel == sel)
    ev = SelectionSettled(cmd.ts, cmd.market_id, cmd.selection_id, SelectionStatus.LOSER, tuple(bets))
    state.apply_selection_settled(ev)
    events.append(ev)
    if len(market.live) == 1:
        events.extend(_settle(state, market, (market.selection_ids[market.live[0]],), cmd.ts))
    return events


def settle_market(state: ExchangeState, cmd: SettleMarket) -> list[Event]:
    """The result: one winner, or several in a dead heat."""
    market = state.require_open_market(cmd.market_id, "settle")
    winners = tuple(cmd.winners) if isinstance(cmd.winners, tuple | list) else ()
    if not winners or not all(type(w) is int for w in winners) or len(set(winners)) != len(winners):
        raise ExchangeError(f"winners must be distinct selection ids, not {cmd.winners!r:.60}")
    for w in winners:
        if w not in market.index:
            raise ExchangeError(f"winner {w!r} is not a selection of market {cmd.market_id}")
        status = market.selection_status[market.index[w]]
        if status is not SelectionStatus.IN_PLAY:
            raise ExchangeError(f"winner {w} was already settled {status}")
    return _settle(state, market, winners, cmd.ts)


def _settle(state: ExchangeState, market: Market, winners: tuple[int, ...], ts: int) -> list[Event]:
    events = _lapse(state, market, None, ts, LapseReason.MARKET_SETTLED)
    indices = frozenset(market.index[w] for w in winners)
    bets, accounts, rounding = final_results(market.positions.values(), indices, market.commission_bps)
    house = state.config.house_account_id
    ev = MarketSettled(ts, market.market_id, winners, tuple(bets), tuple(accounts), rounding, house)
    state.apply_market_settled(ev)
    events.append(ev)
    return events


def void_market(state: ExchangeState, cmd: VoidMarket) -> list[Event]:
    """A misdeal or a technical fault: unmatched bets cancelled, matched ones refunded."""
    market = state.require_open_market(cmd.market_id, "void")
    events: list[Event] = []
    for book in market.books:
        for o in book.live_orders():
            ev = order_cancelled(cmd.ts, o, o.remaining, CancelReason.MARKET_VOIDED)
            state.apply_order_cancelled(ev)
            events.append(ev)
    events.extend(_void_matches(state, market, None, cmd.ts, cmd.reason))
    accounts = void_results(market.positions.values(), market.commission_bps)
    voided = MarketVoided(cmd.ts, cmd.market_id, tuple(accounts), state.config.house_account_id, cmd.reason)
    state.apply_market_voided(voided)
    events.append(voided)
    return events


def void_matched_since(state: ExchangeState, cmd: VoidMatchedSince) -> list[Event]:
    """A card was exposed early: every match since then on selections in play is voided.

    An account that a voided hedge leaves short has its unmatched orders on
    the market cancelled (``ACCOUNT_OVERDRAWN``): unmatched orders only ever
    add exposure, so that releases what they reserve; whatever is still short
    stays short.  Accounts in order of their first voided match, orders by bet id.
    """
    market = state.require_open_market(cmd.market_id, "void bets of")
    if type(cmd.since_ts) is not int or not (cmd.first_match_id is None or type(cmd.first_match_id) is int):
        raise ExchangeError(f"since_ts is a time in ms and first_match_id a match id or None, not "
                            f"{cmd.since_ts!r:.40} and {cmd.first_match_id!r:.40}")
    events = _void_matches(state, market, cmd.since_ts, cmd.ts, cmd.reason, cmd.first_match_id)
    parties = dict.fromkeys(
        account for ev in events if isinstance(ev, MatchVoided) for account in (ev.back_account_id, ev.lay_account_id)
    )
    for account_id in parties:
        if state.accounts[account_id].available() >= 0:
            continue
        for o in market.positions[account_id].orders:
            if o.remaining:
                ev = order_cancelled(cmd.ts, o, o.remaining, CancelReason.ACCOUNT_OVERDRAWN)
                state.apply_order_cancelled(ev)
                events.append(ev)
    return events


def _void_matches(state: ExchangeState, market: Market, since_ts: int | None, ts: int, reason: str,
                  first_match_id: int | None = None) -> list[Event]:
    """Void every standing match on selections still in play (at or after ``since_ts`` if given, and numbered from
    ``first_match_id`` if given)."""
    events: list[Event] = []
    live = set(market.live)
    for match_id, fill_ts, sel, tick, size, back_id, lay_id in list(market.standing_fills()):
        if sel not in live or (since_ts is not None and fill_ts < since_ts):
            continue
        if first_match_id is not None and match_id < first_match_id:
            continue
        ev = MatchVoided(
            ts, match_id, market.market_id, market.selection_ids[sel], tick, size,
            back_id, lay_id, state.orders[back_id].account_id, state.orders[lay_id].account_id, reason,
        )  # fmt: skip
        state.apply_match_voided(ev)
        events.append(ev)
    return events
