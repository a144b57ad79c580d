"""Draw-game equity against a brute force over the replacement cards, and the Monte Carlo against the exact count."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from itertools import combinations
from typing import Any, cast

import pytest

from engine import EngineInputError
from engine.cards import parse_cards
from engine.draw_equity import draw_counts_exactly, draw_equity
from engine.draw_policy import discards
from engine.showdown import showdown
from engine.variants import get_variant


def brute_force(variant: str, hands: list[str]) -> list[Fraction]:
    """Each hand's pot share over every way one draw's replacements can fall: showdown by showdown."""
    seats = [parse_cards(h) for h in hands]
    thrown = [discards(variant, s) for s in seats]
    kept = [tuple(c for c in s if c not in t) for s, t in zip(seats, thrown, strict=True)]
    seen = {c for s in seats for c in s}
    unseen = [c for c in get_variant(variant).deck.cards() if c not in seen]
    shares = [Fraction(0)] * len(seats)
    deals = 0

    def deal(i: int, free: list, finals: list) -> None:
        nonlocal deals
        if i == len(seats):
            deals += 1
            for w, share in enumerate(showdown(variant, finals, []).shares()):
                shares[w] += share
            return
        for got in combinations(free, len(thrown[i])):
            deal(i + 1, [c for c in free if c not in got], [*finals, kept[i] + got])

    deal(0, unseen, [])
    return [s / deals for s in shares]


@pytest.mark.parametrize(
    ("variant", "hands"),
    [
        ("draw5", ["9s Ts Js Qs Ks", "8c 8d 8h 2s 2c", "2h 5h 9h Kh 3d"]),  # pat, pat, a four-flush
        ("draw5", ["As Ad Ac 7d 7c", "2h 5h 9h Kh 3s", "8c 9d Th Js 2d"]),  # pat, a four-flush, a four-straight
        ("draw32", ["As Ad Ac 7d 7c", "8h 9h Th Jh 7s", "Kc Kd Ks Qh Qd"]),
        ("triple-draw-27", ["2c 3d 4h 5s 7c", "2d 3c 4s 6h 8c", "2h 3h 4c 5d 9s"]),
    ],
)
def test_one_draw_exact_equals_brute_force(variant: str, hands: list[str]) -> None:
    result = draw_equity(variant, hands, draws_left=1, exact_limit=10**6)
    assert result.exact
    assert [h.exact_equity for h in result.results] == brute_force(variant, hands)


def test_monte_carlo_agrees_with_exact_within_four_standard_errors() -> None:
    hands = ["As Ad Ac 4h 2s", "2h 5h 9h Kh 3c", "8c 9d Th Js Qd"]  # trips draw two, a four-flush one, a pat straight
    exact = draw_equity("draw5", hands, draws_left=1, exact_limit=10**5)
    sampled = draw_equity("draw5", hands, draws_left=1, samples=4_000, seed=3)
    assert exact.exact and not sampled.exact
    for e, s in zip(exact.results, sampled.results, strict=True):
        assert s.stderr is not None and abs(e.equity - s.equity) < 4 * s.stderr + 1e-9


def test_sampling_is_seeded() -> None:
    hands = ["2c 3d 4h 7s 9c", "Kc Qd 9h 8s 3c", "2h 5h 6c 8d 7d"]
    a = draw_equity("triple-draw-27", hands, draws_left=3, samples=300, seed=9)
    b = draw_equity("triple-draw-27", hands, draws_left=3, samples=300, seed=9)
    assert [h.wins for h in a.results] == [h.wins for h in b.results]
    assert sum(h.exact_equity for h in a.results) == 1


def test_no_draw_left_is_the_showdown() -> None:
    hands = ["2c 3d 4h 5s 7c", "2d 3c 4s 6h 8c"]
    result = draw_equity("triple-draw-27", hands, draws_left=0)
    assert result.exact and result.boards == 1 and [h.wins for h in result.results] == [1, 0]


def test_a_short_stock_reshuffles_the_discards() -> None:
    # Four hands throwing four each, twelve cards in the stock (a burn, then eleven): five come from the discards.
    hands = ["Kc Qd 9h 8s 7c", "Kd Qc 9s 8h 7d", "Kh Qs 9c 8d 7s", "Ks Qh 9d 8c 7h"]
    result = draw_equity("draw32", hands, draws_left=1, stock=12, samples=200, seed=1)
    assert result.boards == 200 and sum(h.exact_equity for h in result.results) == 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"variant": "holdem", "hands": ["AsKs", "QdQc"], "draws_left": 1}, "not a draw game"),
        ({"variant": "draw5", "hands": ["As Ks Qs Js", "2c 3c 4c 5c 7d"], "draws_left": 1},
         "hand 1 has 4 cards; a 5-Card Draw hand has 5"),
        ({"variant": "draw5", "hands": ["As Ks Qs Js Ts", "2c 3c 4c 5c 7d"], "draws_left": 2}, "cannot be left"),
        ({"variant": "draw32", "hands": ["As Ks Qs Js Ts", "2c 3c 4c 5c 7d"], "draws_left": 1},
         "card 2c is not in the 32-card deck; it holds ranks 7 8 9 T J Q K A only"),
        *(
            (  # the cast: mypy joins the differing dicts of `bad` below to object
                {"variant": variant, "hands": hands, "draws_left": 1, "stock": 3, **cast("dict[str, object]", bad)},
                message,
            )
            for variant, hands in [
                ("draw32", ["As Ks Qs Js Ts", "7c 8d 9h Jc Kd"]),
                ("triple-draw-27", ["As Ks Qs Js Ts", "2s 3c 4c 5c 7d"]),
            ]
            for bad, message in [
                ({"samples": 0}, "samples must be a positive whole number of deals, not 0"),
                ({"samples": -5}, "samples must be a positive whole number of deals, not -5"),
                ({"samples": 2.5}, "samples must be a positive whole number of deals, not 2.5"),
                ({"samples": 10, "seed": "x"}, "seed must be a whole number, not 'x'"),
                ({"samples": 10, "seed": 1.5}, "seed must be a whole number, not 1.5"),
                ({"stock": 3.0}, "stock must be a whole number of cards, not 3.0"),
                ({"fallback_samples": 0}, "samples must be a positive whole number of deals, not 0"),
            ]
        ),
        ({"variant": "draw5", "hands": ["As Ks Qs Js Ts", "2c 3c 4c 5c 7d"], "draws_left": True}, "draws_left"),
    ],
)
def test_bad_input(kwargs: dict, message: str) -> None:
    with pytest.raises(EngineInputError, match=message):
        draw_equity(**kwargs)


def dealt(variant: str, hands: int) -> list[str]:
    """``hands`` hands of five distinct cards of the game's pack."""
    pack = get_variant(variant).deck.cards()
    return [" ".join(str(c) for c in pack[5 * i : 5 * i + 5]) for i in range(hands)]


