"""Betfair's wire formats, shared by both drivers.

* :mod:`~exchange.betfair.apiformat` — API-NG JSON shapes (orders, books, funds);
* :mod:`~exchange.betfair.stream` — Exchange Stream messages (``mcm``) and the recordings the
  backtester and the server's ``--record`` write and flumine replays;
* :mod:`~exchange.betfair.projection` — a market's public book folded from the core's events, what the
  recordings show.
"""
