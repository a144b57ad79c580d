"""The Parquet tables of played games: what a backtest leaves behind and what a live server records.

* :mod:`exchange.tables.outputs` — the six tables' schemas (games, orders, fills, settlements, equities,
  irregularities), columnar accumulation, merging, writing and reading;
* :mod:`exchange.tables.collector` — one game's rows, projected from its channel's stamped events;
* :mod:`exchange.tables.market_record` — what a market's rows are made from, folded event by event;
* :mod:`exchange.tables.streams` — each market's Betfair stream file, recorded from the same events.

Both drivers write them: the backtester (:mod:`exchange.backtest`) one file per table for a whole run, the
server (:mod:`exchange.server.recording`) a part file per table every few games, as they end.
"""

#: The whole numbers a table's integer column holds (signed 64 bits): here, light, for those that check a value
#: before it reaches a table (a strategy's order, a recording's part numbers) without loading pyarrow.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

#: What ``exchange-poker play --out`` writes: its results table and the folder of its hand histories. A folder of
#: tables holds one command's output, a backtest's, a server's recording or these, and each refuses the others'
#: (:func:`exchange.tables.outputs.holds_play_output`).
PLAY_RESULTS, PLAY_HANDS = PLAY_OUTPUT = ("results.parquet", "hands")
