"""What the Games API answers matches what ``/openapi.json`` promises, at every moment of a game of every channel.

The document is the one the server serves; each answer is validated against the response schema of its own path
(OpenAPI 3.1 schemas are JSON Schema 2020-12) with ``jsonschema``.  The virtual clock steps through the
first two games of every channel, before its first window, in every window and playing window, and after it
ends, so a field whose range the document states (a round, a percentage, a status) is held to it in each of
those states, in clean games and in games that each carry a dealer's irregularity (misdeals, exposed and
dead cards, voids); the results route is checked once every channel has finished a game.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
from aiohttp.test_utils import TestClient, TestServer

from exchange.clock import VirtualClock
from exchange.game.channels import CHANNELS
from exchange.server.app import create_app
from exchange.server.config import ServerConfig
from tests.server.helpers import PLAYING_MS, START_MS, WINDOW_MS

STEP_MS = 700  # not a divisor of a window: the steps land at many points of each window



def schema_of(document: dict[str, Any], path: str) -> dict[str, Any]:
    """The 200 answer's JSON schema of ``GET path`` in ``document``."""
    return document["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]


def check(answer: Any, schema: dict[str, Any], where: str) -> None:
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(answer), key=lambda e: list(e.path))
    assert not errors, f"{where}: " + "; ".join(f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors[:5])


@pytest.mark.parametrize("irregular", [0.0, 1.0], ids=["clean", "every-game-irregular"])
async def test_every_channels_snapshots_and_results_match_the_schema(tmp_path: Path, irregular: float) -> None:
    clock = VirtualClock(start_ms=START_MS)
    config = ServerConfig(db_path=str(tmp_path / "ex.db"), window_ms=WINDOW_MS, playing_ms=PLAYING_MS, house=False,
                          seed=3, channels=tuple(CHANNELS), irregularity_rate=irregular)
    app = create_app(config, clock=clock)
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        document = await (await client.get("/openapi.json")).json()
        snapshot_schema = schema_of(document, "/games/v1/channels/{channelId}/snapshot")
        results_schema = schema_of(document, "/games/v1/channels/{channelId}/results")
        check(await (await client.get("/games/v1/channels")).json(), schema_of(document, "/games/v1/channels"),
              "channels")
        longest = max(2 * (c.windows + 1) * (WINDOW_MS + PLAYING_MS) for c in CHANNELS.values())  # two games each
        rounds_seen: dict[str, set[int]] = {name: set() for name in CHANNELS}
        for now in range(0, longest + 2 * STEP_MS, STEP_MS):
            clock.run(until_ms=START_MS + now)
            for name in CHANNELS:
                resp = await client.get(f"/games/v1/channels/{name}/snapshot")
                assert resp.status == 200
                snapshot = await resp.json()
                check(snapshot, snapshot_schema, f"{name} snapshot at +{now} ms")
                if snapshot["game"] is not None:
                    rounds_seen[name].add(snapshot["game"]["round"])
        for name, config_of in CHANNELS.items():
            assert set(range(1, config_of.windows + 1)) <= rounds_seen[name], (name, rounds_seen[name])
            results = await (await client.get(f"/games/v1/channels/{name}/results")).json()
            assert results["results"], name
            check(results, results_schema, f"{name} results")
