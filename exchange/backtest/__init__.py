"""Backtesting strategies on the exchange game, and the files a backtest leaves behind.

* :mod:`exchange.backtest.strategy` — the flumine-style :class:`Strategy` base and the handle it trades through;
* :mod:`exchange.backtest.bankroll` — the strategy's account (``STRATEGY_ACCOUNT`` in a backtest) from game to game,
  as the exchange sees it;
* :mod:`exchange.backtest.agent` — a strategy seated at a channel as ordinary game agents, one per market it trades;
* :mod:`exchange.backtest.instructions` — what the strategy asked, until it arrives: what a refusal refused;
* :mod:`exchange.backtest.loading` — ``module:Class`` / ``file.py:Class`` references, built in any worker;
* :mod:`exchange.backtest.world` — one session's world (clock, exchange, channel, house liquidity, strategy),
  one game by default;
* :mod:`exchange.backtest.runner` — sessions in chunks, run anywhere, merged in game order;
* :mod:`exchange.backtest.workers` — where chunks run: in-process, a local process pool, or a Dask cluster;
* :mod:`exchange.tables` — the Parquet tables it writes (shared with the server's recording);
* :mod:`exchange.tables.streams` — each market in Betfair's Exchange Stream format (shared with the server's
  recording), from :mod:`exchange.betfair.projection`, the public book rebuilt from events;
* :mod:`exchange.backtest.summary` — the figures printed at the end;
* :mod:`exchange.backtest.replay` (with ``replay_files``, ``replay_deal``, ``replay_market``) and
  :mod:`exchange.backtest.replay_server` (its position on ``replay_clock``) — ``exchange-poker replay``: the
  trading page over a backtest's files.
"""
