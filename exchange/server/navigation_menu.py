"""``GET /exchange/betting/rest/v1/{locale}/navigation/menu.json``: Betfair's navigation menu of the open markets.

betfairlightweight's ``client.navigation.list_navigation()`` fetches it from ``client.navigation_uri`` with the
session's ``X-Application`` and ``X-Authentication`` headers, as Betfair requires them; a missing or bad
session is refused with the JSON error every REST route answers (``401`` ``NO_SESSION`` and so on). The tree's
shape and ids are :mod:`exchange.betfair.navigation`'s; it lists the markets open now (the ones
listMarketCatalogue lists), oldest game first. Names are English whatever the ``locale`` (two letters). A query
parameter is refused (``400`` ``INVALID_INPUT_DATA``): the route takes none.
"""

from __future__ import annotations

from aiohttp import web

from exchange.betfair.navigation import menu
from exchange.betfair.stream import EVENT_TYPE_ID, EVENT_TYPE_NAME
from exchange.page.refusals import unknown_query
from exchange.server import keys

#: Betfair's path (under the API's base ``/exchange/``), the locale in it.
MENU_PATH = "/exchange/betting/rest/v1/{locale:[a-z]{2}}/navigation/menu.json"


async def navigation_menu(request: web.Request) -> web.Response:
    request.app[keys.SESSIONS].check(request.headers.get("X-Authentication"), request.headers.get("X-Application"))
    if request.query:
        return unknown_query(request, "the menu takes none")
    service = request.app[keys.SERVICE]
    live = set(service.live_market_ids())
    markets = [info for info in reversed(service.catalogue()) if info.market_id in live]
    titles = {name: config.title for name, config in service.configs.items()}
    return web.json_response(menu(markets, titles, event_type_id=EVENT_TYPE_ID, event_type_name=EVENT_TYPE_NAME))
