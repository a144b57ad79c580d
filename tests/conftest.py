"""Settings shared by every test folder.

Hypothesis times each example against a deadline (200 ms by default) and fails one that runs longer. Tests
here assert behaviour, never speed (speed is measured by the ``scripts/bench_*.py`` benchmarks), and the CI
machine is shared: a property that passes can take longer than that on a loaded host. So no property has a
deadline; each keeps its own ``max_examples``.
"""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("project", deadline=None)
settings.load_profile("project")
