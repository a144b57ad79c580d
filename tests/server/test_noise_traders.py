"""serve --noise-traders: the house's noise traders trade live, so a watcher sees fills and a moving ladder."""

from __future__ import annotations

from pathlib import Path

from aiohttp.test_utils import TestClient, TestServer

from exchange.cli.serve import DEFAULT_NOISE_TRADERS
from exchange.clock import VirtualClock
from exchange.server import keys
from exchange.server.app import create_app
from exchange.server.config import ServerConfig
from exchange.server.service import river_only_equities
from tests.server.helpers import PLAYING_MS, START_MS, WINDOW_MS, login, rpc


async def total_matched(tmp_path: Path, noise: int) -> float:
    config = ServerConfig(db_path=str(tmp_path / f"ex{noise}.db"), window_ms=WINDOW_MS, playing_ms=PLAYING_MS,
                          seed=3, noise_traders=noise)
    clock = VirtualClock(start_ms=START_MS)
    app = create_app(config, clock=clock, equities=river_only_equities)
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        app[keys.STORE].add("watcher", "pw", deposit=0)
        clock.advance(0)
        clock.run(until_ms=START_MS + 2 * (WINDOW_MS + PLAYING_MS) - 10)  # two windows of game 0
        token = await login(client, "watcher", "pw")
        book = (await rpc(client, token, "listMarketBook", {"marketIds": ["holdem.0"]}))["result"][0]
        assert app[keys.SERVICE].noise_accounts == tuple(f"house-noise-{k + 1}" for k in range(noise))
        return float(book["totalMatched"])


async def test_noise_traders_trade_against_the_house_and_none_means_a_still_market(tmp_path: Path) -> None:
    assert DEFAULT_NOISE_TRADERS > 0
    assert await total_matched(tmp_path, 2) > 0
    assert await total_matched(tmp_path, 0) == 0
