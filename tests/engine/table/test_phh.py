"""Hand histories: our own codes, fields and actions, and what a bad file is told."""

from __future__ import annotations

import pytest

from engine.table import Structure, TableState
from engine.table import actions as A
from engine.table.bots import CallingBot, Decision, Move, RandomBot, SeatView, play_hand
from engine.table.phase import Phase
from engine.table.phh import PHHError, dumps, loads, parse_code, variant_code
from engine.variants import VARIANTS


def test_every_game_and_structure_has_a_code_that_reads_back() -> None:
    codes = {variant_code(name, s) for name in VARIANTS for s in Structure}
    assert len(codes) == 33
    assert {parse_code(variant_code(name, s)) for name in VARIANTS for s in Structure} == {
        (name, s) for name in VARIANTS for s in Structure
    }
    with pytest.raises(PHHError, match="unknown variant code 'FR'"):
        parse_code("FR")
    assert [parse_code(code) for code in ("F7SSC", "F7S/8SC", "F7SOPSC", "N7SSC")] == [
        ("stud7", Structure.FIXED_LIMIT), ("stud7-hilo", Structure.FIXED_LIMIT), ("stud7", Structure.FIXED_LIMIT),
        ("stud7", Structure.NO_LIMIT)]
    with pytest.raises(PHHError, match="unknown variant code 'FTSC'"):
        parse_code("FTSC")  # a shared card is stud's


class Splitter:
    """Offers a split when it may and accepts every offer; else calls down (times out in the draw)."""

    def decide(self, view: SeatView) -> Decision:
        moves = view.options.moves
        if Move.OFFER_SPLIT in moves:
            return Decision(Move.OFFER_SPLIT)
        if Move.ACCEPT_SPLIT in moves:
            return Decision(Move.ACCEPT_SPLIT)
        return CallingBot().decide(view)


def test_our_own_actions_are_written_and_read() -> None:
    state = play_hand("draw32", [30, 30, 30], [Splitter(), Splitter(), CallingBot()], seed=2)
    text_lines = loads(dumps(state)).actions
    assert "p1 so" in text_lines and "p2 sa" in text_lines and "p3 sr" in text_lines
    timed = TableState.start("triple-draw-27", [40, 40], seed=3)
    while timed.phase != "drawing":
        timed.check_call()
    timed.pass_time(31)
    history = loads(dumps(timed))
    assert history.actions[-1] == "p1 sd # timeout" and history.finishing_stacks is None
    replayed = history.replay()
    assert replayed.penalised == set() and replayed.actor == 1  # p2 still to draw


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("variant = 'FT'\nantes = [0, 0]", "no 'blinds_or_straddles' field"),
        ("variant = 'FT'\n[", "not a PHH"),
        ("variant = 'XX'", "unknown variant code 'XX'"),
        ("variant = 'FT'\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nsmall_bet = 2\nbig_bet = 4\n"
         "starting_stacks = [10, 10]\nactions = ['d dh p1 AsKs', 'd dh p2 AhKh', 'p2 cbr 8']", "may bet or raise to 4"),
        ("variant = 'FT'\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nsmall_bet = 2\nbig_bet = 4\n"
         "starting_stacks = [10, 10]\nactions = ['d dh p1 AsKs', 'd dh p2 AhKh', 'p2 f']\n"
         "finishing_stacks = [10, 10]", "the history says [10, 10]"),
        ("variant = 'FT'\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nsmall_bet = 2\nbig_bet = 4\n"
         "starting_stacks = [10, 10]\nactions = ['d dh p1 AsKs', 'd dh p2 AhKh', 'p2 zz']", "unknown action"),
        ("variant = 'FT'\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nsmall_bet = 2\nbig_bet = 4\n"
         "starting_stacks = [10, 10]\nactions = ['d dh p1 AsKs', 'd dh p2 AsKh', 'p2 f']",
         "card As appears more than once"),
        ("variant = 'F32D'\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nsmall_bet = 2\nbig_bet = 4\n"
         "starting_stacks = [10, 10]\nactions = ['d dh p1 2c9sAc8d8s', 'd dh p2 Jd9h7d8cJc', 'p2 f']",
         "card 2c is not in the 32-card deck"),
    ],
)  # fmt: skip
def test_bad_histories_are_refused_with_the_reason(text: str, message: str) -> None:
    with pytest.raises(PHHError, match=message.replace("[", r"\[").replace("]", r"\]")):
        loads(text).replay()


