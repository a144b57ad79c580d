"""What a strategy knows of its own account from game to game: its bankroll.

A strategy that keeps its instance from one game to the next (a backtest
*session*, or a live seat) sizes its stakes from its bankroll and judges itself
by its running result. :class:`BankrollWatch` follows the strategy's account on
the channel's event stream, *synchronously* with the exchange, so that at any
instant the strategy looks:

* ``balance``, ``exposure`` and ``available`` are the exchange's own figures
  (``getAccountFunds``);
* ``net_profit`` is the sum of the account's settled market results (net of
  commission, from the exchange's ``MarketSettled`` / ``MarketVoided``
  events) since the strategy was seated;

so ``balance == starting_balance + net_profit`` holds at every instant unless
money was deposited or withdrawn meanwhile (never in a backtest).

>>> b = Bankroll(balance=9_500, exposure=300, available=9_200, starting_balance=10_000, net_profit=-500, games=3)
>>> b.drawdown_from(10_400), b.return_on_start
(900, Fraction(-1, 20))
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from exchange.core.accounts import AccountFunds
from exchange.core.events import MarketSettled, MarketVoided
from exchange.game.events import GameEnded, Stamped

#: The account a backtest's strategy trades as (and the one ``exchange-poker replay`` shows by default).
STRATEGY_ACCOUNT = "strategy"


@dataclass(frozen=True, slots=True)
class Bankroll:
    """The strategy's account as the exchange sees it, and its result since the strategy was seated. Minor units.

    ``games`` counts the games over (settled or void) since the strategy was seated.
    """

    balance: int
    exposure: int
    available: int
    starting_balance: int
    net_profit: int
    games: int

    @property
    def return_on_start(self) -> Fraction:
        """``net_profit / starting_balance`` (0 for an account that started empty)."""
        return Fraction(self.net_profit, self.starting_balance) if self.starting_balance else Fraction(0)

    def drawdown_from(self, peak: int) -> int:
        """How far the balance is below ``peak`` (0 at or above it)."""
        return max(0, peak - self.balance)


class BankrollWatch:
    """Follows one account's settled results and the games that end, straight off the event stream.

    Subscribe it to the channel's bus (``channel.subscribe(watch)``) when the
    strategy is seated, with the account's balance at that moment.
    """

    __slots__ = ("account_id", "games", "net_profit", "starting_balance")

    def __init__(self, account_id: str, starting_balance: int) -> None:
        self.account_id = account_id
        self.starting_balance = starting_balance
        self.net_profit = 0
        self.games = 0

    def __call__(self, stamped: Stamped) -> None:
        event = stamped.event
        if isinstance(event, MarketSettled | MarketVoided):
            for result in event.accounts:
                if result.account_id == self.account_id:
                    self.net_profit += result.profit - result.commission
        elif isinstance(event, GameEnded):
            self.games += 1

    def bankroll(self, funds: AccountFunds | None) -> Bankroll:
        """The :class:`Bankroll` for the exchange's ``funds`` of the account (``None``: an account not open)."""
        if funds is None:
            return Bankroll(0, 0, 0, self.starting_balance, self.net_profit, self.games)
        return Bankroll(funds.balance, funds.exposure, funds.available, self.starting_balance, self.net_profit,
                        self.games)  # fmt: skip
