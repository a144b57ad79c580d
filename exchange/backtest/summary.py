"""The figures a backtest prints at the end, computed from its tables.

For one account (the strategy's): how many games, bets and how much was
matched, net P&L after commission, ROI on matched stake, commission paid and
the maximum drawdown of cumulative net P&L over the games in order.

>>> max_drawdown([100, -50, -80, 200, -10])
130
>>> max_drawdown([])
0
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

import pyarrow as pa
import pyarrow.compute as pc

from exchange.core.money import format_minor


@dataclass(frozen=True, slots=True)
class Summary:
    """One account's results over a backtest. Money in minor units."""

    account: str
    games: int
    dead_heats: int
    bets: int
    rejected: int
    matched_volume: int
    gross_profit: int
    commission: int
    net_profit: int
    max_drawdown: int

    @property
    def roi(self) -> Fraction | None:
        """Net profit per unit of matched stake; ``None`` when nothing matched."""
        return Fraction(self.net_profit, self.matched_volume) if self.matched_volume else None

    def lines(self) -> list[str]:
        roi = "n/a" if self.roi is None else f"{float(self.roi) * 100:+.2f}%"
        return [
            f"account         {self.account}",
            f"games           {self.games} ({self.dead_heats} dead heats)",
            f"bets            {self.bets} placed, {self.rejected} rejected",
            f"matched volume  {format_minor(self.matched_volume)}",
            f"gross P&L       {format_minor(self.gross_profit)}",
            f"commission      {format_minor(self.commission)}",
            f"net P&L         {format_minor(self.net_profit)}",
            f"ROI             {roi} of matched stake",
            f"max drawdown    {format_minor(self.max_drawdown)}",
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


def summarise(tables: dict[str, pa.Table], account: str) -> Summary:
    """The :class:`Summary` of ``account`` from the backtest's tables (games in ``game_index`` order)."""
    games, orders, settlements = tables["games"], tables["orders"], tables["settlements"]
    mine = orders.filter(pc.equal(orders.column("account"), account))
    rejected = mine.filter(pc.equal(mine.column("status"), "REJECTED"))
    accepted = pc.not_equal(mine.column("status"), "REJECTED")
    placed = mine.filter(pc.and_(accepted, pc.equal(mine.column("action"), "PLACE")))
    rows = settlements.filter(pc.equal(settlements.column("account"), account))
    rows = rows.sort_by([("game_index", "ascending")])
    return Summary(
        account=account,
        games=games.num_rows,
        dead_heats=int(pc.sum(games.column("dead_heat")).as_py() or 0) if games.num_rows else 0,
        bets=placed.num_rows,
        rejected=rejected.num_rows,
        matched_volume=_sum(mine, "size_matched"),
        gross_profit=_sum(rows, "gross_profit"),
        commission=_sum(rows, "commission"),
        net_profit=_sum(rows, "net_profit"),
        max_drawdown=max_drawdown(int(v) for v in rows.column("net_profit").to_pylist()),
    )
