"""The snapshot says which equities are exact: an estimate carries its standard error and no exact fraction.

7-Card Stud's Deal window is priced exactly (a quarter each); from 3rd street on the
deals to come are too many to count in a window, so each equity is a seeded Monte
Carlo estimate. ``equityExact`` is given only where the share is exact, so a reader of
the snapshot cannot take an estimate for an exact share.
"""

from __future__ import annotations

from pathlib import Path

from exchange.clock import VirtualClock
from exchange.game.channels import STUD7
from tests.server.helpers import PLAYING_MS, START_MS, WINDOW_MS, serving


async def test_an_estimated_equity_has_a_standard_error_and_no_exact_share(tmp_path: Path) -> None:
    clock = VirtualClock(start_ms=START_MS)
    async with serving(tmp_path / "ex.db", clock, accounts=(), equities=None, seed=3,
                       channels=(STUD7.name,)) as client:
        path = f"/games/v1/channels/{STUD7.name}/snapshot"
        [deal] = (await (await client.get(path)).json())["game"]["markets"]
        assert [(s["equityExact"], "equityStderr" in s) for s in deal["selections"]] == [("1/4", False)] * 4
        clock.advance(WINDOW_MS + PLAYING_MS)  # 3rd street's window
        game = (await (await client.get(path)).json())["game"]
        assert game["roundName"] == "3rd street"
        for selection in game["markets"][0]["selections"]:
            assert selection["equityStderr"] > 0, selection
            assert "equityExact" not in selection, selection
            assert 0 < selection["equity"] < 1
