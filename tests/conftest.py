"""Settings shared by every test folder.

Hypothesis times each example against a deadline (200 ms by default) and fails one that runs longer. Tests
here assert behaviour, never speed (speed is measured by the ``scripts/bench_*.py`` benchmarks), and the CI
machine is shared: a property that passes can take longer than that on a loaded host. So no property has a
deadline; each keeps its own ``max_examples``.

Each property draws the same examples on every run (``derandomize``, from the test's own code), so a run of the
suite fails for what the change under test did, never for an example no run had drawn before: CI and a
developer's ``pytest`` see the same cases. ``pytest --hypothesis-profile explore`` draws new ones on every run, to
look for what the fixed ones miss (a failure it finds prints the ``@example`` that keeps it in the suite).
"""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("project", deadline=None, derandomize=True, database=None)
settings.register_profile("explore", deadline=None)
settings.load_profile("project")