@pytest.mark.parametrize(
    ("variant", "hands", "message"),
    [
        ("draw5", dealt("draw5", 7), "5-Card Draw needs 2 to 6 hands, got 7"),
        ("triple-draw-27", dealt("triple-draw-27", 8), "2-7 Triple Draw needs 2 to 6 hands, got 8"),
        ("draw32", dealt("draw32", 6), "32-Card Draw needs 2 to 5 hands, got 6"),
        ("draw5", ["As Ks Qs Js 9d", "2c 2d 2h 3c"], "hand 2 has 4 cards; a 5-Card Draw hand has 5"),
        ("draw5", ["As Ks Qs Js 9d", "2c 2d 2h 3c As"], "card As appears more than once (in hand 1 and in hand 2)"),
        ("draw32", ["As Ks Qs Js 9d", "7c 8d 9h Tc 6s"],
         "card 6s is not in the 32-card deck; it holds ranks 7 8 9 T J Q K A only"),
        ("draw5", ["As Ks Qs Js 9d", None], "hand 2: None is not a list of cards; give a string such as 'As Kd' or a "
                                            "list like ['As', 'Kd']"),
        ("draw5", "AsKsQsJs9d 2c2d2h3c3d", "hands must be a list of hands, e.g. ['As Ks', 'Qd Qc'], not the string "
                                           "'AsKsQsJs9d 2c2d2h3c3d'"),
    ],
)
def test_hands_are_refused_as_at_the_showdown(variant: str, hands: Any, message: str) -> None:
    """The seats, the cards a hand holds and the pack are checked as :func:`showdown` checks them, in its words."""
    refusals: dict[str, Callable[[], object]] = {
        "showdown": lambda: showdown(variant, hands),
        "draw_equity": lambda: draw_equity(variant, hands, draws_left=1),
        "draw_counts_exactly": lambda: draw_counts_exactly(variant, hands, draws_left=1),
    }
    for name, refuse in refusals.items():
        with pytest.raises(EngineInputError) as refused:
            refuse()
        assert str(refused.value) == message, name


