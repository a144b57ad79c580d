"""The backtest's Parquet tables: their schemas, columnar accumulation, merging, writing and reading.

Six tables, one file each in the output directory:

``games.parquet``
    one row per game: each hand's final cards (all seven in 7-Card Stud; what it
    holds after the last draw in draw games, whose dealt, discarded and drawn
    cards have their own columns), the winners of each market (a hi/lo game's
    Low market in the ``low_*`` columns; its selection ``n + 1`` is "No low"),
    dead heat, early result, status.
``orders.parquet``
    one row per order instruction that became an order (its final state, with when each part of it was
    cancelled, ``cancels``, and when its remainder lapsed, ``lapsed_ms``) or was rejected, with what the
    strategy asked (side, price, size, round: :mod:`exchange.backtest.instructions`; a refused cancel or
    replace, which the exchange reports with the bet id only, under the market of that bet, or the market
    it was sent through).
``fills.parquet``
    one row per match (a back and a lay), with the matched hand's equity as the game had published it at
    that moment (``equity_exact`` is that published share as an exact fraction: exact, or a Monte Carlo
    estimate where the deals left were too many to count (the early windows of the stud and Omaha Hi/Lo
    games, the draw games; never in Hold'em or Omaha), whose standard error is the ``stderr`` of the
    selection's latest ``equities.parquet`` row at or before the match's ``at_ms``); a match
    the exchange voided later (refunded: one a card exposed early voided, or one of a market voided whole
    that was not on a hand the market had settled already) has ``voided`` and the time of its void,
    ``voided_ms``.
``settlements.parquet``
    one row per account per market — every account of the game, the house's included — with
    the market's own ``status`` (``SETTLED`` or ``VOID``: a market settled before its game was voided
    stays ``SETTLED``) and the account's ``balance_after`` the game (the exchange's balance once the game
    is over).

``equities.parquet``
    one row per selection per publication of a market's prices: the exact equity (or the Monte Carlo one,
    with its standard error) the game published at each reveal, as the live page shows it.
``irregularities.parquet``
    one row per dealer irregularity (``--irregularity-rate``), under the game's main market id (a hi/lo
    game's High market) though what it voided counts every market of the game: the rule, the cards seen
    and those of them out of play from then on (``dead_cards``: the exposed card that became the
    burn card, counted out of every equity after it), what followed, and the matches and bets
    it voided (the voided stake, of every account, on every market of the game).

Orders, fills and settlements carry their ``market_id``: a hi/lo game's High
market is ``CHANNEL.N``, its Low market ``CHANNEL.N-low``.

Every row carries ``game_index``, its ``session`` and ``session_game``, the game's place in
its session from 0 (a backtest of one-game worlds: session = game index, place 0).

Money is **integer minor units** (pennies: ``net_profit == 1250`` is 12.50), as
everywhere in the simulator; prices are given both as the ladder ``tick``
(exact) and as ``price`` (the decimal odds as a float, for plotting). The
schema is fixed here, so tables from different chunks concatenate, and two
runs of the same backtest write identical files.

>>> t = Table(GAMES)
>>> t.append(game_index=0, session=0, session_game=0, market_id="holdem.0", channel="holdem", variant="holdem",
...          start_ms=0, hand_1="As Ks", hand_2="Qd Qc", hand_3="7h 6h", hand_4="2c 2d", board="Ah 7c 2s 9d 3h",
...          winners="1", n_winners=1, dead_heat=False, early=False, status="SETTLED", min_stake=200,
...          total_matched=0, low_market_id=None, low_winners=None, low_dead_heat=None, low_early=None,
...          low_total_matched=None, betting_window_ms=30_000, playing_window_ms=5_000,
...          **{f"{c}_{i}": None for c in ("dealt", "discarded", "drawn") for i in range(1, 5)})
>>> merge([t, t]).num_rows
2
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import pyarrow as pa
import pyarrow.parquet as pq

from exchange.tables import PLAY_OUTPUT

MONEY_NOTE = "money columns are integer minor units (1/100 of the currency); prices are ladder ticks and decimal odds"


@dataclass(frozen=True, slots=True)
class TableSpec:
    """A table's file name and column schema."""

    name: str
    schema: pa.Schema

    @property
    def file_name(self) -> str:
        return f"{self.name}.parquet"

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(self.schema.names)


