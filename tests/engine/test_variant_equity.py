"""Equity for the stud games and Omaha Hi/Lo: exact cases against brute force over showdown(),
Monte Carlo reproducibility, the exact/sampled switch, and bad input."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from fractions import Fraction
from itertools import combinations
from typing import Any

import pytest

from engine import EngineInputError, InvariantError
from engine.cards import Card, parse_cards
from engine.equity import EquityResult, HandEquity
from engine.showdown import ShowdownError, showdown
from engine.variant_equity import (
    DEFAULT_SAMPLES,
    SHARE_UNIT,
    HiLoEquityResult,
    HiLoHandEquity,
    NoEquityError,
    deal_count,
    equity_variants,
    variant_equity,
)
from engine.variants import get_variant


def equities(result: EquityResult) -> tuple[float, ...]:
    return tuple(h.equity for h in result.results)


def hilo(result: EquityResult) -> tuple[HiLoEquityResult, list[HiLoHandEquity]]:
    assert isinstance(result, HiLoEquityResult)
    hands = [h for h in result.results if isinstance(h, HiLoHandEquity)]
    assert len(hands) == len(result.results)
    return result, hands


def completions(
    rest: Sequence[Card], needs: Sequence[int]
) -> Iterator[tuple[tuple[Card, ...], ...]]:
    """Every way to give needs[0] cards to group 0, needs[1] to group 1, ... from ``rest``."""
    if not needs:
        yield ()
        return
    for first in combinations(rest, needs[0]):
        left = [c for c in rest if c not in first]
        for tail in completions(left, needs[1:]):
            yield (first, *tail)


def brute_force(variant: str, hands: Sequence[str], board: str = "", dead: str = "") -> dict[str, object]:
    """Settle every completion with showdown(): exact shares as Fractions."""
    game = get_variant(variant)
    seats = [parse_cards(h) for h in hands]
    shared = parse_cards(board)
    used = {c for group in (*seats, shared, parse_cards(dead)) for c in group}
    rest = [c for c in game.deck.cards() if c not in used]
    needs = [game.hole_cards - len(s) for s in seats] + [game.board_cards - len(shared)]
    n = len(seats)
    equity, win, tie = [Fraction(0)] * n, [0] * n, [0] * n
    count = 0
    for dealt in completions(rest, needs):
        full = [s + d for s, d in zip(seats, dealt[:-1], strict=True)]
        shares = showdown(game, full, shared + dealt[-1]).shares()
        count += 1
        for i, share in enumerate(shares):
            equity[i] += share
            win[i] += share == 1
            tie[i] += 0 < share < 1
    return {
        "boards": count,
        "equity": [e / count for e in equity],
        "win": [Fraction(w, count) for w in win],
        "tie": [Fraction(t, count) for t in tie],
    }


def dead_all_but(variant: str, hands: Sequence[str], board: str, keep: int) -> str:
    """Dead cards leaving only ``keep`` unseen cards (a fixed pseudo-random choice): small exact spaces."""
    used = {c for h in (*hands, board) for c in parse_cards(h)}
    rest = [c for c in get_variant(variant).deck.cards() if c not in used]
    rest.sort(key=lambda c: (c.id * 37) % 53)
    return " ".join(str(c) for c in rest[keep:])


# (variant, hands, board, unseen cards left in play or None for all)
CASES = [
    ("soko", ["As Ks 9s 4s", "Qc Qd 8h 5c", "7d 8d 9c Tc"], "", 12),
    ("soko", ["As Ks 9s", "Qc Qd 8h"], "", 9),
    ("soko", ["2s 3s", "Qc Qd", "7d 8d"], "", 9),
    ("americana", ["Ah 7c 8d 9s", "Th Jc Qd Ks", "7h 7d 8c 9h"], "", 10),
    ("americana", ["Ah 7c 8d", "Th Jc Qd", "7h 7d 8c"], "", 7),
    ("stud7", ["As Ad Kc Kd 2h 3h", "9c Tc Jc Qc 2c 4d", "5s 5d 5h 7c 8c Td"], "", 12),
    ("stud7", ["As Ad Kc Kd", "9c Tc Jc Qc", "5s 5d 5h 7c"], "", 9),
    ("stud7-hilo", ["As 2d 3c Kd 8h Kh", "9c Tc Jc Qc 2c 4h", "4s 5s 6c 7d Js Jd"], "", 12),
    ("stud7-hilo", ["As 2d 3c Kd", "9c Tc Jc Qc", "4s 5s 6c 7d"], "", 9),
    ("telesina", ["Ah Qc 9d 8s 7h", "Ad Kc 9h 8c 7d", "Tc Td Jh Js 7c"], "", None),
    ("telesina", ["Ah Qc 9d 8s", "Ad Kc 9h 8c"], "", 12),
    ("telesina", ["Ah Qc 9d", "Ad Kc 9h", "Ts Js 7c"], "", 7),
    ("telesina", ["As 7s 8s 9s Ts", "Th Jh Qh Kh Ah"], "", None),
    ("telesina", ["As 8s 9s Ts", "Th Jh Qh Ah"], "", 9),  # 7s and Kh live: a straight flush each, heads-up
    ("telesina", ["As 7s 8s", "Th Jh Qh"], "", 9),
    ("omaha-hilo", ["As 2d Kh Kc", "3c 4c Qd Qs", "Jc 5d Tc Th"], "3s 4h 9c", None),
    ("omaha-hilo", ["As 2d Kh Kc", "Ac 2h Qd Qs"], "3s 4h 5c Jd", None),
    ("omaha-hilo", ["As 2d Kh Kc", "Ac 3h Qd Qs", "4c 5d 6h 7h"], "", 12),
]


@pytest.mark.parametrize(("variant", "hands", "board", "keep"), CASES)
def test_exact_equity_equals_brute_force_over_showdown(
    variant: str, hands: list[str], board: str, keep: int | None
) -> None:
    dead = "" if keep is None else dead_all_but(variant, hands, board, keep)
    mine = variant_equity(variant, hands, board, dead)
    ref = brute_force(variant, hands, board, dead)
    assert mine.exact and mine.boards == ref["boards"]
    assert [h.exact_equity for h in mine.results] == ref["equity"]
    assert [Fraction(h.wins, h.boards) for h in mine.results] == ref["win"]
    assert [Fraction(h.ties, h.boards) for h in mine.results] == ref["tie"]
    assert [h.equity for h in mine.results] == [float(e) for e in ref["equity"]]
    mine._check()


def test_dead_cards_are_out_of_play() -> None:
    hands, dead = ["As 7s 8s 9s", "Th Jh Qh Kh"], "Ts Ah 7h 8h 9d 9c Td Tc Jd Jc Qd Qc"
    mine = variant_equity("telesina", hands, dead=dead)
    ref = brute_force("telesina", hands, dead=dead)
    assert mine.boards == ref["boards"] == 12 * 11 * 10
    assert [h.exact_equity for h in mine.results] == ref["equity"]


def test_telesina_heads_up_rule_in_equity() -> None:
    spades, hearts = "As 7s 8s 9s Ts", "Th Jh Qh Kh Ah"
    assert equities(variant_equity("telesina", [spades, hearts])) == (1.0, 0.0)
    three = variant_equity("telesina", [spades, hearts, "7h 7d 7c 8h 8d"])
    assert equities(three) == (0.0, 1.0, 0.0)


def test_hilo_reports_both_halves_and_no_low() -> None:
    r, hands = hilo(variant_equity("omaha-hilo", ["As 2d Kh Kc", "Ac 2h Qd Qs"], "3s 4h 5c Jd"))
    assert r.no_low == 0.0  # the board already gives both A-2 a low
    assert [h.low_tie for h in hands] == [1.0, 1.0] and [h.low_share for h in hands] == [0.5, 0.5]
    assert sum(h.high_share for h in hands) == pytest.approx(1.0)
    d = r.to_dict()
    assert d["no_low"] == 0.0
    assert set(d["hands"][0]) == {
        "cards", "win", "tie", "equity", "high_win", "high_tie", "high_share", "low_win", "low_tie", "low_share",
    }  # fmt: skip
    r._check()


def test_hilo_without_any_possible_low_is_all_high() -> None:
    r, hands = hilo(variant_equity("omaha-hilo", ["Ks Kd Qh Qc", "Js Jd Th Tc"], "9s 9h Kc"))
    ref = brute_force("omaha-hilo", ["Ks Kd Qh Qc", "Js Jd Th Tc"], "9s 9h Kc")
    assert [h.exact_equity for h in hands] == ref["equity"]
    assert [h.low_win + h.low_tie for h in hands] == [0.0, 0.0]
    assert r.no_low == 1.0
    assert [h.win for h in hands] == [h.high_win for h in hands]  # the high hand scoops
    r._check()


def test_high_only_games_have_the_holdem_result_shape() -> None:
    r = variant_equity("soko", ["As Ks 9s 4s", "Qc Qd 8h 5c"])
    assert type(r) is EquityResult
    assert set(r.to_dict()) == {"variant", "board", "dead", "exact", "boards", "hands"}
    assert set(r.to_dict()["hands"][0]) == {"cards", "win", "tie", "equity"}
    r._check()


# ------------------------------------------------------------------ exact or sampled


def test_four_hand_stud7_from_three_cards_is_sampled() -> None:
    hands = ["As Ad Kc", "9c Tc Jc", "5s 5d 5h", "2c 3d 4h"]
    game = get_variant("stud7")
    assert deal_count(game, [parse_cards(h) for h in hands], (), ()) * 4 > 50_000_000
    r = variant_equity("stud7", hands, seed=3)
    assert not r.exact and r.boards == DEFAULT_SAMPLES and r.seed == 3
    e = equities(r)
    assert sum(e) == pytest.approx(1.0)
    assert e[2] > e[0] > e[3]  # rolled-up fives lead
    assert all(h.stderr is not None and 0 < h.stderr < 0.01 for h in r.results)
    r._check()


def test_sampling_without_a_seed_records_the_seed_it_drew() -> None:
    hands = ["As Ks 9s", "Qc Qd 8h", "7d 8d 9c", "2h 2s 3c"]
    a = variant_equity("soko", hands, samples=2_000)
    assert a.seed is not None
    assert variant_equity("soko", hands, samples=2_000, seed=a.seed) == a


def test_monte_carlo_is_reproducible_and_seeded() -> None:
    hands = ["As Ks 9s", "Qc Qd 8h", "7d 8d 9c", "2h 2s 3c"]
    a = variant_equity("soko", hands, samples=20_000, seed=11)
    b = variant_equity("soko", hands, samples=20_000, seed=11)
    c = variant_equity("soko", hands, samples=20_000, seed=12)
    assert a == b
    assert equities(a) != equities(c)
    assert not a.exact and a.boards == 20_000


def test_monte_carlo_agrees_with_exact() -> None:
    hands = ["As Ks 9s 4s", "Qc Qd 8h 5c", "7d 8d 9c Tc"]
    exact = variant_equity("soko", hands)
    sampled = variant_equity("soko", hands, samples=200_000, seed=5)
    assert exact.exact and not sampled.exact
    for e, s in zip(exact.results, sampled.results, strict=True):
        assert s.stderr is not None
        assert abs(s.equity - e.equity) < 5 * s.stderr + 1e-9


def test_everything_known_is_one_showdown() -> None:
    r, hands = hilo(variant_equity("stud7-hilo", ["As 2d 3c 4d 8h Kh Ks", "9c Tc Jc Qc 2c 4h 5s"]))
    assert r.exact and r.boards == 1
    assert equities(r) == (0.5, 0.5)
    assert [h.high_win for h in hands] == [0.0, 1.0] and [h.low_win for h in hands] == [1.0, 0.0]
    assert [h.tie for h in hands] == [1.0, 1.0] and [h.win for h in hands] == [0.0, 0.0]


# ------------------------------------------------------------------ what is refused


def test_equity_variants_are_the_games_without_draws() -> None:
    assert equity_variants() == (
        "holdem", "omaha", "omaha-hilo", "soko", "stud7", "stud7-hilo", "americana", "telesina",
    )  # fmt: skip


@pytest.mark.parametrize("variant", ["draw5", "triple-draw-27", "draw32"])
def test_draw_games_have_no_equity(variant: str) -> None:
    with pytest.raises(NoEquityError, match="draw game"):
        variant_equity(variant, ["As Ks Qs Js Ts", "9s 9h 9d 9c 8s"])


@pytest.mark.parametrize(
    ("variant", "hands", "board", "message"),
    [
        ("stud7", ["As Ad Kc Kd 2h 3h 4h 5h", "9c Tc Jc"], "", "hand 1 has 8 cards; a 7-Card Stud hand has at most 7"),
        ("telesina", ["As 2s", "Kd Kh"], "", "2s is not in the 32-card deck"),
        ("soko", ["As Ks", "As Qd"], "", "card As appears more than once"),
        ("omaha-hilo", ["As Ks Qs Js", "2c 3c 4c 5c"], "6d 7d 8d 9d Td Jd", "the board has 6 cards"),
        ("soko", ["As Ks"], "", "needs 2 to 8 hands, got 1"),
    ],
)
def test_bad_input(variant: str, hands: list[str], board: str, message: str) -> None:
    with pytest.raises(ShowdownError, match=message):
        variant_equity(variant, hands, board)


STUD_MISMATCH = "deals every hand alike, so between streets all hold as many cards"


@pytest.mark.parametrize(
    ("variant", "hands", "board", "message"),
    [
        ("stud7", ["As Ks Qs Js 9d 8d", "2c"], "", f"hand 2 has 1 card, hand 1 has 6; 7-Card Stud {STUD_MISMATCH}"),
        ("stud7", ["As Ks Qs", ""], "", f"hand 2 has 0 cards, hand 1 has 3; 7-Card Stud {STUD_MISMATCH}"),
        ("telesina", ["As 7s 8s 9s", "Th Jh Qh Kh Ah"], "",
         f"hand 2 has 5 cards, hand 1 has 4; Telesina {STUD_MISMATCH}"),
        ("soko", ["As Ks Qs", "2c 3c 4c", "5d 6d"], "", f"hand 3 has 2 cards, hand 1 has 3; Soko {STUD_MISMATCH}"),
        ("stud7", ["As Ks", "2c 3c"], "",
         "the hands have 2 cards each; between streets a 7-Card Stud hand has 0, 3, 4, 5, 6 or 7 cards"),
        ("americana", ["As", "Kc"], "", "the hands have 1 card each; between streets an Americana hand has 0, 2, 3, 4 "
                                        "or 5 cards"),
        ("telesina", ["As 7s 8s", "Th Jh Qh"], "Kd", "the hands have 3 cards each; with 1 board card a Telesina hand "
                                                     "has 5 cards"),
        ("omaha-hilo", ["As Ks", "Qd Qc"], "", "the hands have 2 cards each; between streets an Omaha Hi/Lo hand has "
                                               "0 or 4 cards"),
        ("omaha-hilo", ["", ""], "2c 3c 4c", "the hands have 0 cards each; with 3 board cards an Omaha Hi/Lo hand has "
                                             "4 cards"),
        ("omaha-hilo", ["As Ks 2d 3c", "Qd Qc Jh 4h"], "5h 6h",
         "board has 2 cards (5h 6h); omaha-hilo equity needs 0, 3, 4 or 5 board cards"),
        ("stud7-hilo", ["As Ks Qs", "2c 3c 4c"], "5d",
         "a board card in 7-Card Stud Hi/Lo is the shared last card, dealt only when the pack cannot give every hand "
         "its own after sixth street: the hands hold 3 cards, not 6 each"),
        ("stud7", ["As Ad Kc Kd 2h 3h", "9c Tc Jc Qc 2c 4d"], "Ah",
         "a board card in 7-Card Stud is the shared last card, dealt only when the pack cannot give every hand its "
         "own: 40 cards were left for 2 hands"),
        ("telesina", ["Ah Kh", "Ad Kd"], "7h 8h", "the vela has 2 cards; Telesina has at most 1"),  # as showdown says
    ],
)
def test_a_deal_no_street_leaves_is_refused(variant: str, hands: list[str], board: str, message: str) -> None:
    """Each street deals every seat alike (variants.md), and 7-Card Stud's shared last card comes only when the pack
    runs short: any other deal cannot happen, so it has no equity (exact or sampled)."""
    for samples in (None, 100):
        with pytest.raises(EngineInputError) as refused:
            variant_equity(variant, hands, board, samples=samples, seed=1)
        assert str(refused.value) == message


@pytest.mark.parametrize("variant", equity_variants())
def test_every_deal_a_street_leaves_is_priced(variant: str) -> None:
    """The other side: hands (two to four) and board as each street leaves them, no cards at all before the deal;
    each priced by sampling, the hands' equities sharing the whole pot."""
    import random

    game = get_variant(variant)
    rng = random.Random(variant)
    for own, shared in game.between_streets:
        n = rng.randint(2, 4)
        pack = rng.sample(game.deck.cards(), int(game.deck))
        hands = [pack[own * i : own * (i + 1)] for i in range(n)]
        priced = variant_equity(variant, hands, pack[own * n : own * n + shared], samples=50, seed=1)
        assert len(priced.results) == n and 0 < priced.boards <= 50, (own, shared)
        assert sum(hand.equity for hand in priced.results) == pytest.approx(1), (own, shared)


