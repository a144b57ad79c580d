"""Early settlement judged independently in the games the Hold'em/Omaha judge does not cover.

A hand is settled as a loser at a reveal exactly when it can no longer win or tie: never too early (it
could still win on some run of the cards) and, where the prospects are exact, never too late. The judges
share no code with the game: pokerkit ranks the hands, and the search over the cards to come is written here.

* Omaha Hi/Lo's High and Low markets at the flop and the turn (some with a card out of play): every
  completion ranked by pokerkit; "No low" (the last selection) wins when no hand makes a qualifying low.
* 7-Card Stud and Stud Hi/Lo at 6th street (each hand lacks one card): hand ``i`` can win or tie iff some
  card ``c`` for it and distinct cards for the others exist with no other hand beating it. For a fixed ``c``
  each other hand has a set of harmless cards, and distinct ones can be picked iff Hall's condition holds
  (every group of hands has at least as many harmless cards between them as hands).
* 5-Card Draw and 2-7 Triple Draw with one draw left (two hands drawing one card, two pat) and after the last
  draw, when nothing is to come and the winners are the showdown's.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

import pytest
from pokerkit import (
    EightOrBetterLowHand,
    Hand,
    OmahaEightOrBetterLowHand,
    OmahaHoldemHand,
    StandardHighHand,
    StandardLowHand,
)

from engine.cards import parse_cards
from exchange.game.equities import game_equities
from exchange.game.lowcheck import low_losers
from exchange.game.prospects import resolve

DECK = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]
V = TypeVar("V")  # a hand's value as the judge ranks it


def _best(values: Sequence[Hand | None]) -> set[int]:
    """The seats (from 1) holding the greatest value (pokerkit: greater is better); none if every value is None."""
    present = [v for v in values if v is not None]
    if not present:
        return set()
    top = max(present)
    return {seat for seat, v in enumerate(values, start=1) if v is not None and v == top}


def _omaha_hilo_alive(hands: list[str], board: list[str], rest: list[str]) -> tuple[set[int], set[int]]:
    """(High, Low) selections that win or tie on some completion; Low's selection 5 is "No low"."""
    high: set[int] = set()
    low: set[int] = set()
    for more in itertools.combinations(rest, 5 - len(board)):
        full = "".join(board) + "".join(more)
        high |= _best([OmahaHoldemHand.from_game(h, full) for h in hands])
        lows = _best([OmahaEightOrBetterLowHand.from_game_or_none(h, full) for h in hands])
        low |= lows or {len(hands) + 1}
    return high, low


def _position(rng: random.Random, per_hand: int, hands: int, board_cards: int
              ) -> tuple[list[str], list[str], list[str]]:
    deck = DECK[:]
    rng.shuffle(deck)
    seats = ["".join(deck[per_hand * i: per_hand * (i + 1)]) for i in range(hands)]
    at = hands * per_hand
    return seats, deck[at: at + board_cards], deck[at + board_cards:]


def _settled_losers(variant: str, hands: list[str], board: list[str], dead: Sequence[str] = ()
                    ) -> list[tuple[int, ...]]:
    results = game_equities(variant, [parse_cards(h) for h in hands], parse_cards("".join(board)),
                            dead=parse_cards("".join(dead)))
    out = []
    for prospects in results:
        assert prospects.exact, (variant, hands, board)
        out.append(resolve(prospects, tuple(h.hand for h in prospects.hands)).losers)
    return out


@pytest.mark.parametrize("board_cards", [4, 3])
def test_omaha_hilo_high_and_low_losers_are_exactly_the_selections_that_cannot_win_or_tie(board_cards: int) -> None:
    rng = random.Random(f"omaha-hilo-{board_cards}")
    positions = 24 if board_cards == 4 else 2
    settled_low = 0
    for n in range(positions):
        hands, board, rest = _position(rng, 4, 4, board_cards)
        dead, rest = rest[:n % 3 == 0], rest[n % 3 == 0:]  # a third with a card out of play (rules 1, 5)
        high, low = _settled_losers("omaha-hilo", hands, board, dead)
        alive_high, alive_low = _omaha_hilo_alive(hands, board, rest)
        assert high == tuple(s for s in range(1, 5) if s not in alive_high), (hands, board)
        assert low == tuple(s for s in range(1, 6) if s not in alive_low), (hands, board)
        settled_low += bool(low)
    assert settled_low >= positions // 3


