"""Settlement arithmetic: bet results, the dead-heat rule, rounding, commission.

Pure functions over orders and positions: :mod:`exchange.core.lifecycle` calls
them to decide a ``SelectionSettled``, ``MarketSettled`` or ``MarketVoided``
event, and :meth:`~exchange.core.state.ExchangeState.apply_market_settled` (or
``apply_market_voided``) posts the event's results to the balances.

**Dead heat.**  With ``n`` selections tied for the win, a bet on a tied
selection settles at odds ``O/n``: back P&L ``S·(O/n − 1)``, lay the negative.
A bet on any other selection loses: back ``−S``, lay ``+S``.  ``n = 1`` is an
ordinary win.

**Rounding.**  Exact P&L can have fractions of a minor unit (a 2.01 stake won
at 1.01 wins 2.01 *pennies*; dead-heat odds ``O/n``).  The rule, which
conserves money exactly:

1. each account's exact P&L on the bets settled now is rounded **once**, to
   the nearest minor unit, an exact half rounding down (:func:`round_half_down`);
2. that integer is split over the account's bets by largest remainder (each
   bet gets the floor of its exact P&L; the units left go to the bets with the
   largest fractional parts, ties to the lower bet id), so bet profits add up
   to the account's total;
3. the residue, ``−Σ rounded totals`` (under half a unit per account, either
   sign), is posted to the house account as ``rounding``.

Because matched stakes pair a back with a lay at one price, the exact P&Ls sum
to zero; so ``Σ account P&L + rounding = 0`` to the unit.  Rounding the
account's *total* (not each bet) also keeps every loss within the exposure
reserved for it: the rounded total is at least the floor of the exact total,
which is at least the floor of the worst outright outcome, and the account's
exposure on the market is at least ``−floor(worst outcome)``.

**Commission** is charged per account per market on positive net P&L:
``floor(net × bps / 10000)``, to the house account.

>>> commission(1000, 250), commission(39, 250), commission(-500, 250)
(25, 0, 0)
>>> round_half_down(450, 100), round_half_down(451, 100), round_half_down(-450, 100)
(4, 5, -5)
>>> allocate([150, 150, 150], 100, 4)  # three bets of 1.5 units each, 4 units in all
[2, 1, 1]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from exchange.core.errors import LedgerError
from exchange.core.events import AccountResult, BetResult
from exchange.core.orders import BetOutcome, Order
from exchange.core.positions import Position

BPS_DENOMINATOR = 10_000


def commission(net: int, bps: int) -> int:
    """Commission on a net market P&L (minor units): ``floor(max(0, net) × bps / 10000)``."""
    return net * bps // BPS_DENOMINATOR if net > 0 else 0


def loser_results(orders: Iterable[Order]) -> list[BetResult]:
    """Results of the matched bets on a losing selection: back ``−S``, lay ``+S`` (exact integers)."""
    results = []
    for o in orders:
        if o.matched and o.outcome is None:
            if o.is_back:
                results.append(BetResult(o.bet_id, o.account_id, o.selection_id, BetOutcome.LOST, -o.matched))
            else:
                results.append(BetResult(o.bet_id, o.account_id, o.selection_id, BetOutcome.WON, o.matched))
    return results


def exact_profit(order: Order, won: bool, n: int) -> int:
    """A bet's exact P&L as a numerator over ``100·n`` minor units.

    ``won``: whether its selection is among the ``n`` tied winners.

    Back on a winner: ``S·(O/n − 1) = (Σ m·P − 100·n·S) / (100·n)`` with ``P``
    in hundredths; lay: the negative.  On a loser: back ``−S``, lay ``+S``.
    """
    den = 100 * n
    num = order.matched_x100 - den * order.matched if won else -den * order.matched
    return num if order.is_back else -num


def round_half_down(num: int, den: int) -> int:
    """``num / den`` (``den > 0``) rounded to the nearest integer, an exact half rounding down."""
    return -((den - 2 * num) // (2 * den))


def allocate(nums: Sequence[int], den: int, total: int) -> list[int]:
    """Split ``total`` into integers close to each ``nums[i] / den`` (largest remainder).

    ``total`` must lie in ``[Σ floor(nums[i] / den), Σ floor(nums[i] / den) + len(nums)]``.
    Each part is ``floor(nums[i] / den)`` or one more; the extra units go to
    the largest remainders, ties to the earlier index.

    >>> allocate([250, -50], 100, 2)   # 2.5 and -0.5 -> 2 in all
    [3, -1]
    >>> allocate([-150, -150], 100, -3)  # -1.5 each -> -3 in all
    [-1, -2]
    """
    parts = [n // den for n in nums]
    extra = total - sum(parts)
    if not 0 <= extra <= len(nums):
        raise LedgerError(f"cannot split {total} over {len(nums)} bets whose floors sum to {sum(parts)}")
    if extra:
        order = sorted(range(len(nums)), key=lambda i: (-(nums[i] - parts[i] * den), i))
        for i in order[:extra]:
            parts[i] += 1
    return parts


def final_results(
    positions: Iterable[Position], winners: frozenset[int], bps: int
) -> tuple[list[BetResult], list[AccountResult], int]:
    """Settle every unsettled matched bet of a market whose winners (selection indices) are ``winners``.

    Returns the new bet results, each position's account result (net market
    P&L including bets settled early, and commission) and the rounding residue
    for the house (see the module's rounding rule).
    """
    n = len(winners)
    den = 100 * n
    bets: list[BetResult] = []
    accounts: list[AccountResult] = []
    posted = 0
    for pos in positions:
        settled_before = 0
        todo: list[Order] = []
        for o in pos.orders:
            if o.outcome is not None:
                settled_before += o.profit or 0
            elif o.matched:
                todo.append(o)
        todo.sort(key=lambda o: o.bet_id)
        nums = [exact_profit(o, o.sel in winners, n) for o in todo]
        profits = allocate(nums, den, round_half_down(sum(nums), den))
        for o, profit in zip(todo, profits, strict=True):
            won = (o.sel in winners) == o.is_back
            bets.append(BetResult(o.bet_id, o.account_id, o.selection_id, _outcome(won), profit))
        now = sum(profits)
        posted += now
        net = settled_before + now
        accounts.append(AccountResult(pos.account_id, net, commission(net, bps)))
    return bets, accounts, -posted


def void_results(positions: Iterable[Position], bps: int) -> list[AccountResult]:
    """Account results of a voided market: only bets already settled count."""
    accounts = []
    for pos in positions:
        net = sum(o.profit or 0 for o in pos.orders if o.outcome is not None)
        accounts.append(AccountResult(pos.account_id, net, commission(net, bps)))
    return accounts


def _outcome(won: bool) -> BetOutcome:
    return BetOutcome.WON if won else BetOutcome.LOST
