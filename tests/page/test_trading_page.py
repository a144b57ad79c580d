"""The trading page in a real headless Chromium, against a server on a virtual clock.

One server and one browser for the module; each test starts from a fresh game
(the clock moved to the next game's start) in a fresh browser context, and
ends by checking the page logged no console error. Screenshots of the lobby,
a table mid-game and a settled game are saved in ``tests/artifacts/``.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest
import requests
from playwright.sync_api import Browser, Page, expect

from engine.irregularities import Irregularity, Kind
from exchange.core import ladder
from exchange.game.irregular import IrregularityPlan, scripted
from exchange.server import keys
from tests.page.harness import WINDOW_MS, ApiClient, LiveServer, shoot, watched_page, window_opens


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path_factory.mktemp("page") / "exchange.db")
    live.start()
    live.add_account("bob", "pw-bob", 100_000)
    yield live
    live.stop()


@pytest.fixture
def page(browser: Browser, server: LiveServer) -> Iterator[Page]:
    """A fresh tab on a fresh game; after the test, no console error may have been logged."""
    server.to_game_time(0, next_game=True)
    with watched_page(browser, server.url + "/") as tab:
        yield tab


def log_in(page: Page) -> None:
    page.get_by_role("button", name="Log in").click()  # the form comes filled with the demo account
    expect(page.locator("#who")).to_have_text("demo")
    expect(page.locator("#balance")).to_have_text(re.compile(r"£[\d,]+\.\d\d"))
    # the figure is getAccountFunds' availableToBetBalance: named so, not "Balance" (money tied up is not in it)
    expect(page.locator("#balance").locator("..")).to_have_text(re.compile(r"^Available £"))


def test_a_refused_login_is_no_longer_said_once_a_login_succeeds(page: Page) -> None:
    """The refusal stayed on show (ten seconds) beside the account just logged in."""
    page.locator("#login-form input[name=password]").fill("not-the-password")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator("#notice")).to_contain_text("Login refused")
    expect(page.locator("#notice")).to_contain_text("INVALID_USERNAME_OR_PASSWORD")
    page.locator("#login-form input[name=password]").fill("demo")
    log_in(page)
    expect(page.locator("#notice")).to_be_hidden(timeout=2_000)  # at once: the refusal itself would stay 10 s


def test_the_header_names_the_account_logged_in_to_not_the_login_as_typed(page: Page) -> None:
    """Names are any case at login: DEMO logs in to demo, and the header said DEMO."""
    page.locator("#login-form input[name=username]").fill("DEMO")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator("#who")).to_have_text("demo")


def shown_cards(page: Page, where: str) -> list[str | None]:
    """The cards drawn in ``#hands`` or ``#board``: their codes, None for a face-down card."""
    cards = page.locator(f"#{where} .card")
    return [cards.nth(i).get_attribute("data-card") for i in range(cards.count())]


def server_cards(server: LiveServer) -> tuple[list[str | None], list[str | None]]:
    game = server.snapshot()["game"]
    face = [None if c == "NOT AVAILABLE" else c for hand in game["gameData"]["hands"] for c in hand["cards"]]
    board = [None if c == "NOT AVAILABLE" else c for c in game["gameData"]["communityCards"]]
    return face, board


def quote_around_fair(client: ApiClient, server: LiveServer) -> None:
    """Three backs and three lays on every hand that can win, a few ticks either side of its fair odds."""
    game = server.snapshot()["game"]
    for sel in game["markets"][0]["selections"]:
        equity = Fraction(sel["equityExact"])
        if not 0 < equity < 1:
            continue
        fair = ladder.nearest_tick(1 / equity)
        for n in (1, 2, 3):
            below, above = float(ladder.price(ladder.tick_down(fair, n))), float(ladder.price(ladder.tick_up(fair, n)))
            client.place(game["id"], sel["selectionId"], "LAY", below, 2 + 3 * n)
            client.place(game["id"], sel["selectionId"], "BACK", above, 2 + 2 * n)
    server.advance(0)