def _omaha_low(hole: str, board: str) -> tuple[int, ...] | None:
    """Brute force: the best of the 60 lows of two hole cards and three board cards, five different ranks from
    ace to eight, compared highest rank first (lower is better); None if none is one."""
    order = "A2345678"
    lows = []
    for two in itertools.combinations(hole[::2], 2):
        for three in itertools.combinations(board[::2], 3):
            ranks = {order.index(r) + 1 for r in (*two, *three) if r in order}
            if len(ranks) == 5 and all(r in order for r in (*two, *three)):
                lows.append(tuple(sorted(ranks, reverse=True)))
    return min(lows, default=None)


def _omaha_low_alive_preflop(hands: list[str], rest: list[str]) -> set[int]:
    """Low selections (5: "No low") that win or tie on some board of five cards from ``rest``. A board's suits
    make no low, nor which card above eight it holds, so one board per multiset of its ranks, each card above
    eight counted as one rank, stands for all those it is like."""
    kinds: dict[str, list[str]] = {}
    for card in rest:
        kinds.setdefault(card[0] if card[0] in "A2345678" else "x", []).append(card)
    alive: set[int] = set()
    for ranks in itertools.combinations_with_replacement(sorted(kinds), 5):
        need = {r: ranks.count(r) for r in set(ranks)}
        if any(n > len(kinds[r]) for r, n in need.items()):
            continue
        board = "".join(c for r, n in need.items() for c in kinds[r][:n])
        lows = [_omaha_low(h, board) for h in hands]
        best = min((low for low in lows if low is not None), default=None)
        alive |= {i for i, low in enumerate(lows, start=1) if low is not None and low == best} or {len(hands) + 1}
    return alive


def test_omaha_hilo_low_losers_before_the_flop_are_exactly_the_hands_that_cannot_win_or_tie() -> None:
    """Pre-flop the equity is sampled, so the Low market's losers come from the cards alone: a hand was named
    only when fewer than two of its hole cards were different low ranks, and one that no board let tie the best
    low (8-5 against 5-4 and A-3, found trading) stayed in play and took bets. The brute force is checked against
    pokerkit on boards of each position; a card out of play is in some positions."""
    rng = random.Random("omaha-hilo-preflop-low")
    positions: list[tuple[list[str], list[str]]] = [(["Ts2s8sJd", "5d4s9h4c", "Th5cJc8c", "8hTdAd3c"], [])]
    for n in range(11):
        seats, _, rest = _position(rng, 4, 4, 0)
        positions.append((seats, rest[:n % 3 == 0]))  # a third with a card out of play
    beyond_two_ranks = 0
    for seats, dead in positions:
        rest = [c for c in DECK if c not in "".join(seats) and c not in dead]
        for board in (rng.sample(rest, 5) for _ in range(5)):
            pokerkit_best = _best([OmahaEightOrBetterLowHand.from_game_or_none(h, "".join(board)) for h in seats])
            brute = [_omaha_low(h, "".join(board)) for h in seats]
            top = min((low for low in brute if low is not None), default=None)
            assert pokerkit_best == {i for i, low in enumerate(brute, start=1) if low is not None and low == top}
        losers, made = low_losers("omaha-hilo", [parse_cards(h) for h in seats], (), parse_cards("".join(dead)))
        alive = _omaha_low_alive_preflop(seats, rest)
        assert (losers, made) == (tuple(s for s in range(1, 6) if s not in alive), False), (seats, dead)
        beyond_two_ranks += any(len({c for c in seats[s - 1][::2] if c in "A2345678"}) >= 2 for s in losers)
    assert beyond_two_ranks >= 2  # the positions reach hands with a low draw that is dead all the same


def _hall(sets: Sequence[set[str]]) -> bool:
    """Whether distinct representatives can be picked, one from each set."""
    return all(len(set().union(*group)) >= size
               for size in range(1, len(sets) + 1) for group in itertools.combinations(sets, size))


