"""Positions that exercise each step of the dead-hand check, judged by playing out every deal.

:func:`exchange.game.deadcheck.high_losers` looks, for each completion of a hand, for disjoint completions of
its rivals that leave it best. Random positions rarely need more than the hand's best completion, or make two
rivals want the same card; these do, on purpose, with most of the pack out of play so that every deal can be
shown down (:func:`engine.showdown.showdown`, the Python rankings: nothing shared with the check's kernels).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations

import pytest

from engine.cards import Card, parse_cards
from engine.draw_policy import discards
from engine.equity import equity as engine_equity
from engine.rankings import HandValue
from engine.showdown import showdown
from engine.variants import get_variant
from exchange.game.channels import CHANNELS
from exchange.game.deadcheck import high_losers
from exchange.game.deal import arrange_game_deck, fixed_decks
from exchange.game.equities import game_equities, scored_hands
from exchange.game.events import HandsCannotWin
from exchange.game.prospects import resolve
from tests.game.helpers import make_channel


def made_key(value: HandValue | None) -> int:
    """The key of a hand the test knows is made (a high hand always is)."""
    assert value is not None, "no hand made"
    return value.key


def deals(pool: Sequence[Card], missing: Sequence[int]) -> Iterator[tuple[tuple[Card, ...], ...]]:
    """Every way to give each hand its ``missing`` cards from ``pool``, no card twice."""
    if not missing:
        yield ()
        return
    for extra in combinations(pool, missing[0]):
        rest = [c for c in pool if c not in extra]
        for others in deals(rest, missing[1:]):
            yield (extra, *others)


def never_win_or_tie(variant: str, hands: Sequence[tuple[Card, ...]], pool: Sequence[Card],
                     board: Sequence[Card] = ()) -> tuple[int, ...]:
    """The hands (from 1) that win or tie on no deal of ``pool`` (each hand's cards, then the board's)."""
    game = get_variant(variant)
    scored: set[int] = set()
    for *dealt, run in deals(pool, [*(game.hole_cards - len(h) for h in hands), game.board_cards - len(board)]):
        result = showdown(variant, [(*h, *extra) for h, extra in zip(hands, dealt, strict=True)], (*board, *run))
        scored.update(w + 1 for w in result.high.winners)
    return tuple(i for i in range(1, len(hands) + 1) if i not in scored)


def out_of_play(variant: str, hands: Sequence[tuple[Card, ...]], pool: Sequence[Card]) -> tuple[Card, ...]:
    """Every card of the pack neither held nor in ``pool``: seen and out of play."""
    kept = {c for h in hands for c in h} | set(pool)
    return tuple(c for c in get_variant(variant).deck.cards() if c not in kept)


POSITIONS = [
    pytest.param(  # hand 1's best completion, 8d 8s (sevens full), loses to any two clubs for hand 2 (a flush
        # beats a full house in Americana); it wins only by taking two of the clubs itself and staying trips.
        "americana", ("7h 7c 7d", "8c Tc Qc"), "Kc 8d Ac 8s Jc", (), id="only-a-lesser-completion-wins"),
    pytest.param(  # hand 3's best completion, a club flush (2c 6c), leaves hand 1 a full house whatever it is
        # dealt; its straight (2c and a five) wins, with hand 1 on trips (6c Qd) and hand 2 on sevens.
        "stud7", ("9h 9s 9d 5d 7c", "Jc 4h 8h Ts 7h", "3s 3c Ac Qc 4d"), "2c 5s 5h 6c 7s Qd", (),
        id="a-lesser-completion-against-two-rivals"),
    pytest.param(  # hand 3's flush (8d) is beaten unless hand 1 stays trips (Kh: 2c makes fours full) and hand 2
        # stays two pair (Kh: 2c makes an ace-high flush): both rivals need the one Kh.
        "stud7", ("4h 4s 4d 2d 3s 8h", "Jc Kc 3c As Ac Td", "5h 7d Jd 6d 6c Kd"), "2c Kh 8d", (3,),
        id="two-rivals-need-one-card"),
    pytest.param(  # heads-up, Telesina's rule: hand 2 loses every deal by the usual order, but As 7s 8s 9s Ts
        # (its own Ts, the hearts royal made by either Th) beats the hearts royal when only two hands meet.
        "telesina", ("Ah Kh Qh Jh", "As 7s 8s 9s"), "Th Ts 7h", (), id="heads-up-low-spades"),
    pytest.param(  # the same without the Ts: hand 2 can no longer hold the low spades, and is dead heads-up too.
        "telesina", ("Ah Kh Qh Jh", "As 7s 8s 9s"), "Th Tc 7h", (2,), id="heads-up-no-low-spades"),
]


@pytest.mark.parametrize(("variant", "hands", "pool", "dead"), POSITIONS)
def test_the_check_names_exactly_the_hands_no_deal_lets_win_or_tie(
        variant: str, hands: tuple[str, ...], pool: str, dead: tuple[int, ...]) -> None:
    held = [parse_cards(h) for h in hands]
    unseen = parse_cards(pool)
    assert never_win_or_tie(variant, held, unseen) == dead  # the position is what its comment says
    assert high_losers(variant, held, (), out_of_play(variant, held, unseen)) == dead


FOURTH_STREET = ("Ah Ad As Ac", "2c 7d 9h Jc", "5s 6s 7s Kd", "Th Qh Kh 3d")


def test_hands_drawing_dead_with_three_cards_to_come_are_named() -> None:
    """7-Card Stud's 4th street: four aces; only a straight flush beats them. Hand 2 (no two cards of a suit
    within five ranks) and hand 4 (its Jh-9h and Jh-Ah draws are held by others) can make none."""
    game = get_variant("stud7")
    hands = [parse_cards(h) for h in FOURTH_STREET]
    unseen = [c for c in game.deck.cards() if not any(c in h for h in hands)]
    weakest_aces = game.ranking.key(parse_cards("Ah Ad As Ac 2d"))  # hand 1's every seven cards hold better
    for dead in (2, 4):  # judged: the hand's best seven cards lose to the aces' worst
        best = max(made_key(game.ranking.best((*hands[dead - 1], *extra)))
                   for extra in combinations(unseen, 3))
        assert best < weakest_aces
    witness = [parse_cards(extra) for extra in ("2d 3c 4c", "5c 6c 8c", "3s 4s 2h", "9d Td 5d")]
    final = [(*h, *extra) for h, extra in zip(hands, witness, strict=True)]
    assert showdown("stud7", final).high.winners == (2,)  # hand 3 (from 0: 2) is alive: 3s 4s make its straight flush
    scored = scored_hands(engine_equity("stud7", hands, samples=500, seed=1))
    assert 2 not in scored and 4 not in scored
    assert high_losers("stud7", hands, (), scored=scored) == (2, 4)
    assert high_losers("stud7", hands, ()) == (2, 4)


def test_a_stud_game_settles_hands_drawing_dead_at_fourth_street() -> None:
    rest = ("2d 3c 4c", "5c 6c 8c", "2h 4d 8d", "9d Td 5d")
    seats = [parse_cards(f"{h} {r}") for h, r in zip(FOURTH_STREET, rest, strict=True)]
    config = CHANNELS["stud7"].with_times(2_000, 500)
    channel, clock, log = make_channel(fixed_decks([arrange_game_deck(config.layout, seats)]), config=config)
    game = channel.start(at_ms=0, games=1)
    clock.run()
    fourth_street = game.windows[1].closes_ms  # the 3rd-street window's close deals 4th street
    lost = [(s.at_ms, s.event.hands) for s in log if isinstance(s.event, HandsCannotWin)]
    assert lost[0] == (fourth_street, (2, 4))
    assert game.winners == (1,)
    channel.exchange._check()


def test_a_draw_whose_stock_runs_out_still_names_the_hands_that_cannot_win() -> None:
    """32-Card Draw, four hands: three each throw four, more than the twelve cards left, so discards will be
    shuffled back in. Hand 1 stands pat on the hearts royal, which no five other cards beat or tie."""
    game = get_variant("draw32")
    hands = [parse_cards(h) for h in ("Ah Kh Qh Jh Th", "Kc 7h 8c 9d Js", "Ks 7d 8s 9h Jc", "Kd 7c 8d 9s Qs")]
    royal = game.ranking.key(hands[0])
    assert not any(game.ranking.key(five) >= royal
                   for five in combinations([c for c in game.deck.cards() if c not in hands[0]], 5))
    assert sum(len(discards("draw32", h)) for h in hands) == 12
    prospects = game_equities("draw32", hands, (), draws_left=1, stock=12)[0]
    assert not prospects.exact
    assert resolve(prospects, (1, 2, 3, 4)).losers == (2, 3, 4)


@pytest.mark.parametrize("scored", [(0,), (4,), (1, 2, 3, 0)])
def test_a_scored_hand_number_outside_the_hands_is_refused(scored: tuple[int, ...]) -> None:
    """``scored`` counts hands from 1: a 0 (a showdown's winners count from 0) or a number past the last hand is
    an error, not an alive hand (taken as one it could end the search before a deal that saves a named hand)."""
    from exchange.game.deadcheck import draw_losers

    hands = [parse_cards("Td Js Tc 8c"), parse_cards("Qc 9c 9s Ah"), parse_cards("Kd Ts 7s Qd")]
    with pytest.raises(ValueError, match="numbered from 1 to 3"):
        high_losers("telesina", hands, [], scored=scored)
    with pytest.raises(ValueError, match="numbered from 1 to 3"):
        draw_losers("draw5", hands, [], draws_left=1, scored=scored)
