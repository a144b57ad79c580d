"""The exchange game: a channel deals games back to back on an injected clock.

See :mod:`exchange.game.table` for one game's state machine and
:mod:`exchange.game.channel` for the channel that runs them.
"""