def test_bad_samples() -> None:
    with pytest.raises(ValueError, match="samples must be a positive"):
        variant_equity("soko", ["As Ks", "Qd Qc"], samples=0)


def test_unknown_variant_lists_the_equity_variants() -> None:
    with pytest.raises(ValueError, match="unknown variant 'razz'; equity knows holdem, omaha, omaha-hilo"):
        variant_equity("razz", ["As Ks", "Qd Qc"])


def test_holdem_through_the_variant_kernel_matches_engine_equity() -> None:
    from engine.equity import equity

    hands, board = ["As Ks", "Qd Qc", "7h 6h", "2c 2d"], "Ah 7c 2s"
    mine, theirs = variant_equity("holdem", hands, board), equity("holdem", hands, board)
    assert [h.wins for h in mine.results] == [h.wins for h in theirs.results]
    assert [h.splits for h in mine.results] == [h.splits for h in theirs.results]
    hands = ["As Ks Qh Jh", "Qd Qc 9c 8d", "7h 6h 5s 4s"]
    mine, theirs = variant_equity("omaha", hands, "Ah 7c 2s Td"), equity("omaha", hands, "Ah 7c 2s Td")
    assert [h.exact_equity for h in mine.results] == [h.exact_equity for h in theirs.results]


# ------------------------------------------------------------------ _check catches corruption

