"""The exchange game: a channel deals games back to back on an injected clock.

Modules, one idea each:

* :mod:`~exchange.game.rounds` — the four betting rounds and a game's timetable;
* :mod:`~exchange.game.deal` — the dealer's side of a game (face-down cards stay here) and deck sources;
* :mod:`~exchange.game.prospects` / :mod:`~exchange.game.equities` — exact prospects and what they settle early;
* :mod:`~exchange.game.pricing` — fair odds and the house's quote ticks (pure);
* :mod:`~exchange.game.events` — game events, the stamped envelope, the bus, JSON;
* :mod:`~exchange.game.port` / :mod:`~exchange.game.market` — the game's market on the exchange core;
* :mod:`~exchange.game.table` — one game's state machine on clock callbacks;
* :mod:`~exchange.game.channel` — games back to back; the gateway for everyone who trades;

In short::

    channel = Channel(get_channel("holdem"), VirtualClock(), Exchange(), decks=seeded_decks(7))
    log = EventLog.attach(channel.bus)            # or channel.subscribe(listener)
    channel.open_account("house", 10**10)
    seat(channel, MarketMaker(), "house")        # exchange.agents.host.seat: any Agent, with latency_ms=...
    channel.start(games=10)
    clock.run()                                   # a WallClock runs the same on asyncio
"""
