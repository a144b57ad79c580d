"""What ``state_digest()`` is: pinned on a known state, and judged against its definition written plainly here.

The digest is stored beside every snapshot and compared across replays, snapshots and restarts, so making it
faster must not change a byte of it. The golden value below was computed by the digest as first defined (main at
c050128, before it was made faster), then again when the state grew (snapshot format 7: orders keep when they
were cancelled and lapsed, and why), and again when each account's cleared orders on a market came to enter by
their own SHA-256 (so that a snapshot carries it beside their packed bytes, 2026-12-05), and again when a review
found two fields of the state it left out (an order's ``strategy_ref``, a market's ``settled_ts``, 2026-12-07: a
replay that lost a strategy ref had the digest of one that kept it; :func:`test_every_field_of_the_state_is_digested`
now finds any field left out). The reference below is
that definition, written out without any of the speed-ups, and must agree with the exchange's on random flows,
live and reloaded from a snapshot (where each account's cleared orders are still packed bytes), and reloaded
again (where the digests travel with the bytes).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import replace
from decimal import Decimal

import pytest

from exchange.core import cleared as cleared_module
from exchange.core import ladder, records
from exchange.core.commands import (
    CancelOrder,
    Command,
    CreateMarket,
    Deposit,
    OpenAccount,
    OpenMarket,
    PlaceOrder,
    SettleMarket,
    SuspendMarket,
    VoidMatchedSince,
)
from exchange.core.exchange import Exchange
from exchange.core.market import Market
from exchange.core.orders import ClearedOrder
from exchange.core.side import Side
from exchange.core.snapshot import dump, load
from tests.exchange.flows import FlowRunner, random_steps


def reference_digest(ex: Exchange) -> str:
    """The definition: a SHA-256 of the repr of every part of the state, in this order."""
    parts: list[object] = [ex.config, ex.next_bet_id, ex.next_match_id, ex.money_in, list(ex.closed)]
    for account in sorted(ex.accounts.values(), key=lambda a: a.account_id):
        positions = [(m, p.d, p.ltot, p.settled, [o.bet_id for o in p.orders]) for m, p in account.positions.items()]
        cleared = [(market_id, hashlib.sha256(repr(tuple(orders)).encode()).digest())
                   for market_id, orders in sorted(account.cleared.items())]
        parts.append((account.account_id, account.balance, account.reserved, positions, cleared,
                      sorted(account.results.items())))
    for market in ex.markets.values():
        if not isinstance(market, Market):
            parts.append(market)
            continue
        parts.append((market.market_id, market.selection_ids, market.status, market.round, market.selection_status,
                      market.live, market.min_stake, market.commission_bps, market.selection_settled_ts,
                      sorted(market.voided_matches), market.fills, list(market.positions), market.settled_ts))
        for book in market.books:
            levels = []
            for is_back in (True, False):
                for t in range(ladder.TICK_COUNT):
                    if (book.back_size if is_back else book.lay_size)[t]:
                        levels.append((is_back, t, [o.bet_id for o in book.orders_at(is_back, t)]))
            parts.append((levels, book.volume, book.last_tick, book.total_matched, book.back_mask, book.lay_mask))
    for o in ex.orders.values():
        parts.append((o.bet_id, o.account_id, o.market_id, o.selection_id, o.side, o.tick, o.size, o.remaining,
                      o.matched, o.matched_x100, o.lapsed, o.cancelled, o.voided, o.placed_ts, o.matched_ts, o.round,
                      o.customer_ref, o.result, o.cancelled_ts, o.lapsed_ts, o.lapse_reason, o.strategy_ref))
    parts.append(sorted(ex.cleared))
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def _known_state() -> Exchange:
    """A settled market (cleared orders, one bet matched at two prices, results), a market still trading (resting
    orders on both sides, fills, a cancel) and one whose matches since a time were voided."""
    back, lay = Side.BACK, Side.LAY
    commands: list[Command] = [OpenAccount(0, name) for name in ("al", "bo", "cy")]
    commands += [Deposit(0, name, 50_000) for name in ("al", "bo", "cy")]
    commands += [
        CreateMarket(1, "1.1", (1, 2, 3, 4)), OpenMarket(1, "1.1"),
        PlaceOrder(2, "bo", "1.1", 1, lay, Decimal("3.2"), 200), PlaceOrder(2, "bo", "1.1", 1, lay, Decimal("3"), 200),
        PlaceOrder(3, "al", "1.1", 1, back, Decimal("3"), 400, customer_ref="ref-1"),
        PlaceOrder(3, "cy", "1.1", 2, back, Decimal("5"), 300), SuspendMarket(4, "1.1"), SettleMarket(5, "1.1", (1,)),
        CreateMarket(6, "1.2", (1, 2, 3, 4)), OpenMarket(6, "1.2"),
        PlaceOrder(7, "al", "1.2", 3, back, Decimal("2.5"), 500, strategy_ref="s1"),
        PlaceOrder(7, "bo", "1.2", 3, lay, Decimal("2.5"), 300),
        PlaceOrder(8, "cy", "1.2", 4, lay, Decimal("7"), 250), PlaceOrder(8, "cy", "1.2", 1, back, Decimal("10"), 200),
        CancelOrder(9, "cy", 8),
        CreateMarket(10, "1.3", (1, 2)), OpenMarket(10, "1.3"),
        PlaceOrder(11, "al", "1.3", 1, back, Decimal("1.5"), 1_000),
        PlaceOrder(12, "bo", "1.3", 1, lay, Decimal("1.5"), 600),
        VoidMatchedSince(13, "1.3", 12),
    ]  # fmt: skip
    ex = Exchange()
    for command in commands:
        ex.execute(command)
    return ex


# The digest of _known_state() by the definition's code as of 2026-12-07; see the module docstring.
KNOWN_DIGEST = "283b1efc0ab33bc75d3d02656fddea99e9010202742507b25fb33b7215a56438"


def test_the_digest_of_a_known_state_is_pinned() -> None:
    ex = _known_state()
    assert ex.cleared and ex.orders and ex.closed  # every kind of part is there
    assert ex.state_digest() == KNOWN_DIGEST
    reloaded = load(dump(ex))
    assert reloaded.accounts["al"].cleared["1.1"].is_packed
    assert reloaded.state_digest() == KNOWN_DIGEST


@pytest.mark.parametrize("seed", [1, 2])
def test_the_digest_is_its_definition_on_random_flows(seed: int) -> None:
    runner = FlowRunner(accounts=8, markets=2, balance=50_000, replay_every=1_000_000)
    rng = random.Random(seed)
    for i, step in enumerate(random_steps(rng, 900, lifecycle=0.08), start=1):
        runner.step(step)
        if i % 300 == 0:
            ex = runner.ex
            assert ex.state_digest() == reference_digest(ex)
            reloaded = load(dump(ex))
            assert reloaded.state_digest() == reference_digest(ex)
            assert load(dump(reloaded)).state_digest() == reference_digest(ex)  # the digests carried
    assert runner.ex.cleared and runner.ex.orders  # the flow closed markets and left orders live


def test_cleared_orders_packed_afresh_are_digested_from_their_new_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dump that packs a record wrongly is seen by the reloaded digest: cleared orders packed afresh do not carry
    the digest of the records they were packed from."""
    ex = _known_state()
    digest = ex.state_digest()  # every cleared orders' digest worked out, from the records
    data = dump(ex)
    build = records._unpickle

    def one_penny_more(cls: type, values: tuple[object, ...]) -> object:
        record: object = build(cls, values)
        return replace(record, profit=record.profit + 1) if isinstance(record, ClearedOrder) else record

    monkeypatch.setattr(records, "_unpickle", one_penny_more)  # the bytes read back as another state
    assert load(data).state_digest() != digest