# 40 deals to come; the two A-2 hands split both halves of every pot (20 pots' worth each).
SPLIT, _ = hilo(variant_equity("omaha-hilo", ["As 2d Kh Kc", "Ac 2h Qd Qs"], "3s 4h 5c Jd"))


def _hand(i: int, **change: Any) -> EquityResult:
    results = list(SPLIT.results)
    results[i] = dataclasses.replace(results[i], **change)
    return dataclasses.replace(SPLIT, results=tuple(results))


def _plain_hand() -> EquityResult:
    """Hand 0 as a plain (high-only) :class:`HandEquity`."""
    hand = SPLIT.results[0]
    plain = HandEquity(**{f.name: getattr(hand, f.name) for f in dataclasses.fields(HandEquity)})
    return dataclasses.replace(SPLIT, results=(plain, *SPLIT.results[1:]))


@pytest.mark.parametrize(
    ("result", "match"),
    [
        (_plain_hand(), "hand 0: a HandEquity in a hi/lo result"),
        (_hand(1, boards=41), "hand 1: counted over 41 deals, the result over 40"),
        (_hand(0, ties=41), r"hand 0: 0 scoops \+ 41 shared pots > 40 deals"),
        (_hand(0, share_units=21 * SHARE_UNIT), "pot shares add up to 41 deals, not 40"),
        (_hand(0, high_share=0.75), "the high half's shares add up to 1.25, not 1"),
        (dataclasses.replace(SPLIT, no_low=0.5), "the low half's shares add up to 1.0, not 1 - no_low = 0.5"),
    ],
    ids=["plain-hand", "hand-deals", "counts-exceed-deals", "pot-shares", "high-half", "low-half"],
)
def test_a_corrupted_hilo_result_is_caught(result: EquityResult, match: str) -> None:
    SPLIT._check()
    with pytest.raises(InvariantError, match=match):
        result._check()


