"""ResumeMarket: an operator's resume reopens a suspended window in the same round."""

from __future__ import annotations

import pytest

from exchange.core.commands import CreateMarket, OpenMarket, ResumeMarket, SuspendMarket, command_from_dict
from exchange.core.errors import ExchangeError
from exchange.core.events import MarketOpened
from exchange.core.exchange import Exchange
from exchange.core.market import MarketStatus


def test_resume_reopens_the_same_round_and_only_a_suspended_market() -> None:
    ex = Exchange()
    ex.execute(CreateMarket(0, "m", (1, 2)))
    with pytest.raises(ExchangeError, match="round 0"):
        ex.execute(ResumeMarket(1, "m"))  # never opened: nothing to resume
    ex.execute(OpenMarket(2, "m"))
    with pytest.raises(ExchangeError, match="ACTIVE"):
        ex.execute(ResumeMarket(3, "m"))
    ex.execute(SuspendMarket(4, "m"))
    (event,) = ex.execute(ResumeMarket(5, "m"))
    assert event == MarketOpened(5, "m", 1)
    assert ex.markets["m"].status is MarketStatus.ACTIVE and ex.markets["m"].round == 1
    assert command_from_dict(ResumeMarket(5, "m").to_dict()) == ResumeMarket(5, "m")
    ex._check()
