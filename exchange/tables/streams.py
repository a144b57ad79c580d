"""A game's markets in Betfair's stream format (``streams/<marketId>``), recorded from the channel's events.

Both drivers write these files beside the tables: the backtester for every game it plays (unless
``--no-streams``), the server with ``--record`` for every game that ends. They are what Betfair's historical
data files are (one ``mcm`` line per millisecond in which the market changed, as
:class:`~exchange.betfair.stream.MarketRecorder` writes them), so flumine and betfairlightweight read them, and
``exchange-poker replay`` shows their prices. A file starts with the market as it was created, runners and all,
even when it closed in that same millisecond (a misdeal voids a game at its deal): then its close has a line of
its own at the same ``pt``, since a reader that first meets a market closed never shows it (flumine's
``FlumineSimulation`` calls none of a strategy's hooks for it).
"""

from __future__ import annotations

from exchange.betfair import description
from exchange.betfair.projection import BookProjection
from exchange.betfair.stream import MarketRecorder
from exchange.clock import Clock, Timer
from exchange.core.events import MarketSettled, MarketVoided
from exchange.game.channels import ChannelConfig
from exchange.game.events import Stamped
from exchange.game.layouts import MarketKind


class StreamFeed:
    """Records one market once per instant at which one of its events happened: one message per ``pt``.

    The book comes from :class:`~exchange.betfair.projection.BookProjection`, a
    fold over the market's events, not from the exchange's internals. ``kind``: which
    of the game's markets it is (default: the main one), for its runners and its name;
    ``start``: when the game started (ms since the epoch, as the events are stamped). An instant is recorded
    when an event stamped later comes, or when ``clock`` has moved on a millisecond (the events of one
    instant come over several turns of the clock: a window opens, then the house quotes in it); each
    message's ``pt`` is the time its events were stamped with, as a server's monotonic clock is no date.
    """

    def __init__(self, clock: Clock, market_id: str, config: ChannelConfig, start: int,
                 kind: MarketKind | None = None) -> None:  # fmt: skip
        windows_end = start + (config.windows - 1) * config.round_ms + config.betting_window_ms
        kind = kind or config.markets[0]
        self.recorder = MarketRecorder(description.market_info(
            market_id, title=config.title, start_ms=start, suspend_ms=windows_end, hands=config.hands,
            commission_bps=config.commission_bps, runner_names=config.selection_names(kind),
            market_label=kind.label if len(config.markets) > 1 else None))
        self.book = BookProjection()
        self._clock = clock
        self.market_id = market_id
        self._pending: Timer | None = None
        self._at_ms = start

    def on_event(self, stamped: Stamped) -> None:
        """Fold one event of the channel into the book (another market's is passed over)."""
        if stamped.market_id != self.market_id:
            return
        if stamped.at_ms > self._at_ms or (not self.recorder.lines and isinstance(stamped.event, _CLOSES)):
            self._record_now()  # the instant before is over (or, closing as it is created, the market as created)
        self.book.apply(stamped.event)
        self._at_ms = stamped.at_ms
        if self._pending is None:
            self._pending = self._clock.call_later(1, self._flush)

    def text(self) -> str:
        """The recording so far, the events of this instant included (one line a message)."""
        self._record_now()
        return self.recorder.text()

    def _record_now(self) -> None:
        """Record the instant whose events are in, if any."""
        if self._pending is not None:
            self._pending.cancel()
            self._flush()

    def _flush(self) -> None:
        self._pending = None
        if self.book.created:  # (a game's first events may come before its market's, the clock turning between)
            self.recorder.update(self.book.snapshot(), self._at_ms)


#: The events that close a market.
_CLOSES = (MarketSettled, MarketVoided)