def test_the_lobby_and_a_table_show_each_card_in_its_window(page: Page, server: LiveServer) -> None:
    game_id = server.snapshot()["game"]["id"]
    lobby = page.locator(".lobby-card[data-channel='holdem']")
    expect(lobby.locator(".lobby-game")).to_have_text(game_id)
    expect(lobby.locator(".lobby-round")).to_have_text("Deal")
    expect(lobby.locator(".lobby-time")).to_have_text(re.compile(r"\d+\.\d s"))
    # read aloud: the card's link by its channel's name, its game, round and times after (they were all its name)
    expect(lobby).to_have_accessible_name(lobby.locator("h2").inner_text())
    expect(lobby).to_have_accessible_description(re.compile(rf"^Game {re.escape(game_id)} Round Deal Time left "))
    expect(page.locator("#connection")).to_have_text("● live")
    shoot(page, "lobby.png")
    lobby.click()
    expect(page.locator("#round-name")).to_have_text("Deal")
    expect(page.locator("#hands .card.back")).to_have_count(8)  # four hands face down
    expect(page.locator("#board .card.back")).to_have_count(5)
    for round_number, name, board_up in ((2, "Pre-flop", 0), (3, "Flop", 3), (4, "Turn", 4)):
        server.to_game_time(window_opens(round_number))
        expect(page.locator("#round-name")).to_have_text(name)
        hands, board = server_cards(server)
        assert None not in hands and sum(c is not None for c in board) == board_up
        assert shown_cards(page, "hands") == hands
        assert shown_cards(page, "board") == board
        if round_number == 3:
            quote_around_fair(ApiClient(server.url, "bob", "pw-bob"), server)
            expect(page.locator("tr[data-selection='1'] button.price.lay.best")).not_to_contain_text("Lay")
            shoot(page, "table-mid-game.png")
    equity = page.locator("tr[data-selection='1'] .equity")
    share = server.snapshot()["game"]["markets"][0]["selections"][0]["equity"]
    expect(equity).to_have_text(f"equity {share * 100:.2f}%")
    page.get_by_label("Equity", exact=True).uncheck()
    expect(equity).to_have_text("")

    # Keyboard: a price cell is a button; Enter on it fills the slip. The quotes lapsed when the Flop window
    # closed, so this one offers no price and the cursor goes to the odds, to be chosen.
    page.locator("tr[data-selection='2'] button.price.lay.best").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#slip-what")).to_contain_text("Lay Hand 2")
    expect(page.locator("#slip-price")).to_be_focused()

    # A phone's width: everything stacks, nothing wider than the screen.
    page.set_viewport_size({"width": 390, "height": 844})
    expect(page.locator("#hands .hand")).to_have_count(4)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shoot(page, "table-phone.png")


