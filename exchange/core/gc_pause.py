"""The garbage collector paused while a pass over the whole state makes objects that are not garbage.

Pickling a state makes a tuple per record, unpickling it and digesting it (:func:`~exchange.core.audit.state_digest`)
make hundreds of thousands of objects, none of them garbage; the collections their allocations trigger would
only walk them, and the whole heap with them, again and again.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collections_paused() -> Iterator[None]:
    """No automatic collection inside the block; the collector is left as it was found (on or off).

    >>> with collections_paused():
    ...     gc.isenabled()
    False
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
