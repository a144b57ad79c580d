"""Balances from the journal alone (for ``exchange-poker accounts list``, with or without a running server)."""

from __future__ import annotations

from exchange.core.events import event_from_dict
from exchange.core.exchange import Exchange
from exchange.server.journal import Journal


def balances_from_db(path: str) -> dict[str, int]:
    """Each account's balance as the journal's events leave it (minor units), by folding them into a core."""
    journal = Journal.open(path)
    try:
        exchange = Exchange()
        for record in journal.records():
            if record.kind == "event":
                exchange.apply(event_from_dict(dict(record.body)))
        return {name: account.balance for name, account in exchange.accounts.items()}
    finally:
        journal.close()
