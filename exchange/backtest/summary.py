"""The figures a backtest prints at the end, computed from its tables.

For one account (the strategy's): how many games, bets and how much was
matched, net P&L after commission, ROI on matched stake, commission paid and
the maximum drawdown of cumulative net P&L over the games in order. A backtest
in sessions adds each session's bankroll: the final bankrolls, the deepest
drawdown of any session's balance from its running peak, and how many sessions
were ruined (the balance fell below the minimum stake).

>>> max_drawdown([100, -50, -80, 200, -10])
130
>>> max_drawdown([])
0
>>> figures = session_figures({0: [900, 1200, 700], 1: [1000, 150]}, starting=1000, ruin_below=200)
>>> figures.final, figures.max_drawdown, figures.ruined
((700, 150), 850, 1)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import pyarrow as pa
import pyarrow.compute as pc

from engine.wording import counted
from exchange.core.money import format_minor


def half_up(value: Fraction) -> int:
    """``value`` to the nearest whole number, an exact half up: how a summary rounds an exact figure it shows (a
    median or a mean to the penny, a ROI to a hundredth of a percent).

    >>> half_up(Fraction(1601, 2)), half_up(Fraction(-1601, 2)), half_up(Fraction(4, 3))
    (801, -800, 1)
    """
    return math.floor(value + Fraction(1, 2))


@dataclass(frozen=True, slots=True)
class SessionFigures:
    """The strategy's bankroll over sessions: each session's final balance, in session order. Minor units."""

    starting: int
    final: tuple[int, ...]
    max_drawdown: int
    ruined: int
    ruin_below: int
    #: The reasons given by strategies that ended their session early (``end_session``), with how many sessions
    #: gave each, most given first.
    ended_early: tuple[tuple[str, int], ...] = ()

    @property
    def median(self) -> Fraction:
        """The median final bankroll: the middle one, or the mean of the two middle ones (a half unit at most).

        >>> SessionFigures(1000, (700, 150, 901, 1000), 0, 0, 200).median
        Fraction(1601, 2)
        """
        final = sorted(self.final)
        return Fraction(final[(len(final) - 1) // 2] + final[len(final) // 2], 2)

    def lines(self) -> list[str]:
        final = sorted(self.final)
        shown = format_minor(half_up(self.median))  # to the penny as every figure
        return [
            f"sessions        {len(final)}, each from {format_minor(self.starting)}",
            f"final bankroll  median {shown}, lowest {format_minor(final[0])}, "
            f"highest {format_minor(final[-1])}",
            f"ruined          {self.ruined} of {counted(len(final), 'session')} "
            f"(balance below {format_minor(self.ruin_below)})",
            f"worst drawdown  {format_minor(self.max_drawdown)} (a session's balance from its peak)",
            *self._ended_early_lines(len(final)),
        ]

    def _ended_early_lines(self, sessions: int) -> list[str]:
        """``ended early  3 of 100 sessions: 'drawdown limit' 2, 'target reached' 1`` (the three most given)."""
        if not self.ended_early:
            return []
        total = sum(n for _, n in self.ended_early)
        reasons = [f"{reason[:100]!r} {n}" for reason, n in self.ended_early[:3]]
        more = ", ..." if len(self.ended_early) > 3 else ""
        return [f"ended early     {total} of {counted(sessions, 'session')} (end_session): {', '.join(reasons)}{more}"]


def session_figures(paths: Mapping[int, Sequence[int]], starting: int, ruin_below: int,
                    ended_by: Iterable[str | None] = ()) -> SessionFigures:
    """The figures of each session's path of balances after each game (sessions in key order); ``ended_by``: why
    each session that ended early did (None for one that played every game)."""
    final, deepest, ruined = [], 0, 0
    for session in sorted(paths):
        path = paths[session]
        peak = starting
        for balance in path:
            peak = max(peak, balance)
            deepest = max(deepest, peak - balance)
        final.append(path[-1] if path else starting)
        ruined += any(balance < ruin_below for balance in path)
    reasons = Counter(reason for reason in ended_by if reason is not None)
    return SessionFigures(starting, tuple(final), deepest, ruined, ruin_below, tuple(reasons.most_common()))


@dataclass(frozen=True, slots=True)
class Summary:
    """One account's results over a backtest. Money in minor units."""

    account: str
    games: int
    dead_heats: int
    bets: int  # placements carried out (``place_order``)
    rejected: int  # placements refused
    matched_volume: int
    gross_profit: int
    commission: int
    net_profit: int
    max_drawdown: int
    sessions: SessionFigures | None = None
    #: Of ``dead_heats`` (every market's), those on a hi/lo game's Low market; ``None`` on a channel without one.
    low_dead_heats: int | None = None
    #: Bets made by ``replace_order`` (each a new bet, taking the place of the one it cancelled), beside ``bets``.
    replacing: int = 0
    #: Cancels and replaces refused (not bets: the bets they named stood as they were).
    refused_changes: int = 0
    #: Games voided whole (a misdeal, a technical fault): dealt, with no result.
    voided: int = 0
    #: The refused placements' error codes with how many of each, most first (what a strategy got wrong).
    rejected_codes: tuple[tuple[str, int], ...] = ()

    @property
    def roi(self) -> Fraction | None:
        """Net profit per unit of matched stake; ``None`` when nothing matched."""
        return Fraction(self.net_profit, self.matched_volume) if self.matched_volume else None

    @property
    def roi_text(self) -> str:
        """The ROI as a percentage to two decimals, rounded exactly (an exact half up); ``n/a`` when nothing matched.

        >>> figures = dict(account="a", games=1, dead_heats=0, bets=1, rejected=0, gross_profit=0, commission=0,
        ...                max_drawdown=0)
        >>> Summary(matched_volume=300, net_profit=100, **figures).roi_text, Summary(matched_volume=20_000,
        ...     net_profit=1, **figures).roi_text  # a third of the stake; 0.005 %, an exact half, up
        ('+33.33%', '+0.01%')
        """
        if self.roi is None:
            return "n/a"
        hundredths = half_up(self.roi * 10_000)  # of a percent
        return f"{'-' if hundredths < 0 else '+'}{abs(hundredths) // 100}.{abs(hundredths) % 100:02d}%"

    def lines(self) -> list[str]:
        roi = self.roi_text
        dead_heats = counted(self.dead_heats, "dead heat")
        if self.low_dead_heats is not None:  # (in brackets: the voided games must not read as dead heats)
            dead_heats += f" ({self.dead_heats - self.low_dead_heats} on High, {self.low_dead_heats} on Low)"
        voided = f"{self.voided} voided; " if self.voided else ""
        return [
            f"account         {self.account}",
            f"games           {self.games} ({voided}{dead_heats})",
            f"bets            {self.bets} placed, {self.rejected} rejected"
            + (f" ({', '.join(f'{n} {code}' for code, n in self.rejected_codes)})" if self.rejected_codes else "")
            + (f"; {self.replacing} more by replace_order" if self.replacing else "")
            + (f"; {counted(self.refused_changes, 'cancel or replace', 'cancels or replaces')} refused"
               if self.refused_changes else ""),
            f"matched volume  {format_minor(self.matched_volume)}",
            f"gross P&L       {format_minor(self.gross_profit)}",
            f"commission      {format_minor(self.commission)}",
            f"net P&L         {format_minor(self.net_profit)}",
            f"ROI             {roi} of matched stake",
            f"max drawdown    {format_minor(self.max_drawdown)}"
            + (" (of the P&L of every game in a row; each session's: below)" if self.sessions is not None else ""),
            *(self.sessions.lines() if self.sessions is not None else ()),
        ]

    def text(self) -> str:
        return "\n".join(self.lines())