def _one_card_alive(values: Sequence[Mapping[str, V]], rest: list[str],
                    harmless: Callable[[V, V], bool], scores: Callable[[V], bool]) -> set[int]:
    """Seats that score on some deal of one distinct card each from ``rest``.

    ``values[j][c]``: seat j+1's value with card c; ``scores(v)``: whether that value can win at all;
    ``harmless(w, v)``: whether another seat's value ``w`` does not beat ``v``.
    """
    alive = set()
    for i, mine in enumerate(values):
        for card in rest:
            v = mine[card]
            if not scores(v):
                continue
            others = [{c for c in rest if c != card and harmless(theirs[c], v)}
                      for j, theirs in enumerate(values) if j != i]
            if _hall(others):
                alive.add(i + 1)
                break
    return alive


def _no_better_low(w: Hand | None, v: Hand | None) -> bool:
    """Whether another seat's low ``w`` (None: no low) does not beat the made low ``v``."""
    assert v is not None, "harmless() is asked only of a made low: scores() lets no other through"
    return w is None or w <= v


def _stud_alive(hands: list[str], rest: list[str], hilo: bool) -> tuple[set[int], set[int]]:
    high = [{c: StandardHighHand.from_game(h + c) for c in rest} for h in hands]
    alive_high = _one_card_alive(high, rest, lambda w, v: w <= v, lambda v: True)
    if not hilo:
        return alive_high, set()
    low = [{c: EightOrBetterLowHand.from_game_or_none(h + c) for c in rest} for h in hands]
    alive_low = _one_card_alive(low, rest, _no_better_low, lambda v: v is not None)
    if _hall([{c for c in rest if seat[c] is None} for seat in low]):
        alive_low.add(len(hands) + 1)  # "No low": every hand can miss
    return alive_high, alive_low


@pytest.mark.parametrize(("variant", "hands", "positions"),
                         [("stud7", 4, 30), ("stud7", 3, 30), ("stud7-hilo", 4, 20), ("stud7-hilo", 3, 20)])
def test_stud_losers_at_sixth_street_are_exactly_the_selections_that_cannot_win_or_tie(
        variant: str, hands: int, positions: int) -> None:
    rng = random.Random(f"{variant}-{hands}-sixth")
    hilo = variant == "stud7-hilo"
    settled = [0, 0]
    for _ in range(positions):
        seats, _, rest = _position(rng, 6, hands, 0)
        settled_losers = _settled_losers(variant, seats, [])
        alive = _stud_alive(seats, rest, hilo)
        for market, (losers, living) in enumerate(zip(settled_losers, alive, strict=False)):
            selections = hands + (market == 1)
            assert losers == tuple(s for s in range(1, selections + 1) if s not in living), (market, seats)
            settled[market] += bool(losers)
    assert settled[0] >= 1
    assert not hilo or settled[1] >= positions // 3


@pytest.mark.parametrize(("variant", "judge"), [("draw5", StandardHighHand), ("triple-draw-27", StandardLowHand)])
def test_a_draw_game_after_its_last_draw_settles_the_showdown_winners(
        variant: str, judge: type[StandardHighHand] | type[StandardLowHand]) -> None:
    rng = random.Random(f"{variant}-final")
    for _ in range(40):
        seats, _, rest = _position(rng, 5, 4, 0)
        (prospects,) = game_equities(variant, [parse_cards(h) for h in seats], (), dead=parse_cards("".join(rest[:6])),
                                     draws_left=0, stock=len(rest) - 6)
        winners = _best([judge.from_game(h) for h in seats])
        resolution = resolve(prospects, (1, 2, 3, 4))
        assert set(resolution.winners) == winners, seats
        assert set(resolution.losers) == {1, 2, 3, 4} - winners, seats


def _one_to_draw(rng: random.Random, variant: str, deck: list[str], drawing: bool) -> str:
    """Five cards off ``deck`` (removed from it) that the published policy draws one card to, or stands pat on."""
    from engine.draw_policy import discards

    while True:
        cards = rng.sample(deck, 5)
        if len(discards(variant, parse_cards("".join(cards)))) == int(drawing):
            for card in cards:
                deck.remove(card)
            return "".join(cards)


@pytest.mark.parametrize(("variant", "judge", "draws_left"),
                         [("draw5", StandardHighHand, 1), ("triple-draw-27", StandardLowHand, 1)])
