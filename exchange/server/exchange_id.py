"""The exchange's own id: a random name made in its database the first time it is asked for, and kept there.

A copy of the database (a backup restored) keeps it; a new database gets a new one. A recording notes the id of
the exchange it records in its folder (:mod:`exchange.server.record_folder`), so two exchanges' games never mix in
one folder, even where their market ids do not collide.

>>> import sqlite3
>>> conn = sqlite3.connect(":memory:", isolation_level=None)
>>> first = exchange_id(conn)
>>> len(first), exchange_id(conn) == first
(32, True)
"""

from __future__ import annotations

import secrets
import sqlite3

SCHEMA = "CREATE TABLE IF NOT EXISTS exchange_id (one INTEGER PRIMARY KEY CHECK (one = 0), id TEXT NOT NULL)"


def exchange_id(conn: sqlite3.Connection) -> str:
    """The id of the exchange whose database ``conn`` opens, made the first time it is asked for."""
    conn.execute(SCHEMA)
    conn.execute("INSERT OR IGNORE INTO exchange_id (one, id) VALUES (0, ?)", (secrets.token_hex(16),))
    (value,) = conn.execute("SELECT id FROM exchange_id").fetchone()
    return str(value)