def max_drawdown(pnl: Iterable[int]) -> int:
    """The largest fall of cumulative P&L from a previous peak (the peak starts at 0)."""
    peak = total = worst = 0
    for value in pnl:
        total += value
        peak = max(peak, total)
        worst = max(worst, peak - total)
    return worst


def _sum(table: pa.Table, column: str) -> int:
    value = pc.sum(table.column(column)).as_py() if table.num_rows else 0
    return int(value or 0)


def summarise(
    tables: dict[str, pa.Table], account: str, sessions_from: int | None = None, ruin_below: int = 0,
    ended_by: Iterable[str | None] = (),
) -> Summary:
    """The :class:`Summary` of ``account`` from the backtest's tables (games in ``game_index`` order).

    ``sessions_from``: the account's starting balance in every session, for the session figures
    (``None``: no session figures, as for one-game worlds); ``ended_by``: each session's reason for ending
    early, or None (:class:`~exchange.backtest.world.SessionOutcome`).
    """
    games, orders, settlements = tables["games"], tables["orders"], tables["settlements"]
    mine = orders.filter(pc.equal(orders.column("account"), account))
    placing = pc.equal(mine.column("action"), "PLACE")  # bets: not the refused cancels and replaces
    refused = pc.equal(mine.column("status"), "REJECTED")
    rejected = mine.filter(pc.and_(placing, refused))
    placed = mine.filter(pc.and_(placing, pc.invert(refused)))
    replacing = mine.filter(pc.and_(pc.equal(mine.column("action"), "REPLACE"), pc.invert(refused)))
    refused_changes = mine.filter(pc.and_(pc.invert(placing), refused))
    rows = settlements.filter(pc.equal(settlements.column("account"), account))
    rows = rows.sort_by([("game_index", "ascending")])
    low_dead_heats = _count(games, "low_dead_heat") if _has_low(games) else None
    return Summary(
        account=account,
        games=games.num_rows,
        dead_heats=_count(games, "dead_heat") + (low_dead_heats or 0),
        low_dead_heats=low_dead_heats,
        bets=placed.num_rows,
        rejected=rejected.num_rows,
        rejected_codes=tuple(Counter(rejected.column("error_code").to_pylist()).most_common()),
        replacing=replacing.num_rows,
        refused_changes=refused_changes.num_rows,
        voided=games.filter(pc.equal(games.column("status"), "VOID")).num_rows,
        matched_volume=_sum(mine, "size_matched"),
        gross_profit=_sum(rows, "gross_profit"),
        commission=_sum(rows, "commission"),
        net_profit=_sum(rows, "net_profit"),
        max_drawdown=max_drawdown(_per_game(rows)),
        sessions=None if sessions_from is None else session_figures(_paths(rows), sessions_from, ruin_below,
                                                                    ended_by),
    )


