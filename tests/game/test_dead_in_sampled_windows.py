"""A hand that can no longer win or tie is settled LOSER at the window it becomes so, sampled prices or not.

Where a window's equity is a Monte Carlo estimate its counts settle nothing; the hands the cards prove dead must
be settled all the same (``exchange.md``: a selection whose outcome is certain is settled at once). The judge is
a brute force over every remaining deal of two-hand positions in sampled windows (7-Card Stud's 5th street, Soko's
and Americana's third card), and a four-hand 7-Card Stud game whose hand goes dead at 5th street.
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

import pytest

from engine.cards import Card, parse_cards
from engine.draw_policy import discards
from engine.rankings import HandValue
from engine.showdown import showdown
from engine.variants import get_variant
from exchange.game.channels import CHANNELS
from exchange.game.deal import arrange_game_deck, fixed_decks
from exchange.game.equities import game_equities
from exchange.game.events import EquitiesPublished, HandsCannotWin, WindowOpened
from exchange.game.prospects import resolve
from tests.game.helpers import make_channel


def made_key(value: HandValue | None) -> int:
    """The key of a hand the test knows is made (a high hand always is)."""
    assert value is not None, "no hand made"
    return value.key


def can_win_or_tie(variant: str, hands: list[tuple[Card, ...]]) -> set[int]:
    """The hands (1, 2) of a heads-up table with no board that win or tie on at least one remaining deal.

    Brute force over every deal: a deal gives each hand its missing cards, disjoint. For each completion of one
    hand, its rival's completions are tried weakest first (Python keys, not the kernels the game uses).
    """
    game = get_variant(variant)
    seen = {c for h in hands for c in h}
    rest = [c for c in game.deck.cards() if c not in seen]
    keyed = []
    for hand in hands:
        completions = [(made_key(game.ranking.best((*hand, *extra))), set(extra))
                       for extra in combinations(rest, game.hole_cards - len(hand))]
        keyed.append(sorted(completions, key=lambda kc: kc[0]))
    return _alive(keyed)


def _alive(keyed: list[list[tuple[Any, set[Card]]]]) -> set[int]:
    """The hands (1, 2) of which some completion meets a disjoint rival completion keyed no higher (each hand's
    completions sorted weakest first)."""
    alive = set()
    for me, rival in ((0, 1), (1, 0)):
        for key, cards in keyed[me]:
            weaker = next((k for k, theirs in keyed[rival] if cards.isdisjoint(theirs)), None)
            if weaker is not None and weaker <= key:
                alive.add(me + 1)
                break
    return alive


def position(rng: random.Random, variant: str, cards: int) -> list[tuple[Card, ...]]:
    """Two hands of ``cards`` cards: the first holds a made hand (trips, or a full house at five cards), which
    leaves the second drawing dead often enough; the rest at random."""
    pack = list(get_variant(variant).deck.cards())
    rng.shuffle(pack)
    rank = pack[0].rank
    made = [c for c in pack if c.rank == rank][:3]
    if cards == 5:
        other = next(c.rank for c in pack if c.rank != rank)
        made += [c for c in pack if c.rank == other][:2]
    rest = [c for c in pack if c not in made]
    return [tuple(made), tuple(rest[:cards])]


@pytest.mark.parametrize(("variant", "cards", "deals"), [("stud7", 5, 8), ("americana", 3, 30), ("soko", 3, 30)])
def test_the_losers_of_a_sampled_window_are_exactly_the_hands_that_cannot_win_or_tie(
        variant: str, cards: int, deals: int) -> None:
    rng = random.Random(f"sampled/{variant}")
    named = 0
    for n in range(deals):
        hands = position(rng, variant, cards)
        prospects = game_equities(variant, hands, ())[0]
        assert not prospects.exact  # a sampled window: the counts alone would settle nothing
        losers = resolve(prospects, (1, 2)).losers
        assert set(losers) == {1, 2} - can_win_or_tie(variant, hands), (n, hands)
        named += bool(losers)
    assert named >= 2  # the positions do reach hands drawing dead


def test_a_stud_hand_drawing_dead_at_fifth_street_is_settled_then_not_at_the_river() -> None:
    # At 5th street hand 2 (2 7 9 J 4, no pair, no three of a suit) can make at best trips with two cards to
    # come; hand 1 holds aces full. Hands 3 (quad queens) and 4 (a straight flush) can still beat it.
    seats = [parse_cards(s) for s in ("Ah Ad As Kc Kd 2d 3d", "2c 7d 9h Jc 4s 8d Ts", "Qs Qh 3c 4d 6s 5c 9c",
                                      "5h 6h 7h 8c Th Kh 3s")]
    config = CHANNELS["stud7"].with_times(2_000, 500)
    channel, clock, log = make_channel(fixed_decks([arrange_game_deck(config.layout, seats)]), config=config)
    game = channel.start(at_ms=0, games=1)
    clock.run()
    fifth_street_close = game.windows[2].closes_ms  # the 4th-street window's close deals 5th street
    lost = [(s.at_ms, s.event.hands) for s in log if isinstance(s.event, HandsCannotWin)]
    assert lost[0] == (fifth_street_close, (2,))
    [priced] = [s.event for s in log if isinstance(s.event, EquitiesPublished) and s.at_ms == fifth_street_close]
    assert not priced.exact  # a Monte Carlo estimate, whose certain share has no error: hand 2's 0
    assert [(h.equity == 0, h.stderr is None) for h in priced.hands] == [(False, False), (True, True),
                                                                        (False, False), (False, False)]
    opened = [s.event.round for s in log if isinstance(s.event, WindowOpened) and s.at_ms > fifth_street_close]
    assert opened and int(opened[0]) == 4  # the 5th-street window opens with hand 2 already settled
    assert game.winners == tuple(i + 1 for i in showdown("stud7", seats).high.winners) == (1,)  # aces full
    channel.exchange._check()


def can_win_or_tie_drawing(variant: str, hands: list[tuple[Card, ...]], dead: tuple[Card, ...]) -> set[int]:
    """As :func:`can_win_or_tie` before a heads-up draw game's last draw: each hand keeps what the published
    policy keeps and is dealt replacements for the rest, from every card not seen."""
    game = get_variant(variant)
    seen = {c for h in hands for c in h} | set(dead)
    rest = [c for c in game.deck.cards() if c not in seen]
    keyed = []
    for hand in hands:
        thrown = discards(variant, hand)
        kept = [c for c in hand if c not in thrown]
        completions = [(made_key(game.ranking.evaluate((*kept, *extra))), set(extra))
                       for extra in combinations(rest, len(thrown))]
        keyed.append(sorted(completions, key=lambda kc: kc[0]))
    return _alive(keyed)


def pat_against_a_drawer(rng: random.Random, eight_seven: bool) -> tuple[list[tuple[Card, ...]], tuple[Card, ...]]:
    """A 2-7 Triple Draw position before the last draw: hand 1 stands pat on a seven-low, hand 2 keeps two low
    cards (8-7: it can make no better than an eight-low; or two of 2 to 5) and draws three; eight cards were
    discarded earlier."""
    pack = list(get_variant("triple-draw-27").deck.cards())
    rng.shuffle(pack)
    low = rng.choice(((7, 5, 4, 3, 2), (7, 6, 4, 3, 2), (7, 6, 5, 3, 2), (7, 6, 5, 4, 2)))
    kept = (8, 7) if eight_seven else tuple(rng.sample(range(2, 6), 2))
    high = rng.sample(range(9, 14), 3)
    suits = [rng.randrange(4) for _ in range(5)]
    pat = tuple(next(c for c in pack if c.rank == r and int(c.suit) % 4 == (s if n else (suits[1] + 1) % 4))
                for n, (r, s) in enumerate(zip(low, suits, strict=True)))
    rest = [c for c in pack if c not in pat]
    drawer = tuple(next(c for c in rest if c.rank == r) for r in (*kept, *high))
    rest = [c for c in rest if c not in drawer]
    return [pat, drawer], tuple(rest[:8])


def test_the_losers_before_a_sampled_last_draw_are_exactly_the_hands_that_cannot_win_or_tie() -> None:
    rng = random.Random("triple-draw")
    named = 0
    for n in range(12):
        hands, dead = pat_against_a_drawer(rng, eight_seven=n % 2 == 0)
        prospects = game_equities("triple-draw-27", hands, (), dead=dead, draws_left=1, stock=30)[0]
        assert not prospects.exact and discards("triple-draw-27", hands[0]) == ()
        losers = resolve(prospects, (1, 2)).losers
        assert set(losers) == {1, 2} - can_win_or_tie_drawing("triple-draw-27", hands, dead), (n, hands)
        named += bool(losers)
    assert 2 <= named <= 10


def four_hands(rng: random.Random, variant: str, cards: int) -> list[tuple[Card, ...]]:
    """Four hands of ``cards`` cards; the first holds a full house (trips and a card of a second rank at four
    cards), so the others are often drawing dead."""
    pack = list(get_variant(variant).deck.cards())
    rng.shuffle(pack)
    trips, pair = pack[0].rank, next(c.rank for c in pack if c.rank != pack[0].rank)
    made = [c for c in pack if c.rank == trips][:3] + [c for c in pack if c.rank == pair][:2]
    rest = [c for c in pack if c not in made]
    extra = max(cards - 5, 0)
    first = (*made[:cards], *rest[:extra])
    rest = rest[extra:]
    return [first, *(tuple(rest[n * cards:(n + 1) * cards]) for n in range(3))]


@pytest.mark.parametrize(("variant", "cards", "deals"), [("stud7", 6, 6), ("americana", 4, 20), ("soko", 4, 2)])
def test_four_hands_with_one_card_to_come_agree_with_the_engines_exact_count(
        variant: str, cards: int, deals: int) -> None:
    """With four hands the search must pick disjoint completions for three rivals at once: judged here by the
    engine's exact enumeration of every deal (a hand is dead exactly when it neither wins nor ties on any)."""
    import engine
    from exchange.game.deadcheck import high_losers

    rng = random.Random(f"four/{variant}")
    named = 0
    for n in range(deals):
        hands = four_hands(rng, variant, cards)
        exact = engine.equity(variant, hands)
        dead = tuple(i + 1 for i, h in enumerate(exact.results) if h.wins == 0 and h.ties == 0)
        assert high_losers(variant, hands, ()) == dead, (n, hands)
        named += len(dead)
    assert named >= 2  # the positions do reach hands drawing dead


