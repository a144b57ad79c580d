"""Showdowns: worked examples per game, hi/lo halves, dead heats, the Telesina heads-up rule,
bad input, and random deals against pokerkit."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import pytest
from pokerkit import EightOrBetterLowHand, Hand, OmahaEightOrBetterLowHand, OmahaHoldemHand, StandardHighHand

from engine import InvariantError
from engine.cards import Card
from engine.rankings import HandCategory, HandValue
from engine.showdown import HEADS_UP_RULE, ShowdownError, ShowdownResult, showdown
from engine.variants import UnknownVariantError


def cards_of(value: HandValue | None) -> list[str]:
    assert value is not None
    return [str(c) for c in value.cards]


# ------------------------------------------------------------------ one example per game


def test_holdem() -> None:
    r = showdown("holdem", ["As Ks", "Qd Qc", "7h 6h"], board="Qs Jh Th 2c 3d")
    assert r.high.winners == (0,)
    assert r.high.hands[0] is not None and r.high.hands[0].category is HandCategory.STRAIGHT
    assert r.low is None


def test_holdem_board_plays_is_a_dead_heat_of_every_hand() -> None:
    r = showdown("holdem", ["2c 3d", "2h 3s", "4c 5c", "2d 4d"], board="As Ks Qs Js Ts")
    assert r.high.winners == (0, 1, 2, 3)
    assert r.shares() == (Fraction(1, 4),) * 4


def test_omaha_uses_exactly_two_hole_cards() -> None:
    # four spades in hand and one on the board is no flush in Omaha
    r = showdown("omaha", ["As Ks Qs Js", "9c 9d 2h 3h"], board="2s 7d 8c Td 9h")
    assert r.high.hands[0] is not None and r.high.hands[0].category is HandCategory.STRAIGHT
    assert r.high.hands[1] is not None and r.high.hands[1].category is HandCategory.THREE_OF_A_KIND
    assert r.high.winners == (0,)


def test_omaha_hilo_split_between_high_and_low() -> None:
    r = showdown("omaha-hilo", ["Kd Kh Qs Qc", "As 2d 9c 9h"], board="Ks 3h 7c 8d Jh")
    assert r.high.winners == (0,) and r.low is not None and r.low.winners == (1,)
    assert cards_of(r.low.hands[1]) == ["8d", "7c", "3h", "2d", "As"]
    assert r.low.hands[0] is None
    assert r.shares() == (Fraction(1, 2), Fraction(1, 2))


def test_omaha_hilo_high_and_low_may_use_different_hole_cards() -> None:
    r = showdown("omaha-hilo", ["As 2d Kh Kc", "Qc Qd Jc Td"], board="Ks 3h 7c 8d Jh")
    assert r.high.winners == (0,) and r.low is not None and r.low.winners == (0,)
    assert set(cards_of(r.high.hands[0])) >= {"Kh", "Kc"}
    assert set(cards_of(r.low.hands[0])) >= {"As", "2d"}
    assert r.shares() == (Fraction(1), Fraction(0))


def test_spec_slip_four_flush_does_not_beat_a_pair_in_omaha_hilo() -> None:
    # the seed's "a four flush and a four straight beat a pair" belongs to Soko
    r = showdown("omaha-hilo", ["As Ts Qd Jd", "7c 7h 3d 3c"], board="4s 6s 8d 9c 2h")
    assert r.high.hands[0] is not None and r.high.hands[0].category is HandCategory.HIGH_CARD  # A♠ T♠ 6♠ 4♠ ...
    assert r.high.hands[1] is not None and r.high.hands[1].category is HandCategory.ONE_PAIR
    assert r.high.winners == (1,)


def test_omaha_hilo_no_qualifying_low_high_scoops() -> None:
    r = showdown("omaha-hilo", ["Kd Kh Qs Qc", "As 2d 9c 9h"], board="Ks 3h 9d Td Jh")
    assert r.low is None
    assert r.to_dict()["low"] is None
    assert r.shares() == (Fraction(1), Fraction(0))


def test_omaha_hilo_needs_two_low_hole_cards() -> None:
    # one low hole card only: no low, even though the board has three
    r = showdown("omaha-hilo", ["As Kd Kh Qc", "Jc Jd Tc Th"], board="2s 3h 4c 9d Kc")
    assert r.low is None


def test_omaha_hilo_tied_lows_are_quartered() -> None:
    r = showdown("omaha-hilo", ["As 2d Kh Kc", "Ac 2h Qd Qs", "Jc 5d Tc Th"], board="3s 4h 5c Jd Js")
    assert r.low is not None and r.low.winners == (0, 1)
    assert r.high.winners == (2,)  # jacks full of fives beats the two wheels
    assert r.shares() == (Fraction(1, 4), Fraction(1, 4), Fraction(1, 2))


def test_soko_four_flush_beats_a_pair() -> None:
    r = showdown("soko", ["As Ks 9s 4s 4h", "Qc Qd 8h 5c 2d"])
    assert r.high.winners == (0,)
    assert r.high.hands[0] is not None and r.high.hands[0].category is HandCategory.FOUR_FLUSH


def test_stud7_best_five_of_seven() -> None:
    r = showdown("stud7", ["As Ad Kc Kd 2h 3h 7s", "9c Tc Jc Qc 2c 4d 5s"])
    assert r.high.winners == (1,)
    assert r.high.hands[1] is not None and r.high.hands[1].category is HandCategory.FLUSH


#: Eight 7-Card Stud hands at sixth street: 48 cards, 4 left for 8 hands, so the last card is one shared face up.
EIGHT_AT_SIXTH = ["As Ad Kc Kd 2h 3h", "9c Tc Jc Qc 2c 4d", "5h 6h 7h 8h 4c 5c", "2s 3s 4s 5s 6s 7s",
                  "8s 9s Ts Js Qs Ks", "Ac Ah 6c 7c 8c 3c", "2d 3d 5d 6d 7d 8d", "9d Td Jd Qd 9h Th"]


def test_stud7_with_a_shared_last_card() -> None:
    r = showdown("stud7", EIGHT_AT_SIXTH, board="Kh")
    assert r.high.winners == (4,)  # the king-high straight flush in spades
    assert r.high.hands[0] is not None and r.high.hands[0].category is HandCategory.FULL_HOUSE  # As Ad Kc Kd Kh


@pytest.mark.parametrize("variant", ["stud7", "stud7-hilo"])
def test_a_shared_last_card_is_refused_where_the_pack_gives_every_hand_its_own(variant: str) -> None:
    """Two hands at sixth street leave at least 4 cards, even had six more seats folded there: the last card is
    each one's own, never a board card. showdown() took it (and named a winner) where the equity refused it. Five
    hands still in of eight seats may be short (4 cards for 5), and are taken."""
    with pytest.raises(ShowdownError, match="shared last card, dealt only when the pack cannot give every hand its "
                                            "own: even had every other seat of 8 folded at sixth street, 4 cards "
                                            "were left for 2 hands"):
        showdown(variant, EIGHT_AT_SIXTH[:2], board="Kh")
    with pytest.raises(ShowdownError, match="4 cards were left for 4 hands"):
        showdown(variant, EIGHT_AT_SIXTH[:4], board="Kh")
    assert showdown(variant, EIGHT_AT_SIXTH[3:], board="Kh").high.winners == (1,)  # the five still in
    seven = [h + " " + c for h, c in zip(EIGHT_AT_SIXTH[:3], ["4h", "Jh", "Qh"], strict=True)]
    with pytest.raises(ShowdownError, match="the hands hold 7 cards, not 6 each"):
        showdown(variant, seven, board="Kh")
    assert showdown(variant, EIGHT_AT_SIXTH, board="Kh").high.winners == (4,)


def test_stud7_hilo_low_from_any_five_of_seven() -> None:
    r = showdown("stud7-hilo", ["As 2d 3c 4d 8h Kh Ks", "9c Tc Jc Qc 2c 4h 5s"])
    assert r.high.winners == (1,) and r.low is not None and r.low.winners == (0,)
    assert r.low.hands[1] is None


def test_draw5_and_triple_draw() -> None:
    assert showdown("draw5", ["As Ad Kc Kd 2h", "Qs Qd Qc 3d 4h"]).high.winners == (1,)
    r = showdown("triple-draw-27", ["7c 5d 4h 3s 2c", "7d 6d 4d 3d 2d", "8s 5s 4s 3c 2h"])
    assert r.high.winners == (0,)  # the flush is bad in deuce-to-seven
    assert r.high.hands[1] is not None and r.high.hands[1].category is HandCategory.FLUSH


def test_americana_flush_over_full_house() -> None:
    r = showdown("americana", ["7s 9s Js Ks As", "Ah Ac Ad Kh Kd"])
    assert r.high.winners == (0,)


def test_americana_identical_ranks_split() -> None:
    r = showdown("americana", ["Ah Kc 9d 8s 7h", "As Kh 9c 8d 7d"])
    assert r.high.winners == (0, 1)


def test_telesina_cli_example() -> None:
    r = showdown("telesina", ["Ah Qc 9d 8s 7h", "Ad Kc 9h 8c 7d"], board=["Jh"])
    assert r.high.winners == (0,)
    assert cards_of(r.high.hands[1]) == ["Ad", "Kc", "Jh", "9h", "8c"]


def test_telesina_players_share_the_vela() -> None:
    r = showdown("telesina", ["Kh Ks Jd Jc 7d", "Kd Kc Jh Js 8d"], board="9c")
    assert r.high.winners == (0,)  # both play K K J J 9♣: the K♥ decides


def test_draw32_never_splits() -> None:
    r = showdown("draw32", ["Ah Kc 9d 8s 7h", "As Kh 9c 8d 7d"])
    assert r.high.winners == (0,)


# ------------------------------------------------------------------ Telesina heads-up rule

SPADES_LOW = "As 7s 8s 9s Ts"
HEARTS_ROYAL = "Th Jh Qh Kh Ah"


def test_heads_up_lowest_spade_straight_flush_beats_hearts_royal() -> None:
    r = showdown("telesina", [HEARTS_ROYAL, SPADES_LOW], board="Kc")
    assert r.high.winners == (1,)
    assert r.high.hands[1] is not None and r.high.hands[1].category is HandCategory.STRAIGHT_FLUSH
    assert r.high.rule == HEADS_UP_RULE and r.high.to_dict()["rule"] == HEADS_UP_RULE  # said, not left to guess


def test_three_hands_the_usual_order_holds() -> None:
    r = showdown("telesina", [HEARTS_ROYAL, SPADES_LOW, "7h 7d 7c 8h 8d"], board="Kc")
    assert r.high.winners == (0,)
    assert r.high.rule is None and "rule" not in r.high.to_dict()


def test_heads_up_the_spade_hand_plays_a789t_even_with_a_higher_spade_straight_flush() -> None:
    r = showdown("telesina", [SPADES_LOW, HEARTS_ROYAL], board="Js")
    assert r.high.winners == (0,)
    assert cards_of(r.high.hands[0]) == ["Ts", "9s", "8s", "7s", "As"]


def test_heads_up_spade_straight_flush_using_the_vela() -> None:
    r = showdown("telesina", ["As 7s 8s 9s Kd", HEARTS_ROYAL], board="Ts")
    assert r.high.winners == (0,)


def test_heads_up_rule_does_not_touch_other_straight_flushes() -> None:
    assert showdown("telesina", ["Ad 7d 8d 9d Td", HEARTS_ROYAL], board="Kc").high.winners == (1,)
    assert showdown("telesina", [SPADES_LOW, "Td Jd Qd Kd Ad"], board="Kc").high.winners == (1,)


# ------------------------------------------------------------------ result shape


def test_to_dict_shape_and_json() -> None:
    r = showdown("stud7-hilo", ["As 2d 3c 4d 8h Kh Ks", "9c Tc Jc Qc 2c 4h 5s"])
    d = r.to_dict()
    assert d == json.loads(json.dumps(d))
    assert set(d) == {"variant", "high", "low"} and d["variant"] == "stud7-hilo"
    assert d["high"] == {
        "winners": [1],
        "hands": [
            {"category": "one pair", "cards": ["Ks", "Kh", "As", "8h", "4d"]},
            {"category": "flush", "cards": ["Qc", "Jc", "Tc", "9c", "2c"]},
        ],
    }
    low = {"category": "eight low", "cards": ["8h", "4d", "3c", "2d", "As"]}
    assert d["low"] == {"winners": [0], "hands": [low, None]}


def test_result_is_frozen() -> None:
    r = showdown("draw5", ["As Ad Kc Kd 2h", "Qs Qd Qc 3d 4h"])
    with pytest.raises(AttributeError):
        r.variant = "x"  # type: ignore[misc]  # writes a frozen field, on purpose


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("variant", "hands", "board", "message"),
    [
        ("telesina", ["Ah Qc 9d 8s", "Ad Kc 9h 8c 7d"], "Jh", "hand 1 has 4 cards; a Telesina hand has 5"),
        ("telesina", ["Ah Qc 9d 8s 2h", "Ad Kc 9h 8c 7d"], "Jh", "2h is not in the 32-card deck"),
        ("telesina", ["Ah Qc 9d 8s 7h", "Ad Kc 9h 8c 7d"], "", "the vela has 0 cards; Telesina needs 1"),
        ("holdem", ["As Ks", "As Qd"], "2c 3c 4c 5c 7d", "card As appears more than once"),
        ("holdem", ["As Ks", "Qs Qd"], "2c 3c 4c", "the board has 3 cards; Texas Hold'em needs 5"),
        ("holdem", ["As Ks"], "2c 3c 4c 5c 7d", "needs 2 to 8 hands, got 1"),
        ("draw32", ["As Ks Qs Js Ts"] * 1 + ["9s 9h 9d 9c 8s"] * 5, "", "needs 2 to 5 hands, got 6"),
        ("soko", ["As Ks Qs Js Xs", "9s 9h 9d 9c 8s"], "", "unknown rank 'X'"),
    ],
)
def test_bad_input_names_the_problem(variant: str, hands: list[str], board: str, message: str) -> None:
    with pytest.raises(ShowdownError, match=message):
        showdown(variant, hands, board)


@pytest.mark.parametrize(
    ("hands", "board", "message"),
    [
        (None, "2c 3c 4c 5c 7d", "hands must be a list of hands, e.g. ['As Ks', 'Qd Qc'], not None"),
        (["As Ks", None], "2c 3c 4c 5c 7d", "hand 2: None is not a list of cards; give a string such as 'As Kd' or"),
        (["As Ks", 7], "2c 3c 4c 5c 7d", "hand 2: 7 is not a list of cards"),
        (["As Ks", "Qs Qd"], None, "board: None is not a list of cards"),
    ],
)
def test_a_hand_or_board_that_is_not_cards_is_refused_by_name(hands: Any, board: Any, message: str) -> None:
    with pytest.raises(ShowdownError) as refused:
        showdown("holdem", hands, board)
    assert str(refused.value).startswith(message)


def test_unknown_variant() -> None:
    with pytest.raises(UnknownVariantError, match="the variants are holdem"):
        showdown("razz", ["As Ks", "Qs Qd"])


# ------------------------------------------------------------------ random deals against pokerkit


def _text(ids: list[int]) -> str:
    return "".join(str(Card(i)) for i in ids)


def _pk_winners(values: Sequence[Hand | None]) -> tuple[int, ...]:
    present = [(v, i) for i, v in enumerate(values) if v is not None]
    if not present:
        return ()
    best = max(v for v, _ in present)
    return tuple(i for v, i in present if v == best)


def test_holdem_and_stud7_hilo_against_pokerkit() -> None:
    rng = random.Random(51)
    for _ in range(300):
        ids = rng.sample(range(52), 13)
        board = ids[8:]
        holes = [ids[2 * i : 2 * i + 2] for i in range(4)]
        r = showdown("holdem", [_text(h) for h in holes], _text(board))
        r._check()
        pk = [StandardHighHand.from_game(_text(h), _text(board)) for h in holes]
        assert r.high.winners == _pk_winners(pk)
    for _ in range(300):
        ids = rng.sample(range(52), 28)
        seats = [ids[7 * i : 7 * i + 7] for i in range(4)]
        r = showdown("stud7-hilo", [_text(s) for s in seats])
        r._check()
        assert r.high.winners == _pk_winners([StandardHighHand.from_game(_text(s)) for s in seats])
        lows = _pk_winners([EightOrBetterLowHand.from_game_or_none(_text(s)) for s in seats])
        assert (r.low.winners if r.low else ()) == lows


def test_omaha_hilo_against_pokerkit() -> None:
    rng = random.Random(52)
    for _ in range(300):
        ids = rng.sample(range(52), 21)
        board = ids[16:]
        holes = [ids[4 * i : 4 * i + 4] for i in range(4)]
        r = showdown("omaha-hilo", [_text(h) for h in holes], _text(board))
        r._check()
        assert r.high.winners == _pk_winners([OmahaHoldemHand.from_game(_text(h), _text(board)) for h in holes])
        lows = _pk_winners([OmahaEightOrBetterLowHand.from_game_or_none(_text(h), _text(board)) for h in holes])
        assert (r.low.winners if r.low else ()) == lows


# ------------------------------------------------------------------ odd chip (spec: "Odd chip")


def test_odd_chip_goes_to_the_winner_closest_to_the_dealer_box() -> None:
    r = showdown("holdem", ["2c 3d", "2h 3s", "4c 5c"], board="As Ks Qs Js Ts")
    assert r.payouts(100) == (34, 33, 33)
    assert r.payouts(100, closest_first=[1, 2, 0]) == (33, 34, 33)
    assert r.payouts(101, closest_first=[2, 0, 1]) == (34, 33, 34)  # two leftover units: the two closest


def test_hilo_odd_chip_goes_to_the_high_half_first() -> None:
    r = showdown("omaha-hilo", ["Kd Kh Qs Qc", "As 2d 9c 9h"], board="Ks 3h 7c 8d Jh")
    assert r.payouts(101) == (51, 50)
    quartered = showdown("omaha-hilo", ["As 2d Kh Kc", "Ac 2h Qd Qs", "Jc 5d Tc Th"], board="3s 4h 5c Jd Js")
    assert quartered.payouts(101) == (25, 25, 51)  # high 51; low 50 split 25/25
    assert quartered.payouts(103, closest_first=[1, 0, 2]) == (25, 26, 52)  # low 51: the closer low winner


def test_scoop_takes_the_whole_pot_and_payouts_add_up() -> None:
    r = showdown("omaha-hilo", ["Kd Kh Qs Qc", "As 2d 9c 9h"], board="Ks 3h 9d Td Jh")
    assert r.payouts(101) == (101, 0)


def test_payouts_reject_bad_input() -> None:
    r = showdown("holdem", ["2c 3d", "4c 5c"], board="As Ks Qs Js Ts")
    with pytest.raises(ShowdownError, match="whole, non-negative"):
        r.payouts(-1)
    with pytest.raises(ShowdownError, match="each of the 2 hands once"):
        r.payouts(10, closest_first=[0, 0])


@pytest.mark.parametrize("pot", [7.0, "7", True, None])
def test_a_pot_that_is_not_a_whole_number_of_units_is_refused(pot: object) -> None:
    # Money is integer minor units: a float pot would be paid out in floats.
    r = showdown("holdem", ["2c 3d", "2h 3s", "4c 5c"], board="As Ks Qs Js Ts")
    with pytest.raises(ShowdownError, match="whole, non-negative number of units"):
        r.payouts(pot)  # type: ignore[arg-type]  # pots of other types, on purpose


@pytest.mark.parametrize("variant", ["soko", "americana", "telesina", "draw32", "triple-draw-27", "draw5"])
def test_random_showdowns_keep_their_invariants(variant: str) -> None:
    from engine.variants import get_variant

    game = get_variant(variant)
    rng = random.Random(53)
    deck = list(game.deck.cards())
    for _ in range(300):
        n = rng.randint(2, game.max_seats)
        cards = rng.sample(deck, n * game.hole_cards + game.board_cards)
        hands = [cards[i * game.hole_cards : (i + 1) * game.hole_cards] for i in range(n)]
        r = showdown(game, hands, cards[n * game.hole_cards :])
        r._check()
        if variant == "draw32":
            assert len(r.high.winners) == 1


# ------------------------------------------------------------------ _check catches corruption

# Kings full take the high half; A-2 the low half, 3-4 has a worse low, the tens none.
HILO = showdown("omaha-hilo", ["As 2s Kd Kh", "3c 4c Qd Qh", "Th Tc 9d 9c"], board="5h 6d 8c Ks Jd")


def _high(**change: Any) -> ShowdownResult:
    return dataclasses.replace(HILO, high=dataclasses.replace(HILO.high, **change))


def _low(**change: Any) -> ShowdownResult:
    assert HILO.low is not None
    return dataclasses.replace(HILO, low=dataclasses.replace(HILO.low, **change))


# The last invariant, that the shares add up to one pot, follows from the others: no single
# corrupted field reaches it, so it stands as a safety net for changes to shares().
@pytest.mark.parametrize(
    ("result", "match"),
    [
        (_low(hands=HILO.low.hands[:2] if HILO.low else ()), "low: 2 hands, the high half has 3"),
        (_high(winners=()), r"high: winners \(\) are not distinct hands in order"),
        (_high(winners=(1, 0)), r"high: winners \(1, 0\) are not distinct hands in order"),
        (_low(winners=(2,)), r"low: a winner among \(2,\) makes no hand"),
        (_low(winners=(0, 1)), r"low: winners \(0, 1\) hold different hands"),
        (_high(winners=(1,)), r"high: winners \(1,\), but the best hands are \(0,\)"),
    ],
    ids=["hand-count", "no-winner", "winners-out-of-order", "winner-without-hand", "unequal-winners", "not-best"],
)
def test_a_corrupted_showdown_is_caught(result: ShowdownResult, match: str) -> None:
    HILO._check()
    with pytest.raises(InvariantError, match=match):
        result._check()