#: The columns every table starts with: which game (its index in the run, its session and its number in it) and market.
_GAME_KEYS: tuple[tuple[str, pa.DataType], ...] = (
    ("game_index", pa.int64()),
    ("session", pa.int64()),
    ("session_game", pa.int64()),
    ("market_id", pa.string()),
)


def _spec(name: str, *fields: tuple[str, pa.DataType]) -> TableSpec:
    return TableSpec(name, pa.schema([pa.field(n, t) for n, t in fields], metadata={"note": MONEY_NOTE}))


GAMES = _spec(
    "games",
    *_GAME_KEYS,
    ("channel", pa.string()),
    ("variant", pa.string()),
    ("start_ms", pa.int64()),
    ("hand_1", pa.string()),
    ("hand_2", pa.string()),
    ("hand_3", pa.string()),
    ("hand_4", pa.string()),
    ("board", pa.string()),
    ("winners", pa.string()),
    ("n_winners", pa.int64()),
    ("dead_heat", pa.bool_()),
    ("early", pa.bool_()),
    ("status", pa.string()),
    ("min_stake", pa.int64()),
    ("total_matched", pa.int64()),
    ("low_market_id", pa.string()),
    ("low_winners", pa.string()),
    ("low_dead_heat", pa.bool_()),
    ("low_early", pa.bool_()),
    ("low_total_matched", pa.int64()),
    *((f"{what}_{hand}", pa.string()) for what in ("dealt", "discarded", "drawn") for hand in range(1, 5)),
    ("betting_window_ms", pa.int64()),
    ("playing_window_ms", pa.int64()),
)

ORDERS = _spec(
    "orders",
    *_GAME_KEYS,
    ("bet_id", pa.int64()),
    ("account", pa.string()),
    ("selection_id", pa.int64()),
    ("side", pa.string()),
    ("tick", pa.int64()),
    ("price", pa.float64()),
    ("size", pa.int64()),
    ("size_matched", pa.int64()),
    ("size_lapsed", pa.int64()),
    ("size_cancelled", pa.int64()),
    ("size_voided", pa.int64()),
    ("average_price_matched", pa.float64()),
    ("round", pa.int64()),
    ("placed_ms", pa.int64()),
    ("status", pa.string()),
    ("outcome", pa.string()),
    ("profit", pa.int64()),
    ("replaces", pa.int64()),
    ("customer_ref", pa.string()),
    ("error_code", pa.string()),
    ("action", pa.string()),
    ("cancels", pa.list_(pa.struct([pa.field("at_ms", pa.int64()), pa.field("size", pa.int64())]))),
    ("lapsed_ms", pa.int64()),
)

FILLS = _spec(
    "fills",
    *_GAME_KEYS,
    ("match_id", pa.int64()),
    ("at_ms", pa.int64()),
    ("round", pa.int64()),
    ("selection_id", pa.int64()),
    ("tick", pa.int64()),
    ("price", pa.float64()),
    ("size", pa.int64()),
    ("back_bet_id", pa.int64()),
    ("lay_bet_id", pa.int64()),
    ("back_account", pa.string()),
    ("lay_account", pa.string()),
    ("taker_side", pa.string()),
    ("equity", pa.float64()),
    ("equity_exact", pa.string()),
    ("voided", pa.bool_()),
    ("voided_ms", pa.int64()),
)

SETTLEMENTS = _spec(
    "settlements",
    *_GAME_KEYS,
    ("account", pa.string()),
    ("gross_profit", pa.int64()),
    ("commission", pa.int64()),
    ("net_profit", pa.int64()),
    ("commission_received", pa.int64()),
    ("rounding_received", pa.int64()),
    ("bets", pa.int64()),
    ("matched_stake", pa.int64()),
    ("status", pa.string()),
    ("balance_after", pa.int64()),
)