def test_a_dead_card_held_by_a_hand_is_named() -> None:
    with pytest.raises(EngineInputError, match=r"^card 2c appears more than once \(in hand 2 and in the dead cards\)$"):
        draw_equity("draw5", ["As Ks Qs Js 9d", "2c 2d 2h 3c 3d"], "2c", draws_left=1)


def test_the_compiled_2_7_policy_is_the_table() -> None:
    import random

    import numpy as np

    from engine._draw_kernels import throw_27
    from engine.cards import Card

    rng = random.Random(27)
    for _ in range(3_000):
        ids = rng.sample(range(52), 5)
        cards = [Card(i) for i in ids]
        thrown = discards("triple-draw-27", cards)
        mask = throw_27(np.array(ids, dtype=np.int64))
        assert [c for j, c in enumerate(cards) if (mask >> j) & 1] == list(thrown)


def test_the_compiled_2_7_simulation_agrees_with_the_python_one() -> None:
    from engine import draw_equity as module

    seats = [parse_cards(h) for h in ("2c 3d 4h 7s 9c", "Kc Qd 9h 8s 3c", "2h 5h 6c 8d 7d", "3s 4c 5d Ah Ks")]
    unseen = [c for c in get_variant("triple-draw-27").deck.cards() if all(c not in s for s in seats)]
    fast = module._sampled_27(seats, unseen, 32, 3, 20_000, 5)
    slow = module._sampled_python("triple-draw-27", seats, unseen, 32, 3, 2_000, 5)
    for i in range(4):
        p_fast, p_slow = fast.wins[i] / fast.deals, slow.wins[i] / slow.deals
        spread = (p_slow * (1 - p_slow) / slow.deals) ** 0.5 + (p_fast * (1 - p_fast) / fast.deals) ** 0.5
        assert abs(p_fast - p_slow) < 4 * spread + 1e-3


def test_a_full_32_card_draw_table_is_priced_with_the_reshuffle() -> None:
    # Five hands (the game's most seats) hold 25 of the 32 cards and throw three each: fifteen replacements from a
    # stock of seven (a burn, then six), so nine come from the reshuffled discards.
    hands = ["Ah Ks 9d Ac 8s", "8c Kd 7h 8d Qd", "As 9s Qs Td 7c", "7d Kh 8h Kc Jc", "7s Th Ad Qh Jh"]
    assert [len(discards("draw32", parse_cards(h))) for h in hands] == [3] * 5
    result = draw_equity("draw32", hands, draws_left=1, samples=200, seed=1)
    assert not result.exact and result.boards == 200 and sum(h.exact_equity for h in result.results) == 1


@pytest.mark.parametrize(
    ("variant", "hands", "second"),
    [
        # 2-7, the compiled simulation: the second hand gets 9c and two of the dead cards, winning (T-high) unless
        # they pair: 6 of the 10 ways.
        ("triple-draw-27", ["2c 3d 4h 5s 9c", "Kc Qd Jh 3c 4d"], Fraction(3, 5)),
        # 5-Card Draw, the Python simulation: the second hand gets 3c and three of the dead cards (at least eights)
        # and loses only with T 8 8 (3 of 10) when the first pairs its nines (1 in 4).
        ("draw5", ["2h 5h 9h Kh 3c", "2c 7d 9s Jd 4s"], Fraction(37, 40)),
    ],
)
def test_when_the_rounds_discards_cannot_serve_a_seat_the_earlier_discards_are_shuffled_in(
    variant: str, hands: list[str], second: Fraction
) -> None:
    # The stock is out; the first hand throws one card and the second more, so the round's pile holds only one card
    # the second may take. The earlier draws' discards (the dead cards) serve the rest.
    dead = "Ts Th Td 8s 8h"
    assert len(discards(variant, parse_cards(hands[0]))) == 1
    result = draw_equity(variant, hands, dead, draws_left=1, stock=0, samples=400, seed=2)
    assert result.boards == 400 and sum(h.exact_equity for h in result.results) == 1
    p = float(second)
    assert abs(result.results[1].equity - p) < 4 * (p * (1 - p) / 400) ** 0.5