def test_a_back_placed_by_clicking_is_matched_and_an_api_order_shows_and_cancels(page: Page,
                                                                                 server: LiveServer) -> None:
    market = server.snapshot()["game"]["id"]
    bob, demo = ApiClient(server.url, "bob", "pw-bob"), ApiClient(server.url, "demo", "demo")
    page.goto(f"{server.url}/#/table/holdem")
    log_in(page)
    row_1 = page.locator("tr[data-selection='1']")
    expect(row_1.locator("button.price.back.best")).to_have_text("Back")
    empty_box = row_1.bounding_box()
    bob.place(market, 1, "LAY", 3.0, 10)
    server.advance(0)
    best_back = row_1.locator("button.price.back.best")
    expect(best_back).to_contain_text("3.00")
    assert row_1.bounding_box() == empty_box  # a price arriving moves nothing
    row_1.get_by_role("button", name="Full ladder of Hand 1").click()
    expect(page.locator(".ladder-row")).to_contain_text("3.00")
    expect(page.locator(".ladder-row")).to_contain_text("£10")
    best_back.click()
    expect(page.locator("#slip-what")).to_have_text(f"Back Hand 1 · {market}")
    expect(page.locator("#slip-price")).to_have_value("3.00")
    page.locator("#slip-stake").fill("4")
    expect(page.locator("#slip-outcome")).to_have_text("Profit £8.00 if Hand 1 wins; you risk £4.00.")
    page.locator("#slip-confirm").click()
    expect(page.locator("#notice")).to_contain_text("£4.00 matched")
    [backed] = demo.current_orders(market)
    assert (backed["side"], backed["selectionId"], backed["sizeMatched"]) == ("BACK", 1, 4.0)
    assert backed["averagePriceMatched"] == 3.0
    expect(page.locator(f"#matched li[data-bet='{backed['betId']}']")).to_contain_text("£4.00 at 3.00")
    expect(page.locator("tr[data-selection='1'] .pnl")).to_have_text("if wins +£8.00")
    expect(page.locator("tr[data-selection='2'] .pnl")).to_have_text("if wins −£4.00")
    expect(page.locator("#exposure")).to_have_text("£4.00")

    # The other way round: an order placed over API-NG reaches the page by the order stream.
    resting = demo.place(market, 2, "BACK", 50, 2)
    server.advance(0)
    row = page.locator(f"#unmatched li[data-bet='{resting['betId']}']")
    expect(row).to_contain_text("Hand 2£2.00 at 50")
    row.get_by_label(f"New odds for bet {resting['betId']}").fill("40")
    row.get_by_role("button", name=f"Change odds of bet {resting['betId']}", exact=True).click()
    expect(page.locator("#notice")).to_contain_text(f"Bet {resting['betId']} moved to 40")
    [moved] = [o for o in demo.current_orders(market) if o["status"] == "EXECUTABLE"]
    expect(page.locator("#notice")).to_have_text(f"Bet {resting['betId']} moved to 40: it is now bet {moved['betId']}.")
    assert (moved["selectionId"], moved["priceSize"]) == (2, {"price": 40.0, "size": 2.0})
    row = page.locator(f"#unmatched li[data-bet='{moved['betId']}']")
    expect(row).to_contain_text("Hand 2£2.00 at 40")
    row.get_by_role("button", name=f"Cancel bet {moved['betId']}", exact=True).click()  # named for its bet
    expect(page.locator("#notice")).to_have_text(f"Bet {moved['betId']} cancelled.")
    expect(row).to_have_count(0)
    cancelled = next(o for o in demo.current_orders(market) if o["betId"] == moved["betId"])
    assert (cancelled["status"], cancelled["sizeCancelled"]) == ("EXECUTION_COMPLETE", 2.0)

    # A refusal shows the server's own words.
    page.locator("tr[data-selection='3'] button.price.lay.best").click()
    page.locator("#slip-price").fill("3.03")
    page.locator("#slip-confirm").click()
    expect(page.locator("#notice")).to_contain_text("price 3.03 is not on the ladder")
    expect(page.locator("#notice")).to_contain_text("INVALID_ODDS")


def test_settlement_updates_the_balance_and_the_history(page: Page, server: LiveServer) -> None:
    market = server.snapshot()["game"]["id"]
    bob, demo = ApiClient(server.url, "bob", "pw-bob"), ApiClient(server.url, "demo", "demo")
    server.to_game_time(window_opens(2))
    for selection in (1, 2, 3, 4):  # 5.0 on each of four hands: backing all four wins whatever the result
        bob.place(market, selection, "LAY", 5.0, 10)
    server.advance(0)
    page.goto(f"{server.url}/#/table/holdem")
    log_in(page)
    before = demo.funds()["availableToBetBalance"]
    for selection in (1, 2, 3, 4):
        page.locator(f"tr[data-selection='{selection}'] button.price.back.best").click()
        page.locator("#slip-stake").fill("5")
        page.locator("#slip-confirm").click()
        placed = f"Back Hand {selection} at 5.00 for £5.00 placed: £5.00 matched"  # this bet's, not the last one's
        expect(page.locator("#notice")).to_contain_text(placed)
    server.to_game_time(window_opens(4) + WINDOW_MS)  # the Turn window closes: the river, the result, settlement
    expect(page.locator("#round-name")).to_have_text("Result")  # played out (its last window was the Turn)
    expect(page.locator("#results li").first).to_contain_text(market)
    settled = page.locator("#settled tr").first
    expect(settled).to_contain_text(market)
    cleared = demo.call("listClearedOrders", {"betStatus": "SETTLED", "groupBy": "MARKET"})["clearedOrders"]
    row = next(r for r in cleared if r["marketId"] == market)
    expect(settled).to_contain_text(f"£{row['commission']:.2f}")
    assert row["profit"] == 5.0 and row["commission"] > 0  # £20 won on the winner less £15 lost on the others
    after = demo.funds()["availableToBetBalance"]
    assert after == pytest.approx(before + row["profit"] - row["commission"])
    expect(page.locator("#balance")).to_have_text(f"£{after:,.2f}")
    expect(page.locator("#exposure")).to_have_text("£0.00")
    winners = {s["selectionId"] for s in server.snapshot()["game"]["markets"][0]["selections"]
               if s["status"] in ("WINNER", "TIED_DEAD_HEAT")}
    for hand in winners:
        expect(page.locator(f"#hands .hand[data-selection='{hand}'] .status")).to_have_text(
            re.compile("winner|dead heat"))
    shoot(page, "settled-game.png")