def test_draw_losers_with_one_draw_left_are_exactly_the_hands_that_cannot_win_or_tie(
        variant: str, judge: type[StandardHighHand] | type[StandardLowHand], draws_left: int) -> None:
    """Two hands draw one card (the published policy's choice, ``engine.draw_policy``: the game's rule, not its
    pricing), two stand pat; earlier discards are dead. A hand scores on some draw iff, for some card of its own,
    the other drawing hand has a harmless card left and the pat hands do not beat it."""
    from engine.draw_policy import discards

    rng = random.Random(f"{variant}-last-draw")
    settled = 0
    for _ in range(20):
        deck = DECK[:]
        seats = [_one_to_draw(rng, variant, deck, drawing) for drawing in (True, False, True, False)]
        dead = rng.sample(deck, 6)
        unseen = [c for c in deck if c not in dead]
        thrown = [discards(variant, parse_cards(s)) for s in seats]
        kept = ["".join(str(c) for c in parse_cards(s) if c not in t) for s, t in zip(seats, thrown, strict=True)]
        values = [{c: judge.from_game(k + c) for c in unseen} if t else dict.fromkeys(unseen, judge.from_game(k))
                  for k, t in zip(kept, thrown, strict=True)]
        (prospects,) = game_equities(variant, [parse_cards(s) for s in seats], (), dead=parse_cards("".join(dead)),
                                     draws_left=draws_left, stock=len(unseen) - 4)
        assert prospects.exact, seats
        alive = _one_card_alive(values, unseen, lambda w, v: w <= v, lambda v: True)
        losers = resolve(prospects, (1, 2, 3, 4)).losers
        assert losers == tuple(s for s in (1, 2, 3, 4) if s not in alive), (seats, dead)
        settled += bool(losers)
    assert settled >= 4


def _made_low_position(rng: random.Random, per_hand: int) -> tuple[list[str], list[str]]:
    """Four stud hands of ``per_hand`` cards, hand 1 holding a made low (five different ranks, ace to eight)."""
    deck = DECK[:]
    rng.shuffle(deck)
    low: list[str] = []
    for card in deck:
        if card[0] in "A2345678" and card[0] not in {c[0] for c in low} and len(low) < 5:
            low.append(card)
    rest = [c for c in deck if c not in low]
    first = low + rest[: per_hand - 5]
    rest = rest[per_hand - 5:]
    seats = ["".join(first)] + ["".join(rest[per_hand * i: per_hand * (i + 1)]) for i in range(3)]
    return seats, rest[3 * per_hand:]


def _beaten_whatever_comes(hands: list[str], seat: int, rest: list[str]) -> bool:
    """Whether hand ``seat`` (from 1), given any two of ``rest``, makes no low or one worse than a low another hand
    already holds (which can only get better): it can no longer win or tie the Low market."""
    held = [EightOrBetterLowHand.from_game_or_none(h) for h in hands]
    best_held = max((low for i, low in enumerate(held, start=1) if low is not None and i != seat), default=None)
    for pair in itertools.combinations(rest, 2):
        mine = EightOrBetterLowHand.from_game_or_none(hands[seat - 1] + "".join(pair))
        if mine is not None and (best_held is None or not best_held > mine):
            return False
    return True


@pytest.mark.parametrize("per_hand", [5, 6])
def test_stud_hilo_hands_that_can_no_longer_be_best_low_are_settled_only_when_they_cannot_win_or_tie(
        per_hand: int) -> None:
    """Against a made low, a stud hand is settled by the exact argument of :mod:`exchange.game.lowcheck` (what a
    sampled window settles): never a hand that could still win or tie, judged with pokerkit at 6th street by
    every deal of the last cards, at 5th street by every two cards the hand could draw."""
    rng = random.Random(f"stud7-hilo-best-low-{per_hand}")
    beaten = 0
    for _ in range(12):
        seats, rest = _made_low_position(rng, per_hand)
        losers, made = low_losers("stud7-hilo", [parse_cards(h) for h in seats], ())
        assert made and 1 not in losers
        if per_hand == 6:
            _, alive_low = _stud_alive(seats, rest, hilo=True)
            assert not set(losers) & alive_low, seats
        else:
            assert all(_beaten_whatever_comes(seats, seat, rest) for seat in losers), seats
        beaten += sum(1 for seat in losers if len({c[0] for c in seats[seat - 1] if c[0] in "A2345678"})
                      + 7 - per_hand >= 5)  # a hand that could still make a low: settled as beaten
    assert beaten >= 3