def _count(games: pa.Table, column: str) -> int:
    """How many games have ``column`` true."""
    return int(pc.sum(games.column(column)).as_py() or 0) if games.num_rows else 0


def _has_low(games: pa.Table) -> bool:
    """Whether the games have a Low market (a hi/lo channel's)."""
    return "low_market_id" in games.column_names and games.column("low_market_id").null_count < games.num_rows


def _per_game(rows: pa.Table) -> list[int]:
    """The account's net P&L in each game, in game order: a hi/lo game's two rows (High, Low) are one game."""
    by_game: dict[int, int] = {}
    for game, net in zip(rows.column("game_index").to_pylist(), rows.column("net_profit").to_pylist(), strict=True):
        by_game[game] = by_game.get(game, 0) + int(net)
    return list(by_game.values())


def _paths(rows: pa.Table) -> dict[int, list[int]]:
    """Each session's balances after each of its games, from the account's settlement rows in game order (a
    hi/lo game's two rows carry the same balance: the game's)."""
    games: dict[int, dict[int, int]] = {}
    columns = (rows.column(c).to_pylist() for c in ("session", "game_index", "balance_after"))
    for session, game, balance in zip(*columns, strict=True):
        games.setdefault(int(session), {})[int(game)] = int(balance)
    return {session: list(balances.values()) for session, balances in games.items()}