def test_a_card_dealt_twice_on_a_street_is_put_to_the_line_that_deals_it() -> None:
    """The table deals the turn as the last call of the flop ends the round: a turn card already on the flop was
    put to that call (``action 17 'p2 cc'``), not to the dealer's line that deals it."""
    text = dumps(play_hand("holdem", [100, 100], [CallingBot(), CallingBot()], seed=4))
    actions = loads(text).actions
    board = [(n, line.split()[2]) for n, line in enumerate(actions, 1) if line.startswith("d db ")]
    (_, flop), (turn_at, turn) = board[:2]
    twice = flop[:2]  # the flop's first card, dealt again as the turn
    assert not actions[turn_at - 2].startswith("d ")  # a seat's action comes before the turn's deal
    with pytest.raises(PHHError) as refused:
        loads(text.replace(f"'d db {turn}'", f"'d db {twice}'")).replay()
    assert str(refused.value).startswith(f"action {turn_at} 'd db {twice}': a card the history deals is wrong: card "
                                         f"{twice} appears more than once: it is dealt to the board when it is no "
                                         "longer in the stub")


LIMIT_HOLDEM = "variant = 'FT'\nantes = [0, 0, 0]\nblinds_or_straddles = [1, 2, 0]\nsmall_bet = 2\nbig_bet = 4\n"
DRAW = "variant = 'F5CD'\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nsmall_bet = 2\nbig_bet = 4\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # a seat's own discards back with 42 cards in the stub (no reshuffle)
        (DRAW + "starting_stacks = [100, 100]\nactions = ['d dh p1 JdJs6c9cQh', 'd dh p2 7h7dAsAhQs', 'p2 cc', "
         "'p1 cc', 'p1 sd JdJs', 'p2 sd', 'd dh p1 JdJs', 'p1 cc', 'p2 cc']",
         "action 7 'd dh p1 JdJs': a card the history deals is wrong: card Jd appears more than once: it is dealt "
         "to seat 0 when it is no longer in the stub"),
        # a folded seat's cards on the flop
        (LIMIT_HOLDEM + "starting_stacks = [100, 100, 100]\nactions = ['d dh p1 2c3c', 'd dh p2 7h7d', "
         "'d dh p3 AsKs', 'p3 f', 'p1 cc', 'p2 cc', 'd db AsKs2d', 'p1 cc', 'p2 cc']",
         "action 7 'd db AsKs2d': a card the history deals is wrong: card As appears more than once: it is dealt "
         "to the board when it is no longer in the stub"),
        # the flop recorded before the betting that comes first
        (LIMIT_HOLDEM + "starting_stacks = [100, 100, 100]\nactions = ['d dh p1 2c3c', 'd dh p2 7h7d', "
         "'d dh p3 AsKs', 'd db Td9d9h', 'p3 f', 'p1 cc', 'p2 cc']",
         "action 5 'p3 f': the history has dealt the board Td9d9h before it, the table nothing: a deal out of its "
         "place"),
        # the flop recorded after the first action on it
        (LIMIT_HOLDEM + "starting_stacks = [100, 100, 100]\nactions = ['d dh p1 2c3c', 'd dh p2 7h7d', "
         "'d dh p3 AsKs', 'p3 f', 'p1 cc', 'p2 cc', 'p1 cc', 'd db Td9d9h', 'p2 cc']",
         "action 7 'p1 cc': the history has dealt the board nothing before it, the table Td9d9h: a deal out of "
         "its place"),
    ],
)  # fmt: skip
def test_a_deal_no_pack_makes_or_out_of_its_place_is_refused(text: str, message: str) -> None:
    """A history replays only as a pack and a dealer could have dealt it: each card still in the stub when dealt,
    each street recorded between the actions the table deals it between."""
    with pytest.raises(PHHError) as refused:
        loads(text).replay()
    assert str(refused.value).startswith(message)