def test_a_bet_paid_by_the_dead_heat_rule_says_so(page: Page, server: LiveServer) -> None:
    """A back "WON" at 1.03 on a hand tied two ways is paid at 0.515: a loss of £4.85 on a winning bet, which
    without a word reads as a mistake. Each settled bet paid by the rule is marked; a whole win or loss is not,
    however its market's rounding left it (a penny either way)."""
    page.goto(f"{server.url}/#/table/holdem")
    expect(page.locator("#table")).to_be_visible()
    rows = [  # (side, stake, price, outcome, profit, marked)
        ("BACK", 10, 1.03, "WON", -4.85, True), ("LAY", 4, 4.0, "LOST", -4.0, True),  # tied two ways
        ("BACK", 2, 3.0, "WON", 4.0, False), ("BACK", 2.05, 1.33, "WON", 0.67, False),  # 0.6765: the penny's split
        ("BACK", 2, 3.0, "LOST", -2.0, False), ("LAY", 4, 4.0, "WON", 4.0, False),
        ("LAY", 4, 4.0, "LOST", -12.0, False)]
    bets = [{"betId": str(i), "marketId": "holdem.1", "selectionId": 1, "side": side, "sizeSettled": stake,
             "priceMatched": price, "betOutcome": outcome, "profit": profit}
            for i, (side, stake, price, outcome, profit, _) in enumerate(rows)]
    page.evaluate("""async (bets) => {
        const { renderSettled } = await import("/static/trading.js");
        renderSettled([], bets);
    }""", bets)
    items = page.locator("#settled-bets li")
    expect(items).to_have_count(len(rows))
    for i, (*_, marked) in enumerate(rows):
        if marked:
            expect(items.nth(i)).to_contain_text("dead heat")
        else:
            expect(items.nth(i)).not_to_contain_text("dead heat")


def test_every_market_a_game_has_is_drawn_with_all_its_selections(page: Page, server: LiveServer) -> None:
    """Hi/Lo games have a High and a Low market, the Low with a fifth selection: nothing assumes one of four.

    Stud games mark each card up or down: a card sent as ``{card, up}`` is drawn, marked when it is down.
    """
    page.goto(f"{server.url}/#/table/holdem")
    expect(page.locator("#markets .market")).to_have_count(1)
    snapshot = server.snapshot()
    game = snapshot["game"]
    high = {**game["markets"][0], "marketId": f"{game['id']}.hi", "marketName": "High"}
    low = {**game["markets"][0], "marketId": f"{game['id']}.lo", "marketName": "Low",
           "selections": [*game["markets"][0]["selections"], {**game["markets"][0]["selections"][0],
                                                                "selectionId": 5, "name": "No low"}]}
    stud = [{"card": "As", "up": False}, {"card": "Kd", "up": True}, {"card": "7c", "up": True}]
    hands = [{**game["gameData"]["hands"][0], "cards": stud}, *game["gameData"]["hands"][1:]]
    two = {**snapshot, "game": {**game, "markets": [high, low], "gameData": {**game["gameData"], "hands": hands}}}
    page.evaluate("""async (snapshot) => {
        const { TableView } = await import("/static/table.js");
        const view = new TableView({ onPrice: () => {}, onLadder: () => {} });
        view.render(null, snapshot, { showEquity: true, pnl: () => null });
    }""", two)
    markets = page.locator("#markets .market")
    expect(markets).to_have_count(2)
    expect(markets.nth(0).locator("h2")).to_have_text("High")
    expect(markets.nth(1).locator("h2")).to_have_text("Low")
    expect(markets.nth(0).locator("tbody tr")).to_have_count(4)
    expect(markets.nth(1).locator("tbody tr")).to_have_count(5)
    expect(markets.nth(1).locator("tr[data-selection='5'] .sel-name")).to_have_text("No low")
    first_hand = page.locator("#hands .hand").first
    assert [first_hand.locator(".card").nth(i).get_attribute("data-card") for i in range(3)] == ["As", "Kd", "7c"]
    expect(first_hand.locator(".card.down")).to_have_count(1)
    expect(first_hand.locator(".card.down")).to_have_attribute("aria-label", "ace of spades (down)")


