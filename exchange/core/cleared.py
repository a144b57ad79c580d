"""What is kept of a closed market's orders: each account's cleared orders there, and an index by bet id.

When a market closes, every account's orders on it are compacted into
:class:`~exchange.core.orders.ClearedOrder` records (API-NG's
``ClearedOrderSummary``), kept as one :class:`ClearedOrders` per account and
market, and filed by bet id in :class:`ClearedByBetId`.

**Packed across a restart.** A snapshot (:mod:`exchange.core.snapshot`) holds
each :class:`ClearedOrders` as its bet ids and one pickled byte string of its
records; a loaded one builds its records on first read.  Most cleared orders
of a long-running server belong to the house's agents (the market maker and
the noise traders), which no client reads, so a restart loads a thousand byte
strings instead of building 135,000 records (a quarter of a second of the
restart), and those records take a fifth of the memory while they stay packed.
The bytes are checked when the snapshot loads (the server compares their
SHA-256 first); a record layout that has changed since they were written is
refused at load too (:class:`ValueError`, which the snapshot reports as
``SnapshotError``), not at the first read.

**Digested once.** The exchange's state digest takes each :class:`ClearedOrders`
by its own :meth:`~ClearedOrders.digest` (a SHA-256 of its records' ``repr``),
worked out once: the records never change. A snapshot carries the digest beside
the packed bytes it was worked out from, and only those: records packed afresh
(built since the last load, or read since) are written without it, so the
snapshot's reload check digests them from their new bytes and compares. A
snapshot taker therefore digests a closed market's cleared orders a few times in
their life, not once per snapshot (that was three quarters of its time).

>>> from exchange.core.commands import *
>>> from exchange.core.exchange import Exchange
>>> from exchange.core.snapshot import dump, load
>>> ex = Exchange()
>>> for cmd in (OpenAccount(0, "al"), Deposit(0, "al", 5000), CreateMarket(0, "1.1", (1, 2)), OpenMarket(0, "1.1"),
...             PlaceOrder(1, "al", "1.1", 1, Side.BACK, Decimal("3"), 400), VoidMarket(2, "1.1", "misdeal")):
...     _ = ex.execute(cmd)
>>> cleared = load(dump(ex)).accounts["al"].cleared["1.1"]
>>> cleared.is_packed, len(cleared), cleared.bet_ids
(True, 1, (1,))
>>> cleared[0].bet_id, cleared[0].size_cancelled, cleared.is_packed
(1, 400, False)
"""

from __future__ import annotations

import hashlib
import pickle
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import chain
from typing import Any, overload

from exchange.core.orders import ClearedOrder
from exchange.core.records import field_names

#: The pickle protocol of the packed records (the snapshot's own).
_PROTOCOL = 5
#: What a carried digest was worked out as. Raise it when a record's ``repr`` changes while its fields do not (an
#: enum member renamed): a digest carried from before is then dropped at load and worked out again.
DIGEST_FORMAT = 1


class ClearedOrders(Sequence[ClearedOrder]):
    """One account's cleared orders on one closed market, in bet id order (see the module).

    Read like the tuple it holds; its bet ids (:attr:`bet_ids`) and its length
    are known without building the records.
    """

    __slots__ = ("_digest", "_records", "bet_ids")

    def __init__(self, records: Iterable[ClearedOrder]) -> None:
        built = tuple(records)
        #: the records, or their pickle until they are first read (after a snapshot load)
        self._records: tuple[ClearedOrder, ...] | bytes = built
        #: the records' bet ids, ascending
        self.bet_ids: tuple[int, ...] = tuple(r.bet_id for r in built)
        #: :meth:`digest`, once worked out (or loaded with the packed bytes it was worked out from)
        self._digest: bytes | None = None
        if list(self.bet_ids) != sorted(set(self.bet_ids)):
            raise ValueError(f"cleared orders must be in ascending bet id order, each once: {self.bet_ids}")

    @property
    def records(self) -> tuple[ClearedOrder, ...]:
        """The records, built from the packed bytes on first read after a snapshot load."""
        records = self._records
        if isinstance(records, bytes):
            records = self._records = pickle.loads(records)
        return records

    @property
    def is_packed(self) -> bool:
        """Whether the records are still bytes (loaded from a snapshot and not read since)."""
        return isinstance(self._records, bytes)

    def digest(self) -> bytes:
        """The SHA-256 of the records' ``repr``: their part of the exchange's state digest.

        Packed records are read for it without being kept built (a snapshot taker digests every closed market
        it loaded, and most are never read otherwise).
        """
        if self._digest is None:
            records = self._records
            built = pickle.loads(records) if isinstance(records, bytes) else records
            self._digest = hashlib.sha256(repr(built).encode()).digest()
        return self._digest

    def find(self, bet_id: int) -> ClearedOrder | None:
        """The record of ``bet_id``, or ``None`` if it is not one of these."""
        i = bisect_left(self.bet_ids, bet_id)
        return self.records[i] if i < len(self.bet_ids) and self.bet_ids[i] == bet_id else None

    @overload
    def __getitem__(self, index: int) -> ClearedOrder: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[ClearedOrder, ...]: ...
    def __getitem__(self, index: int | slice) -> ClearedOrder | tuple[ClearedOrder, ...]:
        return self.records[index]

    def __len__(self) -> int:
        return len(self.bet_ids)

    def __iter__(self) -> Iterator[ClearedOrder]:
        return iter(self.records)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ClearedOrders):
            return NotImplemented
        return self.bet_ids == other.bet_ids and self.records == other.records

    __hash__ = None  # type: ignore[assignment]  # unhashable, as __eq__ alone makes it: said for type checkers

    def __repr__(self) -> str:
        return f"ClearedOrders({self.records!r})"

    def __reduce__(self) -> tuple[Any, tuple[tuple[str, ...], tuple[int, ...], bytes, bytes | None, int]]:
        """Pickled as the record layout, the bet ids, the records packed (kept packed if never read) and, if
        they were, the digest of those bytes with its :data:`DIGEST_FORMAT` (see the module)."""
        records, layout = self._records, field_names(ClearedOrder)
        if isinstance(records, bytes):
            return _unpacked_later, (layout, self.bet_ids, records, self._digest, DIGEST_FORMAT)
        return _unpacked_later, (layout, self.bet_ids, pickle.dumps(records, protocol=_PROTOCOL), None, DIGEST_FORMAT)


