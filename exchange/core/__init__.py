"""The exchange core: ladder, order books, markets, accounts, settlement; commands in, events out.

Pure: it reads no clock and no randomness and imports nothing of the game,
the engine, the agents or the drivers (a contract in CI holds this).
:class:`~exchange.core.exchange.Exchange` is the façade; every module here is
one idea (see the README's layout table).
"""

from __future__ import annotations

from exchange.core.exchange import Exchange, ExchangeConfig

__all__ = ["Exchange", "ExchangeConfig"]
