"""Balances from the database alone (for ``exchange-poker accounts list``, with or without a running server)."""

from __future__ import annotations

from exchange.core.exchange import Exchange
from exchange.server.database import open_read_only, tables_of
from exchange.server.journal import Journal
from exchange.server.recovery import restore


def balances_from_db(path: str) -> dict[str, int]:
    """Each account's balance as the journal leaves it (minor units): newest valid snapshot plus the records after.
    The database is read and left as it is (:func:`~exchange.server.database.open_read_only`); one no server has
    run on (``accounts add`` made it) has no record yet."""
    conn = open_read_only(path)
    try:
        has_records = "journal" in tables_of(conn)
        exchange = restore(Journal(conn, read_only=True)).exchange if has_records else Exchange()
        return {name: account.balance for name, account in exchange.accounts.items()}
    finally:
        conn.close()
