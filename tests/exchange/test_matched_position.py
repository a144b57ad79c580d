"""The order stream's matched position (``mb``/``ml``/``smc``) of random fills against a brute-force regroup.

What the server sends is two steps: :meth:`exchange.core.market.Market.matched_by_tick` sums a market's
standing fills (voided matches left out) per bet and tick (the rows
:meth:`exchange.core.exchange.Exchange.matched_on` gives), and
:func:`exchange.betfair.order_changes.market_image` sums those per runner, side and strategy ref and formats
them (a runner with no matched stake and no executable order is left out, and so is an empty field).  The
regroup here shares neither: it walks the fills one by one, keys them by the fill's decimal price, and sorts by
that price.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from exchange.betfair import order_changes
from exchange.core import ladder
from exchange.core.ladder import PRICES, TICK_COUNT
from exchange.core.market import Fill, Market
from exchange.core.orders import MatchedRow
from exchange.core.side import Side

ME = "me"


@dataclass(frozen=True)
class Bet:
    bet_id: int
    selection_id: int
    side: Side
    ref: str | None
    account: str


@dataclass(frozen=True)
class Case:
    bets: tuple[Bet, ...]
    fills: tuple[Fill, ...]
    voided: frozenset[int]


@st.composite
def cases(draw: st.DrawFn) -> Case:
    """Bets of two accounts on three runners, and matches each pairing a back and a lay of one runner, at
    a few nearby ticks (so prices repeat) or anywhere on the ladder; some matches voided."""
    kinds = st.tuples(st.sampled_from([1, 2, 3]), st.sampled_from(Side), st.sampled_from([None, "s1", "s2"]),
                      st.sampled_from([ME, "other"]))
    bets = tuple(Bet(i + 1, *kind) for i, kind in enumerate(draw(st.lists(kinds, min_size=2, max_size=10))))
    ticks = st.integers(140, 145) | st.integers(0, TICK_COUNT - 1)
    fills: list[Fill] = []
    for _ in range(draw(st.integers(0, 30))):
        back = draw(st.sampled_from(bets))
        lays = [b for b in bets if b.side is Side.LAY and b.selection_id == back.selection_id]
        if back.side is not Side.BACK or not lays:
            continue
        lay = draw(st.sampled_from(lays))
        size = draw(st.integers(1, 50_000))
        fills.append((len(fills), len(fills), back.selection_id - 1, draw(ticks), size, back.bet_id, lay.bet_id))
    voided = draw(st.sets(st.sampled_from(range(len(fills))))) if fills else set()
    return Case(bets, tuple(fills), frozenset(voided))


def _rows(bets: Iterable[Bet]) -> list[order_changes.OrderRow]:
    return [order_changes.OrderRow(b.selection_id, b.bet_id, b.side, b.ref, {"id": str(b.bet_id), "status": "EC"})
            for b in bets]


def _matched(case: Case) -> dict[int, list[MatchedRow]]:
    """``me``'s matched rows per runner, one per bet, as :meth:`Exchange.matched_on` gives them."""
    mine = [b for b in case.bets if b.account == ME]
    market = Market("m", (1, 2, 3), min_stake=1, commission_bps=0)
    market.fills.extend(case.fills)  # the record as the exchange keeps it: every fill, and which were voided
    market.voided_matches.update(case.voided)
    matched = market.matched_by_tick({b.bet_id for b in mine})
    by_runner: dict[int, list[MatchedRow]] = {}
    for b in mine:
        by_runner.setdefault(b.selection_id, []).append((b.side, b.ref, matched.get(b.bet_id, ())))
    return by_runner


def served(case: Case) -> dict[int, dict[str, Any]]:
    """What the server builds of ``me``'s bets: per runner, its ``mb``, ``ml`` and ``smc``."""
    mine = [b for b in case.bets if b.account == ME]
    change = order_changes.market_image("m", _rows(mine), _matched(case))
    assert all(orc["fullImage"] and "uo" not in orc for orc in change["orc"])  # no order is executable here
    return {orc["id"]: {"mb": orc.get("mb", []), "ml": orc.get("ml", []), "smc": orc.get("smc", {})}
            for orc in change["orc"]}


