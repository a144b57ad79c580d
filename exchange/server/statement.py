"""API-NG ``getAccountStatement``: the account's money movements, from the journal through its index.

The journal keeps every record (the audit trail), and the statement is what it
says of the account: deposits (``AccountCredited``), withdrawals
(``AccountDebited``), and per settled or voided market the account's result
(``MarketSettled``/``MarketVoided``): its net P&L and, apart, the commission
charged on it. ``balance`` is the running balance after each item, counted from
the account's first record. Newest first, as Betfair lists them;
``itemDateRange`` narrows them, ``includeItem`` picks deposits and withdrawals
(``DEPOSITS_WITHDRAWALS``), market items (``EXCHANGE``), none (``POKER_ROOM``:
no poker room here) or all (``ALL``, the default), and
``fromRecord``/``recordCount`` page them (a page holds at most 100: a larger
``recordCount`` gets 100 and ``moreAvailable``). A page is read from
:class:`~exchange.server.statement_index.StatementIndex` on a worker thread: it
costs in proportion to the page, not to the journal, once everything executed so far is on disk (a market
settled a moment ago is on the statement as it is on ``listClearedOrders``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from exchange.betfair import apiformat
from exchange.betfair.stream import EVENT_TYPE_ID
from exchange.server import jsoncodec
from exchange.server.auth import Session
from exchange.server.errors import ApiError, ApingCode, invalid_input
from exchange.server.journal_check import JournalDamaged
from exchange.server.market_filter import parse_time_range
from exchange.server.params import get_enum, get_str, record_window
from exchange.server.service import ExchangeService
from exchange.server.statement_index import Item

log = logging.getLogger(__name__)

JsonDict = dict[str, Any]
MAX_RECORDS = 100
LAST_OFFSET = 2**63 - 1  # SQLite's largest integer: a fromRecord past it is past the end of any statement
INCLUDE = ("ALL", "DEPOSITS_WITHDRAWALS", "EXCHANGE", "POKER_ROOM")
_KINDS = {"ALL": ("DEPOSIT", "WITHDRAWAL", "RESULT", "COMMISSION"), "DEPOSITS_WITHDRAWALS": ("DEPOSIT", "WITHDRAWAL"),
          "EXCHANGE": ("RESULT", "COMMISSION"), "POKER_ROOM": ()}
async def get_account_statement(service: ExchangeService, session: Session, params: Mapping[str, Any]
                                ) -> JsonDict:
    get_str(params, "locale", required=False, max_len=16)
    get_enum(params, "wallet", ("UK",), default="UK")
    include = get_enum(params, "includeItem", INCLUDE, default="ALL")
    start, end = parse_time_range(params, "itemDateRange")
    first, count = record_window(params, MAX_RECORDS)  # as the other lists page (their limit is larger)
    index = service.statements
    if index is None:
        raise invalid_input("this server keeps its journal in memory: it has no statement to read")
    await service.durable()  # the statement reads committed records: every settlement executed so far among them
    try:
        page, more = await asyncio.to_thread(index.page, session.account, _KINDS[include], start, end,
                                             min(first, LAST_OFFSET), count)
    except JournalDamaged as exc:
        log.error("account statements cannot be read: %s (exchange-poker journal --db %s --after %s says more)",
                  exc.detail, index.journal_path, (exc.first_bad or 1) - 1)
        raise ApiError(ApingCode.UNEXPECTED_ERROR, f"the account statement cannot be read: {exc.detail} in the "
                       "server's journal; nothing else is affected, and the server's log says more") from None
    return {"accountStatement": [_item(service, i) for i in page], "moreAvailable": more}


def _item(service: ExchangeService, item: Item) -> JsonDict:
    info = service.describe(item.market_id, item.ts) if item.market_id else None
    transaction = {"DEPOSIT": "ACCOUNT_CREDIT", "WITHDRAWAL": "ACCOUNT_DEBIT"}.get(item.kind, "ACCOUNT_CREDIT"
                                                                                  if item.amount > 0 else
                                                                                  "ACCOUNT_DEBIT")
    win_lose = {"RESULT": "RESULT_WON" if item.amount > 0 else "RESULT_LOST", "COMMISSION": "RESULT_NOT_APPLICABLE",
                }.get(item.kind, "RESULT_NOT_APPLICABLE")
    legacy: JsonDict = {
        "avgPrice": 0.0, "betCategoryType": "E", "betSize": 0.0, "betType": "B",
        "eventId": service.event_id(item.market_id) if item.market_id else 0, "eventTypeId": int(EVENT_TYPE_ID),
        "fullMarketName": f"{info.event_name} / {info.market_name}" if info else (item.market_id or item.kind),
        "grossBetAmount": 0.0, "transactionId": 0, "marketType": "O",
        "placedDate": apiformat.iso(item.ts), "selectionId": 0,
        "startDate": apiformat.iso(item.ts if item.market_start is None else item.market_start),
        "transactionType": transaction, "winLose": win_lose,
        "marketName": info.market_name if info else (item.market_id or item.kind),
    }
    if item.kind == "COMMISSION":  # as Betfair's commission items: no bet category, the market's rate
        legacy["betCategoryType"] = "NONE"
        if info is not None:
            legacy["commissionRate"] = f"{info.commission_percent}%"
    return {"refId": item.ref_id, "itemDate": apiformat.iso(item.ts), "amount": apiformat.money(item.amount),
            "balance": apiformat.money(item.balance), "itemClass": "UNKNOWN",
            "itemClassData": {"unknownStatementItem": jsoncodec.dumps(legacy).decode()}, "legacyData": legacy}
