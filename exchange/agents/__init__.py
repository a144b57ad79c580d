"""Agents: everyone who trades through a channel's gateway with the same views and commands.

* :mod:`~exchange.agents.trader` — the :class:`Agent` hooks and the :class:`Trader` that acts for one;
* :mod:`~exchange.agents.view` — :class:`BettorView`, what a bettor may see of a game;
* :mod:`~exchange.agents.host` — seats agents at a channel and turns its events into hooks;
* :mod:`~exchange.agents.house` — the house market maker and the noise traders.

Agents see the game only through its public views; the game knows nothing of them.
"""
