"""Betfair's navigation menu (``menu.json``, "Navigation Data for Applications"): the open markets as a tree.

Betfair serves the whole menu as one JSON document, a tree of nodes each with ``type``, ``id``, ``name`` and
``children``: the root (``GROUP`` named ``ROOT``, id 0), then ``EVENT_TYPE``, then ``GROUP`` and ``EVENT``
nodes, then the ``MARKET`` leaves with ``exchangeId``, ``marketType``, ``marketStartTime`` and
``numberOfWinners``. Here the tree is Exchange Poker > one ``GROUP`` per channel (its id the channel's name,
``holdem``; its name the channel's title) > one ``EVENT`` per game > the game's markets (two in a hi/lo game).

Every id but the root's is a string, as in Betfair's own menu, and an event's id is the same one every other
call uses for it (``holdem.17``, the ``eventId`` of listEvents and the market catalogue), so a menu parser
must read ids as strings (Betfair's are digits, ours are not: ``int(id)`` fails here, as it would for the
menu's racing ids ``30360080.1956``); a market's id is its market id (``holdem.17``, ``omaha-hilo.17-low``).

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class M:
...     market_id: str; channel: str; event_id: str; event_name: str; market_name: str
...     market_time_ms: int; market_type: str
>>> tree = menu([M("holdem.3", "holdem", "holdem.3", "Exchange Hold'em 3", "Game 3", 0, "WIN")],
...             {"holdem": "Exchange Hold'em"}, event_type_id="990001", event_type_name="Exchange Poker")
>>> (tree["type"], tree["name"], tree["id"])
('GROUP', 'ROOT', 0)
>>> group = tree["children"][0]["children"][0]
>>> group["type"], group["id"], group["children"][0]["type"], group["children"][0]["id"]
('GROUP', 'holdem', 'EVENT', 'holdem.3')
>>> group["children"][0]["children"][0]
{'type': 'MARKET', 'id': 'holdem.3', 'name': 'Game 3', 'exchangeId': '1', 'marketType': 'WIN', \
'marketStartTime': '1970-01-01T00:00:00.000Z', 'numberOfWinners': 1}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from exchange.betfair import apiformat

#: Betfair's main exchange; the menu names it on every market.
EXCHANGE_ID = "1"
#: Every market here is in Great Britain, as the catalogue and listCountries say.
COUNTRY_CODE = "GB"

JsonDict = dict[str, Any]


class MenuMarket(Protocol):
    """What the menu shows of a market (the server's catalogue entries have it)."""

    @property
    def market_id(self) -> str: ...
    @property
    def channel(self) -> str: ...
    @property
    def event_id(self) -> str: ...
    @property
    def event_name(self) -> str: ...
    @property
    def market_name(self) -> str: ...
    @property
    def market_time_ms(self) -> int: ...
    @property
    def market_type(self) -> str: ...


def menu(markets: Iterable[MenuMarket], group_names: Mapping[str, str], *, event_type_id: str,
         event_type_name: str) -> JsonDict:
    """The menu of ``markets``: groups in ``group_names``' order (channel → title), events and markets in the order
    given. A channel without markets is left out, and so is the event type when there are none at all, as
    Betfair's menu holds only what can be bet on."""
    events: dict[str, dict[str, JsonDict]] = {channel: {} for channel in group_names}
    for market in markets:
        games = events.setdefault(market.channel, {})
        event = games.get(market.event_id)
        if event is None:
            event = games[market.event_id] = {"type": "EVENT", "id": market.event_id, "name": market.event_name,
                                              "countryCode": COUNTRY_CODE, "children": []}
        event["children"].append(_market(market))
    groups = [{"type": "GROUP", "id": channel, "name": group_names.get(channel, channel),
               "children": list(games.values())} for channel, games in events.items() if games]
    event_types = [{"type": "EVENT_TYPE", "id": event_type_id, "name": event_type_name, "children": groups}]
    return {"type": "GROUP", "id": 0, "name": "ROOT", "children": event_types if groups else []}


def _market(market: MenuMarket) -> JsonDict:
    return {"type": "MARKET", "id": market.market_id, "name": market.market_name, "exchangeId": EXCHANGE_ID,
            "marketType": market.market_type, "marketStartTime": apiformat.iso(market.market_time_ms),
            "numberOfWinners": 1}
