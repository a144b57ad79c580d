"""The subcommands of ``exchange-poker``, in the order ``--help`` lists them, each with its one-line summary.

Each is a module of this package named after it; the summary here is the one its parser shows, so
``exchange-poker --help`` can list every command without loading any (:func:`exchange.cli.listing_parser`):
together they load aiohttp, pandas and pyarrow, a second or more, for a list of names.
"""

from __future__ import annotations

SUMMARIES = {
    "equity": "equity of 2 hands up to the game's seats (exact, or Monte Carlo with --samples)",
    "showdown": "who wins the pot (and each half in hi/lo games)",
    "play": "play hands between bots; PHH hand histories and a Parquet table of results",
    "serve": "run the Betfair-compatible exchange server",
    "accounts": "add, list, re-password or change the role of exchange accounts",
    "journal": "the audit trail: the server database's journal records, found by what they concern",
    "backtest": "backtest a strategy over many games (Parquet + Betfair stream files)",
    "replay": "watch a backtest's (or a recording's) games on the trading page",
    "compare": "backtests side by side, paired game by game on the same deals",
}
