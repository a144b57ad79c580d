"""betfairlightweight's ``navigation.list_navigation()`` reads the menu of the open markets from the server.

An unmodified client, pointed at the server as a bot author would (``navigation_uri`` is a URL of its own in
betfairlightweight, not derived from ``api_uri``), fetches the tree Betfair serves: ROOT > Exchange Poker >
one group per channel > one event per game > its markets. The menu's ids are the ids every other call takes:
its events are listEvents' and its markets listMarketCatalogue's, and a closed game leaves it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import betfairlightweight
import pytest
from aiohttp.test_utils import TestClient
from betfairlightweight import filters
from betfairlightweight.exceptions import StatusCodeError

from exchange.clock import VirtualClock
from exchange.server import keys
from tests.server.helpers import APP_KEY, PLAYING_MS, START_MS, serving

MENU = "/exchange/betting/rest/v1/en/navigation/menu.json"


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[TestClient]:
    """Hold'em and Omaha Hi/Lo (a game of two markets), their first games dealt at START_MS; alice has 1000.00."""
    async with serving(tmp_path / "ex.db", VirtualClock(start_ms=START_MS), accounts=("alice",),
                       channels=("holdem", "omaha-hilo"), equities=None) as client:
        yield client


async def bflw(server: TestClient) -> betfairlightweight.APIClient:
    """A logged-in betfairlightweight client of alice's, as a bot points it at this server."""
    base = str(server.make_url("")).rstrip("/")
    client = betfairlightweight.APIClient("alice", "pw-alice", app_key=APP_KEY, lightweight=False)
    client.identity_uri = f"{base}/api/"
    client.api_uri = f"{base}/exchange/"
    client.navigation_uri = f"{base}{MENU}"
    await asyncio.to_thread(client.login_interactive)
    return client


def markets_of(node: dict[str, Any], path: tuple[dict[str, Any], ...] = ()) -> Iterator[tuple[dict[str, Any], ...]]:
    """Each MARKET leaf with the nodes above it, root first: what a menu parser walks."""
    if node["type"] == "MARKET":
        yield (*path, node)
        return
    for child in node["children"]:
        yield from markets_of(child, (*path, node))


async def test_the_menu_is_the_open_markets_as_betfairs_tree(server: TestClient) -> None:
    client = await bflw(server)
    tree = await asyncio.to_thread(client.navigation.list_navigation)
    assert (tree["type"], tree["name"], tree["id"]) == ("GROUP", "ROOT", 0)
    (event_type,) = tree["children"]
    assert (event_type["type"], event_type["id"], event_type["name"]) == ("EVENT_TYPE", "990001", "Exchange Poker")
    groups = [(g["type"], g["id"], g["name"]) for g in event_type["children"]]
    assert groups == [("GROUP", "holdem", "Exchange Hold'em"), ("GROUP", "omaha-hilo", "Exchange Omaha Hi/Lo")]
    start = "2023-11-14T22:13:20.000Z"  # START_MS
    leaves = {path[-1]["id"]: (path[-2], path[-1]) for path in markets_of(tree)}
    assert sorted(leaves) == ["holdem.0", "omaha-hilo.0", "omaha-hilo.0-low"]
    event, market = leaves["omaha-hilo.0-low"]
    assert event == {"type": "EVENT", "id": "omaha-hilo.0", "name": "Exchange Omaha Hi/Lo 0", "countryCode": "GB",
                     "children": [leaves["omaha-hilo.0"][1], market]}  # a game's two markets under its one event
    assert market == {"type": "MARKET", "id": "omaha-hilo.0-low", "name": "Game 0 Low", "exchangeId": "1",
                      "marketType": "LOW", "marketStartTime": start, "numberOfWinners": 1}
    assert leaves["holdem.0"][1]["marketType"] == "WIN"


async def test_the_menus_ids_are_the_ones_the_betting_calls_take(server: TestClient) -> None:
    client = await bflw(server)
    tree = await asyncio.to_thread(client.navigation.list_navigation)
    menu_events = {path[-2]["id"] for path in markets_of(tree)}
    menu_markets = {path[-1]["id"] for path in markets_of(tree)}
    events = await asyncio.to_thread(client.betting.list_events, filter=filters.market_filter())
    assert {e.event.id for e in events} == menu_events
    catalogue = await asyncio.to_thread(client.betting.list_market_catalogue, max_results=10,
                                        filter=filters.market_filter(market_ids=sorted(menu_markets),
                                                                     event_ids=sorted(menu_events)))
    assert {m.market_id for m in catalogue} == menu_markets


async def test_a_closed_game_leaves_the_menu(server: TestClient) -> None:
    client = await bflw(server)
    clock = server.app[keys.SERVICE].clock
    assert isinstance(clock, VirtualClock)
    game = server.app[keys.SERVICE].current_game("holdem")
    assert game is not None
    clock.run(until_ms=game.windows[-1].closes_ms + PLAYING_MS + 1)
    tree = await asyncio.to_thread(client.navigation.list_navigation)
    ids = {path[-1]["id"] for path in markets_of(tree)}
    assert "holdem.0" not in ids and "holdem.1" in ids


async def test_the_menu_needs_a_session(server: TestClient) -> None:
    client = await bflw(server)
    client.session_token = "not-a-session"
    with pytest.raises(StatusCodeError) as raised:
        await asyncio.to_thread(client.navigation.list_navigation)
    assert raised.value.status_code == 401
    resp = await server.get(MENU, headers={"X-Application": APP_KEY})
    assert resp.status == 401 and (await resp.json())["error"] == "NO_SESSION"


async def test_a_query_parameter_on_the_menu_is_refused_after_the_session_is_checked(server: TestClient) -> None:
    """The route takes none: ``?locale=fr`` is not read as a locale, nor anything else ignored."""
    resp = await server.get(f"{MENU}?locale=fr", headers={"X-Application": APP_KEY})
    assert resp.status == 401  # whoever asks without a session learns nothing more
    client = await bflw(server)
    signed_in = {"X-Application": APP_KEY, "X-Authentication": client.session_token}
    resp = await server.get(f"{MENU}?locale=fr&depth=2", headers=signed_in)
    assert (resp.status, await resp.json()) == (400, {
        "error": "INVALID_INPUT_DATA", "details": "unknown query parameters ['depth', 'locale']; the menu takes none"})
    assert (await server.get(MENU, headers=signed_in)).status == 200
