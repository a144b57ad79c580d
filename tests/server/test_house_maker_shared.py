"""The server's channels share one exchange and one house-maker account: every channel's makers take turns, so
none budgets funds another channel's maker has already spent and the house never meets INSUFFICIENT_FUNDS."""

from __future__ import annotations

from exchange.agents.house import MAKER_ACCOUNT
from exchange.clock import VirtualClock
from exchange.core.events import OrderPlaced, OrderRejected
from exchange.game.channels import get_channel
from exchange.game.events import EventLog
from exchange.server.journal import Journal
from exchange.server.service import ExchangeService


def test_the_makers_of_every_channel_share_the_house_account_without_overdrawing_it() -> None:
    clock = VirtualClock(1_000_000)
    channels = [get_channel(name).with_times(2_000, 100) for name in ("holdem", "omaha", "omaha-hilo")]
    # 3,000.00: less than three channels' quotes would tie up at once.
    service = ExchangeService(Journal.open(":memory:"), clock, channels, seed=3, house_bankroll=300_000)
    service.recover()
    service.start(run_games=False)
    assert service.funds(MAKER_ACCOUNT).balance == 300_000
    logs = [EventLog.attach(channel.bus) for channel in service.channels.values()]
    service.start_games()
    clock.run(until_ms=clock.now() + 8_000)
    service.stop()
    stamped = [s for log in logs for s in log]
    refused = [s.event for s in stamped if isinstance(s.event, OrderRejected) and s.event.account_id == MAKER_ACCOUNT]
    assert refused == []
    quoted = {s.market_id for s in stamped if isinstance(s.event, OrderPlaced) and s.event.account_id == MAKER_ACCOUNT}
    assert {"holdem.0", "omaha.0", "omaha-hilo.0", "omaha-hilo.0-low"} <= quoted
