"""``ClearedByBetId`` answers as a dict of bet id to record and frees a block when its last record goes;
``ClearedOrders`` reads as the tuple it holds, packed or not."""

from __future__ import annotations

import pickle
from dataclasses import replace
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exchange.core.cleared import DIGEST_FORMAT, ClearedByBetId, ClearedOrders
from exchange.core.orders import BetStatus, ClearedOrder
from exchange.core.side import Side

BLOCK = ClearedByBetId.BLOCK
bet_ids = st.integers(min_value=1, max_value=5 * BLOCK)
steps = st.lists(st.tuples(st.booleans(), st.lists(bet_ids, min_size=1, max_size=4, unique=True)), max_size=60)

TEMPLATE = ClearedOrder(
    bet_id=0, account_id="al", market_id="1.1", selection_id=1, side=Side.BACK, price_requested=Decimal("2"),
    size=200, bet_status=BetStatus.LAPSED, bet_outcome=None, size_settled=0, price_matched=None, profit=0,
    size_cancelled=0, size_lapsed=200, size_voided=0, placed_ts=1, last_matched_ts=None, settled_ts=2,
    customer_ref=None, round=1,
)


def cleared(ids: list[int]) -> ClearedOrders:
    return ClearedOrders(replace(TEMPLATE, bet_id=b) for b in sorted(ids))


@given(steps)
def test_it_answers_as_a_dict_after_any_files_and_forgets(steps: list[tuple[bool, list[int]]]) -> None:
    index = ClearedByBetId()
    plain: dict[int, ClearedOrder] = {}
    filed: list[ClearedOrders] = []
    for add, ids in steps:
        fresh = [b for b in ids if b not in plain]
        if add and fresh:
            group = cleared(fresh)
            index.file(group)
            filed.append(group)
            plain.update((r.bet_id, r) for r in group)
        elif not add and filed:
            group = filed.pop(len(ids) % len(filed))
            index.forget(group)
            for b in group.bet_ids:
                del plain[b]
        for b in ids:
            assert (b in index) == (b in plain)
            assert index.get(b) == plain.get(b)
    assert dict(index) == plain and len(index) == len(plain)
    # no empty block is kept: each held block has a record in it
    assert {bet_id >> ClearedByBetId.BLOCK_BITS for bet_id in plain} == set(index._blocks)


def test_a_missing_bet_id_is_a_key_error_and_a_foreign_key_is_not_in_it() -> None:
    index = ClearedByBetId()
    index.file(cleared([7]))
    with pytest.raises(KeyError):
        index[8]
    assert "7" not in index and 7 in index and index.get(BLOCK + 7, "none") == "none" and index.get("7") is None  # type: ignore[arg-type]  # a foreign key on purpose


@given(st.lists(st.integers(min_value=1, max_value=10**6), min_size=1, max_size=30, unique=True))
def test_packed_records_read_as_the_records_they_were(ids: list[int]) -> None:
    """Through a pickle the records stay packed, the bet ids and length are known, and the first read
    builds exactly the records that went in; a record that is not there is not found."""
    original = cleared(ids)
    loaded = pickle.loads(pickle.dumps(original))
    assert loaded.is_packed and loaded.bet_ids == original.bet_ids and len(loaded) == len(ids)
    assert loaded.find(max(ids) + 1) is None and loaded.is_packed
    assert loaded.find(ids[0]) == replace(TEMPLATE, bet_id=ids[0]) and not loaded.is_packed
    assert loaded == original and list(loaded) == list(original.records) and loaded[-1].bet_id == max(ids)
    again = pickle.loads(pickle.dumps(pickle.loads(pickle.dumps(original))))  # packed bytes passed on as they are
    assert again == original


def test_records_out_of_bet_id_order_are_refused() -> None:
    with pytest.raises(ValueError, match="ascending bet id order"):
        ClearedOrders([replace(TEMPLATE, bet_id=5), replace(TEMPLATE, bet_id=3)])


def test_records_packed_with_another_layout_are_refused_at_load() -> None:
    """A record class whose fields changed since the bytes were written: refused when they load, not later."""
    build, (layout, ids, packed, digest, digest_format) = cleared([1]).__reduce__()
    with pytest.raises(ValueError, match="packed with the fields"):
        build((*layout, "new_field"), ids, packed, digest, digest_format)


def test_records_packed_before_digests_were_carried_load_and_digest_alike() -> None:
    """A snapshot written before the digest travelled with the bytes gives three arguments: the digest is worked
    out from the bytes when asked."""
    original = cleared([1, 4, 9])
    build, (layout, ids, packed, _, _) = original.__reduce__()
    older = build(layout, ids, packed)
    assert older.is_packed and older.digest() == original.digest() and older.is_packed


def test_a_digest_worked_out_another_way_is_dropped_at_load() -> None:
    """A digest carried with another :data:`DIGEST_FORMAT` (a record's repr changed, its fields not) is worked out
    again from the bytes, not taken."""
    loaded = pickle.loads(pickle.dumps(cleared([2, 3])))
    true_digest = loaded.digest()
    build, (layout, ids, packed, digest, digest_format) = loaded.__reduce__()
    assert digest == true_digest and digest_format == DIGEST_FORMAT
    assert build(layout, ids, packed, b"stale", digest_format + 1).digest() == true_digest
    assert build(layout, ids, packed, b"stale", digest_format).digest() == b"stale"  # the format says it is good
