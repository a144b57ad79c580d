"""API-NG account methods: getAccountFunds, getAccountDetails, listCurrencyRates (the caller's own account only).

getAccountStatement is in :mod:`exchange.server.statement`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from exchange.betfair import apiformat
from exchange.server.auth import Session
from exchange.server.params import get_enum
from exchange.server.service import ExchangeService


async def get_account_funds(service: ExchangeService, session: Session, params: Mapping[str, Any]) -> dict[str, Any]:
    get_enum(params, "wallet", ("UK",), default="UK")
    return apiformat.account_funds(service.funds(session.account))


DEFAULT_CURRENCY = "GBP"


async def get_account_details(service: ExchangeService, session: Session, params: Mapping[str, Any]
                              ) -> dict[str, Any]:
    """``AccountDetailsResponse``: the account's currency from the account store; the simulator keeps no names,
    so ``firstName`` is the account name; no discount and no points."""
    return {
        "currencyCode": service.currencies.get(session.account, DEFAULT_CURRENCY),
        "firstName": session.account,
        "lastName": "",
        "localeCode": "en",
        "region": "GBR",
        "timezone": "UTC",
        "discountRate": 0.0,
        "pointsBalance": 0,
        "countryCode": "GB",
    }


#: Exchange rates from GBP, the simulator's one currency for money: it converts nothing, so every rate is 1.
CURRENCIES = ("GBP",)


async def list_currency_rates(service: ExchangeService, session: Session, params: Mapping[str, Any]
                              ) -> list[dict[str, Any]]:
    """``CurrencyRate`` from ``fromCurrency`` (only GBP, Betfair's default; another is ``INVALID_INPUT_DATA``)."""
    get_enum(params, "fromCurrency", ("GBP",), default="GBP")
    return [{"currencyCode": code, "rate": 1.0} for code in CURRENCIES]
