"""API-NG account methods: getAccountFunds (the caller's own funds only)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from exchange.betfair import apiformat
from exchange.server.auth import Session
from exchange.server.params import get_opt_str
from exchange.server.service import ExchangeService


async def get_account_funds(service: ExchangeService, session: Session, params: Mapping[str, Any]) -> dict[str, Any]:
    get_opt_str(params, "wallet", max_len=16)
    return apiformat.account_funds(service.funds(session.account))
