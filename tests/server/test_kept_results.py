"""The kept results: a finished game's JSON form loses nothing, and the store keeps each channel's newest, bounded.

A plain list per channel is the reference the bounded store is held to; every
result goes through the journal's JSON (bytes, as the journal writes them) and
back, and through the snapshot's.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import InvariantError
from engine.cards import Card
from exchange.game.layouts import MarketKind
from exchange.server import jsoncodec
from exchange.server.kept_results import GameResult, KeptResults, MarketResult

CHANNELS = ("holdem", "omaha-hilo", "stud7")
reasons = st.none() | st.text(max_size=30)
cards = st.lists(st.integers(0, 51), unique=True, max_size=7).map(lambda ids: tuple(Card(i) for i in ids))
seats = st.lists(cards, max_size=4).map(tuple)  # a draw's cards, seat by seat (thrown, or drawn)
markets = st.builds(MarketResult, st.text(min_size=1, max_size=20), st.sampled_from(MarketKind),
                    st.lists(st.integers(1, 9), unique=True, max_size=4).map(tuple), st.booleans(),
                    st.lists(st.integers(1, 9), unique=True, max_size=4).map(tuple), reasons)


@st.composite
def results(draw: st.DrawFn, channel: str | None = None, number: int | None = None) -> GameResult:
    name = draw(st.sampled_from(CHANNELS)) if channel is None else channel
    game = draw(st.integers(0, 10**9)) if number is None else number
    return GameResult(name, f"{name}.{game}", game, draw(st.sampled_from(("SETTLED", "VOID"))),
                      draw(st.integers(0, 2**53)), draw(reasons), draw(st.lists(cards, max_size=8).map(tuple)),
                      draw(cards), draw(st.lists(markets, min_size=1, max_size=2).map(tuple)), draw(cards),
                      draw(cards), draw(st.lists(st.tuples(seats, seats), max_size=3).map(tuple)))


@given(results())
def test_a_result_comes_back_from_the_journals_json_field_for_field(result: GameResult) -> None:
    written = jsoncodec.dumps_record(result.to_dict())  # what Journal.append writes for the record
    assert GameResult.from_dict(jsoncodec.loads(written)) == result


def test_a_result_written_before_exposed_cards_were_kept_reads_as_none_exposed() -> None:
    result = GameResult("holdem", "holdem.4", 4, "VOID", 9, "misdeal", (), (),
                        (MarketResult("holdem.4", MarketKind.WIN, (), False, (), "misdeal"),),
                        (Card(3), Card(17)), (Card(3),))
    written = result.to_dict()
    assert (written["exposed"], written["dead"]) == (["2s", "6d"], ["2s"])
    older = {k: v for k, v in written.items() if k not in ("exposed", "dead")}
    assert GameResult.from_dict(older) == GameResult(*[getattr(result, f) for f in ("channel", "game_id",
                                                     "game_number", "status", "ended_ms", "void_reason", "hands",
                                                     "board", "markets")])


@st.composite
def finished_games(draw: st.DrawFn) -> list[GameResult]:
    """Games ending one after another on the channels, each channel's numbered upwards."""
    out, next_number = [], dict.fromkeys(CHANNELS, 0)
    for channel in draw(st.lists(st.sampled_from(CHANNELS), max_size=40)):
        next_number[channel] += draw(st.integers(1, 3))
        out.append(draw(results(channel, next_number[channel])))
    return out


@settings(max_examples=60)
@given(finished_games(), st.integers(1, 6), st.integers(1, 6), st.integers(1, 8))
def test_each_channel_keeps_its_newest_results_as_a_list_would(games: list[GameResult], keep: int, cut: int,
                                                               limit: int) -> None:
    kept = KeptResults(keep)
    seen: dict[str, list[GameResult]] = {name: [] for name in CHANNELS}
    for game in games:
        kept.add(game)
        seen[game.channel].append(game)
        kept._check()
    for name, everything in seen.items():
        assert kept.recent(name, limit) == everything[-keep:][::-1][:limit]
    again = KeptResults.from_json(kept.to_json())
    again._check()
    assert again == kept and again.keep == keep
    fewer = kept.kept_to(cut)
    fewer._check()
    for name, everything in seen.items():
        assert fewer.recent(name, 10) == everything[-min(keep, cut):][::-1]


def _valid() -> dict[str, Any]:
    market = MarketResult("holdem.1", MarketKind.WIN, (1,), False, (), None)
    return GameResult("holdem", "holdem.1", 1, "SETTLED", 5, None, ((Card(0), Card(1)),), (), (market,)).to_dict()


@pytest.mark.parametrize(("change", "says"), [
    (lambda d: d.pop("board"), "KeyError: 'board'"),
    (lambda d: d.update(hands=[["Zz"]]), "'Zz' has an unknown rank"),
    (lambda d: d.update(game_number="1"), "expected a whole number, got '1'"),
    (lambda d: d.update(ended_ms=True), "expected a whole number, got True"),
    (lambda d: d["markets"][0].update(kind="place"), "'place' is not a valid MarketKind"),
    (lambda d: d["markets"][0].update(early=1), "expected true or false, got 1"),
    (lambda d: d["markets"][0].update(winners=[1.0]), "expected a whole number, got 1.0"),
    (lambda d: d.update(void_reason=3), "expected a string, got 3"),
])
def test_a_record_that_is_not_a_result_is_refused_saying_what_is_wrong(change: Any, says: str) -> None:
    data = _valid()
    change(data)
    with pytest.raises(ValueError, match="not a game result") as raised:
        GameResult.from_dict(data)
    assert says in str(raised.value)


@pytest.mark.parametrize("data", [b"[]", b'{"keep": 0, "results": []}', b'{"keep": 2}', b"{"])
def test_kept_results_that_are_not_that_shape_are_refused(data: bytes) -> None:
    with pytest.raises(ValueError, match="the kept results are not readable"):
        KeptResults.from_json(data)


@pytest.mark.parametrize(("corrupt", "says"), [
    (lambda kept, older, newer: kept._kept["holdem"].extendleft([newer]), "out of the games' order"),
    (lambda kept, older, newer: kept._kept.update(omaha=kept._kept["holdem"]), "keeps other channels' results"),
    (lambda kept, older, newer: setattr(kept, "keep", 1), "not at most 1"),
])
def test_a_corrupted_store_is_caught(corrupt: Any, says: str) -> None:
    market = (MarketResult("holdem.1", MarketKind.WIN, (1,), False, (), None),)
    older, newer = (GameResult("holdem", f"holdem.{n}", n, "SETTLED", n, None, (), (), market) for n in (1, 2))
    kept = KeptResults(3)
    kept.add(older)
    kept.add(newer)
    kept._check()
    corrupt(kept, older, newer)
    with pytest.raises(InvariantError, match=says):
        kept._check()
