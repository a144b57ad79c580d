"""The server's JSON: journal records written fast are the core's own projection, and odd JSON still parses."""

from __future__ import annotations

import json
from typing import Any

import pytest

from exchange.core.events import EVENT_TYPES, IdsSkipped, event_from_dict
from exchange.server import jsoncodec
from tests.exchange.conftest import Harness
from tests.exchange.test_journal import scenario


def _ordered(text: str) -> Any:
    return json.loads(text, object_pairs_hook=list)


def test_records_are_written_as_their_to_dict_with_the_same_keys_in_the_same_order() -> None:
    h = Harness()
    scenario(h)
    h.events.append(IdsSkipped(h.tick(), 3, "3 acknowledged records lost"))  # the one the journal writes itself
    assert {type(e).__name__ for e in h.events} == set(EVENT_TYPES)
    for record in [*h.events, *h.commands]:
        fast = jsoncodec.dumps_record(record)
        assert _ordered(fast) == _ordered(json.dumps(record.to_dict())), record
    rebuilt = [event_from_dict(jsoncodec.loads(jsoncodec.dumps_record(e))) for e in h.events]
    assert rebuilt == h.events
    assert jsoncodec.dumps_record({"note": "a mapping as it is"}) == '{"note":"a mapping as it is"}'


@pytest.mark.parametrize("body", [b'{"a": NaN}', b'{"a": "\\ud800"}', '{"a": 1}'.encode("utf-16"),
                                  b"[" * 600 + b"]" * 600])
def test_what_orjson_refuses_parses_as_the_standard_library_does(body: bytes) -> None:
    assert repr(jsoncodec.loads(body)) == repr(json.loads(body))


@pytest.mark.parametrize("body", [
    b'{"a": 1, "b": {"a": 2}}', b'[{"a": 1}, {"a": 2}]', rb'{"a": "x\":", "b": "\"  :"}', rb'{"a\":": 1, "a": 2}',
    '{"a": 1, "b": [{"c": 2}]}'.encode("utf-16"), b'{"a" :1,"b"\n:2}', b"{}", b"[]", rb'"a\":"',
])
def test_a_document_without_a_repeated_key_is_taken_as_it_parses(body: bytes) -> None:
    assert jsoncodec.loads_client(body) == json.loads(body)


@pytest.mark.parametrize(("body", "key"), [
    (b'{"a": 1, "a": 1}', "a"), (b'{"x": [{"b": 1, "c": 2, "b": 3}]}', "b"), (b'{"a" : 1, "a"\n:2}', "a"),
    ('{"a": 1, "b": [{"c": 2, "c": 3}]}'.encode("utf-16"), "c"), (rb'{"\u0061": 1, "a": 2}', "a"),
    # a character whose UTF-16 bytes are a quote and a colon: the marks counted came out even
    ('{"size": 2, "size": 50, "ref": "\u3a22\u3a22"}'.encode("utf-16-le"), "size"),
    ('{"size": 2, "size": 50, "ref": "\u223a\u223a"}'.encode("utf-16-be"), "size"),
])
def test_a_repeated_key_is_refused_naming_it(body: bytes, key: str) -> None:
    with pytest.raises(jsoncodec.RepeatedKey, match=f"one object gives the key {key!r} twice"):
        jsoncodec.loads_client(body)


def test_an_integer_past_64_bits_arrives_as_a_float_which_integer_fields_refuse() -> None:
    assert jsoncodec.loads(b'{"id": 12345678901234567890}') == {"id": 12345678901234567890}  # 64 bits: exact
    assert isinstance(jsoncodec.loads(b'{"id": 123456789012345678901234567890}')["id"], float)


def test_refusals_are_value_errors_and_deep_nesting_is_refused() -> None:
    for bad in (b"{", b"", b"[1,]", b"\xff"):
        with pytest.raises(ValueError):
            jsoncodec.loads(bad)
    with pytest.raises(RecursionError):  # as json.loads: nesting that deep goes to it, past orjson's own limit
        jsoncodec.loads(b"[" * 100_000 + b"]" * 100_000)


def test_dumps_falls_back_for_what_orjson_cannot_write() -> None:
    assert jsoncodec.dumps({"big": 2**70, "s": "\ud800"}) == json.dumps({"big": 2**70, "s": "\ud800"},
                                                                       separators=(",", ":")).encode()
    assert jsoncodec.dumps({1: "x"}) == b'{"1":"x"}'
