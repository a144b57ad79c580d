"""The server funds the house's market maker at each start: a house its losses have nearly drained is topped up
to its bankroll again (it could no longer quote: a lone user would match nothing), one with money to quote is
left as it is."""

from __future__ import annotations

from pathlib import Path

from exchange.agents.house import MAKER_ACCOUNT
from exchange.clock import VirtualClock
from exchange.core.commands import Withdraw
from exchange.game.channels import get_channel
from exchange.server.fallback_equities import river_only_equities
from exchange.server.journal import Journal
from exchange.server.service import HOUSE_BANKROLL, ExchangeService


async def house_balance_after_a_restart(db: Path, spent: int) -> int:
    """Start a server on ``db`` (its house funded), take ``spent`` out of the house, stop; the house's balance once
    a new server has started on the same journal."""
    clock = VirtualClock(1_000_000)
    for run in range(2):
        journal = Journal.open(str(db))
        journal.start()
        service = ExchangeService(journal, clock, [get_channel("holdem")], seed=1, equities=river_only_equities)
        service.recover()
        service.start(run_games=False)
        balance = service.funds(MAKER_ACCOUNT).balance
        if run == 0:
            assert balance == HOUSE_BANKROLL
            service.execute(Withdraw(clock.now(), MAKER_ACCOUNT, spent, "the house's losses"))
        service.stop()
        await journal.sync()
        await journal.stop()
        journal.close()
    return balance


async def test_a_nearly_drained_house_is_topped_up_to_its_bankroll_at_the_next_start(tmp_path: Path) -> None:
    assert await house_balance_after_a_restart(tmp_path / "drained.db", HOUSE_BANKROLL - 5_000) == HOUSE_BANKROLL


async def test_a_house_with_money_to_quote_keeps_its_balance_across_a_restart(tmp_path: Path) -> None:
    spent = HOUSE_BANKROLL // 20
    assert await house_balance_after_a_restart(tmp_path / "funded.db", spent) == HOUSE_BANKROLL - spent
