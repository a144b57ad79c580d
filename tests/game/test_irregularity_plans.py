"""A bad irregularity plan is refused when it is built, or when a channel is given it, with an error naming the
field and what it may be: never later, when a game reaches it (a crashed clock loop mid-run)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from engine.irregularities import Irregularity, Kind
from exchange.clock import VirtualClock
from exchange.core.exchange import Exchange
from exchange.game.channel import Channel
from exchange.game.channels import CHANNELS
from exchange.game.deal import seeded_decks
from exchange.game.irregular import IrregularityPlan, IrregularitySource, scripted, seeded_irregularities

FLOP = Irregularity(Kind.PREMATURE_FLOP)


@pytest.mark.parametrize(("build", "message"), [
    (lambda: Irregularity("premature-flop"), r"kind must be a Kind \(exposed-hole-cards, .*\), not 'premature-flop'"),  # type: ignore[arg-type]  # a str kind, on purpose
    (lambda: Irregularity("bogus"), r"kind must be a Kind .* not 'bogus'"),  # type: ignore[arg-type]  # a str kind, on purpose
    (lambda: Irregularity(Kind.EXPOSED_HOLE_CARDS, [3]), r"cards must be a tuple .* not \[3\]"),  # type: ignore[arg-type]  # a list, on purpose
    (lambda: Irregularity(Kind.EXPOSED_HOLE_CARDS, (1.5,)), r"cards must be a tuple of .*whole.*\(1\.5,\)"),  # type: ignore[arg-type]  # a float card, on purpose
    (lambda: Irregularity(Kind.EXTRA_CARDS, count=True), "count must be a whole number, at least 1, not True"),
    (lambda: Irregularity(Kind.PREMATURE_RIVER, count=2), "only extra-cards and too-many-flop-cards take a count"),
    (lambda: IrregularityPlan(Kind.PREMATURE_FLOP), "irregularity must be an engine.irregularities.Irregularity"),  # type: ignore[arg-type]  # a Kind, no Irregularity, on purpose
    (lambda: IrregularityPlan(FLOP, at_permille=0.5), r"at_permille .* a whole number 0\.\.999, not 0\.5"),  # type: ignore[arg-type]  # a float, on purpose
    (lambda: IrregularityPlan(FLOP, notice_ms=1.5), r"notice_ms must be a whole number .* not 1\.5"),  # type: ignore[arg-type]  # a float, on purpose
    (lambda: IrregularityPlan(FLOP, shuffle_seed=1.5), r"shuffle_seed must be an int or a str, not 1\.5"),  # type: ignore[arg-type]  # a float, on purpose
    (lambda: scripted({0: FLOP}), r"game 0: a scripted plan must be an IrregularityPlan"),  # type: ignore[dict-item]  # no plan, on purpose
    (lambda: scripted({-1: IrregularityPlan(FLOP)}), r"keyed by game number, a whole number from 0, not -1"),
    (lambda: seeded_irregularities(1, 0.5, max_notice_ms=-1), r"max_notice_ms must be .* 0 or more, not -1"),
])  # fmt: skip
def test_a_bad_plan_is_refused_when_built(build: Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build()


def _channel(
    name: str, source: IrregularitySource | None, hands: int = 4, clock: VirtualClock | None = None
) -> Channel:
    config = replace(CHANNELS[name], hands=hands)
    return Channel(config, clock or VirtualClock(), Exchange(), decks=seeded_decks(1), irregularities=source)


def _exposing(*positions: int) -> IrregularitySource:
    return scripted({3: IrregularityPlan(Irregularity(Kind.EXPOSED_HOLE_CARDS, positions))})


@pytest.mark.parametrize(("name", "hands", "source", "message"), [
    ("holdem", 4, _exposing(8), r"channel holdem: game 3: cards: a deal of 8 hole cards has positions 0 to 7, not \(8"),
    ("holdem", 2, _exposing(2, 5), r"a deal of 4 hole cards has positions 0 to 3, not \(2, 5\)"),
    ("omaha", 4, scripted({0: IrregularityPlan(Irregularity(Kind.TOO_MANY_FLOP_CARDS, count=33))}),
     r"channel omaha: game 0: count: after 16 hole cards a pack of 52 has room for at most 32 too-many-flop-cards"),
    ("omaha", 4, scripted({0: IrregularityPlan(Irregularity(Kind.EXTRA_CARDS, count=37))}),
     r"room for at most 36 extra-cards, not 37"),
    ("holdem", 3, seeded_irregularities(1, 0.5), r"channel holdem: hole_cards: .* first 8 hole cards but .* has 6"),
])  # fmt: skip
def test_a_plan_the_channels_deal_cannot_have_is_refused_when_the_channel_is_given_it(
    name: str, hands: int, source: IrregularitySource, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        _channel(name, source, hands)
    channel = _channel(name, None, hands)
    with pytest.raises(ValueError, match=message):
        channel.irregularities = source  # set while running: the same check
    assert channel.irregularities is None


def test_plans_at_the_edge_of_the_deal_are_taken_and_played() -> None:
    """The last hole card, and as many flop cards too many as the pack holds, are real deals."""
    for name, source in (("holdem", _exposing(7)),
                         ("omaha", scripted({0: IrregularityPlan(Irregularity(Kind.TOO_MANY_FLOP_CARDS, count=32))})),
                         ("omaha", scripted({0: IrregularityPlan(Irregularity(Kind.EXTRA_CARDS, count=36))}))):
        clock = VirtualClock()
        channel = _channel(name, source, clock=clock)
        channel.start(at_ms=0, games=4)
        clock.run()
        assert channel.games_finished == 4
