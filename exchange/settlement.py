"""Settlement arithmetic: bet results, the dead-heat rule, rounding, commission.

Pure functions over orders; :class:`exchange.core.Exchange` calls them and
posts the results.

**Dead heat.**  With ``n`` selections tied for the win, a bet on a tied
selection settles at odds ``O/n``: back P&L ``S·(O/n − 1)``, lay the negative.
A bet on any other selection loses: back ``−S``, lay ``+S``.  ``n = 1`` is an
ordinary win.

**Rounding.**  Exact P&L can have fractions of a minor unit (``2.01 × 1.01``,
or ``O/n``).  The rule, which conserves money exactly:

1. each account's exact net P&L on the bets settled now is **floored** to the
   minor unit (never paying out a fraction that does not exist);
2. that integer is split over the account's bets by largest remainder (each
   bet gets the floor of its exact P&L; the units left go to the bets with the
   largest fractional parts, ties to the lower bet id), so bet profits add up
   to the account's total;
3. the sub-unit residue, ``−Σ floors`` (``0 <= rounding < number of
   accounts``), goes to the house account.

Because matched stakes pair a back with a lay at one price, the exact P&Ls sum
to zero; so ``Σ account P&L + rounding = 0`` to the unit.  Flooring the
account's *total* (not each bet) also keeps the loss within the exposure
reserved for it: the floored total is at least the floor of the worst
outright outcome, which is what exposure reserves.

**Commission** is charged per account per market on positive net P&L:
``floor(net × bps / 10000)``, to the house account.

>>> commission(1000, 250), commission(39, 250), commission(-500, 250)
(25, 0, 0)
>>> allocate([150, 150, 150], 100)  # three bets of 1.5 units each -> floor(4.5) = 4 units
[2, 1, 1]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from exchange.accounts import Position
from exchange.events import AccountResult, BetResult
from exchange.orders import BetOutcome, Order

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
    if won:
        num = order.matched_x100 - den * order.matched
    else:
        num = -den * order.matched
    return num if order.is_back else -num


def allocate(nums: Sequence[int], den: int) -> list[int]:
    """Split ``floor(Σ nums / den)`` into integers close to each ``nums[i] / den`` (largest remainder).

    Each part is ``floor(nums[i] / den)`` or one more; the extra units go to
    the largest remainders, ties to the earlier index.

    >>> allocate([250, -50], 100)   # 2.5 and -0.5 -> total floor(2.0) = 2
    [3, -1]
    >>> allocate([-150, -150], 100)  # -1.5 each -> floor(-3.0) = -3
    [-1, -2]
    """
    total = sum(nums) // den
    parts = [n // den for n in nums]
    extra = total - sum(parts)
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
    for the house.
    """
    n = len(winners)
    den = 100 * n
    bets: list[BetResult] = []
    accounts: list[AccountResult] = []
    floors = 0
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
        profits = allocate(nums, den)
        for o, profit in zip(todo, profits, strict=True):
            won = (o.sel in winners) == o.is_back
            bets.append(BetResult(o.bet_id, o.account_id, o.selection_id, _outcome(won), profit))
        now = sum(profits)
        floors += now
        net = settled_before + now
        accounts.append(AccountResult(pos.account_id, net, commission(net, bps)))
    return bets, accounts, -floors


def void_results(positions: Iterable[Position], bps: int) -> list[AccountResult]:
    """Account results of a voided market: only bets already settled count."""
    accounts = []
    for pos in positions:
        net = sum(o.profit or 0 for o in pos.orders if o.outcome is not None)
        accounts.append(AccountResult(pos.account_id, net, commission(net, bps)))
    return accounts


def _outcome(won: bool) -> BetOutcome:
    return BetOutcome.WON if won else BetOutcome.LOST
