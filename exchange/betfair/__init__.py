"""Betfair's wire formats, shared by both drivers.

* :mod:`~exchange.betfair.apiformat` — API-NG JSON shapes (orders, books, funds);
* :mod:`~exchange.betfair.stream` — Exchange Stream messages (``mcm``) and the recordings the
  backtester writes and flumine replays.
"""
