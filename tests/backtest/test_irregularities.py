"""A backtest with dealer irregularities: the irregularities table, the bets voided, money conserved."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from exchange.backtest.runner import run_backtest
from exchange.backtest.workers import InlineExecutor
from exchange.tables.outputs import read_tables
from tests.backtest.backtest_support import run_notebook, small_config
from tests.voided_backtest import write_exposed_backtest


def test_every_irregularity_is_recorded_with_the_bets_it_voided(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    config = replace(small_config(), games=12, seed=5, irregularity_rate=1.0, record_streams=False)
    with InlineExecutor() as executor:
        summary = run_backtest(config, executor, tmp_path).summary
    tables = {name: t.to_pylist() for name, t in read_tables(tmp_path).items()}
    rows, games = tables["irregularities"], tables["games"]
    with InlineExecutor() as executor:  # the same backtest again: the same files, byte for byte
        run_backtest(config, executor, tmp_path / "again")
    for name in ("irregularities", "orders", "fills", "settlements"):
        file = f"{name}.parquet"
        assert (tmp_path / file).read_bytes() == (tmp_path / "again" / file).read_bytes(), name
    assert [r["game_index"] for r in rows] == list(range(12))  # a rate of 1: one in every game, in game order
    assert len({r["kind"] for r in rows}) >= 4
    for row in rows:
        game = games[row["game_index"]]
        if row["outcome"] == "misdeal":
            assert game["status"] == "VOID" and row["rule"] in (1, 5)
        else:
            assert game["status"] == "SETTLED"
        dead = set(row["dead_cards"].split())
        assert dead <= set(row["cards"].split())  # only a card seen can be out of play
        assert not dead or (row["rule"] in (1, 5) and row["outcome"] != "misdeal")  # it became the burn card
    assert any(r["dead_cards"] for r in rows), "seed 5 must burn an exposed card for this test to mean anything"
    voided_fills = [f for f in tables["fills"] if f["voided"]]
    assert sum(r["matches_voided"] for r in rows) == len(voided_fills)
    assert sum(r["stake_voided"] for r in rows) == sum(f["size"] for f in voided_fills)
    voided_bets = {b for r in rows for b in r["bets_voided"]}
    assert voided_bets == {b for f in voided_fills for b in (f["back_bet_id"], f["lay_bet_id"])}
    assert sum(o["size_voided"] for o in tables["orders"]) == 2 * sum(r["stake_voided"] for r in rows)
    assert any(r["matches_voided"] for r in rows), "seed 5 must void some matches for this test to mean anything"
    for market in {s["market_id"] for s in tables["settlements"]}:
        settled = [s for s in tables["settlements"] if s["market_id"] == market]
        house = next(s for s in settled if s["account"] == "HOUSE")
        assert house["commission_received"] == sum(s["commission"] for s in settled)
        assert sum(s["net_profit"] + s["commission_received"] + s["rounding_received"] for s in settled) == 0

    notebook_output, _ = run_notebook(tmp_path, monkeypatch, account="house-noise-1")  # it bets in every window
    assert "irregularities: 12 in 12 games" in notebook_output
    assert "voided matched stake" in notebook_output and "had they stood they would have made" in notebook_output
    misdeals = sum(g["status"] == "VOID" for g in games)
    assert misdeals, "seed 5 must misdeal a game for this test to mean anything"
    # the summary says how many games had no result, apart from the dead heats (they read as voided dead heats)
    assert summary.voided == misdeals and f"games           12 ({misdeals} voided; {summary.dead_heats} dead heat" \
        in summary.text()
    # a misdealt market has no result: it is no market without a dead heat (it counted as one, in the share)
    assert f"of {12 - misdeals} markets with a result" in notebook_output
    assert f"; {misdeals} voided markets left out" in notebook_output


@pytest.mark.parametrize("operator_says", ["a test", "dealer card exposed on camera", "misdealt feed"])
def test_an_operators_void_is_not_counted_as_the_dealers_irregularity_whatever_its_words(tmp_path: Path,
                                                                                       operator_says: str) -> None:
    """The hole card exposed at the deal voids nothing (the deal goes on); the operator's void of the game in its
    Turn window voids every match. The irregularity's row counted those matches as its own when the operator's
    reason held the words "exposed" or "misdeal"."""
    write_exposed_backtest(tmp_path, operator_says)
    tables = {name: t.to_pylist() for name, t in read_tables(tmp_path).items()}
    [row] = tables["irregularities"]
    assert (row["rule"], row["outcome"]) == (1, "deal goes on")
    assert (row["matches_voided"], row["stake_voided"], row["bets_voided"]) == (0, 0, [])
    assert sum(f["voided"] for f in tables["fills"]) > 0  # the operator's void voided them: not the irregularity


def test_a_hi_lo_backtest_counts_the_voids_of_both_markets(tmp_path: Path) -> None:
    config = replace(small_config(), channel="omaha-hilo", games=12, seed=5, irregularity_rate=1.0,
                     record_streams=False)
    with InlineExecutor() as executor:
        run_backtest(config, executor, tmp_path)
    tables = {name: t.to_pylist() for name, t in read_tables(tmp_path).items()}
    rows = tables["irregularities"]
    assert [r["game_index"] for r in rows] == list(range(12))
    assert any(r["matches_voided"] for r in rows), "seed 5 must void some matches for this test to mean anything"
    assert all(not r["market_id"].endswith("-low") for r in rows)  # one row a game, under its main market
    voided_fills = [f for f in tables["fills"] if f["voided"]]
    assert sum(r["matches_voided"] for r in rows) == len(voided_fills)
    assert sum(r["stake_voided"] for r in rows) == sum(f["size"] for f in voided_fills)
    for row in rows:
        if row["outcome"] == "misdeal":
            statuses = {s["market_id"]: s for s in tables["settlements"] if s["game_index"] == row["game_index"]}
            assert set(statuses) == {row["market_id"], row["market_id"] + "-low"}
    for market in {s["market_id"] for s in tables["settlements"]}:
        settled = [s for s in tables["settlements"] if s["market_id"] == market]
        assert sum(s["net_profit"] + s["commission_received"] + s["rounding_received"] for s in settled) == 0


def test_a_backtest_refuses_irregularities_on_a_stud_channel() -> None:
    with pytest.raises(ValueError, match="channel stud7 is not dealt as hole cards then flop"):
        replace(small_config(), channel="stud7", irregularity_rate=0.5)


def test_a_voided_fill_of_the_account_with_itself_would_have_made_nothing(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The notebook's "had they stood they would have made": a fill whose back and lay are both the account's
    makes nothing either way. It counted the back's side only. Here every voided fill of the account is made its
    own on both sides, so the figure must be 0.00 (the fills as they were make something: the test can tell)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    config = replace(small_config(), games=12, seed=5, irregularity_rate=1.0, record_streams=False)
    with InlineExecutor() as executor:
        run_backtest(config, executor, tmp_path)
    account = "house-noise-1"  # it bets in every window
    before, _ = run_notebook(tmp_path, monkeypatch, account=account)
    assert "had they stood they would have made 0.00" not in before
    path = tmp_path / "fills.parquet"
    fills = pq.read_table(path)
    rows = fills.to_pylist()
    mine = [r for r in rows if r["voided"] and account in (r["back_account"], r["lay_account"])]
    assert mine
    for row in mine:
        row["back_account"] = row["lay_account"] = account
    pq.write_table(pa.Table.from_pylist(rows, schema=fills.schema), path)
    after, _ = run_notebook(tmp_path, monkeypatch, account=account)
    assert f"{account}: voided matched stake {sum(r['size'] for r in mine) / 100:.2f} in {len(mine)} fills; had they " \
           "stood they would have made 0.00" in after