def test_a_game_settled_before_the_page_opened_is_in_the_recent_results(page: Page, server: LiveServer) -> None:
    """The page opens on a fresh game: the one before settled while no page watched, so only the results route
    can tell the page of it."""
    finished = requests.get(f"{server.url}/games/v1/channels/holdem/results?limit=1", timeout=5).json()["results"]
    [last] = finished
    assert last["id"] == f"holdem.{server.snapshot()['game']['gameNumber'] - 1}"
    winners = [s["name"] for s in last["markets"][0]["selections"] if s["status"] in ("WINNER", "TIED_DEAD_HEAT")]
    board = " ".join(last["gameData"]["communityCards"])
    item = page.locator(f"#results li[data-game='{last['id']}']")
    expect(item).to_contain_text(f"won by {winners[0]}")
    expect(item).to_contain_text(f"board {board}")
    page.locator(".lobby-card[data-channel='holdem']").click()  # the channel's table: its results again
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator(f"#results li[data-game='{last['id']}']")).to_be_visible()
    expect(page.locator("#results li").first).to_have_attribute("data-game", last["id"])


def test_past_results_are_shown_from_a_server_that_keeps_fewer_than_ten(browser: Browser, tmp_path: Path) -> None:
    """``serve --keep-results 3``: the page asks for what the server keeps, not for ten it would refuse."""
    live = LiveServer(tmp_path / "exchange.db", keep_results=3)
    live.start()
    try:
        for _ in range(4):
            live.to_game_time(0, next_game=True)
        kept = requests.get(f"{live.url}/games/v1/channels/holdem/results", timeout=5).json()["results"]
        assert [r["id"] for r in kept] == ["holdem.3", "holdem.2", "holdem.1"]
        with watched_page(browser, live.url + "/") as page:
            expect(page.locator("#results li[data-game]")).to_have_count(3)
            expect(page.locator("#results li").first).to_have_attribute("data-game", "holdem.3")
    finally:
        live.stop()


