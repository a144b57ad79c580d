"""Table play: one hand of any of the eleven games, action by action (pure: no clock, no I/O).

>>> from engine.table import TableState
>>> state = TableState.start("holdem", [200, 200, 200], seed=1)
>>> state.actor, state.can_check_call(), state.can_fold()
(2, True, True)
>>> while not state.done:
...     _ = state.check_call()
>>> sum(state.stacks)
600
"""

from engine.table.actions import Action
from engine.table.errors import IllegalActionError, TableError
from engine.table.phase import Phase
from engine.table.state import TableState
from engine.table.structures import Stakes, Structure

__all__ = ["Action", "IllegalActionError", "Phase", "Stakes", "Structure", "TableError", "TableState"]
