"""Naming a strategy on the command line and building it inside any worker.

A strategy is named ``module:Class`` (an importable module) or
``path/to/file.py:Class`` (a file). A :class:`StrategySpec` carries the name,
the file's *source text* (so a worker on another machine, where the file does
not exist, builds the same class) and the keyword parameters as canonical JSON.

>>> spec = StrategySpec.parse("exchange.backtest.strategy:Strategy", params='{"name": "mine", "latency_ms": 5}')
>>> spec.params_json, spec.class_name
('{"latency_ms":5,"name":"mine"}', 'Strategy')
>>> spec.build().latency_ms
5
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import os
import sys
import threading
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_LOADING = threading.Lock()


class StrategyLoadError(ValueError):
    """The strategy reference or its parameters cannot be used; the message says why and what is expected."""


def keyword_parameters(cls: type) -> list[str]:
    """The parameters ``cls(...)`` takes by name: its ``__init__``'s, and those of the classes it hands its other
    keyword arguments to (``**kwargs``) up its bases, in that order.

    >>> class Base:
    ...     def __init__(self, *, latency_ms: int = 100, name: str | None = None) -> None: ...
    >>> class Maker(Base):
    ...     def __init__(self, stake: int = 200, **kwargs: object) -> None: super().__init__(**kwargs)
    >>> keyword_parameters(Maker)
    ['stake', 'latency_ms', 'name']
    """
    names: list[str] = []
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None or klass is object:
            continue
        try:
            parameters = list(inspect.signature(init).parameters.values())[1:]  # without self
        except Exception:  # a builtin's, or annotations that cannot be evaluated: nothing more to tell
            break
        kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        names += [p.name for p in parameters if p.kind in kinds and p.name not in names]
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
            break
    return names


def _where_looked(path: Path) -> str:
    """What a missing strategy file's refusal adds: the folder a relative path was read from, and where the example
    strategies are (they come with a clone of the repository, not with the installed package)."""
    said = "" if path.is_absolute() else f" (looked for {Path.cwd() / path})"
    if path.parts[:1] == ("scripts",):
        said += ("; the example strategies of scripts/ come with a clone of the repository, not with the installed "
                 "package: run from the clone's root")
    return said


@dataclass(frozen=True, slots=True)
class StrategySpec:
    """``reference`` (``module:Class`` or ``file.py:Class``), the file's source if it is a file, params as JSON."""

    reference: str
    class_name: str
    module: str | None = None
    source: str | None = None
    path: str | None = None
    params_json: str = "{}"

    @classmethod
    def parse(cls, reference: str, params: str | dict[str, Any] | None = None) -> StrategySpec:
        """Check the reference, read a file's source, and canonicalise the parameters."""
        target, sep, class_name = reference.rpartition(":")
        if not sep or not target or not class_name.isidentifier():
            raise StrategyLoadError(
                f"strategy {reference!r} must be 'module:Class' or 'path/to/file.py:Class'"
            )
        params_json = _canonical_params(params)
        if target.endswith(".py") or "/" in target or "\\" in target:
            path = Path(target)
            if not path.is_file():
                raise StrategyLoadError(f"strategy file {target!r} does not exist{_where_looked(path)}")
            try:
                source = path.read_text(encoding="utf-8")
            except UnicodeDecodeError as exc:
                raise StrategyLoadError(f"strategy file {target!r} is not UTF-8 text (Python's default): "
                                        f"byte {exc.start} is 0x{exc.object[exc.start]:02x}") from None
            return cls(reference, class_name, source=source, path=str(path), params_json=params_json)
        return cls(reference, class_name, module=target, params_json=params_json)

    @property
    def params(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.params_json)
        return value

    def strategy_class(self) -> type:
        """The class, importing the module or executing the file's source (once per process)."""
        module = self._module()
        try:
            found = getattr(module, self.class_name)
        except AttributeError:
            defined = sorted(name for name, value in vars(module).items()
                             if isinstance(value, type) and value.__module__ == module.__name__)
            has = f"its classes: {', '.join(defined)}" if defined else "it defines no class"
            raise StrategyLoadError(f"{self.module or self.path} has no class {self.class_name!r} ({has})"
                                    f"{_shadowed(module)}") from None
        if not isinstance(found, type):
            raise StrategyLoadError(f"{self.reference} is not a class")
        return found

    def build(self) -> Any:
        """A new instance: ``Class(**params)``."""
        cls = self.strategy_class()
        try:
            return cls(**self.params)
        except (TypeError, ValueError) as exc:
            takes = keyword_parameters(cls)
            said = f"; {cls.__name__} takes {', '.join(takes)}" if takes else ""
            given = f" with params {self.params_json}" if self.params else ""  # (play has no --params to name)
            raise StrategyLoadError(f"cannot build {self.reference}{given}: {exc}{said}") from None

    def _module(self) -> types.ModuleType:
        if self.module is not None:
            try:
                return importlib.import_module(self.module)
            except ModuleNotFoundError as exc:
                if exc.name is None or not (self.module + ".").startswith(exc.name + "."):
                    raise  # a module that the strategy's own module imports: its error as it came
                raise StrategyLoadError(f"no module {self.module!r} {_where_modules_are()}") from None
        assert self.source is not None and self.path is not None
        digest = hashlib.sha256(self.source.encode()).hexdigest()[:16]
        name = f"_exchange_poker_strategy_{Path(self.path).stem}_{digest}"
        with _LOADING:  # Dask may run several chunks as threads of one worker
            loaded = sys.modules.get(name)
            if loaded is None:
                loaded = types.ModuleType(name)
                loaded.__file__ = self.path
                sys.modules[name] = loaded
                try:
                    exec(compile(self.source, self.path, "exec"), loaded.__dict__)
                except BaseException:
                    del sys.modules[name]
                    raise
        return loaded


def _shadowed(module: types.ModuleType) -> str:
    """Why a ``module:Class`` may have missed: a file of that name in the current folder that an installed module
    of the same name comes before (the command puts the current folder last)."""
    mine = Path.cwd() / f"{module.__name__.partition('.')[0]}.py"
    found = getattr(module, "__file__", None)
    if not mine.is_file() or (found is not None and Path(found).resolve() == mine.resolve()):
        return ""
    return (f"; that is the installed module {module.__name__} ({found or 'built in'}), not {mine}: rename the file, "
            f"or give its path ({mine.name}:ClassName)")


def _where_modules_are() -> str:
    """Where ``module:Class`` was looked for, in the order it was: the current folder too if it is on the import
    path (the command line puts it there, after the installed packages; ``python -m`` before them)."""
    here = os.getcwd()
    entries = [os.path.abspath(entry or os.curdir) for entry in sys.path]
    if entries and entries[-1] == here:
        return f"among the installed packages or in the current folder ({here})"
    if here in entries:
        return f"in the current folder ({here}) or among the installed packages"
    return "among the installed packages"


def _canonical_params(params: str | dict[str, Any] | None) -> str:
    if params is None:
        value: object = {}
    elif isinstance(params, str):
        try:
            value = json.loads(params) if params.strip() else {}
        except json.JSONDecodeError as exc:
            raise StrategyLoadError(f"--params is not valid JSON: {exc}") from None
    else:
        value = params
    if not isinstance(value, dict):
        raise StrategyLoadError(f"--params must be a JSON object of keyword arguments, not {type(value).__name__}")
    return json.dumps(value, sort_keys=True, separators=(",", ":"))