@pytest.mark.parametrize("variant", ["stud7", "stud7-hilo"])
def test_eight_stud_hands_share_the_last_card_when_the_pack_runs_short(variant: str) -> None:
    # Eight hands at sixth street hold 48 cards: the four left cannot give each its own seventh card, so one shared
    # face-up card is everyone's seventh (variants.md). The reference settles each of the four with showdown().
    pack = sorted(get_variant(variant).deck.cards(), key=lambda c: (c.id * 37) % 53)
    hands = [pack[6 * i : 6 * i + 6] for i in range(8)]
    rest = pack[48:]
    expected = [sum(Fraction(showdown(variant, hands, [card]).shares()[i]) for card in rest) / 4 for i in range(8)]
    result = variant_equity(variant, hands)
    assert result.exact and result.boards == 4
    assert [h.exact_equity for h in result.results] == expected
    assert result.board == ()
    known = variant_equity(variant, hands, [rest[0]])  # the shared card turned: one showdown
    assert [h.exact_equity for h in known.results] == list(showdown(variant, hands, [rest[0]]).shares())


def test_more_cards_needed_than_the_pack_holds_is_refused() -> None:
    pack = sorted(get_variant("stud7").deck.cards(), key=lambda c: (c.id * 37) % 53)
    hands = [pack[6 * i : 6 * i + 6] for i in range(8)]  # eight hands at sixth street, the four left seen dead:
    with pytest.raises(EngineInputError, match="still need 1 card; only 0 of the 52-card pack are left"):
        variant_equity("stud7", hands, dead=pack[48:])  # none left for the shared seventh card


