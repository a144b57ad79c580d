"""serve --noise-traders: the house's noise traders trade live, so a watcher sees fills and a moving ladder."""

from __future__ import annotations

from pathlib import Path

from exchange.cli.serve import DEFAULT_NOISE_TRADERS
from exchange.clock import VirtualClock
from exchange.server import keys
from exchange.server.fallback_equities import river_only_equities
from tests.server.helpers import PLAYING_MS, START_MS, WINDOW_MS, login, rpc, serving


async def total_matched(tmp_path: Path, noise: int, channel: str = "holdem") -> dict[str, float]:
    """Each market of the channel's game 0 and its total matched after two windows (only the house and the
    noise traders trade)."""
    clock = VirtualClock(start_ms=START_MS)
    equities = river_only_equities if channel == "holdem" else None  # a hi/lo game's Low market needs its own
    async with serving(tmp_path / f"{channel}{noise}.db", clock, accounts=("watcher",), equities=equities,
                       house=True, seed=3, noise_traders=noise, channels=(channel,)) as client:
        clock.run(until_ms=START_MS + 2 * (WINDOW_MS + PLAYING_MS) - 10)  # two windows of game 0
        token = await login(client, "watcher", "pw-watcher")
        markets = [f"{channel}.0", f"{channel}.0-low"] if channel.endswith("hilo") else [f"{channel}.0"]
        books = (await rpc(client, token, "listMarketBook", {"marketIds": markets}))["result"]
        assert client.app[keys.SERVICE].noise_accounts == tuple(f"house-noise-{k + 1}" for k in range(noise))
        return {book["marketId"]: float(book["totalMatched"]) for book in books}


async def test_noise_traders_trade_against_the_house_and_none_means_a_still_market(tmp_path: Path) -> None:
    assert DEFAULT_NOISE_TRADERS > 0
    assert (await total_matched(tmp_path, 2))["holdem.0"] > 0
    assert (await total_matched(tmp_path, 0))["holdem.0"] == 0


async def test_noise_traders_trade_a_hilo_games_low_market_too(tmp_path: Path) -> None:
    matched = await total_matched(tmp_path, 1, "omaha-hilo")
    assert set(matched) == {"omaha-hilo.0", "omaha-hilo.0-low"}
    assert all(size > 0 for size in matched.values()), matched
    assert set((await total_matched(tmp_path, 0, "omaha-hilo")).values()) == {0}
