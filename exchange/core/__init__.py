"""The exchange core: ladder, order books, markets, accounts, settlement; commands in, events out.

Pure: it reads no clock and no randomness and imports nothing of the game,
the engine, the agents or the drivers (a contract in CI holds this).
:class:`~exchange.core.exchange.Exchange` is the façade; every module here is
one idea, named in its first line.  ``docs/reading-the-core.md`` is a
route through it: where a command enters, how an event is decided and then
applied by the function the journal fold uses, where money is checked, and
what a new state change has to touch.
"""

from __future__ import annotations

from exchange.core.exchange import Exchange, ExchangeConfig

__all__ = ["Exchange", "ExchangeConfig"]