def test_a_digest_worked_out_from_packed_bytes_travels_with_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cleared orders loaded packed and digested there are dumped with their digest, so the next load digests them
    without reading the bytes again; the digest is the same."""
    reloaded = load(dump(_known_state()))
    assert reloaded.state_digest() == KNOWN_DIGEST  # digested from the packed bytes, which stay packed
    assert reloaded.accounts["al"].cleared["1.1"].is_packed
    again = load(dump(reloaded))

    def unread(data: bytes) -> object:
        raise AssertionError("packed cleared orders were read for a digest they carry")

    monkeypatch.setattr(cleared_module.pickle, "loads", unread)
    assert again.state_digest() == KNOWN_DIGEST


class _Marker:
    """A value no field holds, its truth the opposite of the field's (so a flag read only for its truth changes)."""

    def __init__(self, truth: bool) -> None:
        self.truth = truth

    def __bool__(self) -> bool:
        return self.truth

    def __repr__(self) -> str:
        return "<marker>"


# Fields that are not state of their own: each is where its owner is filed, or rebuilt from a field digested.
_DERIVED = {
    "Market": {"index"},  # the position of each of selection_ids
    "Position": {"account"},  # the account it is filed under
    "SelectionBook": {"selection_id"},  # its market's selection_ids at the book's place
}


def test_every_field_of_the_state_is_digested() -> None:
    """Each field of an order, a market, an account, a position and a book changes the digest (or cannot be read
    by it) when set to a value it never holds, but for the few derived from others."""
    ex = _known_state()
    market = ex.markets["1.2"]
    assert isinstance(market, Market)
    books = [b for b in market.books if b.back_mask or b.lay_mask]  # backs rest on one, lays on another
    order = next(o for o in ex.orders.values() if o.strategy_ref is not None)
    pieces = (order, market, ex.accounts["al"], next(iter(market.positions.values())), *books)
    digest = ex.state_digest()
    read: dict[str, bool] = {}
    for piece in pieces:
        kind = type(piece).__name__
        for name in type(piece).__slots__:  # type: ignore[attr-defined]  # every piece is a slotted class
            kept = getattr(piece, name)
            setattr(piece, name, _Marker(not kept))
            try:
                unchanged = ex.state_digest() == digest
            except (TypeError, AttributeError, KeyError, IndexError):
                unchanged = False  # the digest reads it (as a number, a container or an object)
            finally:
                setattr(piece, name, kept)
            read[f"{kind}.{name}"] = read.get(f"{kind}.{name}", False) or not unchanged
    assert ex.state_digest() == digest
    derived = {f"{kind}.{name}" for kind, names in _DERIVED.items() for name in names}
    assert sorted(field for field, seen in read.items() if not seen) == sorted(derived)