_LOW_RANKS = "A2345678"
_OTHER = "X"  # every card from 9 to king: alike for an eight-or-better low


def _rank_class(card: str) -> str:
    return card[0] if card[0] in _LOW_RANKS else _OTHER


def _low_of(classes: Sequence[str]) -> tuple[int, ...] | None:
    """The eight-or-better low of cards of these rank classes, highest card first (smaller is better), or None:
    the five lowest different low ranks, the ace counting 1."""
    ranks = sorted({_LOW_RANKS.index(c) + 1 for c in classes if c != _OTHER})
    return tuple(sorted(ranks[:5], reverse=True)) if len(ranks) >= 5 else None


def _stud_low_alive_by_ranks(hands: list[str], unseen: list[str]) -> set[int]:
    """Hands (from 1) that win or tie the low on some deal of the two cards each still gets from ``unseen``.

    Suits do not matter to this low, and 9 to king are alike: a deal is each hand's pair of rank classes, drawn
    from the classes' counts in ``unseen``. Hand i is alive iff some pair gives it a low and the others pairs
    giving them no better low (or none), all of them together within the counts."""
    counts = {c: sum(_rank_class(card) == c for card in unseen) for c in [*_LOW_RANKS, _OTHER]}
    pairs = list(itertools.combinations_with_replacement(list(counts), 2))
    held = [[_rank_class(card) for card in h[::2]] for h in hands]  # each card is two characters

    def fits(taken: list[str]) -> bool:
        return all(taken.count(c) <= counts[c] for c in set(taken))

    def others_fit(rest: list[int], low: tuple[int, ...], taken: list[str]) -> bool:
        if not rest:
            return True
        j, *more = rest
        for pair in pairs:
            theirs = _low_of(held[j] + list(pair))
            if (theirs is None or theirs >= low) and fits(taken + list(pair)) and \
                    others_fit(more, low, taken + list(pair)):
                return True
        return False

    alive = set()
    for i in range(len(hands)):
        for pair in pairs:
            low = _low_of(held[i] + list(pair))
            if low is not None and fits(list(pair)) and \
                    others_fit([j for j in range(len(hands)) if j != i], low, list(pair)):
                alive.add(i + 1)
                break
    return alive


def test_stud_hilo_low_losers_at_fifth_street_are_exactly_the_hands_that_cannot_win_or_tie() -> None:
    """5th street is sampled: the Low market's losers come from the cards alone. Against a judge that counts ranks
    (an independent statement of the rule), every hand named cannot win or tie the low on any deal, and every
    hand that cannot is named, card removal included: a hand that could reach a better low alone, but only with
    ranks the others' cards and the dead ones have used up. The shortcut of :mod:`exchange.game.lowcheck` (it
    ignores which ranks are left) misses some of those; the search over completions does not."""
    rng = random.Random("stud7-hilo-fifth-low")
    positions = [(seats, rest[:rng.choice((0, 6))], rest)  # sometimes a dealer's error showed six more cards
                 for seats, _, rest in (_position(rng, 5, 4, 0) for _ in range(40))]
    # Hand 2 could reach 6-4-3-2-A alone, but every 2, 3, 5 and 7 left is in another hand or dead: it can make
    # no low at all.
    removal = ["2c3c5c7c8c", "Ah4h6hQsQh", "2d3d5d7dKc", "2h3h5h7hKd"], ["2s", "3s", "5s", "7s"]
    positions.append((*removal, [c for c in DECK if c not in "".join(removal[0]) + "".join(removal[1])]))
    named = 0
    for seats, dead, rest in positions:
        unseen = [c for c in rest if c not in dead]
        _, low = game_equities("stud7-hilo", [parse_cards(h) for h in seats], (), dead=parse_cards("".join(dead)))
        assert not low.exact
        losers = set(low.known_losers) - {5}  # ("No low", 5, is the made-low rule's: judged elsewhere)
        assert losers == {1, 2, 3, 4} - _stud_low_alive_by_ranks(seats, unseen), (seats, dead)
        named += len(losers)
    shortcut, _ = low_losers("stud7-hilo", [parse_cards(h) for h in removal[0]], (), parse_cards("".join(removal[1])))
    assert 2 in losers and 2 not in shortcut  # (the last position's)
    assert named >= 10
