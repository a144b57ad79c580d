"""Backtesting strategies on the exchange game, and the files a backtest leaves behind.

* :mod:`exchange.backtest.strategy` — the flumine-style :class:`Strategy` base and the handle it trades through;
* :mod:`exchange.backtest.runner` — one game (or a chunk of games) on a virtual clock, with house liquidity;
* :mod:`exchange.backtest.workers` — where chunks run: in-process, a local process pool, or a Dask cluster;
* :mod:`exchange.backtest.outputs` — the Parquet tables (games, orders, fills, settlements);
* :mod:`exchange.backtest.recorder` — each market in Betfair's Exchange Stream format;
* :mod:`exchange.backtest.summary` — the figures printed at the end.
"""
