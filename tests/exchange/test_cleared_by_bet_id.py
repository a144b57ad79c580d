"""``ClearedByBetId`` behaves as a dict of bet id to record, and frees a block when its last record goes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exchange.core.orders import ClearedByBetId

BLOCK = ClearedByBetId.BLOCK
bet_ids = st.integers(min_value=1, max_value=5 * BLOCK)
steps = st.lists(st.tuples(st.booleans(), bet_ids), max_size=200)


@given(steps)
def test_it_answers_as_a_dict_after_any_adds_and_removes(steps: list[tuple[bool, int]]) -> None:
    blocks = ClearedByBetId()
    plain: dict[int, object] = {}
    for add, bet_id in steps:
        if add:
            blocks[bet_id] = plain[bet_id] = object()  # type: ignore[assignment]
        elif bet_id in plain:
            del blocks[bet_id], plain[bet_id]
        assert (bet_id in blocks) == (bet_id in plain)
        assert blocks.get(bet_id) is plain.get(bet_id)
    assert dict(blocks) == plain and len(blocks) == len(plain)
    assert set(blocks.keys()) == set(plain)
    # no empty block is kept: each held block has a record in it
    assert {bet_id // BLOCK for bet_id in plain} == set(blocks._blocks)


def test_a_missing_bet_id_is_a_key_error_and_a_foreign_key_is_not_in_it() -> None:
    blocks = ClearedByBetId()
    blocks[7] = None  # type: ignore[assignment]
    with pytest.raises(KeyError):
        blocks[8]
    assert "7" not in blocks and 7 in blocks and blocks.get(BLOCK + 7, "none") == "none"
