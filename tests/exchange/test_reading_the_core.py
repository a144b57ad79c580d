"""``docs/reading-the-core.md`` stays true of the code.

* Every name it puts in backticks exists: a file, a module of the core, or something in one
  (``Position.fill``, ``exchange._DECIDERS``, ``ExchangeState.money_in``), or a name a file defines
  (``tests/exchange/test_state_digest.py:KNOWN_DIGEST``).
* It names the decider of every command, and the registries it says a new state change joins are
  complete: every command has a decider, every event an applier.
* What it says of the route is what happens: a placement, its fill and a cancel change state through
  the same functions whether they are executed live or folded from their events.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import exchange.core
from exchange.core.commands import (
    COMMAND_TYPES,
    CancelOrder,
    CreateMarket,
    Deposit,
    OpenAccount,
    OpenMarket,
    PlaceOrder,
)
from exchange.core.events import EVENT_TYPES, Event
from exchange.core.exchange import _DECIDERS, Exchange
from exchange.core.side import Side
from exchange.core.state import ExchangeState

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "reading-the-core.md"
NAMES = sorted(set(re.findall(r"`([^`\n]+)`", GUIDE.read_text(encoding="utf-8"))))
MODULES: dict[str, ModuleType] = {
    info.name: importlib.import_module(f"exchange.core.{info.name}")
    for info in pkgutil.iter_modules(exchange.core.__path__)
}
_MISSING = object()


def _attribute(obj: Any, name: str) -> Any:
    """``obj.name``; for the exchange's state, also what an instance holds (``money_in``)."""
    found = getattr(obj, name, _MISSING)
    if found is _MISSING and isinstance(obj, type) and issubclass(obj, ExchangeState):
        found = getattr(Exchange(), name, _MISSING)
    return found


def resolves(name: str) -> bool:
    """Whether ``name`` is a file of the repository (or of the core), a name a file defines (``path.py:name``), or
    a dotted name in the core."""
    if ".py:" in name:
        path, defined = name.split(":")
        source = (ROOT / path).read_text(encoding="utf-8") if (ROOT / path).is_file() else ""
        return re.search(rf"^(def|class) {defined}\b|^{defined}( *:.*)? =", source, re.MULTILINE) is not None
    if "/" in name or name.endswith(".py"):
        return (ROOT / name).exists() or (ROOT / "exchange" / "core" / name).exists()
    head, *rest = name.split(".")
    starts = [MODULES[head]] if head in MODULES else []
    starts += [getattr(module, head) for module in MODULES.values() if hasattr(module, head)]
    for obj in starts:
        for part in rest:
            obj = _attribute(obj, part)
            if obj is _MISSING:
                break
        else:
            return True
    return False


def test_the_guide_names_things() -> None:
    assert len(NAMES) > 50  # the pattern finds the guide's names (were it broken, the next test would pass empty)


@pytest.mark.parametrize("name", NAMES)
def test_every_name_the_guide_mentions_exists(name: str) -> None:
    assert resolves(name), f"docs/reading-the-core.md names `{name}`, which is not in the repository or the core"


def test_the_resolver_refuses_a_name_that_does_not_exist() -> None:
    assert not resolves("ExchangeState.open_market")  # renamed require_open_market
    assert not resolves("trading.tick_of")
    assert not resolves("exchange/core/nothing.py")


def test_the_guide_names_the_decider_of_every_command() -> None:
    deciders = {f"{decide.__module__.rsplit('.', 1)[1]}.{decide.__name__}" for decide in _DECIDERS.values()}
    assert deciders - set(NAMES) == set()


def test_every_command_has_a_decider_and_every_event_an_applier() -> None:
    assert set(_DECIDERS) == set(COMMAND_TYPES.values())
    assert set(Exchange()._appliers) == set(EVENT_TYPES.values())


def test_live_and_folded_a_placement_its_fill_and_a_cancel_go_through_the_same_functions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    for name in ("add_order", "fill", "apply_order_cancelled"):
        original = getattr(ExchangeState, name)

        def spy(self: ExchangeState, *args: Any, _original: Any = original, _name: str = name) -> Any:
            calls.append(_name)
            return _original(self, *args)

        monkeypatch.setattr(ExchangeState, name, spy)
    live = Exchange()
    events: list[Event] = []
    for command in (
        OpenAccount(0, "al"), Deposit(0, "al", 5000), OpenAccount(0, "bo"), Deposit(0, "bo", 5000),
        CreateMarket(0, "1.1", (1, 2)), OpenMarket(0, "1.1"),
        PlaceOrder(1, "bo", "1.1", 1, Side.LAY, Decimal("3"), 1000),
        PlaceOrder(2, "al", "1.1", 1, Side.BACK, Decimal("3"), 400),
        CancelOrder(3, "bo", 1),
    ):
        events += live.execute(command)
    executed = list(calls)
    calls.clear()
    folded = Exchange.replay(events)
    assert executed == calls == ["add_order", "add_order", "fill", "apply_order_cancelled"]
    assert folded.state_digest() == live.state_digest()
