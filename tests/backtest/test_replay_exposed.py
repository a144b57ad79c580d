"""The replay shows the cards a dealer's error exposed when the live game showed them, the dead ones as dead.

Two folders from ``tests/voided_backtest.py``: a hole card exposed at the deal (rule 1: it
becomes the burn card, dead for the rest of the game) and a turn turned early in the Flop
window (rule 4: set aside, then shuffled back: seen, but not dead). Each comes with the
exposed and dead cards the live game itself showed (its public cards, which the live
snapshot sends as ``exposedCards`` and ``deadCards``) each time they changed; the replay
must show the same before, at and after each change, from ``irregularities.parquet``.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from exchange.backtest.replay import RecordedGame, game_snapshot, load_timeline
from exchange.game.irregular import IrregularityOccurred
from tests.voided_backtest import VoidedBacktest, write_exposed_backtest, write_voided_backtest

Cards = tuple[str, ...]
WRITERS: dict[str, Callable[[Path], VoidedBacktest]] = {
    "hole-card-burned": write_exposed_backtest, "premature-turn": write_voided_backtest}


@pytest.fixture(scope="module", params=sorted(WRITERS))
def backtest(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> VoidedBacktest:
    return WRITERS[request.param](tmp_path_factory.mktemp("replay") / request.param)


def shown(game: RecordedGame, now_ms: int) -> tuple[Cards, Cards]:
    data = game_snapshot(game, now_ms)["game"]["gameData"]
    return tuple(data.get("exposedCards", ())), tuple(data.get("deadCards", ()))


def test_exposed_and_dead_cards_are_shown_when_the_live_game_showed_them(backtest: VoidedBacktest) -> None:
    game = load_timeline(backtest.out).games[0]
    [(exposed_ms, exposed, dead)] = backtest.exposed  # one irregularity: one change, for the rest of the game
    [occurred] = [s for s in backtest.log if isinstance(s.event, IrregularityOccurred)]
    assert isinstance(occurred.event, IrregularityOccurred)
    assert occurred.at_ms == exposed_ms and exposed == tuple(str(c) for c in occurred.event.cards)
    assert shown(game, exposed_ms - 1) == ((), ())
    for now_ms in (exposed_ms, exposed_ms + 1, game.windows[-1].opens_ms, game.end_ms - 1):
        assert shown(game, now_ms) == (exposed, dead), now_ms
    if occurred.event.rule == 1:
        assert dead == exposed, "rule 1: the exposed hole card is the burn card, out of play"
    else:
        assert exposed and not dead, "rule 4: the early turn is shuffled back, not dead"


def test_a_folder_without_dead_cards_or_irregularities_shows_less_and_nothing_else_changes(
        backtest: VoidedBacktest, tmp_path: Path) -> None:  # fmt: skip
    """Folders written before ``dead_cards``, and before ``irregularities.parquet``: the exposed cards without
    their deaths, then none; every other part of the snapshot as in the full folder."""
    [(exposed_ms, exposed, _)] = backtest.exposed
    full = load_timeline(backtest.out).games[0]
    no_dead, none = tmp_path / "no-dead", tmp_path / "none"
    shutil.copytree(backtest.out, no_dead)
    table = pq.read_table(no_dead / "irregularities.parquet")
    pq.write_table(table.drop_columns(["dead_cards"]), no_dead / "irregularities.parquet")
    shutil.copytree(backtest.out, none)
    (none / "irregularities.parquet").unlink()
    older, oldest = load_timeline(no_dead).games[0], load_timeline(none).games[0]
    for now_ms in (exposed_ms - 1, exposed_ms, full.end_ms - 1):
        seen = exposed if now_ms >= exposed_ms else ()
        assert (shown(older, now_ms), shown(oldest, now_ms)) == ((seen, ()), ((), ())), now_ms
        expected = game_snapshot(full, now_ms)
        for key in ("exposedCards", "deadCards"):
            expected["game"]["gameData"].pop(key, None)
        assert game_snapshot(oldest, now_ms) == expected, now_ms
