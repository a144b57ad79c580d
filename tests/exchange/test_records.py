"""Records: the fast constructor a class cannot have is the only refusal a pickle's load steps round."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from exchange.core import records
from exchange.core.records import NoFastConstructor, Record, fast_constructor


@dataclasses.dataclass(frozen=True, slots=True)
class Point(Record):
    x: int
    y: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class Labelled(Point):  # its own slots are ``label`` alone: no fast constructor
    label: str = ""


def test_a_class_without_a_fast_constructor_is_built_by_the_class_when_loaded() -> None:
    with pytest.raises(NoFastConstructor, match="its slots"):
        fast_constructor(Labelled)
    assert pickle.loads(pickle.dumps(Labelled(1, 2, "a"))) == Labelled(1, 2, "a")


def test_a_fault_in_the_fast_constructor_is_not_taken_for_a_class_it_cannot_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The load caught every ``TypeError`` and built through the class: a bug in the fast path went unseen."""

    def broken(cls: type) -> type:
        raise TypeError("a bug")

    monkeypatch.setattr(records, "mutable_twin", broken)
    monkeypatch.setattr(records, "_UNPICKLERS", {})
    with pytest.raises(TypeError, match="a bug"):
        pickle.loads(pickle.dumps(Point(1, 2)))