def regrouped(case: Case) -> dict[int, dict[str, Any]]:
    """The same by brute force: every unvoided fill of one of ``me``'s bets, added at its price."""
    by_id = {b.bet_id: b for b in case.bets}
    overall: dict[tuple[int, Side], dict[Decimal, int]] = defaultdict(lambda: defaultdict(int))
    by_ref: dict[tuple[int, str, Side], dict[Decimal, int]] = defaultdict(lambda: defaultdict(int))
    for match_id, _, _, tick, size, back_id, lay_id in case.fills:
        for bet in (by_id[back_id], by_id[lay_id]):
            if match_id in case.voided or bet.account != ME:
                continue
            overall[bet.selection_id, bet.side][PRICES[tick]] += size
            if bet.ref:
                by_ref[bet.selection_id, bet.ref, bet.side][PRICES[tick]] += size

    def ladder(sums: dict[Decimal, int]) -> list[list[float]]:
        return [[float(p), float(Decimal(s) / 100)] for p, s in sorted(sums.items())]

    out: dict[int, dict[str, Any]] = {}
    for selection_id in sorted({b.selection_id for b in case.bets if b.account == ME}):
        if not overall[selection_id, Side.BACK] and not overall[selection_id, Side.LAY]:
            continue  # nothing matched on it, and no executable order: not in the image
        refs = sorted({ref for (sid, ref, _) in by_ref if sid == selection_id})
        out[selection_id] = {
            "mb": ladder(overall[selection_id, Side.BACK]), "ml": ladder(overall[selection_id, Side.LAY]),
            "smc": {ref: {"mb": ladder(by_ref[selection_id, ref, Side.BACK]),
                          "ml": ladder(by_ref[selection_id, ref, Side.LAY])} for ref in refs},
        }
    return out


@given(cases())
def test_matched_position_is_the_unvoided_fills_summed_per_price(case: Case) -> None:
    assert served(case) == regrouped(case)


def test_one_back_filled_at_two_prices_shows_both() -> None:
    """The case the average hid: a back at 3.0 takes 2.00 at 3.2, then 2.00 at 3.0 (a third fill voided)."""
    back = Bet(1, 1, Side.BACK, "s1", ME)
    lays = (Bet(2, 1, Side.LAY, None, "other"), Bet(3, 1, Side.LAY, None, "other"))
    fills = ((0, 1, 0, 153, 200, 1, 2), (1, 1, 0, 149, 200, 1, 3), (2, 2, 0, 149, 500, 1, 3))
    case = Case((back, *lays), fills, frozenset({2}))
    want = {"mb": [[3.0, 2.0], [3.2, 2.0]], "ml": []}
    assert served(case) == regrouped(case) == {1: {**want, "smc": {"s1": want}}}


def _merge(ladder: list[list[float]], levels: list[list[float]]) -> list[list[float]]:
    """A client's update of a ladder by a delta's levels: each listed price replaced, a size of 0 dropped."""
    sizes = {price: size for price, size in ladder} | {price: size for price, size in levels}
    return [[price, size] for price, size in sorted(sizes.items()) if size]


def _applied(image: dict[int, dict[str, Any]], delta: dict[str, Any] | None) -> dict[int, dict[str, Any]]:
    out = {sid: {"mb": r["mb"], "ml": r["ml"], "smc": dict(r["smc"])} for sid, r in image.items()}
    for orc in delta["orc"] if delta else ():
        assert "fullImage" not in orc
        runner = out.setdefault(orc["id"], {"mb": [], "ml": [], "smc": {}})
        for key in ("mb", "ml"):
            runner[key] = _merge(runner[key], orc.get(key, []))
        for ref, levels in orc.get("smc", {}).items():
            mine = runner["smc"].get(ref, {"mb": [], "ml": []})
            runner["smc"][ref] = {key: _merge(mine[key], levels.get(key, [])) for key in ("mb", "ml")}
    for runner in out.values():  # a strategy left with nothing, or a runner, is one the regroup does not list
        runner["smc"] = {ref: m for ref, m in runner["smc"].items() if m["mb"] or m["ml"]}
    return {sid: r for sid, r in out.items() if r["mb"] or r["ml"]}


@given(cases(), st.data())
def test_a_delta_applied_to_the_image_gives_the_position_after(case: Case, data: st.DataObject) -> None:
    """The image of the first fills (none voided yet), then one delta of the later fills and of every void,
    built from the levels they moved: applied as a client applies it, it gives the whole case's position."""
    cut = data.draw(st.integers(0, len(case.fills)))
    by_id = {b.bet_id: b for b in case.bets}
    moved: set[tuple[int, Side, int, int]] = set()
    changed: set[int] = set()
    for match_id, _, _, tick, _, back_id, lay_id in case.fills:
        if match_id >= cut or match_id in case.voided:  # a match id is its index here
            for bet in (by_id[back_id], by_id[lay_id]):
                if bet.account == ME:
                    moved.add((bet.selection_id, bet.side, tick, bet.bet_id))
                    changed.add(bet.bet_id)
    image = served(Case(case.bets, case.fills[:cut], frozenset()))
    changed_rows = _rows(b for b in case.bets if b.bet_id in changed)
    delta = order_changes.market_delta("m", changed_rows, moved, _matched(case), closed=False)
    assert (delta is None) == (not changed)
    assert _applied(image, delta) == regrouped(case)
    for orc in delta["orc"] if delta else ():  # a strategy is sent only the levels its own bets moved
        for ref, levels in orc.get("smc", {}).items():
            its_own = {(side, tick) for sel, side, tick, bet in moved if sel == orc["id"] and by_id[bet].ref == ref}
            sent = {(Side.BACK if key == "mb" else Side.LAY, ladder.parse_price(Decimal(str(price))))
                    for key in ("mb", "ml") for price, _ in levels.get(key, [])}
            assert sent <= its_own, (ref, sent, its_own)