@pytest.mark.parametrize("seed", range(4))
def test_random_small_deals_equal_brute_force_over_showdown(seed: int) -> None:
    # Beyond the hand-picked cases: random hands at random streets of every game with equity, two to four hands,
    # dead cards leaving only a few unseen, each settled deal by deal with showdown().
    import random

    from engine.cards import format_cards

    rng = random.Random(seed)
    for _ in range(10):
        variant = rng.choice(["holdem", "omaha", "omaha-hilo", "soko", "stud7", "stud7-hilo", "americana", "telesina"])
        game = get_variant(variant)
        pack = rng.sample(game.deck.cards(), int(game.deck))
        n = rng.randint(2, 4)
        if variant in ("holdem", "omaha", "omaha-hilo"):
            own, board = game.hole_cards, rng.choice([0, 3, 4, 5])
        else:
            own, board = rng.randint(game.hole_cards - 2, game.hole_cards), 0
        hands = [format_cards(pack[i * own : (i + 1) * own]) for i in range(n)]
        shown = format_cards(pack[n * own : n * own + board])
        need = n * (game.hole_cards - own) + game.board_cards - board
        dead = format_cards(pack[n * own + board + max(need, rng.randint(1, 7)) :])
        mine = variant_equity(variant, hands, shown, dead)
        ref = brute_force(variant, hands, shown, dead)
        assert mine.exact and mine.boards == ref["boards"], (variant, hands, shown, dead)
        assert [h.exact_equity for h in mine.results] == ref["equity"], (variant, hands, shown, dead)
        assert [Fraction(h.wins, h.boards) for h in mine.results] == ref["win"], (variant, hands, shown, dead)


