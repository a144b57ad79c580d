"""The kinds of record a server journals, written once: the journal takes no other, recovery folds three of them
and the audit trail searches them all.

A record of a kind not here is a newer version's (:class:`~exchange.server.journal_check.JournalFromNewerVersion`),
so a writer here that used another would have its server refuse its own journal at the next start:
:meth:`Journal.append <exchange.server.journal.Journal.append>` refuses it at once instead.
"""

from __future__ import annotations

#: The core's events, in the order the exchange made them.
EVENT = "event"
#: An operator's action: a market suspended, resumed or voided, money deposited or withdrawn.
OPERATOR = "operator"
#: A finished game's result (:mod:`exchange.server.kept_results`).
RESULT = "result"
#: A market the exchange forgot, as the server remembers it (:mod:`exchange.server.ended_markets`).
ENDED = "ended"
#: Every kind, in the order the audit trail lists them.
KINDS = (EVENT, OPERATOR, RESULT, ENDED)
