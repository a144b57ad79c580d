"""An exchange's whole state as bytes and back: :func:`dump` and :func:`load`, for restarting from a snapshot.

The bytes are a frame: the magic ``EXSNAP``, a format version (two bytes,
little-endian) and a ``pickle`` (protocol 5) of the :class:`Exchange` object.

Why pickle: it is generic (it follows whatever attributes the exchange and its
books, orders and accounts have, so the core can change without a
hand-written serialiser falling out of step), and C-fast. Its danger is that
unpickling untrusted bytes runs code; these bytes come only from this
server's own database, written by this server, and the server checks their
SHA-256 before it calls :func:`load` (:mod:`exchange.server.snapshots`).
Pickle refers to classes by module and name, so a snapshot written by an
older core may not load, or may load into a different shape: :func:`load`
raises :class:`SnapshotError` for the first, and the server compares the
loaded state's ``state_digest()`` with the one stored beside the snapshot for
the second, falling back to an older snapshot or to a full replay.

>>> from exchange.core.commands import OpenAccount
>>> exchange = Exchange()
>>> _ = exchange.execute(OpenAccount(0, "alice"))
>>> data = dump(exchange)
>>> data[:6], len(data) > 8
(b'EXSNAP', True)
>>> load(data).state_digest() == exchange.state_digest()
True
>>> load(MAGIC + FORMAT_VERSION.to_bytes(2, "little") + b"garbage")
Traceback (most recent call last):
...
exchange.core.snapshot.SnapshotError: the snapshot does not unpickle: UnpicklingError: ...
"""

from __future__ import annotations

import pickle
import struct

from exchange.core.exchange import Exchange
from exchange.core.gc_pause import collections_paused

__all__ = ["FORMAT_VERSION", "MAGIC", "SnapshotError", "dump", "load"]

MAGIC = b"EXSNAP"
#: 2: orders carry strategy_ref (customerStrategyRef); 3: cleared orders filed by bet-id block;
#: 4: cleared orders keep their matched stake by price (matched_by_tick); 5: each account's cleared orders on a
#: market packed as one byte string, built on first read (:mod:`exchange.core.cleared`); 6: the state's table of
#: ``apply_*`` methods is no longer pickled (rebuilt on load), so renaming one keeps snapshots loadable; 7: orders
#: and cleared orders keep when they were cancelled and lapsed, and why they lapsed (an older snapshot has none:
#: a start falls back to replaying the journal, which has them).
FORMAT_VERSION = 7
#: The formats this code loads (an older one's would need its own reading).
READABLE_VERSIONS = frozenset({FORMAT_VERSION})
_VERSION = struct.Struct("<H")
_HEADER = len(MAGIC) + _VERSION.size
PICKLE_PROTOCOL = 5


class SnapshotError(ValueError):
    """The bytes are not a snapshot this code can load; the message says what is wrong with them."""


def dump(exchange: Exchange) -> bytes:
    """The exchange's whole state as a framed pickle. O(size of the state)."""
    with collections_paused():  # the dump takes twice as long without, the load five times
        return MAGIC + _VERSION.pack(FORMAT_VERSION) + pickle.dumps(exchange, protocol=PICKLE_PROTOCOL)


def load(data: bytes) -> Exchange:
    """The exchange :func:`dump` wrote; :class:`SnapshotError` if ``data`` is anything else."""
    if len(data) < _HEADER or not data.startswith(MAGIC):
        raise SnapshotError(f"not a snapshot: it does not start with {MAGIC!r} ({len(data)} bytes)")
    (version,) = _VERSION.unpack_from(data, len(MAGIC))
    if version not in READABLE_VERSIONS:
        whose = "a newer" if version > max(READABLE_VERSIONS) else "an older"
        raise SnapshotError(f"snapshot format {version} is {whose} version's; this code reads formats "
                            f"{', '.join(map(str, sorted(READABLE_VERSIONS)))}")
    try:
        with collections_paused():
            exchange = pickle.loads(memoryview(data)[_HEADER:])
    except Exception as exc:  # a damaged pickle can fail in any of a dozen ways; all mean "not loadable"
        raise SnapshotError(f"the snapshot does not unpickle: {type(exc).__name__}: {exc}") from None
    if not isinstance(exchange, Exchange):
        raise SnapshotError(f"the snapshot holds a {type(exchange).__name__}, not an Exchange")
    return exchange