def made_hand_and_dead(rng: random.Random, variant: str, hands: int, cards: int,
                       dead: int) -> tuple[list[tuple[Card, ...]], tuple[Card, ...]]:
    """``hands`` hands of ``cards`` cards, the first of one rank (four of a kind, or trips, where it can), then
    ``dead`` cards seen out of play."""
    pack = list(get_variant(variant).deck.cards())
    rng.shuffle(pack)
    first = tuple([c for c in pack if c.rank == pack[0].rank][:4] + pack[-cards:])[:cards]
    rest = [c for c in pack if c not in first]
    dealt = [first, *(tuple(rest[n * cards:(n + 1) * cards]) for n in range(hands - 1))]
    return dealt, tuple(rest[(hands - 1) * cards:][:dead])


@pytest.mark.parametrize(("variant", "hands", "cards", "dead", "deals"), [
    ("telesina", 3, 4, 0, 8),  # the vela still to come as well as each hand's card
    ("americana", 3, 4, 5, 30),  # cards seen out of play are no one's
    ("stud7-hilo", 3, 6, 3, 2),  # the High market of a hi/lo game
])
def test_dead_hands_with_a_shared_card_dead_cards_or_a_high_half_agree_with_the_engines_exact_count(
        variant: str, hands: int, cards: int, dead: int, deals: int) -> None:
    import engine
    from exchange.game.deadcheck import high_losers

    rng = random.Random(f"dead/{variant}")
    named = 0
    for n in range(deals):
        dealt, out = made_hand_and_dead(rng, variant, hands, cards, dead)
        exact = engine.equity(variant, dealt, (), out)
        counts = [(getattr(h, "high_wins", None), getattr(h, "high_ties", None)) for h in exact.results]
        won = [(h.wins, h.ties) if hi is None else (hi, ht) for h, (hi, ht) in zip(exact.results, counts, strict=True)]
        losers = tuple(i + 1 for i, (wins, ties) in enumerate(won) if wins == 0 and ties == 0)
        assert high_losers(variant, dealt, (), out) == losers, (n, dealt, out)
        named += len(losers)
    assert named >= 1  # the positions do reach hands drawing dead
