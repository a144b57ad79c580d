"""A strategy's own errors, told apart from the backtester's: each is noted with the hook that raised it.

The agents call the strategy through :class:`Guarded`: an exception its hook
raises (or one it set off, such as a ``place_order`` with a wrong argument)
goes on as it came, its type unchanged for a script that runs backtests and
catches it, with a note naming the hook (:func:`raising_hook` reads it back).
Notes cross from a worker process, or a Dask worker, with the exception. The
backtest command reports such an error on one line with where the session
was (``exchange-poker backtest --debug`` shows the traceback).

>>> class Broken:
...     latency_ms = 0
...     def on_game_start(self, start):
...         return 1 / start
>>> guarded = Guarded(Broken())
>>> guarded.latency_ms
0
>>> try:
...     guarded.on_game_start(0)
... except ZeroDivisionError as exc:
...     raising_hook(exc), exc.__notes__
('on_game_start', ["raised in the strategy's on_game_start"])
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

_NOTE = "raised in the strategy's "
E = TypeVar("E", bound=Exception)


class Guarded:
    """A strategy as the agents call it: an exception from any of its public methods is noted with the method's
    name (:func:`raising_hook`); attributes are read and set as the strategy's own."""

    def __init__(self, strategy: Any) -> None:
        object.__setattr__(self, "_strategy", strategy)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._strategy, name)
        if name.startswith("_") or not callable(value):
            return value
        hook = _guarded(name, value)
        object.__setattr__(self, name, hook)  # read once: the next call finds it without __getattr__
        return hook

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._strategy, name, value)


class StrategyExited(Exception):
    """A strategy's hook raised ``SystemExit`` (``sys.exit()``): an error of the strategy's like any other. Left to
    go on, it ended the whole backtest with the strategy's exit status and not a word of why."""


class StrategyStuck(Exception):
    """A strategy's ``process_market_book`` was called over and over at one instant of the game's clock: each update
    it answers with an order that arrives at once changes the book, which updates it again, and the game's clock
    never moves on (the run went on for ever, its progress bar at 0)."""


def stuck_at_one_instant(times: int, at_ms: int, latency_ms: int, *,
                         hook: str = "process_market_book") -> StrategyStuck:
    """The error of a strategy whose ``hook`` (``process_market_book``, or ``on_order_rejected``) was called
    ``times`` times at ``at_ms`` with its latency ``latency_ms``."""
    if hook == "on_order_rejected":
        what = f"told of {times:,} refusals"
        why = ("each refusal it answers with an order that is refused again" + (
            f", which with latency {latency_ms} ms arrives at once: give it a latency above 0 (--latency-ms), or do "
            "not send again what was refused" if latency_ms == 0 else ": do not send again what was refused"))
    else:
        what = f"updated {times:,} times"
        why = (f"with latency {latency_ms} ms its orders arrive at once, and each changes the book, which updates it "
               "again: give it a latency above 0 (--latency-ms), or place only when what it looks at has changed"
               if latency_ms == 0 else "each order it places changes the book, which updates it again: place only "
               "when what it looks at has changed")
    return _noted(StrategyStuck(f"{what} at {at_ms} ms without the game's clock moving on: {why}"), hook)


def _guarded(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    if inspect.iscoroutinefunction(method) or inspect.isasyncgenfunction(method) or inspect.isgeneratorfunction(
            method):
        kind = f"a generator {name} (it yields)" if inspect.isgeneratorfunction(method) else f"async def {name}"

        def refused(*args: Any, **kwargs: Any) -> Any:  # called, it would make a coroutine or a generator and run none
            # of its body
            raise _noted(TypeError(f"the game calls a hook as a plain function, so {kind} would never run its body; "
                                   f"write def {name} without await or yield"), name)

        return refused

    def hook(*args: Any, **kwargs: Any) -> Any:
        try:
            answer = method(*args, **kwargs)
        except StopIteration as exc:  # on its way out through a generator of the runner's it would become a
            # RuntimeError of the runner's, the hook's name lost
            raise _noted(RuntimeError(f"it raised StopIteration({', '.join(map(repr, exc.args))}), which ends a "
                                      "generator, not a hook"), name) from None
        except Exception as exc:
            if raising_hook(exc) is None:  # a hook the strategy called itself has noted it already
                exc.add_note(f"{_NOTE}{name}")
            raise
        except SystemExit as exc:
            raise _noted(StrategyExited(f"SystemExit({exc.code!r}): a strategy ends its session with "
                                        "end_session(), not sys.exit()"), name) from None
        return answer

    return hook


def said_yes(answer: object) -> bool:
    """A ``check_market_book`` answer read: True or False (a NumPy bool, 1 or 0 too, as equal to them); anything else
    is a ``TypeError`` noted as the hook's. None is a forgotten return, and anything else would be read by its truth:
    the string ``"no"`` as yes."""
    try:
        if answer is not None and (answer == True or answer == False):  # noqa: E712 (equal, not identical)
            return bool(answer)
    except Exception:  # an answer whose == raises (a NumPy array of several) is no yes or no
        pass
    raise _noted(TypeError(f"it returned {answer!r:.40}: it answers True (call process_market_book) or False"),
                 "check_market_book")


def session_end_reason(reason: object) -> str | None:
    """``session_ended`` read: None, or the text given to ``end_session``, which the summary shows; anything else
    is a ``TypeError`` noted as ``end_session``'s (the summary failed on it once every table was written)."""
    if reason is None or isinstance(reason, str):
        return reason
    raise _noted(TypeError(f"the session's end was given {reason!r:.40}: its reason is a text, as the summary shows "
                           "it"), "end_session")


def _noted(exc: E, name: str) -> E:
    exc.add_note(f"{_NOTE}{name}")
    return exc


def raising_hook(exc: BaseException) -> str | None:
    """The strategy's hook that raised ``exc``, or None if it came from elsewhere (the backtester's own code)."""
    return next((note[len(_NOTE):] for note in getattr(exc, "__notes__", ()) if note.startswith(_NOTE)), None)


def other_notes(exc: BaseException) -> list[str]:
    """``exc``'s notes but the hook's (such as where the session was when it raised)."""
    return [note for note in getattr(exc, "__notes__", ()) if not note.startswith(_NOTE)]