EQUITIES = _spec(
    "equities",
    *_GAME_KEYS,
    ("at_ms", pa.int64()),
    ("round", pa.int64()),
    ("selection_id", pa.int64()),
    ("equity", pa.float64()),
    ("equity_exact", pa.string()),
    ("stderr", pa.string()),
)

IRREGULARITIES = _spec(
    "irregularities",
    *_GAME_KEYS,
    ("at_ms", pa.int64()),
    ("round", pa.int64()),
    ("rule", pa.int64()),
    ("kind", pa.string()),
    ("description", pa.string()),
    ("cards", pa.string()),
    ("dead_cards", pa.string()),
    ("outcome", pa.string()),
    ("matches_voided", pa.int64()),
    ("stake_voided", pa.int64()),
    ("bets_voided", pa.list_(pa.int64())),
)

TABLES: Mapping[str, TableSpec] = MappingProxyType(
    {t.name: t for t in (GAMES, ORDERS, FILLS, SETTLEMENTS, EQUITIES, IRREGULARITIES)}
)


def holds_tables(folder: Path) -> bool:
    """Whether ``folder`` holds one of the tables a backtest or a recording writes (a file or a folder of parts)."""
    return any(os.path.lexists(folder / spec.file_name) for spec in TABLES.values())


def holds_play_output(folder: Path) -> bool:
    """Whether ``folder`` holds what ``exchange-poker play`` writes (:data:`exchange.tables.PLAY_OUTPUT`)."""
    return any(os.path.lexists(folder / name) for name in PLAY_OUTPUT)


class Table:
    """Rows of one table held column by column (cheap to pickle between processes)."""

    __slots__ = ("columns", "spec")

    def __init__(self, spec: TableSpec) -> None:
        self.spec = spec
        self.columns: dict[str, list[object]] = {name: [] for name in spec.columns}

    def __len__(self) -> int:
        return len(next(iter(self.columns.values())))

    def append(self, **row: object) -> None:
        """Add a row; every column must be given (``None`` for a null)."""
        if row.keys() != self.columns.keys():
            missing = sorted(self.columns.keys() - row.keys())
            extra = sorted(row.keys() - self.columns.keys())
            raise ValueError(f"{self.spec.name} row: missing columns {missing}, unknown columns {extra}")
        for name, value in row.items():
            self.columns[name].append(value)

    def to_arrow(self) -> pa.Table:
        return pa.Table.from_pydict(self.columns, schema=self.spec.schema)


def merge(parts: Sequence[Table]) -> pa.Table:
    """Concatenate tables of one spec in the order given (callers pass them in game order)."""
    if not parts:
        raise ValueError("nothing to merge")
    spec = parts[0].spec
    if any(p.spec != spec for p in parts):
        raise ValueError("cannot merge tables of different kinds")
    columns = {name: [v for p in parts for v in p.columns[name]] for name in spec.columns}
    return pa.Table.from_pydict(columns, schema=spec.schema)


def empty_tables() -> dict[str, Table]:
    """One empty :class:`Table` per output table."""
    return {name: Table(spec) for name, spec in TABLES.items()}


#: Rows in each row group of a written table (the last one holds the rest).
ROW_GROUP = 1 << 17