def _unpacked_later(layout: tuple[str, ...], bet_ids: tuple[int, ...], packed: bytes,
                    digest: bytes | None = None, digest_format: int | None = None) -> ClearedOrders:
    """A :class:`ClearedOrders` from its pickle, its records left packed; a changed record layout is refused now.

    ``digest``: the records' digest, if it was worked out from these bytes (a snapshot from before digests were
    carried has none), kept if it was worked out as this code does (``digest_format``).
    """
    if layout != field_names(ClearedOrder):
        raise ValueError(f"cleared orders were packed with the fields {layout}; this code's are "
                         f"{field_names(ClearedOrder)}")
    cleared = ClearedOrders.__new__(ClearedOrders)
    cleared._records, cleared.bet_ids = packed, bet_ids
    cleared._digest = digest if digest_format == DIGEST_FORMAT else None
    return cleared


class ClearedByBetId(Mapping[int, ClearedOrder]):
    """The cleared orders of the closed markets kept, by bet id, filed in blocks of consecutive bet ids.

    Each bet id leads to its :class:`ClearedOrders`, which finds the record
    (so filing and forgetting never build packed records).  One dict would do,
    but not for long: bet ids only grow and closed markets are forgotten oldest
    first, so its keys churn, and a dict that keeps deleting old keys while
    adding new ones settles at twice the table it had before the first deletion
    (each resize sizes it at three times its entries). Filed by block of
    :data:`BLOCK` bet ids, each block's dict is filled once, while its markets
    close, and emptied once, while they are forgotten; the last record out frees
    it whole.  Lookups cost one more dict access.
    """

    __slots__ = ("_blocks",)
    #: Bet ids a block holds (a power of two: the block of bet id ``b`` is ``b >> BLOCK_BITS``).
    BLOCK_BITS = 12
    BLOCK = 1 << BLOCK_BITS

    def __init__(self) -> None:
        self._blocks: dict[int, dict[int, ClearedOrders]] = {}

    def file(self, cleared: ClearedOrders) -> None:
        """File every record of ``cleared`` under its bet id."""
        for bet_id in cleared.bet_ids:
            self._blocks.setdefault(bet_id >> self.BLOCK_BITS, {})[bet_id] = cleared

    def forget(self, cleared: ClearedOrders) -> None:
        """Take every record of ``cleared`` out (``KeyError`` if one is not filed)."""
        for bet_id in cleared.bet_ids:
            key = bet_id >> self.BLOCK_BITS
            block = self._blocks[key]
            del block[bet_id]
            if not block:
                del self._blocks[key]

    def __getitem__(self, bet_id: int) -> ClearedOrder:
        record = self.get(bet_id)
        if record is None:
            raise KeyError(bet_id)
        return record

    def get(self, bet_id: int, default: Any = None) -> Any:  # (one lookup fewer than the mixin's)
        block = self._blocks.get(bet_id >> self.BLOCK_BITS) if type(bet_id) is int else None
        cleared = None if block is None else block.get(bet_id)
        return default if cleared is None else cleared.find(bet_id)

    def __contains__(self, bet_id: object) -> bool:
        return type(bet_id) is int and bet_id in self._blocks.get(bet_id >> self.BLOCK_BITS, ())

    def __iter__(self) -> Iterator[int]:
        return chain.from_iterable(self._blocks.values())  # each block's bet ids, block after block

    def __len__(self) -> int:
        return sum(map(len, self._blocks.values()))