def test_a_sampled_hi_lo_result_gives_each_half_and_no_low_a_standard_error() -> None:
    """A researcher pricing a High or a Low market reads the halves: sampled, each comes with its error (the pot's
    had one, the halves and "No low" none); counted exactly, none."""
    import math

    from engine._hilo_result import HiLoEquityResult, HiLoHandEquity
    from engine.variant_equity import variant_equity

    hands = [parse_cards("As 2d Kc Qh"), parse_cards("3s 4d 9c 9h")]
    sampled = variant_equity("omaha-hilo", hands, (), (), samples=4_000, seed=7)
    assert isinstance(sampled, HiLoEquityResult) and sampled.no_low_stderr is not None
    assert sampled.no_low_stderr == pytest.approx(math.sqrt(sampled.no_low * (1 - sampled.no_low) / 4_000))
    as_json = sampled.to_dict()
    assert as_json["no_low_stderr"] == sampled.no_low_stderr
    for hand, entry in zip(sampled.results, as_json["hands"], strict=True):
        assert isinstance(hand, HiLoHandEquity) and hand.high_stderr is not None and hand.low_stderr is not None
        assert hand.high_stderr == pytest.approx(math.sqrt(hand.high_share * (1 - hand.high_share) / 4_000))
        assert hand.low_stderr == pytest.approx(math.sqrt(hand.low_share * (1 - hand.low_share) / 4_000))
        assert (entry["high_share_stderr"], entry["low_share_stderr"]) == (hand.high_stderr, hand.low_stderr)
    board = parse_cards("Ah 5c 8d Jc")
    exact = variant_equity("omaha-hilo", hands, board, ())
    assert isinstance(exact, HiLoEquityResult) and exact.exact and exact.no_low_stderr is None
    assert "no_low_stderr" not in exact.to_dict()
    assert all(isinstance(h, HiLoHandEquity) and h.high_stderr is None and h.low_stderr is None
               for h in exact.results)