def test_a_hand_whose_discards_are_reshuffled_back_in_replays() -> None:
    """The cards a reshuffle brings back (to seats other than those that discarded them) are dealt again on replay,
    and the replay writes the same history."""
    state = TableState.start("draw5", [50] * 6, seed=9)  # 30 dealt, 22 left: every seat drawing five runs it dry
    while not state.done:
        if state.phase is Phase.DRAWING and state.actor is not None:
            state.draw(state.cards[state.actor])
        else:
            state.check_call()
    assert any(isinstance(record, A.Reshuffle) for record in state.log)
    text = dumps(state)
    replayed = loads(text).replay()
    assert replayed.stacks == state.stacks and dumps(replayed) == text
    replayed._check()  # the held, burned, mucked, stub and discarded cards are the pack once


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ("starting_stacks = [-1, 10]\nactions = ['d dh p1 AsKs', 'd dh p2 AhKh']", "whole, positive stack"),
        ("starting_stacks = [10]\nactions = ['d dh p1 AsKs']", "seats 2 to 8, not 1"),
        ("starting_stacks = [10, 10]\nactions = ['d dh p1 AsKs', 'p2 f']", "deals 0 more cards to seat 1"),
    ],
)
def test_a_history_whose_table_cannot_be_set_up_is_a_phh_error(fields: str, message: str) -> None:
    head = "variant = 'FT'\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nsmall_bet = 2\nbig_bet = 4\n"
    with pytest.raises(PHHError, match=message):
        loads(head + fields).replay()


def test_extra_fields_of_any_text_read_back() -> None:
    state = TableState.start("holdem", [100, 100], seed=5)
    state.fold()
    extra = {
        "players": ["O'Neil", 'Ann "the bot"'],
        "event": "line one\nline two\ttabbed, back\\slash, été, \x7f",
        "rated": True,
        "hand": 3,
        "rake": 0.5,
    }
    history = loads(dumps(state, **extra))
    assert {k: history.other[k] for k in extra} == extra
    assert history.replay().stacks == state.stacks
    with pytest.raises(PHHError, match="field 'note' is None: a hand history has no empty value"):
        dumps(state, note=None)


def test_an_extra_number_toml_cannot_write_is_refused_when_written() -> None:
    # a Fraction (the engine's equities are Fractions) is a number, but TOML has no "1/3": writing it gave a
    # history that no longer reads
    from fractions import Fraction

    state = TableState.start("holdem", [100, 100], seed=5)
    state.fold()
    with pytest.raises(PHHError, match=r"field 'equity' is a Fraction: .*int or a float"):
        dumps(state, equity=Fraction(1, 3))


def test_a_show_of_cards_the_seat_does_not_hold_is_refused() -> None:
    state = play_hand("holdem", [30, 30], [CallingBot(), CallingBot()], seed=2)
    text = dumps(state)
    shown = next(line for line in loads(text).actions if line.startswith("p1 sm "))
    held = shown.split()[-1]
    other = next(str(c) for c in state.board)  # a card everyone sees, and no seat holds
    forged = text.replace(shown, f"p1 sm {other}{held[2:]}")
    with pytest.raises(PHHError, match=f"p1 sm {other}.*seat 0 shows {other}, which it does not hold"):
        loads(forged).replay()
    assert loads(text.replace(shown, "p1 sm ????")).replay().stacks == state.stacks  # unknown cards: not checked


