"""The trading page: static files a browser loads from the server that runs the games (or replays them).

Plain HTML, CSS and JavaScript modules in ``static/``, shipped as package
data: no build step, no library fetched from elsewhere. :func:`add_page_routes`
serves it from any aiohttp application: ``/`` the page, ``/static/...`` its files.
The page talks to the server only through its public routes (see the README's
"The trading page").
"""

from __future__ import annotations

from exchange.page.routes import STATIC_DIR, add_page_routes

__all__ = ["STATIC_DIR", "add_page_routes"]