def test_the_compiled_2_7_draw_deals_a_reshuffled_pile_as_the_dealer_does() -> None:
    # With the stock out, Dealer.replace deals each seat the first cards of the shuffled pile that are not its own,
    # the rest of the pile keeping its order, and shuffles the earlier discards in below it when none is left.
    # The kernel's draw, given the same shuffles (the same SplitMix64 stream), must hand out the same cards.
    import random

    import numpy as np

    from engine._draw_kernels import _one_draw, _shuffle, throw_27

    rng = random.Random(27)
    for trial in range(400):
        ids = rng.sample(range(52), 28)
        hands, earlier = np.array(ids[:20], dtype=np.int64).reshape(4, 5), np.array(ids[20:], dtype=np.int64)
        throws = [[int(hands[i, j]) for j in range(5) if (throw_27(hands[i]) >> j) & 1] for i in range(4)]
        state = np.array([trial], dtype=np.uint64)
        pile = np.array([c for t in throws for c in t], dtype=np.int64)
        _shuffle(pile, len(pile), state)
        order, extra, expected = list(pile), None, hands.copy()
        for i, own in enumerate(throws):
            for j in [j for j in range(5) if int(hands[i, j]) in own]:
                if all(c in own for c in order) and extra is None:
                    extra = earlier.copy()
                    _shuffle(extra, len(extra), state)
                    order += list(extra)
                expected[i, j] = order.pop(next(k for k, c in enumerate(order) if c not in own))
        held, buffer = hands.copy(), np.empty(20 + 5 * 4 + 8, dtype=np.int64)
        left = np.empty(5 * 4 + 8, dtype=np.int64)
        left[:8] = earlier
        seed = np.array([trial], dtype=np.uint64)
        _one_draw(held, np.empty((4, 5), dtype=np.int64), np.empty(4, dtype=np.int64), buffer,
                  np.empty(0, dtype=np.int64), 0, 0, seed, left, 8)  # fmt: skip
        assert held.tolist() == expected.tolist(), trial


@pytest.mark.parametrize("variant", ["draw32", "triple-draw-27"])
def test_the_simulated_draws_deal_card_for_card_as_the_dealer(variant: str) -> None:
    # The price follows the deal: the Python simulation's draws, given the dealer's stock and random stream (and
    # the discards in the same order), hand out exactly the cards Dealer.replace does, through reshuffles and the
    # earlier-discards fallback.
    import random

    from engine import draw_equity as module
    from engine.dealer import Dealer, DeckExhausted

    pack = list(get_variant(variant).deck.cards())
    seats = 5 if variant == "draw32" else 6
    for trial in range(150):
        rng = random.Random(trial)
        cards = rng.sample(pack, len(pack))
        hands = [tuple(sorted(cards[5 * i : 5 * i + 5])) for i in range(seats)]  # sorted: the piles match
        stock = cards[5 * seats : 5 * seats + rng.randrange(0, len(pack) - 5 * seats + 1)]
        dealer, deck = Dealer(stock, random.Random(trial)), [c.id for c in reversed(stock)]
        earlier: list[int] = []
        sim_rng, ours = random.Random(trial), [tuple(c.id for c in h) for h in hands]
        for _ in range(len(get_variant(variant).draws)):
            thrown = [discards(variant, h) for h in hands]
            try:
                got = dealer.replace(thrown)
            except DeckExhausted:  # a stock cut this short can leave a seat nothing but its own cards
                with pytest.raises(EngineInputError, match="cannot serve every seat"):
                    module._one_draw(variant, ours, deck, sim_rng, {}, earlier)
                break
            hands = [tuple(sorted({*h} - {*t} | {*g})) for h, t, g in zip(hands, thrown, got, strict=True)]
            ours = [tuple(sorted(h)) for h in module._one_draw(variant, ours, deck, sim_rng, {}, earlier)]
            assert [tuple(c.id for c in h) for h in hands] == ours, trial


@pytest.mark.parametrize("variant", ["draw5", "triple-draw-27"])
def test_a_sample_without_a_seed_takes_a_random_one_and_names_it_as_every_game_does(variant: str) -> None:
    """A draw game's Monte Carlo without a seed drew the same sample every run (seed 0), where every other game's
    draws a fresh one: now as they do, with the seed it took in the result, which deals the same sample again."""
    hands = ["As Ad 7c 4h 2s", "Kc Kd Qh Qs 3c"] if variant == "draw5" else ["2c 3d 4h 5s 9c", "2d 3h 4s 6c 8d"]
    first = draw_equity(variant, hands, draws_left=1, samples=500)
    second = draw_equity(variant, hands, draws_left=1, samples=500)
    assert first.seed is not None and second.seed is not None and first.seed != second.seed
    assert draw_equity(variant, hands, draws_left=1, samples=500, seed=first.seed) == first
