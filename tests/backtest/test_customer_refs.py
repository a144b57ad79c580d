"""The ``customer_ref`` a handle gives a placement that names none: unique over a whole backtest.

Betfair asks nothing of a ``customerOrderRef``'s uniqueness (it is the customer's own label, at most 32
characters); a strategy, flumine's for one, keys its orders by it, and a researcher joins the orders
table's rows on it. So the automatic ones never repeat: not between the markets of a Hi/Lo game, not
from game to game of a session, not between the sessions of one backtest (each its own exchange).
"""

from __future__ import annotations

import contextlib
from collections import Counter
from typing import Any, ClassVar

import pytest

from exchange.backtest.loading import StrategySpec
from exchange.backtest.runner import BacktestConfig, run_backtest
from exchange.backtest.strategy import ALL_MARKETS, CustomerRefs, MarketHandle, Strategy
from exchange.backtest.workers import InlineExecutor
from exchange.core.side import Side
from exchange.game.layouts import MarketKind
from exchange.game.rounds import Round

CUSTOMER_REF_MAX = 32  # Betfair's limit on a customerOrderRef
LONG_ACCOUNT = "a-researchers-rather-long-account-name"  # 38 characters


class RestingBacker(Strategy):
    """Rests two backs far from any price on every market it trades, in the Pre-flop window, naming no reference."""

    markets = ALL_MARKETS

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        if round is Round.PREFLOP:
            market.place_order(1, Side.BACK, "900", 200)
            market.place_order(2, Side.BACK, "900", 200, customer_ref="")  # names none, as over HTTP


def placed_refs(games: int, games_per_session: int, strategy: str = "RestingBacker", **changes: Any) -> list[str]:
    spec = StrategySpec.parse(f"{__name__}:{strategy}")
    config = BacktestConfig(strategy=spec, games=games, seed=3, channel="omaha-hilo",
                            games_per_session=games_per_session, record_streams=False, **changes)  # fmt: skip
    with InlineExecutor() as executor:
        orders = run_backtest(config, executor, None).tables["orders"].to_pylist()
    return [r["customer_ref"] for r in orders if r["account"] == config.account and r["action"] == "PLACE"]


def test_automatic_references_never_repeat_in_a_backtest() -> None:
    """Two sessions of two Hi/Lo games: 2 sessions x 2 games x 2 markets x 2 backs, 16 refs
    (a refused placement's row has its reference too)."""
    refs = placed_refs(games=4, games_per_session=2)
    assert len(refs) == 16
    repeated = {ref: n for ref, n in Counter(refs).items() if n > 1}
    assert repeated == {}


def test_automatic_references_fit_betfairs_limit() -> None:
    refs = placed_refs(games=2, games_per_session=1)
    assert refs and max(len(r) for r in refs) <= CUSTOMER_REF_MAX


def test_automatic_references_of_a_long_account_id_fit_the_limit_and_never_repeat() -> None:
    """The prefix is the account id and the session; an id of 38 characters made references of 42, which the
    HTTP API refuses, so a strategy moved from a backtest to a live account would have had every bet refused."""
    refs = placed_refs(games=4, games_per_session=2, account=LONG_ACCOUNT)
    assert len(refs) == 16
    assert max(len(r) for r in refs) <= CUSTOMER_REF_MAX
    assert len(set(refs)) == 16


class LongRefBacker(Strategy):
    """Names its own references: one of 33 characters and two that are not one line (refused), one of 32 and one
    with a space (placed)."""

    markets = ALL_MARKETS
    refusals: ClassVar[list[str]] = []

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        if round is Round.PREFLOP and market.kind is MarketKind.HIGH:
            for ref in ("r" * 33, "two\nlines", "nul\x00"):
                try:
                    market.place_order(1, Side.BACK, "900", 200, customer_ref=ref)
                except ValueError as exc:
                    self.refusals.append(str(exc))
            market.place_order(2, Side.BACK, "900", 200, customer_ref="k" * 32)
            market.place_order(3, Side.BACK, "900", 200, customer_ref="my ref")


def test_a_strategys_own_reference_is_refused_where_the_http_api_refuses_it() -> None:
    """Over Betfair's 32 characters, or a control character in it (which breaks the tables' and the logs' lines)."""
    LongRefBacker.refusals.clear()
    refs = placed_refs(games=1, games_per_session=1, strategy="LongRefBacker")
    assert refs == ["k" * 32, "my ref"]
    assert LongRefBacker.refusals == [
        "customer_ref is at most 32 characters (Betfair's limit, which the HTTP API holds too), not 33: "
        f"{'r' * 33!r}",
        "customer_ref must be one line of text, without control characters ('\\n' in 'two\\nlines'), as the HTTP "
        "API's customerOrderRef",
        "customer_ref must be one line of text, without control characters ('\\x00' in 'nul\\x00'), as the HTTP "
        "API's customerOrderRef"]


class TypoBacker(Strategy):
    """Places with a price that is no number first (refused with ValueError), then twice as it meant to (the second
    with an empty reference)."""

    markets = ALL_MARKETS

    def on_window_open(self, market: MarketHandle, round: Round) -> None:
        if round is Round.PREFLOP and market.kind is MarketKind.HIGH:
            with contextlib.suppress(ValueError):
                market.place_order(1, Side.BACK, "9OO", 200)
            market.place_order(1, Side.BACK, "900", 200)
            market.place_order(2, Side.BACK, "900", 200, customer_ref="")  # names none, as over HTTP


def test_a_placement_refused_by_its_arguments_takes_no_reference_number() -> None:
    """The automatic references count the placements sent: one refused before it was sent leaves no gap. An empty
    reference is none, as the HTTP API's ``customerOrderRef: ""`` is: it is numbered too."""
    refs = placed_refs(games=1, games_per_session=1, strategy="TypoBacker")
    assert [ref.rsplit("-", 1)[1] for ref in refs] == ["1", "2"]


@pytest.mark.parametrize("prefix", ["x" * 20, "x" * 21, LONG_ACCOUNT])
def test_a_prefix_is_kept_whole_when_it_fits_and_shortened_with_a_digest_when_not(prefix: str) -> None:
    ref = CustomerRefs(prefix).next()
    assert len(ref) <= CUSTOMER_REF_MAX
    assert (ref == f"{prefix}-1") is (len(prefix) <= 20)
    assert CustomerRefs(prefix[:-1] + "y").next() != ref  # prefixes that share their head still differ