def _holdem_text() -> str:
    return dumps(play_hand("holdem", [200] * 3, [CallingBot()] * 3, seed=7))


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("FO/8", "the variant code 'FO/8' is omaha-hilo fixed-limit, but _variant and _structure say holdem "
                 "fixed-limit: a hand history is of one game"),
        ("NT", "the variant code 'NT' is holdem no-limit, but _variant and _structure say holdem fixed-limit"),
        ("XX", "unknown variant code 'XX'"),
    ],
)
def test_a_variant_code_that_is_not_the_files_game_is_refused(code: str, message: str) -> None:
    """The three replayed as fixed-limit Hold'em (our names won, the code was not read), where pokerkit and other
    readers of the file go by the code alone."""
    with pytest.raises(PHHError, match=message):
        loads(_holdem_text().replace("'FT'", f"'{code}'"))


def test_a_history_with_the_code_alone_reads_as_that_code_says() -> None:
    text = "\n".join(line for line in _holdem_text().splitlines() if not line.startswith(("_variant", "_structure")))
    history = loads(text)
    assert (history.variant, history.structure, history.replay().stacks) == ("holdem", Structure.FIXED_LIMIT,
                                                                              [204, 198, 198])


@pytest.mark.parametrize(("line", "bad"), [("d dh p1 ", "d dh p9 "), ("d dh p1 ", "d dh p0 "), ("p2 cc", "p4 cc"),
                                          ("p2 cc", "x2 cc")])
def test_a_player_who_is_not_a_seat_is_named_as_such(line: str, bad: str) -> None:
    """``p9`` of a 3-seat hand was "the recorded hand deals 0 more cards to seat 0, the table needs 1"."""
    player = bad.split()[-1] if bad.startswith("d") else bad.split()[0]
    with pytest.raises(PHHError, match=f"'{player}' is not a player of this 3-seat hand \\(p1 to p3\\)"):
        loads(_holdem_text().replace(line, bad, 1)).replay()


@pytest.mark.parametrize(("state", "written", "given"), [
    (play_hand("stud7", [200] * 3, [RandomBot(55), RandomBot(56), RandomBot(57)], seed=55), "F7SOP", "F7S"),
    (play_hand("stud7", [200] * 8, [CallingBot()] * 8, seed=1), "F7SSC", "F7S"),
])
def test_a_stud_code_that_hides_what_the_hand_did_is_refused(state: TableState, written: str, given: str) -> None:
    """A hand with the big bet on an open pair, or a shared 7th card, is not PHH's ``F7S``: a file saying so would
    be read otherwise elsewhere (pokerkit allows neither). This project's own files said so before it had those
    codes (they carry ``_variant``): those are still read."""
    text = dumps(state)
    assert f"variant = '{written}'" in text and loads(text).replay().stacks == state.stacks
    older = text.replace(f"'{written}'", f"'{given}'")
    assert loads(older).replay().stacks == state.stacks  # ours, from before 2026-12-02 / -04
    foreign = "\n".join(line for line in older.splitlines() if not line.startswith(("_variant", "_structure")))
    with pytest.raises(PHHError, match=f"the variant code '{given}' is not the hand played, which is written "
                                       f"'{written}'"):
        loads(foreign).replay()
    with pytest.raises(PHHError, match="the variant code 'F7SOPSC' is not the hand played"):  # more than it did
        loads(dumps(play_hand("stud7", [200] * 3, [CallingBot()] * 3, seed=1)).replace("'F7S'", "'F7SOPSC'")).replay()


@pytest.mark.parametrize("dropped", ["_variant", "_structure"])
def test_our_names_for_the_game_come_in_pairs(dropped: str) -> None:
    """One of the two without the other was told "_variant and _structure say stud7 None"."""
    text = "\n".join(line for line in _holdem_text().splitlines() if not line.startswith(dropped))
    with pytest.raises(PHHError, match=f"^the hand history has no '{dropped}' field$"):
        loads(text)
