"""Commands in, events out: determinism, JSON round trips, replay, and what replay refuses."""

from __future__ import annotations

import dataclasses
import json
from decimal import Decimal

import pytest

from exchange.core import events
from exchange.core.commands import PlaceOrder, Withdraw, command_from_dict
from exchange.core.errors import ExchangeError
from exchange.core.events import EVENT_TYPES, Event, Matched, MatchVoided, OrderPlaced, event_from_dict
from exchange.core.exchange import Exchange, ExchangeConfig
from exchange.core.side import Side

from .conftest import Harness


def scenario(h: Harness) -> None:
    """A game touching every event type: trading, rejections, lapses, early loser, partial void, dead heat."""
    h.accounts("alice", "bob", "carol")
    h.market("1.1")
    h.market("1.2")
    h.lay("alice", 1, "3", 1000)
    h.back("bob", 1, "2.9", 600)
    h.place("carol", 2, Side.BACK, "2.03", 500)  # rejected
    bet = h.lay("carol", 2, "4", 500)
    h.cancel("carol", bet, 200)
    h.replace("carol", bet, "3.8")
    h.back("bob", 2, "3.8", 300)
    h.suspend()
    h.lose(4)
    h.open()
    since = h.tick()
    h.back("carol", 1, "3", 400)
    h.void_since(since)
    h.suspend()
    h.settle(1, 2)
    h.lay("alice", 3, "2", 500, market_id="1.2")
    h.back("bob", 3, "2", 500, market_id="1.2")
    h.void("1.2")
    h.run(Withdraw(h.tick(), "alice", 5000))
    h.run(Withdraw(h.tick(), "alice", 10**9))  # refused


def test_every_event_class_is_read_back_under_its_own_name() -> None:
    """An event class left out of ``EVENT_TYPES`` would be journaled but not read back at recovery."""
    defined = {cls for cls in vars(events).values() if isinstance(cls, type) and issubclass(cls, Event)} - {Event}
    assert set(EVENT_TYPES.values()) == defined
    assert all(tag == cls.__name__ for tag, cls in EVENT_TYPES.items())


def test_every_event_type_appears_and_round_trips_through_json() -> None:
    h = Harness()
    scenario(h)
    seen = {type(e).__name__ for e in h.events}
    assert seen == set(EVENT_TYPES) - {"IdsSkipped"}, set(EVENT_TYPES) - seen  # (the journal writes that one)
    text = json.dumps([e.to_dict() for e in h.events])
    rebuilt = [event_from_dict(d) for d in json.loads(text)]
    assert rebuilt == h.events
    commands = [command_from_dict(d) for d in json.loads(json.dumps([c.to_dict() for c in h.commands]))]
    assert commands == h.commands
    h.assert_replays()
    assert Exchange.replay(rebuilt).state_digest() == h.ex.state_digest()


def test_ids_skipped_pass_over_bet_and_match_ids_in_the_fold_as_live() -> None:
    """The event the journal writes when it lost records (no command decides it): the next ``count`` bet ids and
    match ids are given to nobody, in a replay of the events as in the exchange it was applied to."""
    h = Harness()
    h.accounts("alice", "bob")
    h.market("1.1")
    first = h.back("alice", 1, "3", 500)
    skip = events.IdsSkipped(h.tick(), 5, "5 acknowledged records lost")
    h.ex.apply(skip)
    h.events.append(event_from_dict(json.loads(json.dumps(skip.to_dict()))))
    back = h.back("alice", 2, "3", 500)
    matched = [e for e in h.run(PlaceOrder(h.tick(), "bob", "1.1", 2, Side.LAY, Decimal("3"), 500))
               if isinstance(e, Matched)]
    assert back == first + 1 + 5 and [m.match_id for m in matched] == [1 + 5]
    assert Exchange.replay(h.events).state_digest() == h.ex.state_digest()
    with pytest.raises(ExchangeError, match=r"ids skipped must be a count \(an int from 0 up\), not -1"):
        h.ex.apply(events.IdsSkipped(h.tick(), -1, "?"))


