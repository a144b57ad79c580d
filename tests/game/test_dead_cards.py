"""A card a dealer's error showed and then burned is dead to every equity of its game.

``irregularities.md`` rule 1 (one hole card exposed: it "becomes the burn card") and
rule 5 (one extra card: it "goes back to the deck and is used as the burn card")
take a card everyone has seen out of play; rules 3 and 4 shuffle the cards seen
back into the deck. Each test deals a constructed deck with the error injected at
a known card, and judges every price the game publishes against a brute-force
enumeration written here (eval7 for high hands, a plain eight-or-better low) over
the cards that can still come.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import eval7
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import Card, deck52, parse_cards
from engine.irregularities import Irregularity, Kind
from exchange.agents.house import LADDER, MakerConfig, seat_house_makers
from exchange.clock import VirtualClock
from exchange.core.events import OrderPlaced
from exchange.core.exchange import Exchange
from exchange.game.channel import Channel
from exchange.game.channels import CHANNELS
from exchange.game.deal import fixed_decks, seeded_decks
from exchange.game.equities import game_equities, opening_prospects
from exchange.game.events import (
    BoardTurned,
    EquitiesPublished,
    EventLog,
    HandsCannotWin,
    HoleCardsTurned,
    ResultDeclared,
    WindowClosed,
)
from exchange.game.irregular import IrregularityOccurred, IrregularityPlan, scripted
from exchange.game.pricing import quote_ticks
from exchange.game.prospects import resolve
from exchange.game.rounds import Round
from exchange.game.table import Phase
from tests.game.helpers import Later

E7 = {c: eval7.Card(str(c)) for c in deck52()}
Counts = tuple[int, tuple[tuple[int, int, Fraction], ...]]  # boards, (win, tie, equity) per selection

# Hand 2 (a set of sevens against a set of kings) has one out left on the turn: the last seven, 7h.
HOLDEM_HANDS = ("Ks Kd", "7d 7s", "3c 4c", "3d 4d")
OMAHA_HANDS = ("Ks Kd Qc Qh", "7d 7s Jh Jc", "3c 4c 8h 8d", "3d 4d 8c 8s")
BOARD = "Kh 7c 2d 9s Qs"
OUT = Card.parse("7h")


# --- the reference: every board that can still come, judged without the engine --------------------


def high_value(variant: str, hole: Sequence[Card], board: Sequence[Card]) -> int:
    if variant == "holdem":
        return eval7.evaluate([E7[c] for c in (*hole, *board)])
    return max(eval7.evaluate([E7[c] for c in (*two, *three)])
               for two in itertools.combinations(hole, 2) for three in itertools.combinations(board, 3))


def low_value(hole: Sequence[Card], board: Sequence[Card]) -> tuple[int, ...] | None:
    """Omaha's eight-or-better low: two hole cards and three board cards, five different ranks ace to eight."""
    lows = []
    for two in itertools.combinations(hole, 2):
        for three in itertools.combinations(board, 3):
            ranks = sorted((1 if c.id // 4 == 12 else c.id // 4 + 2 for c in (*two, *three)), reverse=True)
            if len(set(ranks)) == 5 and ranks[0] <= 8:
                lows.append(tuple(ranks))
    return min(lows) if lows else None


def reference(variant: str, hands: Sequence[Sequence[Card]], board: Sequence[Card],
              dead: Sequence[Card]) -> list[Counts]:
    """Each market's counts over every completion of ``board`` from the cards neither held, turned nor dead."""
    seen = {c for h in hands for c in h} | set(board) | set(dead)
    unseen = [c for c in deck52() if c not in seen]
    n = len(hands)
    hilo = variant == "omaha-hilo"
    tallies: list[list[Tally]] = [[Tally() for _ in range(n + (1 if low else 0))]
                                  for low in ((False, True) if hilo else (False,))]
    boards = 0
    for rest in itertools.combinations(unseen, 5 - len(board)):
        full = (*board, *rest)
        boards += 1
        highs = [high_value(variant, h, full) for h in hands]
        _score(tallies[0], [i for i, v in enumerate(highs) if v == max(highs)])
        if hilo:
            lows = [low_value(h, full) for h in hands]
            made = [v for v in lows if v is not None]
            _score(tallies[1], [i for i, v in enumerate(lows) if made and v == min(made)] or [n])
    return [(boards, tuple((t.wins, t.ties, t.share / boards) for t in tally)) for tally in tallies]


@dataclass
class Tally:
    wins: int = 0
    ties: int = 0
    share: Fraction = Fraction(0)


def _score(tally: list[Tally], top: list[int]) -> None:
    for i in top:
        if len(top) == 1:
            tally[i].wins += 1
        else:
            tally[i].ties += 1
        tally[i].share += Fraction(1, len(top))


def published(event: EquitiesPublished) -> Counts:
    return event.boards, tuple((h.win, h.tie, h.equity) for h in event.hands)


# --- a constructed deal with the error at a known card ---------------------------------------------


def irregular_deck(hands: Sequence[str], board: str, burned: Card, kind: Kind, position: int = 0) -> list[Card]:
    """A deck from which the dealer, making error ``kind``, deals ``hands`` and ``board`` and burns ``burned``.

    ``exposed-hole-cards``: the card dealt at ``position`` (dealing order) is exposed and
    replaced after the deal by the next card; ``extra-cards``: seat 1 gets one card too many.
    Either becomes the flop's burn, so the flop follows at once; the turn and river are burned.
    """
    seats = [parse_cards(h) for h in hands]
    cards = parse_cards(board)
    order: list[Card] = []
    for pos in range(len(seats) * len(seats[0])):
        order.append(burned if kind is Kind.EXPOSED_HOLE_CARDS and pos == position
                     else seats[pos % len(seats)][pos // len(seats)])
    if kind is Kind.EXPOSED_HOLE_CARDS:
        order.append(seats[position % len(seats)][position // len(seats)])
    else:
        order.append(burned)
    named = set(order) | set(cards)
    spare = [c for c in deck52() if c not in named]
    order += [*cards[:3], spare.pop(0), cards[3], spare.pop(0), cards[4]]
    return order + spare


def play(channel_name: str, deck: list[Card], irregularity: Irregularity, *, house: bool = False) -> EventLog:
    clock = VirtualClock()
    channel = Channel(CHANNELS[channel_name], clock, Exchange(), decks=fixed_decks([deck]),
                      irregularities=scripted({0: IrregularityPlan(irregularity)}))
    log = EventLog.attach(channel.bus)
    if house:
        channel.open_account("house", 1_000_000_000)
        seat_house_makers(channel, "house")
    game = channel.start(games=1)
    clock.run()
    game._check()  # among others: no card out of play was dealt again
    return log


def reveals(log: EventLog) -> list[tuple[str, tuple[tuple[Card, ...], ...], tuple[Card, ...], EquitiesPublished]]:
    """``(market, hands, board, equities)`` for every price published once the hands are face up."""
    hands: tuple[tuple[Card, ...], ...] = ()
    board: tuple[Card, ...] = ()
    out = []
    for s in log:
        if isinstance(s.event, HoleCardsTurned):
            hands = s.event.hands
        elif isinstance(s.event, BoardTurned):
            board = s.event.board
        elif isinstance(s.event, EquitiesPublished) and hands:
            out.append((s.market_id or "", hands, board, s.event))
    return out


CASES = [
    ("holdem", HOLDEM_HANDS, Irregularity(Kind.EXPOSED_HOLE_CARDS, (5,)), 5),
    ("holdem-turbo", HOLDEM_HANDS, Irregularity(Kind.EXTRA_CARDS), 0),
    ("omaha", OMAHA_HANDS, Irregularity(Kind.EXPOSED_HOLE_CARDS, (9,)), 9),
    ("omaha-hilo", OMAHA_HANDS, Irregularity(Kind.EXPOSED_HOLE_CARDS, (5,)), 5),
    ("omaha-hilo", OMAHA_HANDS, Irregularity(Kind.EXTRA_CARDS), 0),
]


@pytest.mark.parametrize(("channel", "hands", "irregularity", "position"), CASES,
                         ids=[f"{c[0]}-{c[2].kind}" for c in CASES])
def test_a_burned_exposed_card_is_dead_to_every_price_and_settles_the_one_outer_early(
    channel: str, hands: tuple[str, ...], irregularity: Irregularity, position: int
) -> None:
    variant = CHANNELS[channel].variant
    log = play(channel, irregular_deck(hands, BOARD, OUT, irregularity.kind, position), irregularity)
    (occurred,) = log.of_type(IrregularityOccurred)
    assert occurred.cards == (OUT,) and occurred.dead == (OUT,)
    every = log.of_type(EquitiesPublished)
    assert every and all(e.dead == (OUT,) for e in every)

    judged = 0
    for market, held, board, event in reveals(log):
        if len(board) < 3:
            continue
        which = 1 if market.endswith("-low") else 0
        assert published(event) == reference(variant, held, board, (OUT,))[which], (market, board)
        if len(board) == 3:  # the dead card moves the price: a deck that still held it would price otherwise
            assert published(event) != reference(variant, held, board, ())[which]
        judged += 1
    assert judged >= (2 if variant == "holdem" else 1) * (2 if variant == "omaha-hilo" else 1)

    # The turn leaves hand 2 one out, 7h, which is dead: hand 1 is the only hand left that can win.
    main = next(s.event for s in log if isinstance(s.event, ResultDeclared) and s.event.market != "low")
    turn = parse_cards(BOARD)[:4]
    assert main.early and main.winners == (1,) and main.board[:4] == turn
    held = tuple(parse_cards(h) for h in hands)
    live_deck = game_equities(variant, held, turn)[0]  # the same turn with 7h still counted in the deck
    assert live_deck.hands[1].win == 1 and not resolve(live_deck, (1, 2, 3, 4)).decided
    settled_losers = {h for e in log.of_type(HandsCannotWin) for h in e.hands}
    if variant == "holdem":  # a one-outer from the flop: with 7h dead, hand 2 is lost on the flop already
        flop = parse_cards(BOARD)[:3]
        assert 2 in settled_losers
        assert game_equities(variant, held, flop)[0].hands[1].win > 0
        assert game_equities(variant, held, flop, dead=(OUT,))[0].hands[1].win == 0


def test_the_house_quotes_the_flop_from_the_prices_without_the_burned_card() -> None:
    irregularity = Irregularity(Kind.EXPOSED_HOLE_CARDS, (5,))
    log = play("holdem", irregular_deck(HOLDEM_HANDS, BOARD, OUT, irregularity.kind, 5), irregularity, house=True)
    quoted: dict[int, set[int]] = {}
    for e in log.of_type(OrderPlaced):
        if e.account_id == "house" and e.round == Round.FLOP:
            quoted.setdefault(e.selection_id, set()).add(e.tick)
    held, flop = [parse_cards(h) for h in HOLDEM_HANDS], parse_cards(BOARD)[:3]
    spec = MakerConfig().quote

    def ticks(dead: tuple[Card, ...]) -> dict[int, set[int]]:
        counts = reference("holdem", held, flop, dead)[0][1]
        out = {}
        for hand, (_win, _tie, equity) in enumerate(counts, start=1):
            q = quote_ticks(LADDER, equity, spec)
            if q.lay_ticks or q.back_ticks:
                out[hand] = {*q.lay_ticks, *q.back_ticks}
        return out

    assert quoted == ticks((OUT,)) and 2 not in quoted  # hand 2 is settled: its one out is dead
    assert quoted != ticks(())


def test_the_hi_lo_opening_low_price_counts_a_card_burned_at_the_deal() -> None:
    irregularity = Irregularity(Kind.EXTRA_CARDS)
    low_card = Card.parse("3h")
    log = play("omaha-hilo", irregular_deck(OMAHA_HANDS, BOARD, low_card, irregularity.kind), irregularity)
    opening = [s.event for s in log if isinstance(s.event, EquitiesPublished) and s.event.round == 1]
    assert [e.dead for e in opening] == [(low_card,), (low_card,)]
    high, low = opening_prospects("omaha-hilo", 4, (low_card,))
    assert [published(e) for e in opening] == [(p.boards, tuple((h.win, h.tie, h.equity) for h in p.hands))
                                               for p in (high, low)]
    assert low.hands != opening_prospects("omaha-hilo", 4)[1].hands
    assert all(h.equity == Fraction(1, 4) for h in high.hands)  # the hands are still alike


@pytest.mark.parametrize("kind", [Kind.TOO_MANY_FLOP_CARDS, Kind.PREMATURE_FLOP, Kind.PREMATURE_TURN,
                                  Kind.PREMATURE_RIVER])
def test_cards_shuffled_back_into_the_deck_are_not_dead(kind: Kind) -> None:
    clock = VirtualClock()
    channel = Channel(CHANNELS["holdem"], clock, Exchange(), decks=seeded_decks(11),
                      irregularities=scripted({0: IrregularityPlan(Irregularity(kind), shuffle_seed="back")}))
    log = EventLog.attach(channel.bus)
    channel.start(games=1)
    clock.run()
    (occurred,) = log.of_type(IrregularityOccurred)
    assert occurred.cards and occurred.dead == ()
    every = reveals(log)
    assert every and all(event.dead == () for *_, event in every)
    for _market, held, board, event in every:
        if len(board) >= 3:  # the cards seen count among those that can still come
            assert published(event) == reference("holdem", held, board, ())[0]
        back = [c for c in occurred.cards if c not in board]
        if 3 <= len(board) < 5 and back:  # (so a price that left them out would fail)
            assert published(event) != reference("holdem", held, board, back)[0]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), extra=st.booleans(), position=st.integers(1, 7))
def test_every_price_of_a_random_deal_leaves_out_the_burned_card(seed: int, extra: bool, position: int) -> None:
    irregularity = Irregularity(Kind.EXTRA_CARDS) if extra else Irregularity(Kind.EXPOSED_HOLE_CARDS, (position,))
    clock = VirtualClock()
    channel = Channel(CHANNELS["holdem"], clock, Exchange(), decks=seeded_decks(seed),
                      irregularities=scripted({0: IrregularityPlan(irregularity)}))
    log = EventLog.attach(channel.bus)
    game = channel.start(games=1)
    clock.run()
    game._check()
    (occurred,) = log.of_type(IrregularityOccurred)
    dead = occurred.cards
    assert len(dead) == 1 and occurred.dead == dead
    for _market, held, board, event in reveals(log):
        assert event.dead == dead and dead[0] not in board
        if len(board) >= 3:
            assert published(event) == reference("holdem", held, board, dead)[0]


def test_the_opening_low_price_with_a_dead_card_is_computed_off_the_caller_and_holds_the_first_window() -> None:
    """The server computes equities on a worker: the Deal window opens only once the re-sampled price is in,
    and closes at its timetable time all the same."""
    irregularity = Irregularity(Kind.EXTRA_CARDS)
    low_card = Card.parse("3h")
    clock, runner = VirtualClock(start_ms=0), Later()
    channel = Channel(CHANNELS["omaha-hilo"], clock, Exchange(), runner=runner,
                      decks=fixed_decks([irregular_deck(OMAHA_HANDS, BOARD, low_card, irregularity.kind)]),
                      irregularities=scripted({0: IrregularityPlan(irregularity)}))
    log = EventLog.attach(channel.bus)
    game = channel.start(games=1)
    while not runner.jobs:
        assert clock.step()
    assert game.phase is Phase.PLAYING and not log.of_type(EquitiesPublished)
    assert channel.game() is game  # dealt: the table shows it, not the game before
    clock.advance(250)  # the worker is slow: the window waits for its price
    assert game.phase is Phase.PLAYING and len(runner.jobs) == 1
    runner.deliver()
    assert game.phase is Phase.BETTING and game.round is Round.DEAL
    published_now = log.of_type(EquitiesPublished)
    assert [e.dead for e in published_now] == [(low_card,), (low_card,)]
    assert published(published_now[1])[1] == tuple(
        (h.win, h.tie, h.equity) for h in opening_prospects("omaha-hilo", 4, (low_card,))[1].hands)
    names = [type(s.event).__name__ for s in log]
    assert names.index("EquitiesPublished") < names.index("WindowOpened")
    closes_at = game.windows[Round.DEAL - 1].closes_ms
    clock.run(until_ms=closes_at - 1)
    assert game.phase is Phase.BETTING
    clock.run(until_ms=closes_at)
    assert game.phase is Phase.PLAYING and log.of_type(WindowClosed)
