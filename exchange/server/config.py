"""What ``exchange-poker serve`` can be told: one frozen value, so tests build servers the same way.

>>> ServerConfig(channels=("holdem",), window_ms=5_000).window_ms
5000
"""

from __future__ import annotations

from dataclasses import dataclass, field

from exchange.core.exchange import ExchangeConfig
from exchange.server.auth import DEFAULT_TTL_MS
from exchange.server.connections import DEFAULT_BODY_TIMEOUT_MS, DEFAULT_HEADER_TIMEOUT_MS, DEFAULT_MAX_CONNECTIONS
from exchange.server.journal import DEFAULT_COMMIT_TIMEOUT_MS
from exchange.server.kept_results import KEEP_RESULTS
from exchange.server.ratelimit import DEFAULT_PER_ACCOUNT, DEFAULT_PER_ADDRESS, DEFAULT_WINDOW_MS
from exchange.server.recording_options import DEFAULT_EVERY as DEFAULT_RECORD_EVERY
from exchange.server.recording_options import DEFAULT_EVERY_MS as DEFAULT_RECORD_EVERY_MS
from exchange.server.snapshots import SnapshotPolicy

#: Closed markets the server keeps in memory (with their cleared orders); older ones are in the journal only.
DEFAULT_KEEP_CLOSED_MARKETS = 1_000


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Server settings. ``window_ms`` / ``playing_ms`` override every channel's window lengths when set.

    ``demo``: create the account ``demo_account`` (if absent) at start. ``session_sweep_ms``: how often
    expired sessions (and login counts past their window) are purged. ``login_per_account`` /
    ``login_per_address``: login attempts allowed per ``login_window_ms``. ``max_connections``,
    ``header_timeout_ms``, ``body_timeout_ms``: what a client connection may cost
    (:mod:`exchange.server.connections`). ``journal_timeout_ms``: the longest the journal writer may hold a batch
    uncommitted before the server fails (stops) rather than answer; ``accept_damaged_journal``: start on a
    journal that lost or damaged acknowledged records; ``check_pages``: also walk every database page at start
    (:mod:`exchange.server.journal_check`).
    ``keep_closed_markets``: how many settled or voided markets (newest first) the exchange keeps, with their
    cleared orders, catalogue entries and notes; ``None`` keeps them all (memory then grows with every game).
    ``stream_port``: also serve the Exchange Stream as Betfair does, TLS lines on ``stream_host:stream_port``
    (0: any free port; None: only the WebSocket route), with ``tls_cert``/``tls_key`` or a self-signed certificate.
    ``record_dir``: also write the Parquet tables of every game that ends, ``record_every`` games to a part file
    at most, and a part at the first game end ``record_every_ms`` after the last (0: by the number of games only).
    """

    db_path: str = "exchange.db"
    channels: tuple[str, ...] = ("holdem",)
    window_ms: int | None = None
    playing_ms: int | None = None
    seed: int | None = None
    house: bool = True
    session_ttl_ms: int = DEFAULT_TTL_MS
    session_sweep_ms: int = 60_000
    login_per_account: int = DEFAULT_PER_ACCOUNT
    login_per_address: int = DEFAULT_PER_ADDRESS
    login_window_ms: int = DEFAULT_WINDOW_MS
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    header_timeout_ms: int = DEFAULT_HEADER_TIMEOUT_MS
    body_timeout_ms: int = DEFAULT_BODY_TIMEOUT_MS
    heartbeat_ms: int = 5_000
    games_heartbeat_ms: int = 5_000  # the games stream's heartbeat (0: none; the page then never takes it for stalled)
    max_body_bytes: int = 1024 * 1024
    demo: bool = False
    demo_account: str = "demo"
    demo_password: str = "demo"
    demo_balance: int = 100_000
    run_games: bool = True
    snapshots: SnapshotPolicy = field(default_factory=SnapshotPolicy)
    journal_timeout_ms: int = DEFAULT_COMMIT_TIMEOUT_MS
    accept_damaged_journal: bool = False
    check_pages: bool = False
    keep_closed_markets: int | None = DEFAULT_KEEP_CLOSED_MARKETS
    #: Finished games kept per channel for ``GET /games/v1/channels/{channel}/results`` (the newest).
    keep_results: int = KEEP_RESULTS
    #: The share of games dealt with a dealer's irregularity (``irregularities.md``), 0 to 1.
    irregularity_rate: float = 0.0
    #: House noise traders per server (they trade on every channel): fills and a moving ladder for a watcher.
    noise_traders: int = 0
    stream_port: int | None = None
    stream_host: str = "127.0.0.1"
    tls_cert: str | None = None
    tls_key: str | None = None
    #: Record the backtest's Parquet tables of every game that ends here (:mod:`exchange.server.recording`).
    record_dir: str | None = None
    #: Games written together in one part file of each recorded table, at most.
    record_every: int = DEFAULT_RECORD_EVERY
    #: A part is written at the first game end this long after the last part (0: by the number of games only).
    record_every_ms: int = DEFAULT_RECORD_EVERY_MS

    def __post_init__(self) -> None:
        if not self.channels:
            raise ValueError("at least one channel must run")
        if self.window_ms is not None and self.window_ms <= 0:
            raise ValueError(f"the betting window must be positive, not {self.window_ms} ms")
        if self.playing_ms is not None and self.playing_ms < 0:
            raise ValueError(f"the playing window must not be negative, not {self.playing_ms} ms")
        if self.session_ttl_ms <= 0 or self.heartbeat_ms <= 0 or self.session_sweep_ms <= 0:
            raise ValueError("session lifetime, session sweep and heartbeat must be positive")
        if min(self.login_per_account, self.login_per_address, self.login_window_ms) <= 0:
            raise ValueError("login limits and their window must be positive")
        if self.games_heartbeat_ms < 0:
            raise ValueError(f"the games stream's heartbeat must not be negative, not {self.games_heartbeat_ms} ms")
        if self.keep_closed_markets is not None and self.keep_closed_markets < 0:
            raise ValueError(f"closed markets kept must not be negative, not {self.keep_closed_markets}")
        if self.keep_results < 1:
            raise ValueError(f"results kept per channel must be at least 1, not {self.keep_results}")
        if self.noise_traders < 0:
            raise ValueError(f"the number of noise traders must not be negative, not {self.noise_traders}")
        if not 0.0 <= self.irregularity_rate <= 1.0:
            raise ValueError(f"the irregularity rate is a share of games, 0 to 1, not {self.irregularity_rate}")
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("give both a TLS certificate and its key (--tls-cert and --tls-key), or neither")
        if self.stream_port is not None and not 0 <= self.stream_port <= 65535:
            raise ValueError(f"the stream port must be from 0 to 65535, not {self.stream_port}")
        if self.record_every < 1:
            raise ValueError(f"games per recorded part file must be at least 1, not {self.record_every}")
        if self.record_every_ms < 0:
            raise ValueError(f"the time between recorded part files must not be negative, not "
                             f"{self.record_every_ms} ms")
        if self.journal_timeout_ms <= 0:
            raise ValueError(f"the journal timeout must be positive, not {self.journal_timeout_ms} ms")
        if min(self.max_connections, self.header_timeout_ms, self.body_timeout_ms) <= 0:
            raise ValueError(f"the connection cap and the header and body timeouts must be positive, not "
                             f"{self.max_connections}, {self.header_timeout_ms} ms and {self.body_timeout_ms} ms")

    def exchange_config(self) -> ExchangeConfig:
        """The exchange's settings: the same for the server, its snapshot taker and recovery (a snapshot taken
        with other settings is passed over).

        >>> ServerConfig(keep_closed_markets=20).exchange_config().keep_closed_markets
        20
        """
        return ExchangeConfig(keep_closed_markets=self.keep_closed_markets)
