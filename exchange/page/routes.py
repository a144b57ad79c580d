"""The page's routes: ``GET /`` (the page) and ``GET /static/{name}`` (its scripts and styles).

Only the files shipped in ``static/`` are served, by name (no directories, no
paths): anything else is an ordinary 404, answered as every other by the app.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

from aiohttp import web

STATIC_DIR = Path(__file__).resolve().parent / "static"
INDEX = STATIC_DIR / "index.html"
#: Each file of the page by its name, fixed when the package is imported.
FILES = MappingProxyType({path.name: path for path in STATIC_DIR.iterdir() if path.is_file()})
#: The page changes only with the package, but a browser should check each time rather than run stale code.
_NO_STALE = {"Cache-Control": "no-cache"}
#: Types by suffix, not from the machine's MIME database: a module script must come as JavaScript everywhere.
_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html", ".svg": "image/svg+xml"}


async def index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(INDEX, headers=_NO_STALE)


async def static_file(request: web.Request) -> web.FileResponse:
    name = request.match_info["name"]
    path = FILES.get(name)
    if path is None:
        raise web.HTTPNotFound(text=f"no file {name[:60]!r} in the page")
    kind = _TYPES.get(path.suffix, "application/octet-stream")
    return web.FileResponse(path, headers={**_NO_STALE, "Content-Type": f"{kind}; charset=utf-8"})


def add_page_routes(app: web.Application) -> None:
    """Serve the page at ``/`` and its files at ``/static/{name}``."""
    app.router.add_get("/", index)
    app.router.add_get("/static/{name}", static_file)