def test_same_commands_give_the_same_events_byte_for_byte() -> None:
    a, b = Harness(), Harness()
    scenario(a)
    scenario(b)
    assert json.dumps([e.to_dict() for e in a.events]) == json.dumps([e.to_dict() for e in b.events])


def test_replay_with_another_config_differs() -> None:
    h = Harness()
    scenario(h)
    other = Exchange.replay(h.commands, ExchangeConfig(commission_bps=500))
    assert other.state_digest() != h.ex.state_digest()


def test_replay_refuses_events_out_of_order(hx: Harness) -> None:
    hx.lay("alice", 1, "3", 500)
    hx.lay("carol", 1, "3", 500)
    events = hx.place("bob", 1, Side.BACK, "3", 700)
    journal = hx.events
    first = events[1]
    assert isinstance(first, Matched)
    # a fill that takes the second lay before the first breaks time priority: replay must refuse it
    swapped = dataclasses.replace(first, lay_bet_id=2)
    bad = [*journal[: journal.index(first)], swapped]
    with pytest.raises(ExchangeError, match="out of order"):
        Exchange.replay(bad)
    with pytest.raises(ExchangeError, match="not an event or command"):
        Exchange.replay(["OrderPlaced"])  # type: ignore[list-item]  # a name, not an event, on purpose
    with pytest.raises(ExchangeError, match="not an event"):
        hx.ex.apply("OrderPlaced")  # type: ignore[arg-type]  # a name, not an event, on purpose


@pytest.mark.parametrize(("change", "refusal"), [
    ({"match_id": 99}, "match 99 is not a standing match of market 1.1"),
    ({"size": 100}, "does not name the match"),
    ({"tick": 0}, "does not name the match"),
    ({"selection_id": 2}, "does not name the match"),
    ({"back_bet_id": 1, "lay_bet_id": 2}, "does not name the match"),
    (None, "match 1 is not a standing match of market 1.1"),  # the same void twice
], ids=["unknown-match", "size", "tick", "selection", "bets", "twice"])
def test_replay_refuses_a_void_that_does_not_name_a_standing_match(
    hx: Harness, change: dict[str, object] | None, refusal: str
) -> None:
    """A journal's MatchVoided is checked against the match it names, as a Matched is against the book: a
    corrupt one refunded stakes of whatever bets it named."""
    hx.lay("alice", 1, "3", 500)
    hx.back("bob", 1, "3", 500)
    voided = [e for e in hx.void_since(0) if isinstance(e, MatchVoided)]
    assert len(voided) == 1
    good = hx.events[: hx.events.index(voided[0])]
    bad = [*good, voided[0]] if change is None else [*good]
    bad.append(voided[0] if change is None else dataclasses.replace(voided[0], **change))  # type: ignore[arg-type]
    Exchange.replay([*good, voided[0]])  # the journal as written replays
    with pytest.raises(ExchangeError, match=refusal):
        Exchange.replay(bad)


def test_prices_sent_as_text_floats_or_ints_are_parsed_exactly(hx: Harness) -> None:
    for price, expected in (("2.5", "2.5"), (2.02, "2.02"), (3, "3"), ("1000.00", "1000")):
        events = hx.run(PlaceOrder(hx.tick(), "alice", "1.1", 2, Side.BACK, price, 200))  # type: ignore[arg-type]  # prices as clients send them
        placed = events[0]
        assert isinstance(placed, OrderPlaced), placed
        view = hx.ex.order_view("alice", placed.bet_id)
        assert view is not None and view.price == Decimal(expected)


def test_bet_ids_and_match_ids_are_counters(hx: Harness) -> None:
    a = hx.lay("alice", 1, "3", 500)
    hx.place("bob", 1, Side.BACK, "2.03", 500)  # rejected: uses no bet id
    b = hx.back("bob", 1, "3", 300)
    c = hx.back("carol", 1, "3", 200)
    assert (a, b, c) == (1, 2, 3)
    assert [e.match_id for e in hx.events if isinstance(e, Matched)] == [1, 2]
