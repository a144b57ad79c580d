"""Balances from the database alone (for ``exchange-poker accounts list``, with or without a running server)."""

from __future__ import annotations

from exchange.server.journal import Journal
from exchange.server.recovery import restore


def balances_from_db(path: str) -> dict[str, int]:
    """Each account's balance as the journal leaves it (minor units): newest valid snapshot plus the records after."""
    journal = Journal.open(path)
    try:
        exchange = restore(journal).exchange
        return {name: account.balance for name, account in exchange.accounts.items()}
    finally:
        journal.close()