def write_tables(directory: Path, tables: Mapping[str, pa.Table]) -> list[Path]:
    """Write each table as ``directory/<name>.parquet`` (deterministic: no timestamps, fixed row groups)."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, table in tables.items():
        writer = TableWriter(TABLES[name], directory)
        writer.write(table)
        paths.append(writer.close())
    return paths


class TableWriter:
    """One table written to ``directory/<name>.parquet`` part by part, in row groups of :data:`ROW_GROUP` rows
    whatever the parts: the file is the same, byte for byte, however its rows arrived (and as one
    :func:`write_tables` call writes them), and only one row group's rows wait in memory."""

    def __init__(self, spec: TableSpec, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.spec = spec
        self.path = directory / spec.file_name
        self._writer = pq.ParquetWriter(self.path, spec.schema, compression="zstd")
        self._waiting: list[pa.Table] = []
        self._rows = 0
        self._written = 0

    def write(self, table: pa.Table) -> None:
        """Append ``table``'s rows (its schema must be the spec's)."""
        if table.schema != self.spec.schema:
            raise ValueError(f"{self.spec.name}: schema differs from the declared one")
        self._waiting.append(table)
        self._rows += table.num_rows
        while self._rows >= ROW_GROUP:
            rows = pa.concat_tables(self._waiting)
            self._put(rows.slice(0, ROW_GROUP))
            rest = rows.slice(ROW_GROUP)
            self._waiting, self._rows = [rest], rest.num_rows

    def close(self) -> Path:
        """Write the rows still waiting (an empty table still gets its file and schema); return the path."""
        if self._rows or not self._written:
            self._put(pa.concat_tables(self._waiting) if self._waiting else self.spec.schema.empty_table())
        self._waiting, self._rows = [], 0
        self._writer.close()
        return self.path

    def abandon(self) -> None:
        """Close the file as it stands, rows still waiting left out (for a run that failed)."""
        self._waiting, self._rows = [], 0
        self._writer.close()

    def _put(self, rows: pa.Table) -> None:
        self._writer.write_table(rows.combine_chunks(), row_group_size=ROW_GROUP)
        self._written += rows.num_rows or 1


class FileTables(Mapping[str, pa.Table]):
    """A backtest folder's tables, each read from its file when first asked for (a long run's rows are not all
    held in memory just because they were written)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._read: dict[str, pa.Table] = {}

    def __getitem__(self, name: str) -> pa.Table:
        if name not in self._read:
            if name not in TABLES:
                raise KeyError(name)
            self._read[name] = read_table(self.directory, name)
        return self._read[name]

    def __iter__(self) -> Iterator[str]:
        return iter(TABLES)

    def __len__(self) -> int:
        return len(TABLES)


def read_table(directory: Path, name: str, columns: Sequence[str] | None = None,
               filters: Sequence[tuple[str, str, object]] | None = None) -> pa.Table:
    """Table ``name`` of a backtest's output or a server's recording (``DIR/<name>.parquet``: one file, or a
    folder of part files), read with today's schema: a column that a file or part was written without (by an
    older version) is read as null there. Without it pyarrow takes the columns of the first part it reads, so a
    recording begun by an older version would lose a newer column from every part. ``columns`` and ``filters``
    (rows kept, as pyarrow takes them) are read the same way.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> (folder / "games.parquet").mkdir()
    >>> pq.write_table(pa.table({"game_index": [0]}), folder / "games.parquet" / "part-0-0.parquet")
    >>> pq.write_table(pa.table({"game_index": [1], "min_stake": [200]}), folder / "games.parquet" / "part-1-1.parquet")
    >>> read_table(folder, "games", ["game_index", "min_stake"]).to_pylist()
    [{'game_index': 0, 'min_stake': None}, {'game_index': 1, 'min_stake': 200}]
    """
    path = Path(directory) / TABLES[name].file_name
    try:
        return pq.read_table(path, columns=columns, filters=filters, schema=TABLES[name].schema)
    except pa.ArrowInvalid as exc:  # not Parquet at all, or cut short (a Parquet file of other columns reads as nulls)
        raise UnreadableTable(f"{path} is not a {name} table this program wrote, or it is damaged: {exc}") from None


class UnreadableTable(pa.ArrowInvalid):
    """A table file pyarrow cannot read as the table it should be (pyarrow's reason after the file's name)."""


def read_tables(directory: Path, names: Iterable[str] = TABLES) -> dict[str, pa.Table]:
    """Read the tables back (for tests and tools)."""
    return {name: read_table(directory, name) for name in names}