def test_cards_a_dealers_error_shows_early_are_drawn_as_the_snapshot_lists_them(page: Page,
                                                                                server: LiveServer) -> None:
    """A premature flop in the Pre-flop window: from the moment it is seen, the table draws the exposed cards the
    Games API snapshot lists (none before), each marked dead exactly when the snapshot says it is out of play."""
    def inject() -> None:
        channel = server.app[keys.SERVICE].channels["holdem"]
        assert channel.current is not None
        following = channel.current.number + 1
        channel.irregularities = scripted({following: IrregularityPlan(Irregularity(Kind.PREMATURE_FLOP),
                                                                       at_permille=500, notice_ms=1_000)})

    server.run(inject)
    server.to_game_time(0, next_game=True)  # the game the error is planned for
    page.locator(".lobby-card[data-channel='holdem']").click()
    server.to_game_time(window_opens(2) + WINDOW_MS // 2 - 500)  # (the streams' conflation interval follows)
    expect(page.locator("#round-name")).to_have_text("Pre-flop")
    assert "exposedCards" not in server.snapshot()["game"]["gameData"]
    expect(page.locator("#exposed-wrap")).to_be_hidden()

    server.to_game_time(window_opens(2) + WINDOW_MS // 2 + 10)  # the flop is seen halfway through the window
    data = server.snapshot()["game"]["gameData"]
    exposed, dead = data["exposedCards"], set(data.get("deadCards", ()))
    assert len(exposed) == 3
    expect(page.locator("#exposed-wrap")).to_be_visible()
    cards = page.locator("#exposed .card")
    expect(cards).to_have_count(3)
    assert [cards.nth(i).get_attribute("data-card") for i in range(3)] == exposed
    for i, card in enumerate(exposed):
        if card in dead:
            expect(cards.nth(i)).to_have_class(re.compile(r"\bdead\b"))
        else:  # a premature flop is shuffled back (rule 3): seen, but not out of play
            expect(cards.nth(i)).not_to_have_class(re.compile(r"\bdead\b"))



def test_the_page_follows_orders_the_stream_ends_a_reconnection_included(page: Page, server: LiveServer) -> None:
    """Orders placed and ended over API-NG, not by the page. One cancelled while the order stream is down is gone
    from the unmatched list once the page has reconnected (its image holds nothing: no executable order, nothing
    matched); then a fill and a cancel come as deltas, and an order left resting lapses when the window closes."""
    market = server.snapshot()["game"]["id"]
    bob, demo = ApiClient(server.url, "bob", "pw-bob"), ApiClient(server.url, "demo", "demo")
    page.goto(f"{server.url}/#/table/holdem")
    log_in(page)
    unseen = demo.place(market, 2, "BACK", 70, 2)["betId"]
    server.advance(0)
    expect(page.locator(f"#unmatched li[data-bet='{unseen}']")).to_have_count(1)
    demo.call("cancelOrders", {"marketId": market, "instructions": [{"betId": unseen}]})

    async def drop_streams() -> None:  # before any flush: the page hears of the cancel by its next image only
        for conn in list(server.app[keys.HUB].connections):
            await conn.transport.close()

    server.call(drop_streams)
    expect(page.locator(f"#unmatched li[data-bet='{unseen}']")).to_have_count(0)

    filled, cancelled, lapsing = (demo.place(market, 2, "BACK", price, 2)["betId"] for price in (50, 60, 80))
    server.advance(0)
    for bet in (filled, cancelled, lapsing):
        expect(page.locator(f"#unmatched li[data-bet='{bet}']")).to_have_count(1)
    bob.place(market, 2, "LAY", 50, 2)
    demo.call("cancelOrders", {"marketId": market, "instructions": [{"betId": cancelled}]})
    server.advance(0)
    expect(page.locator(f"#matched li[data-bet='{filled}']")).to_contain_text("£2.00 at 50")
    for bet in (filled, cancelled):
        expect(page.locator(f"#unmatched li[data-bet='{bet}']")).to_have_count(0)
    expect(page.locator(f"#unmatched li[data-bet='{lapsing}']")).to_have_count(1)
    server.advance(WINDOW_MS)  # the Deal window closes: what rests lapses
    expect(page.locator(f"#unmatched li[data-bet='{lapsing}']")).to_have_count(0)


def test_a_game_that_ended_while_the_games_stream_was_down_is_in_the_recent_results(page: Page,
                                                                                   server: LiveServer) -> None:
    """The page's games stream drops and the game on the table plays out before the page is back (it tries again
    half a second later): once reconnected, the game it never saw settle is listed with the others, from the
    results route."""
    page.goto(f"{server.url}/#/table/holdem")
    unseen = server.snapshot()["game"]["id"]
    expect(page.locator("#game-id")).to_contain_text(unseen)
    hub, clock = server.app[keys.GAMES], server.clock
    start = server.game_start()

    async def drop_and_play_out() -> None:  # all in one turn of the server's loop: no page can reconnect meanwhile
        hub.fail("the test drops every spectator")
        for number in (1, 2, 3, 4):
            clock.advance(max(0, start + window_opens(number) + WINDOW_MS - clock.now()))
            await asyncio.sleep(0)
        following = server.app[keys.SERVICE].channels["holdem"].current
        assert following is not None
        clock.advance(max(0, following.start_ms - clock.now()))

    server.call(drop_and_play_out)
    server.advance(0)
    assert server.snapshot()["game"]["id"] != unseen
    expect(page.locator("#game-id")).not_to_contain_text(unseen)
    expect(page.locator(f"#results li[data-game='{unseen}']")).to_contain_text("won by")


def test_a_game_voided_by_a_misdeal_before_its_first_window_reads_void(page: Page, server: LiveServer) -> None:
    """Two hole cards exposed at the deal: a misdeal, and the game's market is voided before any window opened (no
    round). The lobby says so rather than "Starting", and the recent results name the void and its reason, as the
    results route does, rather than "no winner" (what the game's last snapshot alone would give)."""
    def inject() -> None:
        channel = server.app[keys.SERVICE].channels["holdem"]
        assert channel.current is not None
        following = channel.current.number + 1
        channel.irregularities = scripted({following: IrregularityPlan(
            Irregularity(Kind.EXPOSED_HOLE_CARDS, cards=(0, 3)), at_permille=0)})

    server.run(inject)
    server.to_game_time(0, next_game=True)
    game = server.snapshot()["game"]
    assert (game["roundName"], game["markets"][0]["marketStatus"]) == (None, "VOID")
    [result] = requests.get(f"{server.url}/games/v1/channels/holdem/results?limit=1", timeout=5).json()["results"]
    assert result["id"] == game["id"] and result["markets"][0]["result"] == "VOID"
    exposed = result["gameData"]["exposedCards"]  # what the misdeal showed: kept with the result
    assert exposed == game["gameData"]["exposedCards"] and exposed
    lobby = page.locator(".lobby-card[data-channel='holdem']")
    expect(lobby.locator(".lobby-game")).to_have_text(game["id"])
    expect(lobby.locator(".lobby-round")).to_have_text("Void")
    expect(lobby.locator(".lobby-time")).to_have_text("void")
    expect(page.locator(f"#results li[data-game='{game['id']}']")).to_contain_text(
        f"void ({result['markets'][0]['voidReason']})")
    expect(page.locator(f"#results li[data-game='{game['id']}']")).to_contain_text(f"exposed {' '.join(exposed)}")
    page.reload()  # the results route's entry, not the one the games stream brought, says the same
    expect(page.locator(f"#results li[data-game='{game['id']}']")).to_contain_text(f"exposed {' '.join(exposed)}")


def test_a_lobby_card_keeps_the_keyboards_focus_as_the_games_move_on(page: Page, server: LiveServer) -> None:
    """A keyboard trader tabs to a table in the lobby; snapshots keep coming (a price, the next window): the card
    stays focused, its round and game updated in place, and Enter opens the table."""
    card = page.locator(".lobby-card[data-channel='holdem']")
    expect(card.locator(".lobby-round")).to_have_text("Deal")
    card.focus()
    ApiClient(server.url, "bob", "pw-bob").place(server.snapshot()["game"]["id"], 1, "LAY", 3.0, 2)
    server.to_game_time(window_opens(2))
    expect(card.locator(".lobby-round")).to_have_text("Pre-flop")
    expect(card).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator("#round-name")).to_have_text("Pre-flop")


def test_a_table_the_server_does_not_run_says_so(page: Page, server: LiveServer) -> None:
    """An old bookmark or a typo: the address names a channel the server does not run. The page says so and offers
    the way back, rather than draw an empty table with no name."""
    page.goto(f"{server.url}/#/table/omaha-turbo")
    expect(page.locator("#table-title")).to_have_text("No table omaha-turbo on this server")
    expect(page.locator("#game-id")).to_have_text("see all tables")
    page.get_by_role("link", name="← All tables").click()
    expect(page.locator(".lobby-card[data-channel='holdem']")).to_be_visible()


def test_a_session_ended_elsewhere_is_said_in_one_sentence_until_the_trader_logs_in(page: Page,
                                                                                   server: LiveServer) -> None:
    """Logged out from another program: the notice read "Your session has ended (the session has ended (logout or
    expiry); log in again (INVALID_SESSION_INFORMATION)): ...", and went away after ten seconds, leaving no reason
    on screen. The tab's own clock is moved by the test."""
    page.clock.install()
    page.reload()
    log_in(page)
    token = json.loads(page.evaluate("sessionStorage.getItem('session')"))["token"]
    answer = requests.post(f"{server.url}/api/logout", timeout=5,
                           headers={"X-Application": "exchange-poker-page", "X-Authentication": token})
    assert answer.json()["status"] == "SUCCESS"
    notice = page.locator("#notice")
    expect(notice).to_have_text("Your session has ended (the server restarted, or the session expired or was logged "
                                "out elsewhere): log in again to trade.")
    page.clock.run_for(60_000)
    expect(notice).to_be_visible()
    expect(page.locator("#login-form")).to_be_visible()
    log_in(page)
    expect(notice).to_be_hidden()


def test_the_keyboards_focus_lands_on_the_account_after_a_login_and_on_the_bets_after_a_cancel(
    page: Page, server: LiveServer,
) -> None:
    """Both left it on the page's body: a keyboard trader started again from "Skip to the table"."""
    page.goto(f"{server.url}/#/table/holdem")
    page.locator("#login-form input[name=password]").press("Enter")  # the form comes filled with the demo account
    expect(page.locator("#who")).to_have_text("demo")
    expect(page.locator("#funds")).to_be_focused()
    bet = ApiClient(server.url, "demo", "demo").place(server.snapshot()["game"]["id"], 2, "BACK", 70, 2)["betId"]
    server.advance(0)
    cancel = page.locator(f"#unmatched li[data-bet='{bet}']").get_by_role("button", name="Cancel")
    cancel.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#notice")).to_have_text(f"Bet {bet} cancelled.")
    expect(page.locator("#orders-title")).to_be_focused()
