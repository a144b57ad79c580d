from __future__ import annotations

import sys
from pathlib import Path

# tests/game/reference.py and helpers.py are imported by name.
sys.path.insert(0, str(Path(__file__).parent))
