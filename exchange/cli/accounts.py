"""``exchange-poker accounts``: add and list accounts in the server's database, change a password or a role, and
list those changes.

The server reads the same SQLite file, so an account added while it runs can
log in at once. Balances shown are the journal's (the opening deposit until the
account first logs in, when the server opens it on the exchange). Every change
is recorded with when and by whom (the user running the command), and
``history`` lists them: a grant of operator rights leaves a record.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal

from exchange.cli.commands import SUMMARIES
from exchange.cli.options import database, fail, one_line_errors
from exchange.core.money import format_minor
from exchange.server.account import DEFAULT_CURRENCY
from exchange.server.database import DatabaseUnusable, nothing_at, refusal
from exchange.server.ledger import balances_from_db
from exchange.server.params import plain_decimal
from exchange.server.store import AccountExists, AccountStore, UnknownAccount, reserved_as_stored

MAX_BALANCE = 10**12  # pounds: an opening balance above it is refused
ACTIONS = ("add", "list", "password", "role", "history")
ROLES = ("operator", "trader")


def parse_money(text: str) -> int:
    """Pounds with at most two decimals, written plainly → minor units (``"1000"`` → 100000; ``1e3`` is refused, as
    the operator's routes and the bet slip refuse it)."""
    if not plain_decimal(text):
        too_long = text.isascii() and text.replace(".", "", 1).isdigit()  # digits, past the 18 read
        raise argparse.ArgumentTypeError(f"{text!r} is more than the largest opening balance, {MAX_BALANCE:,}"
                                         if too_long else f"{text!r} is not an amount like 1000 or 25.50")
    value = Decimal(text)
    if value > MAX_BALANCE:
        raise argparse.ArgumentTypeError(f"{text!r} is more than the largest opening balance, {MAX_BALANCE:,}")
    if value < 0 or value != value.quantize(Decimal("0.01")):
        raise argparse.ArgumentTypeError(f"{text!r} must be a non-negative amount with at most two decimals")
    return int(value * 100)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("accounts", help=SUMMARIES["accounts"])
    parser.add_argument("--db", type=database, default="exchange.db", help="the server database (default: exchange.db)")
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    add = actions.add_parser("add", help="create an account")
    add.add_argument("name", help="the account's name: 1-64 letters, digits or _ . @ - (not HOUSE or house-...)")
    add.add_argument("--password", required=True, help="its password for /api/login (not empty)")
    add.add_argument("--balance", type=parse_money, default=parse_money("1000"),
                     help="opening balance in pounds, at most two decimals (default 1000)")
    add.add_argument("--operator", action="store_true",
                     help="the account may suspend, resume and void markets (the server's /operator routes)")
    add.add_argument("--db", type=database, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    listing = actions.add_parser("list", help="list accounts, balances and roles (trader or operator)")
    password = actions.add_parser("password", help="give an account a new password (logged-in sessions go on "
                                                   "until they end)")
    password.add_argument("name", help="the account's name")
    password.add_argument("--password", required=True, help="its new password (not empty)")
    role = actions.add_parser("role", help="make an account an operator, or a trader again")
    role.add_argument("name", help="the account's name")
    role.add_argument("role", choices=ROLES, help="operator: may suspend, resume and void markets; trader: may not")
    history = actions.add_parser("history", help="list the changes made to accounts (added, password, role): when, "
                                                 "and the user who made them")
    history.add_argument("name", nargs="?", help="one account's changes (default: every account's)")
    for each in (listing, password, role, history):
        each.add_argument("--db", type=database, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    for each in (parser, add, listing, password, role, history):
        one_line_errors(each)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except (DatabaseUnusable, sqlite3.Error) as exc:
        fail(refusal(args.db, exc))


def _run(args: argparse.Namespace) -> int:
    if args.action is None:
        fail(f"give an action: {', '.join(ACTIONS[:-1])} or {ACTIONS[-1]} "
             "('exchange-poker accounts ACTION --help' lists its options)")
    if args.action != "add" and nothing_at(args.db):  # opening it would make an empty one, with nobody in it
        fail(f"no database at {args.db} (exchange-poker serve or accounts add makes one)")
    reading = args.action in {"list", "history"}  # the file left as it is: it may be a read-only backup
    store = AccountStore.open_read_only(args.db) if reading else AccountStore.open(args.db)
    try:
        {"add": _add, "list": _list, "password": _password, "role": _role, "history": _history}[args.action](
            store, args)
        return 0
    except UnknownAccount:
        own = reserved_as_stored(args.name)
        if own is not None:  # listed, with role house, yet no login: nothing to set
            fail(f"{own} is the server's own account (HOUSE and names beginning house- are): it has no password "
                 "and no role to set" + (", and no changes to list" if args.action == "history" else ""))
        fail(f"no account {args.name!r} in {args.db} ('exchange-poker accounts --db {args.db} list' lists them)")
    finally:
        store.close()


def _add(store: AccountStore, args: argparse.Namespace) -> None:
    try:
        account = store.add(args.name, args.password, deposit=args.balance, operator=args.operator, by=changer())
    except (AccountExists, ValueError) as exc:
        fail(str(exc))
    role = " (operator)" if args.operator else ""
    print(f"added {account.name}{role} with balance {format_minor(account.deposit)} {account.currency}")


def _list(store: AccountStore, args: argparse.Namespace) -> None:
    balances = balances_from_db(args.db)
    accounts = store.list()
    rows = [
        (account.name, format_minor(balances.get(account.name, account.deposit)), account.currency,
         "operator" if store.is_operator(account.name) else "trader")
        for account in accounts
    ]
    # the server's own (commission and rounding, the house's traders), so every penny the journal holds is listed
    logins = {account.name for account in accounts}
    rows += [(name, format_minor(balance), DEFAULT_CURRENCY, "house")
             for name, balance in sorted(balances.items()) if name not in logins]
    print(table(("name", "balance", "currency", "role"), rows, right=(False, True, False, False)))


def _password(store: AccountStore, args: argparse.Namespace) -> None:
    try:
        name = store.set_password(args.name, args.password, by=changer())
    except ValueError as exc:
        fail(str(exc))
    print(f"{name}: password changed (sessions logged in before go on until they end)")


def _role(store: AccountStore, args: argparse.Namespace) -> None:
    name, changed = store.set_operator(args.name, args.role == "operator", by=changer())
    role = "an operator" if args.role == "operator" else "a trader"
    print(f"{name} is {'now' if changed else 'already'} {role}")


def _history(store: AccountStore, args: argparse.Namespace) -> None:
    if args.name is not None and store.named(args.name) is None:
        raise UnknownAccount(args.name)
    rows = [(datetime.fromtimestamp(change.at_ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S UTC"), change.account,
             change.change, change.by) for change in store.changes(args.name)]
    print(table(("when", "account", "change", "by"), rows, right=(False, False, False, False)))


def changer() -> str:
    """Who is making a change, as its record names them: the user running the command."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for this user id (a container's): its number
        user = f"uid {os.getuid()}"
    return f"{user} (exchange-poker accounts)"


def table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]], right: tuple[bool, ...]) -> str:
    """Columns as wide as their widest cell, one space apart, each left- or right-aligned; no trailing spaces.

    >>> print(table(("name", "n"), [("a-long-name", "5"), ("b", "1000")], right=(False, True)))
    name           n
    a-long-name    5
    b           1000
    """
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]
    return "\n".join(
        " ".join(cell.rjust(width) if flush else cell.ljust(width)
                 for cell, width, flush in zip(line, widths, right, strict=True)).rstrip()
        for line in (header, *rows)
    )
