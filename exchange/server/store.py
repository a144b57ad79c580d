"""Accounts: names, salted password hashes and deposits, in the server's SQLite file.

The same database file holds the journal (:mod:`exchange.server.journal`); this
module owns only the ``accounts``, ``operators`` and ``account_changes`` tables.
Passwords are never stored: only a random salt and ``hashlib.scrypt`` of the
password with it. Money is integer minor units (pence).

Each change to an account (added, a new password, made an operator or a trader
again) is recorded in ``account_changes`` with when and by whom, in the same
transaction as the change: the journal cannot hold them, as ``exchange-poker
accounts`` changes the store beside a running server, whose journal only it
writes. :meth:`AccountStore.changes` reads them back.

>>> store = AccountStore.open(":memory:")
>>> store.add("alice", "s3cret", deposit=100_000, by="ops")
Account(name='alice', deposit=100000, currency='GBP', created_ms=...)
>>> store.verify("alice", "s3cret") is not None, store.verify("alice", "wrong")
(True, None)
>>> [a.name for a in store.list()]
['alice']
>>> store.set_operator("ALICE", True, by="root")
('alice', True)
>>> [(c.account, c.change, c.by) for c in store.changes()]
[('alice', 'added (trader, balance 1000.00 GBP)', 'ops'), ('alice', 'made an operator', 'root')]
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import sqlite3
import time
from dataclasses import dataclass

from exchange.agents.house import HOUSE_PREFIX
from exchange.core.money import format_minor
from exchange.core.state import ExchangeConfig
from exchange.server.database import check_ours, open_read_only, open_with, tables_of, transaction

# scrypt cost: ~16 MiB and a few tens of milliseconds per check; logins are rare.
_SCRYPT_N = 2**14
_SCRYPT_R = 8
_SCRYPT_P = 1
_NAME = re.compile(r"^[A-Za-z0-9_.@-]{1,64}$")


SCHEMA = """
CREATE TABLE IF NOT EXISTS accounts (
    name TEXT PRIMARY KEY,
    salt BLOB NOT NULL,
    pw_hash BLOB NOT NULL,
    deposit INTEGER NOT NULL,
    currency TEXT NOT NULL,
    created_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS operators (
    name TEXT PRIMARY KEY REFERENCES accounts(name)
);
CREATE TABLE IF NOT EXISTS account_changes (
    at_ms INTEGER NOT NULL,
    account TEXT NOT NULL,
    change TEXT NOT NULL,
    by TEXT NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class AccountChange:
    """One change to an account: when (epoch ms, UTC), what, and who made it (as the changer named itself)."""

    at_ms: int
    account: str
    change: str
    by: str


class AccountExists(ValueError):
    """An account of that name is already in the database."""


class UnknownAccount(KeyError):
    """No account of that name."""


@dataclass(frozen=True, slots=True)
class Account:
    """An account as stored: its deposit (minor units) is the money it was opened with."""

    name: str
    deposit: int
    currency: str
    created_ms: int

    def __repr__(self) -> str:
        return f"Account(name={self.name!r}, deposit={self.deposit}, currency={self.currency!r}, created_ms=...)"


@dataclass(frozen=True, slots=True)
class Credentials:
    account: Account
    salt: bytes
    pw_hash: bytes


def check_password(credentials: Credentials | None, password: str) -> Account | None:
    """The account if ``password`` matches; slow on purpose (scrypt), so callers run it off the event loop."""
    if credentials is None:
        hash_password(password, b"0" * 16)  # spend the same time as a real check
        return None
    if not hmac.compare_digest(hash_password(password, credentials.salt), credentials.pw_hash):
        return None
    return credentials.account


def hash_password(password: str, salt: bytes) -> bytes:
    return hashlib.scrypt(password.encode(), salt=salt, n=_SCRYPT_N, r=_SCRYPT_R, p=_SCRYPT_P, dklen=32)


def is_reserved(name: str) -> bool:
    """Whether ``name`` is one of the server's own accounts in the exchange: the house's commission account
    (``HOUSE``) or one the house trades under (``house-maker``, ``house-noise-N``). A client account of such a
    name would log in to that account, its money and its orders, so none is added and none logs in."""
    return name == ExchangeConfig().house_account_id or name.startswith(HOUSE_PREFIX)


def reserved_as_stored(name: str) -> str | None:
    """The server's own account ``name`` names, whatever its case (``house`` is ``HOUSE``, ``House-Maker`` is
    ``house-maker``), or None if it names none of them."""
    for stored in (name.upper(), name.lower()):
        if is_reserved(stored):
            return stored
    return None


def stored_name(conn: sqlite3.Connection, name: str) -> str | None:
    """The stored name of the client account ``name`` names, whatever its case (None: no such account, or several
    differing only in case, added before names were told apart so, none of them ``name`` exactly)."""
    rows = [row[0] for row in conn.execute("SELECT name FROM accounts WHERE name = ? COLLATE NOCASE", (name,))]
    return name if name in rows else rows[0] if len(rows) == 1 else None


def check_name(name: str) -> str:
    """Account names are 1–64 letters, digits or ``_.@-``; anything else is refused with the rule. The server's own
    names are refused in any case (``House`` would be told from ``HOUSE`` by the exchange, not by a person)."""
    if not _NAME.match(name):
        raise ValueError(f"account name {name!r} is not allowed: use 1-64 letters, digits or _ . @ -")
    if reserved_as_stored(name) is not None:
        raise ValueError(f"account name {name!r} is the server's own (HOUSE and names beginning house- are, "
                         "in any case)")
    return name


class AccountStore:
    """The ``accounts`` table. Safe to share between the server and ``exchange-poker accounts``."""

    def __init__(self, conn: sqlite3.Connection, *, read_only: bool = False) -> None:
        self._conn = conn
        if not read_only:
            self._conn.executescript(SCHEMA)
        #: The tables a database made by an earlier version (or an empty file) lacks, which a read-only store does not
        #: add: nothing in them.
        self._missing = frozenset({"accounts", "operators", "account_changes"} - tables_of(conn))

    @classmethod
    def open(cls, path: str) -> AccountStore:
        """The store in the file at ``path``; :class:`~exchange.server.database.DatabaseUnusable` if unusable."""
        return open_with(path, cls)

    @classmethod
    def open_read_only(cls, path: str) -> AccountStore:
        """The store in the file at ``path``, to read (:func:`~exchange.server.database.open_read_only`): the file
        is left as it is, and may be one this process cannot write; the methods that change it raise
        :class:`sqlite3.OperationalError`."""
        conn = open_read_only(path)
        try:
            check_ours(path, conn)
            return cls(conn, read_only=True)
        except BaseException:
            conn.close()
            raise

    def close(self) -> None:
        self._conn.close()

    def add(self, name: str, password: str, *, deposit: int, currency: str = "GBP", operator: bool = False,
            by: str = "") -> Account:
        """Create an account (an operator's if ``operator``), recorded as made ``by`` whom; raises
        :class:`AccountExists` if the name is taken."""
        check_name(name)
        if not password:
            raise ValueError("a password must not be empty")
        if deposit < 0:
            raise ValueError(f"the opening balance must not be negative, not {deposit}")
        same = self._conn.execute("SELECT name FROM accounts WHERE name = ? COLLATE NOCASE", (name,)).fetchone()
        if same is not None:
            raise AccountExists(f"account {name!r} already exists" if same[0] == name else
                                f"account {name!r} is account {same[0]!r}: names are the same whatever their case")
        salt = secrets.token_bytes(16)
        hashed = hash_password(password, salt)  # (tens of ms: not while holding the write lock the journal needs)
        account = Account(name, deposit, currency, time.time_ns() // 1_000_000)
        role = "operator" if operator else "trader"
        try:
            with transaction(self._conn):  # the account, its role and its record, or none of them
                self._conn.execute(
                    "INSERT INTO accounts (name, salt, pw_hash, deposit, currency, created_ms) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (name, salt, hashed, deposit, currency, account.created_ms),
                )
                if operator:
                    self._conn.execute("INSERT INTO operators (name) VALUES (?)", (name,))
                self._record(name, f"added ({role}, balance {format_minor(deposit)} {currency})", by,
                             account.created_ms)
        except sqlite3.IntegrityError:
            raise AccountExists(f"account {name!r} already exists") from None
        return account

    def changes(self, name: str | None = None) -> list[AccountChange]:
        """Every change recorded (to the account ``name`` names, when given), oldest first (a database made by an
        earlier version has none of the changes made before it was upgraded)."""
        if "account_changes" in self._missing:
            return []
        where, args = ("", ()) if name is None else (" WHERE account = ?", (self.named(name) or name,))
        rows = self._conn.execute(f"SELECT at_ms, account, change, by FROM account_changes{where} ORDER BY rowid",
                                  args).fetchall()
        return [AccountChange(*row) for row in rows]

    def _record(self, name: str, change: str, by: str, at_ms: int | None = None) -> None:
        self._conn.execute("INSERT INTO account_changes (at_ms, account, change, by) VALUES (?, ?, ?, ?)",
                           (time.time_ns() // 1_000_000 if at_ms is None else at_ms, name, change, by))

    def named(self, name: str) -> str | None:
        """The stored name of the account ``name`` names (:func:`stored_name`)."""
        return None if "accounts" in self._missing else stored_name(self._conn, name)

    def set_password(self, name: str, password: str, *, by: str = "") -> str:
        """Give the account a new password (a new salt with it), recorded as changed ``by`` whom; its stored name.
        :class:`UnknownAccount` if none."""
        if not password:
            raise ValueError("a password must not be empty")
        stored = self._stored(name)
        salt = secrets.token_bytes(16)
        hashed = hash_password(password, salt)  # before the write lock, as in add
        with transaction(self._conn):
            self._conn.execute("UPDATE accounts SET salt = ?, pw_hash = ? WHERE name = ?", (salt, hashed, stored))
            self._record(stored, "password changed", by)
        return stored

    def set_operator(self, name: str, operator: bool, *, by: str = "") -> tuple[str, bool]:
        """Make the account an operator's (or a trader's again), recorded as made ``by`` whom when it changes; its
        stored name and whether that changed anything. :class:`UnknownAccount` if none."""
        name = self._stored(name)
        if operator:
            sql = "INSERT OR IGNORE INTO operators (name) VALUES (?)"
        else:
            sql = "DELETE FROM operators WHERE name = ?"
        with transaction(self._conn):
            changed = bool(self._conn.execute(sql, (name,)).rowcount)
            if changed:
                self._record(name, "made an operator" if operator else "made a trader", by)
        return name, changed

    def _stored(self, name: str) -> str:
        stored = self.named(name)
        if stored is None:
            raise UnknownAccount(name)
        return stored

    def is_operator(self, name: str) -> bool:
        """Whether the account may suspend, resume and void markets (``accounts add NAME --operator``)."""
        return "operators" not in self._missing and self._conn.execute(
            "SELECT 1 FROM operators WHERE name = ?", (name,)).fetchone() is not None

    def get(self, name: str) -> Account:
        row = self._conn.execute(
            "SELECT name, deposit, currency, created_ms FROM accounts WHERE name = ?", (name,)
        ).fetchone()
        if row is None:
            raise UnknownAccount(name)
        return Account(*row)

    def credentials(self, name: str) -> Credentials | None:
        """What a password is checked against; None for an unknown name or one of the server's own (an account
        added under such a name before they were refused). Cheap: no hashing here."""
        if is_reserved(name):
            return None
        stored = self.named(name)
        if stored is None or is_reserved(stored):
            return None
        row = self._conn.execute(
            "SELECT salt, pw_hash, name, deposit, currency, created_ms FROM accounts WHERE name = ?", (stored,)
        ).fetchone()
        if row is None:
            return None
        salt, stored, *rest = row
        return Credentials(Account(*rest), salt, stored)

    def verify(self, name: str, password: str) -> Account | None:
        """The account if ``password`` is its password, else None (same answer for an unknown name)."""
        return check_password(self.credentials(name), password)

    def list(self) -> list[Account]:
        if "accounts" in self._missing:
            return []
        rows = self._conn.execute("SELECT name, deposit, currency, created_ms FROM accounts ORDER BY name").fetchall()
        return [Account(*row) for row in rows]

    def __len__(self) -> int:
        (count,) = self._conn.execute("SELECT COUNT(*) FROM accounts").fetchone()
        return int(count)
