"""An operator's deposits and withdrawals named by a ``reference`` of the caller's: a retry moves money once.

A cashier's system that sends a deposit and loses the connection before the answer cannot tell whether the money
moved. Sent again with the same ``reference``, the movement is not made twice: the answer is the first one's
record (``"repeated": true``, with the account's balance now). The same reference with another account, action or
amount is refused (``409 DUPLICATE_REFERENCE``): a reference names one movement, for the life of the database.

The journal is the memory: each movement's ``operator`` record carries its reference, and the references are read
from those records (by kind, through the journal's index of its few non-event records) when one is first needed,
then kept up to date by the movements made while the server runs. A refused movement (a bad body, more than is
available) journals nothing and leaves its reference free.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from exchange.core.money import to_minor
from exchange.server import journal_kinds
from exchange.server.errors import ApiError, ApingCode
from exchange.server.journal import Journal, JournalDamaged

#: The journal kind of an operator's records (:mod:`exchange.server.operator`).
JOURNAL_KIND = journal_kinds.OPERATOR
MAX_REFERENCE = 64


class References:
    """The movements made so far, by reference."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self._made: dict[str, dict[str, Any]] | None = None  # read from the journal when first needed

    def made(self, reference: str) -> dict[str, Any] | None:
        """The journal record of the movement made with ``reference``, or None."""
        return self._movements().get(reference)

    def note(self, record: Mapping[str, Any]) -> None:
        """A movement just journaled (its record has a ``reference``)."""
        self._movements()[record["reference"]] = dict(record)

    def _movements(self) -> dict[str, dict[str, Any]]:
        """The movements by reference; ``SERVICE_UNAVAILABLE`` while an operator record in the journal is damaged
        (a reference could then not be told apart from one used before; a movement without one is unaffected)."""
        if self._made is None:
            try:
                self._made = {record.body["reference"]: dict(record.body)
                              for record in self._journal.records_of_kind(JOURNAL_KIND)
                              if record.body.get("reference") is not None}
            except JournalDamaged as exc:
                raise ApiError(ApingCode.SERVICE_UNAVAILABLE, (
                    f"the references of earlier movements cannot be read ({exc.detail}), so none is taken: send the "
                    "movement without a reference, or restore the database")) from None
        return self._made


def same_movement(record: Mapping[str, Any], action: str, account: str, amount: int) -> bool:
    """Whether a journaled movement is the one asked for again: the same action, account and amount."""
    return (record["action"], record["account"], to_minor(record["amount"])) == (action, account, amount)
