"""The bet slip and the lists of bets as a trader meets them, in headless Chromium on a live Hold'em table.

One server (no house, on a virtual clock) and one browser for the module; each
test starts from a fresh game in a fresh browser context, logged in as ``demo``,
and ends by checking the page logged no console error. What the page shows is
checked against what the server's API-NG answers the same account.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from playwright.sync_api import Browser, Locator, Page, Route, WebSocketRoute, expect

from exchange.server import keys
from exchange.server.limits import Limits
from tests.page.harness import (
    APP_KEY,
    WINDOW_MS,
    ApiClient,
    LiveServer,
    backs_on_every_hand,
    settle,
    watched_page,
    window_opens,
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path_factory.mktemp("page-slip") / "exchange.db")
    live.start()
    live.add_account("bob", "pw-bob", 100_000)
    yield live
    live.stop()


@pytest.fixture
def page(browser: Browser, server: LiveServer) -> Iterator[Page]:
    """A fresh tab, logged in as ``demo``, at the table of a fresh game."""
    server.to_game_time(0, next_game=True)
    with watched_page(browser, f"{server.url}/#/table/holdem") as tab:
        tab.get_by_role("button", name="Log in").click()
        expect(tab.locator("#who")).to_have_text("demo")
        expect(tab.locator("#markets .market")).to_have_count(1)
        yield tab


def set_min_stake(server: LiveServer, minor: int) -> None:
    """The channel's minimum stake for the games dealt from now on."""
    def change() -> None:
        channel = server.app[keys.SERVICE].channels[server.channel]
        channel.config = dataclasses.replace(channel.config, min_stake=minor)

    server.run(change)


def test_the_slip_stops_a_stake_below_the_markets_minimum_before_sending(page: Page, server: LiveServer) -> None:
    """The minimum is the one the server publishes for the market (the snapshot's ``minStake``), £5.00 on this
    game: £4.99 is said to be too small in the slip and not sent; £5.00 is placed."""
    set_min_stake(server, 500)
    try:
        server.to_game_time(0, next_game=True)  # a game whose market was created with the new minimum
        market = server.snapshot()["game"]["markets"][0]
        assert market["minStake"] == 5.0
        demo = ApiClient(server.url, "demo", "demo")
        expect(page.locator("#game-id")).to_contain_text(market["marketId"])
        page.locator("tr[data-selection='1'] button.price.back.best").click()
        page.locator("#slip-price").fill("3")
        page.locator("#slip-stake").fill("4.99")
        words = "Stake 4.99 is below this market's minimum stake, £5.00."
        expect(page.locator("#slip-outcome")).to_have_text(words)
        page.locator("#slip-confirm").click()
        expect(page.locator("#notice")).to_have_text(f"Not placed: {words}")
        assert demo.current_orders(market["marketId"]) == []
        page.locator("#slip-stake").fill("5")
        expect(page.locator("#slip-outcome")).to_have_text("Profit £10.00 if Hand 1 wins; you risk £5.00.")
        page.locator("#slip-confirm").click()
        expect(page.locator("#notice")).to_contain_text("for £5.00 placed")
        [placed] = demo.current_orders(market["marketId"])
        assert placed["priceSize"] == {"price": 3.0, "size": 5.0}
    finally:
        set_min_stake(server, 200)


def test_a_bet_matched_at_several_prices_shows_its_exact_average_marked_as_one(page: Page,
                                                                             server: LiveServer) -> None:
    """£2 at 3.00 and £2 at 3.05 average 3.025; £6 at 2.00 and £2 at 2.02 average 2.005. Rounded to two decimals
    they would read as ladder prices that never traded (3.02 or 3.03, 2.01): each is shown as API-NG gives it,
    to the decimals it needs (up to four), marked "avg"; a bet filled at one price shows that price. The settled
    bets show the same once the game has settled."""
    market = server.snapshot()["game"]["id"]
    bob, demo = ApiClient(server.url, "bob", "pw-bob"), ApiClient(server.url, "demo", "demo")
    for selection, price, size in ((1, 3.0, 2), (1, 3.05, 2), (2, 2.0, 6), (2, 2.02, 2), (3, 5.0, 2)):
        bob.place(market, selection, "LAY", price, size)
    bets = {demo.place(market, 1, "BACK", 3.0, 4)["betId"]: "£4.00 at avg 3.025",
            demo.place(market, 2, "BACK", 2.0, 8)["betId"]: "£8.00 at avg 2.005",
            demo.place(market, 3, "BACK", 4.5, 2)["betId"]: "£2.00 at 5.00"}
    server.advance(0)
    averages = {o["betId"]: o["averagePriceMatched"] for o in demo.current_orders(market)}
    assert [averages[bet] for bet in bets] == [3.025, 2.005, 5.0]
    for bet, words in bets.items():
        expect(page.locator(f"#matched li[data-bet='{bet}']")).to_have_text(re.compile(rf"{re.escape(words)}$"))
    settle(server)
    for hand, words in enumerate(bets.values(), start=1):
        expect(page.locator("#settled-bets li", has_text=f"{market} Hand {hand}")).to_contain_text(words)


class HeldStreams:
    """Exchange Stream connections an account holds from elsewhere (other tabs, a bot), opened on the server's loop."""

    def __init__(self, server: LiveServer, client: ApiClient) -> None:
        self.server, self.token = server, client.headers["X-Authentication"]
        self.session: aiohttp.ClientSession | None = None
        self.sockets: list[aiohttp.ClientWebSocketResponse] = []

    def open(self, count: int) -> None:
        async def opening() -> None:
            self.session = self.session or aiohttp.ClientSession()
            for _ in range(count):
                ws = await self.session.ws_connect(f"{self.server.url}/stream")
                await ws.send_json({"op": "authentication", "id": 1, "appKey": APP_KEY, "session": self.token})
                await ws.send_json({"op": "orderSubscription", "id": 2})
                while (message := await ws.receive_json()).get("id") != 1:
                    pass
                assert message["statusCode"] == "SUCCESS", message
                self.sockets.append(ws)

        self.server.call(opening)

    def close(self, count: int) -> None:
        async def closing() -> None:
            for _ in range(count):
                await self.sockets.pop().close()
            if not self.sockets and self.session is not None:
                await self.session.close()

        self.server.call(closing)


def test_a_tab_past_the_accounts_stream_connections_says_so_and_keeps_its_bets_current(
        browser: Browser, server: LiveServer) -> None:
    """The account holds its ten stream connections elsewhere: the page's own is refused. The page says so where
    the bets are listed (in the server's words), reads the bets over API-NG meanwhile, so a fill by another
    trader still shows, and takes the stream back once a connection is free."""
    server.to_game_time(0, next_game=True)
    market = server.snapshot()["game"]["id"]
    bob, demo = ApiClient(server.url, "bob", "pw-bob"), ApiClient(server.url, "demo", "demo")
    held = HeldStreams(server, demo)
    held.open(10)
    try:
        with watched_page(browser, f"{server.url}/#/table/holdem") as page:
            page.get_by_role("button", name="Log in").click()
            feed = page.locator("#orders-feed")
            expect(feed).to_contain_text("MAX_CONNECTION_LIMIT_EXCEEDED")
            expect(feed).to_contain_text("the account has 10 stream connections open")
            resting = demo.place(market, 1, "BACK", 3.0, 4)["betId"]
            bob.place(market, 1, "LAY", 3.0, 4)
            server.advance(0)
            expect(page.locator(f"#matched li[data-bet='{resting}']")).to_contain_text("£4.00 at 3.00")
            expect(page.locator("#exposure")).to_have_text("£4.00")
            held.close(1)
            expect(feed).to_be_hidden()
            later = demo.place(market, 2, "BACK", 50, 2)["betId"]
            server.advance(0)
            expect(page.locator(f"#unmatched li[data-bet='{later}']")).to_contain_text("£2.00 at 50")
    finally:
        held.close(len(held.sockets))


def test_a_slip_left_open_follows_its_market_through_a_window_close_and_a_new_game(page: Page,
                                                                                 server: LiveServer) -> None:
    """Filled in the Deal window and left open: when the window closes the slip says the market is suspended and
    will not place; when the next one opens it is placeable again; when the game is over the slip for its market
    is cleared and says why, rather than send the next game's bet to a settled market."""
    market = server.snapshot()["game"]["id"]
    demo = ApiClient(server.url, "demo", "demo")
    page.locator("tr[data-selection='1'] button.price.back.best").click()
    page.locator("#slip-price").fill("3")
    confirm, outcome = page.locator("#slip-confirm"), page.locator("#slip-outcome")
    expect(outcome).to_have_text("Profit £4.00 if Hand 1 wins; you risk £2.00.")
    server.advance(WINDOW_MS)  # the Deal window closes
    expect(outcome).to_have_text("The market is suspended until its next betting window opens.")
    expect(confirm).to_be_disabled()
    page.locator("tr[data-selection='2'] button.price.lay.best").click()  # a slip filled while suspended says so
    expect(outcome).to_have_text("The market is suspended until its next betting window opens.")
    page.locator("#slip-price").fill("3")
    server.to_game_time(window_opens(2))
    expect(outcome).to_have_text("Liability £4.00 if Hand 2 wins; you win £2.00 if it loses.")
    expect(confirm).to_be_enabled()
    server.to_game_time(0, next_game=True)
    expect(page.locator("#slip-form")).to_be_hidden()
    expect(page.locator("#slip-empty")).to_have_text(f"Market {market} has closed: its slip was cleared. "
                                                      "Click a price to fill the slip.")
    assert demo.current_orders(market) == []


def test_if_wins_stays_the_servers_exact_figure_once_the_market_has_settled(page: Page, server: LiveServer) -> None:
    """£240 backed on Hand 1 takes £100 at 3.05 and £140 at 3.00 (average 3.020833…): it wins £485.00 if Hand 1
    wins, as listMarketProfitAndLoss says while the market is open. Once settled the figure stays; the page's
    own sum from the average to four decimals (3.0208) would make it £484.99."""
    market = server.snapshot()["game"]["id"]
    bob, demo = ApiClient(server.url, "bob", "pw-bob"), ApiClient(server.url, "demo", "demo")
    bob.place(market, 1, "LAY", 3.0, 200)
    bob.place(market, 1, "LAY", 3.05, 100)
    demo.place(market, 1, "BACK", 3.0, 240)
    server.advance(0)
    [answer] = demo.call("listMarketProfitAndLoss", {"marketIds": [market]})
    assert answer["profitAndLosses"][0] == {"selectionId": 1, "ifWin": 485.0}
    if_wins = page.locator("tr[data-selection='1'] .pnl")
    expect(if_wins).to_have_text("if wins +£485.00")
    settle(server)
    expect(page.locator(".market-status")).to_have_text("settled")
    expect(if_wins).to_have_text("if wins +£485.00")


def test_a_bet_not_yet_matched_shows_no_if_wins(page: Page, server: LiveServer) -> None:
    """listMarketProfitAndLoss answers for a market where the account has a bet, matched or not: with none matched
    its figures are all 0, and the page showed "if wins £0.00" on every hand as if a position were held."""
    market = server.snapshot()["game"]["id"]
    bob, demo = ApiClient(server.url, "bob", "pw-bob"), ApiClient(server.url, "demo", "demo")
    demo.place(market, 1, "BACK", 3.0, 200)  # nothing to match it: it rests
    server.advance(0)
    [answer] = demo.call("listMarketProfitAndLoss", {"marketIds": [market]})
    assert {p["ifWin"] for p in answer["profitAndLosses"]} == {0.0}
    expect(page.locator("#unmatched")).to_contain_text("Hand 1")
    pnl = page.locator("tr[data-selection] .pnl")
    for i in range(pnl.count()):
        expect(pnl.nth(i)).to_have_text("")
    bob.place(market, 1, "LAY", 3.0, 100)  # half of it matched: now there is a position
    server.advance(0)
    expect(page.locator("tr[data-selection='1'] .pnl")).to_have_text("if wins +£200.00")
    expect(page.locator("tr[data-selection='2'] .pnl")).to_have_text("if wins −£100.00")


def test_if_wins_of_a_bet_matched_as_its_market_closes_is_exact(browser: Browser, tmp_path: Path) -> None:
    """The same bet, matched in the Turn window just before it closes: the market has settled before the page can
    ask the server for its figures (listMarketProfitAndLoss answers for open markets only), so the page sums the
    bets itself, from the prices of their fills as the order stream gives them, exact: +£485.00, not the £484.99
    of the average price to four decimals."""
    live = LiveServer(tmp_path / "exchange.db")
    live.start()
    try:
        live.add_account("bob", "pw-bob", 100_000)
        bob, demo = ApiClient(live.url, "bob", "pw-bob"), ApiClient(live.url, "demo", "demo")
        with watched_page(browser, f"{live.url}/#/table/holdem") as page:
            page.get_by_role("button", name="Log in").click()
            expect(page.locator("#who")).to_have_text("demo")
            # The order stream must be subscribed before the bet: its image holds executable orders only, so a
            # subscription made after the close would never show this bet's fills.
            expect(page.locator("body")).to_have_attribute("data-orders-feed", "live")
            live.to_game_time(window_opens(4))
            [market] = live.snapshot()["game"]["markets"]
            assert market["status"] == "OPEN"
            hand = next(s["selectionId"] for s in market["selections"] if s["status"] == "IN_PLAY")
            bob.place(market["marketId"], hand, "LAY", 3.0, 200)
            bob.place(market["marketId"], hand, "LAY", 3.05, 100)
            demo.place(market["marketId"], hand, "BACK", 3.0, 240)
            live.to_game_time(window_opens(4) + WINDOW_MS)  # the fill and the settlement reach the page together
            expect(page.locator(".market-status")).to_have_text("settled")
            expect(page.locator("#matched li")).to_contain_text("£240.00 at avg 3.0208")
            expect(page.locator(f"tr[data-selection='{hand}'] .pnl")).to_have_text("if wins +£485.00")
            for other in {1, 2, 3, 4} - {hand}:
                expect(page.locator(f"tr[data-selection='{other}'] .pnl")).to_have_text("if wins −£240.00")
    finally:
        live.stop()


def test_the_pages_own_if_wins_is_the_servers_with_hands_settled_early(browser: Browser, tmp_path: Path) -> None:
    """Where the page sums "if wins" itself (between a fill and the server's answer, or once the market has closed),
    it counts as the server does: with bets at several prices, and on hands that can no longer win (their results
    fixed, whatever wins). Here listMarketProfitAndLoss answers the page nothing (as for a closed market), so every
    figure shown is its own: at the Turn (two hands out) each must be the server's, and stay so once settled."""
    live = LiveServer(tmp_path / "exchange.db")
    live.start()
    try:
        market, demo = backs_on_every_hand(live, lays=((3.0, 200), (3.05, 100)))  # fills at two prices
        bob = ApiClient(live.url, "bob", "pw-bob")
        bob.place(market, 2, "BACK", 6.0, 7)
        demo.place(market, 2, "LAY", 6.0, 7)
        with watched_page(browser, f"{live.url}/#/table/holdem") as page:
            page.route("**/exchange/betting/json-rpc/v1", lambda route: route.fulfill(json={"jsonrpc": "2.0", "id": 1,
                       "result": []}) if "listMarketProfitAndLoss" in (route.request.post_data or "")
                       else route.continue_())
            page.get_by_role("button", name="Log in").click()
            expect(page.locator("#settled")).to_have_text("none yet")  # logged in, and the settled bets read
            live.to_game_time(window_opens(4))  # hands settle early: the page reads its settled bets again
            [shown] = live.snapshot()["game"]["markets"]
            assert shown["status"] == "OPEN"
            assert {s["status"] for s in shown["selections"]} == {"IN_PLAY", "CAN_NOT_WIN"}
            [answer] = demo.call("listMarketProfitAndLoss", {"marketIds": [market], "includeSettledBets": True})
            for moment in ("the Turn", "settled"):
                if moment == "settled":  # closed: the figures the server gave last, with the hands settled then
                    live.to_game_time(window_opens(4) + WINDOW_MS)
                    expect(page.locator(".market-status")).to_have_text("settled")
                for figure in answer["profitAndLosses"]:
                    p = round(figure["ifWin"] * 100)
                    words = f"if wins {'+' if p > 0 else '−' if p < 0 else ''}£{abs(p) // 100:,}.{abs(p) % 100:02d}"
                    expect(page.locator(f"tr[data-selection='{figure['selectionId']}'] .pnl")).to_have_text(words)
                # the bets on the hands out are settled, the market not: its row says so (it read as settled, with
                # no commission, while it traded on)
                row = page.locator("#settled tr", has_text=market)
                if moment == "the Turn":
                    expect(row.locator("td").first).to_have_text(f"{market} (in part: still trading)")
                    expect(row.locator("td").nth(3)).to_have_text("at settlement")
                else:
                    [group] = demo.call("listClearedOrders", {"betStatus": "SETTLED", "groupBy": "MARKET",
                                                              "marketIds": [market]})["clearedOrders"]
                    expect(row.locator("td").first).to_have_text(market)
                    expect(row.locator("td").nth(3)).to_have_text(f"£{group['commission']:,.2f}")
    finally:
        live.stop()


def test_a_bet_matched_at_a_better_price_says_at_what(page: Page, server: LiveServer) -> None:
    """A back at 3.00 meets a lay resting at 3.65 and is matched there: the answer said "at 3.00 ... matched" only,
    as if at the price asked."""
    market = server.snapshot()["game"]["id"]
    ApiClient(server.url, "bob", "pw-bob").place(market, 1, "LAY", 3.65, 2)
    server.advance(0)
    page.locator("tr[data-selection='1'] button.price.back.best").click()
    page.locator("#slip-price").fill("3")
    page.locator("#slip-stake").fill("2")
    page.locator("#slip-confirm").click()
    expect(page.locator("#notice")).to_contain_text("Back Hand 1 at 3.00 for £2.00 placed: £2.00 matched at 3.65 (bet ")


def test_a_double_click_on_place_places_one_bet(page: Page, server: LiveServer) -> None:
    """A second click while the first order is on its way is not a second order."""
    market = server.snapshot()["game"]["id"]
    demo = ApiClient(server.url, "demo", "demo")
    page.locator("tr[data-selection='1'] button.price.back.best").click()
    page.locator("#slip-price").fill("50")
    page.locator("#slip-confirm").dblclick()
    expect(page.locator("#notice")).to_contain_text("Back Hand 1 at 50 for £2.00 placed")
    expect(page.locator("#unmatched li")).to_have_count(1)
    assert len(demo.current_orders(market)) == 1


def test_a_double_click_on_change_or_cancel_acts_once_and_says_so(page: Page, server: LiveServer) -> None:
    """A second click on a resting bet's Change (or Cancel) while the first is on its way is not a second request:
    the second would name a bet the first has already replaced (or cancelled), and the server's refusal of it would
    be the last word the trader reads."""
    market = server.snapshot()["game"]["id"]
    demo = ApiClient(server.url, "demo", "demo")
    bet = demo.place(market, 2, "BACK", 50, 2)["betId"]
    server.advance(0)
    sent: list[str] = []  # the API-NG methods the page calls, in order
    page.on("request", lambda r: sent.append(re.sub(r".*SportsAPING/v1.0/(\w+).*", r"\1", r.post_data or "")))
    row = page.locator(f"#unmatched li[data-bet='{bet}']")
    row.get_by_label(f"New odds for bet {bet}").fill("40")
    row.get_by_role("button", name="Change").dblclick()
    expect(page.locator("#notice")).to_contain_text(f"Bet {bet} moved to 40")
    [moved] = [o for o in demo.current_orders(market) if o["status"] == "EXECUTABLE"]
    expect(page.locator("#notice")).to_have_text(f"Bet {bet} moved to 40: it is now bet {moved['betId']}.")
    assert moved["priceSize"]["price"] == 40.0
    page.locator(f"#unmatched li[data-bet='{moved['betId']}']").get_by_role("button", name="Cancel").dblclick()
    expect(page.locator("#notice")).to_have_text(f"Bet {moved['betId']} cancelled.")
    expect(page.locator("#unmatched li[data-bet]")).to_have_count(0)
    assert [m for m in sent if m in ("replaceOrders", "cancelOrders")] == ["replaceOrders", "cancelOrders"]


def test_a_bet_left_unanswered_says_it_may_have_been_placed_not_refused(browser: Browser, server: LiveServer) -> None:
    """The connection fails under a placeOrders: the page cannot know whether the server took the bet. "Refused"
    would tell the trader to place it again (a second bet, if the first went through); the page says the bet may
    have been placed, and to look at the bets first."""
    server.to_game_time(0, next_game=True)
    with watched_page(browser, f"{server.url}/#/table/holdem", browser_says=("net::ERR_FAILED",)) as page:
        page.get_by_role("button", name="Log in").click()
        expect(page.locator("#who")).to_have_text("demo")
        page.route("**/exchange/betting/json-rpc/v1", lambda route: route.abort()
                   if "placeOrders" in (route.request.post_data or "") else route.continue_())
        page.locator("tr[data-selection='1'] button.price.back.best").click()
        page.locator("#slip-price").fill("50")
        page.locator("#slip-confirm").click()
        notice = page.locator("#notice")
        expect(notice).to_contain_text("No answer from the server to this bet")
        expect(notice).to_contain_text("it may have been placed: check your bets before placing it again")


def test_a_bet_whose_answer_and_every_later_read_are_lost_still_says_it_may_have_been_placed(
    browser: Browser, server: LiveServer,
) -> None:
    """The server takes the bet, then the connection fails: its answer is lost, and so are the page's reads of the
    bets and funds that follow. Each of those failed reads said "Refused: the server did not answer", which took
    the place of the "may have been placed" notice within milliseconds (a trader would place the bet again)."""
    server.to_game_time(0, next_game=True)
    with watched_page(browser, f"{server.url}/#/table/holdem", browser_says=("net::ERR_FAILED",)) as page:
        page.get_by_role("button", name="Log in").click()
        expect(page.locator("#who")).to_have_text("demo")
        placed: list[dict[str, Any]] = []
        lost: list[str] = []

        def connection_fails_after_the_bet(route: Route) -> None:
            body = route.request.post_data or ""
            if "placeOrders" in body:
                placed.append(route.fetch().json())  # the server takes it; its answer never arrives
            elif not placed:
                return route.continue_()
            else:
                lost.append(body)
            route.abort()

        page.route("**/exchange/**", connection_fails_after_the_bet)
        page.locator("tr[data-selection='1'] button.price.back.best").click()
        page.locator("#slip-price").fill("50")
        page.locator("#slip-confirm").click()
        notice = page.locator("#notice")
        expect(notice).to_contain_text("No answer from the server to this bet")
        # the slip is given back once the page has read the bets, funds and "if wins" again (and failed)
        expect(page.locator("#slip-confirm")).to_be_enabled()
        assert {"listCurrentOrders", "getAccountFunds"} <= {word for line in lost for word in re.findall(r"\w+", line)}
        expect(notice).to_contain_text("it may have been placed: check your bets before placing it again")
        assert placed[0]["result"]["status"] == "SUCCESS"  # it was placed


def test_while_the_games_stream_is_down_nothing_is_sent_and_the_table_shows_it_is_out_of_date(
    browser: Browser, server: LiveServer,
) -> None:
    """The table looked live (the market open, the countdown running, Place enabled) while the server was down: the
    header's small "reconnecting…" was the only sign, and a bet placed then was "Refused"."""
    server.to_game_time(0, next_game=True)
    market = server.snapshot()["game"]["id"]
    resting = ApiClient(server.url, "demo", "demo").place(market, 2, "BACK", 70, 2)["betId"]
    down: list[bool] = [False]
    sockets: list[WebSocketRoute] = []

    def games_stream(ws: WebSocketRoute) -> None:
        if down[0]:
            ws.close()  # a server that is not there
        else:
            sockets.append(ws)
            ws.connect_to_server()

    with watched_page(browser, "about:blank") as page:
        page.route_web_socket(re.compile(r"/games/v1/stream$"), games_stream)
        page.goto(f"{server.url}/#/table/holdem")
        page.get_by_role("button", name="Log in").click()
        expect(page.locator(f"#unmatched li[data-bet='{resting}']")).to_have_count(1)
        page.locator("tr[data-selection='1'] button.price.back.best").click()
        page.locator("#slip-price").fill("50")
        expect(page.locator("#slip-confirm")).to_be_enabled()
        down[0] = True
        for ws in sockets:
            ws.close()
        expect(page.locator("#connection")).to_have_text("reconnecting…")
        expect(page.locator("body")).to_have_class(re.compile(r"\boffline\b"))
        expect(page.locator("#slip-confirm")).to_be_disabled()
        expect(page.locator("#slip-outcome")).to_have_text(
            "The connection to the server is lost (reconnecting…): no bet is sent until it is back.")
        page.locator(f"#unmatched li[data-bet='{resting}']").get_by_role("button", name="Cancel").click()
        expect(page.locator("#notice")).to_have_text(
            "Not cancelled: the connection to the server is lost (reconnecting…): nothing was sent, and the prices "
            "and figures shown may be out of date until it is back.")
        assert [o["betId"] for o in ApiClient(server.url, "demo", "demo").current_orders(market)] == [resting]
        down[0] = False  # the server is back: the page's next try connects
        expect(page.locator("#connection")).to_have_text("● live")
        expect(page.locator("body")).not_to_have_class(re.compile(r"\boffline\b"))
        expect(page.locator("#slip-confirm")).to_be_enabled()


def test_focus_returns_to_the_price_cell_once_the_bet_is_placed(page: Page, server: LiveServer) -> None:
    """A keyboard trader who filled the slip from a price cell is back on that cell once the bet is placed (or the
    slip cleared), not at the top of the page."""
    for done in ("Enter", "Clear"):
        cell = page.locator(f"tr[data-selection='{2 if done == 'Enter' else 3}'] button.price.back.best")
        cell.focus()
        page.keyboard.press("Enter")
        expect(page.locator("#slip-price")).to_be_focused()
        page.keyboard.type("60")
        if done == "Enter":
            page.keyboard.press("Enter")
            expect(page.locator("#notice")).to_contain_text("Back Hand 2 at 60 for £2.00 placed")
        else:
            page.get_by_role("button", name="Clear").click()
        expect(page.locator("#slip-form")).to_be_hidden()
        expect(cell).to_be_focused()


def test_escape_in_the_slip_clears_it_and_returns_to_the_price_cell(page: Page, server: LiveServer) -> None:
    """A keyboard trader who changes their mind presses Escape in the slip, as in any dialog: the slip is cleared,
    nothing is placed, and the keyboard is back on the price cell that filled it."""
    market = server.snapshot()["game"]["id"]
    cell = page.locator("tr[data-selection='2'] button.price.lay.best")
    cell.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#slip-price")).to_be_focused()
    page.keyboard.type("4")
    page.keyboard.press("Tab")
    expect(page.locator("#slip-stake")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#slip-form")).to_be_hidden()
    expect(cell).to_be_focused()
    assert ApiClient(server.url, "demo", "demo").current_orders(market) == []


def test_new_odds_being_typed_for_an_unmatched_bet_survive_the_next_snapshot(page: Page,
                                                                           server: LiveServer) -> None:
    """Prices move while a trader types new odds for a resting bet: the snapshots that bring them leave the field
    as typed and focused, and Change moves the bet to those odds."""
    market = server.snapshot()["game"]["id"]
    bob, demo = ApiClient(server.url, "bob", "pw-bob"), ApiClient(server.url, "demo", "demo")
    bet = demo.place(market, 2, "BACK", 50, 2)["betId"]
    server.advance(0)
    field = page.get_by_label(f"New odds for bet {bet}")
    expect(field).to_have_value("50")
    field.fill("4")
    bob.place(market, 1, "LAY", 3.0, 2)  # a snapshot with a new price on the table
    server.advance(0)
    expect(page.locator("tr[data-selection='1'] button.price.back.best")).to_contain_text("3.00")
    expect(field).to_have_value("4")
    expect(field).to_be_focused()
    page.keyboard.type("6")
    page.locator(f"#unmatched li[data-bet='{bet}']").get_by_role("button", name="Change").click()
    expect(page.locator("#notice")).to_contain_text(f"Bet {bet} moved to 46")
    [moved] = [o for o in demo.current_orders(market) if o["status"] == "EXECUTABLE"]
    expect(page.locator("#notice")).to_have_text(f"Bet {bet} moved to 46: it is now bet {moved['betId']}.")
    assert moved["priceSize"]["price"] == 46.0


def test_a_change_of_odds_that_cannot_be_covered_says_the_bet_was_cancelled(page: Page, server: LiveServer) -> None:
    """As Betfair's, a replace cancels first and the cancel stands when the new bet cannot be covered: the page says
    the bet is gone and not moved, not "Refused" (which read as the bet left as it was)."""
    market = server.snapshot()["game"]["id"]
    demo = ApiClient(server.url, "demo", "demo")
    stake = int(demo.funds()["availableToBetBalance"])  # what the tests before left it, in whole pounds
    assert stake >= 2
    bet = demo.place(market, 2, "LAY", 1.5, stake)["betId"]  # liability half the stake: covered
    server.advance(0)
    row = page.locator(f"#unmatched li[data-bet='{bet}']")
    row.get_by_label(f"New odds for bet {bet}").fill("3")  # liability twice the stake: more than the balance covers
    row.get_by_role("button", name="Change").click()
    # what the check found, as the server words it (the figures depend on the demo account's other bets)
    expect(page.locator("#notice")).to_have_text(re.compile(
        rf"Bet {bet} cancelled, but not moved to 3\.00: the new price needs [\d.]+ more exposure but only [\d.]+ is "
        r"available to bet \(CANCELLED_NOT_PLACED\)\."))
    expect(page.locator("#unmatched li[data-bet]")).to_have_count(0)
    assert [o["status"] for o in demo.current_orders(market)] == ["EXECUTION_COMPLETE"]


def test_a_resting_bets_odds_are_changed_from_the_keyboard_alone(page: Page, server: LiveServer) -> None:
    """A keyboard trader in a resting bet's odds field: the arrow keys step the odds along the ladder, as in the
    slip (50 up one tick is 55, the ladder's step there being 5), and Enter changes the bet, as Change does."""
    market = server.snapshot()["game"]["id"]
    demo = ApiClient(server.url, "demo", "demo")
    bet = demo.place(market, 2, "BACK", 50, 2)["betId"]
    server.advance(0)
    field = page.get_by_label(f"New odds for bet {bet}")
    expect(field).to_have_value("50")
    field.focus()
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowDown")
    expect(field).to_have_value("55")
    page.keyboard.press("Enter")
    expect(page.locator("#notice")).to_contain_text(f"Bet {bet} moved to 55")
    [moved] = [o for o in demo.current_orders(market) if o["status"] == "EXECUTABLE"]
    expect(page.locator("#notice")).to_have_text(f"Bet {bet} moved to 55: it is now bet {moved['betId']}.")
    assert moved["priceSize"]["price"] == 55.0


def test_a_fill_streamed_while_the_bets_are_being_read_is_not_undone_by_the_older_answer(
        page: Page, server: LiveServer) -> None:
    """The page reads the account's bets (listCurrentOrders: the bet resting) and, before that answer arrives, the
    order stream brings the bet's fill. The answer, older than the fill, must not put the bet back unmatched."""
    market = server.snapshot()["game"]["id"]
    bob, demo = ApiClient(server.url, "bob", "pw-bob"), ApiClient(server.url, "demo", "demo")
    expect(page.locator("body")).to_have_attribute("data-orders-feed", "live")
    bet = demo.place(market, 1, "BACK", 3.0, 2)["betId"]
    server.advance(0)
    expect(page.locator(f"#unmatched li[data-bet='{bet}']")).to_have_count(1)
    held: list[Route] = []

    def hold_first_read(route: Route) -> None:
        if held or "listCurrentOrders" not in (route.request.post_data or ""):
            route.continue_()
        else:
            held.append(route)  # answered by the test, later

    page.route("**/exchange/betting/json-rpc/v1", hold_first_read)
    with page.expect_request(lambda r: "listCurrentOrders" in (r.post_data or "")):
        page.get_by_role("link", name="← All tables").click()
        page.locator(".lobby-card[data-channel='holdem']").click()  # the table again: its bets are read
    stale = demo.call("listCurrentOrders", {"marketIds": [market]})  # the server's answer as the page asked
    assert [o["sizeMatched"] for o in stale["currentOrders"]] == [0.0]
    bob.place(market, 1, "LAY", 3.0, 2)
    server.advance(0)
    expect(page.locator(f"#matched li[data-bet='{bet}']")).to_contain_text("£2.00 at 3.00")
    [route] = held
    with page.expect_request(lambda r: "listMarketProfitAndLoss" in (r.post_data or "")):  # (the answer applied)
        route.fulfill(json={"jsonrpc": "2.0", "id": 1, "result": stale})
    expect(page.locator(f"#matched li[data-bet='{bet}']")).to_contain_text("£2.00 at 3.00")
    expect(page.locator(f"#unmatched li[data-bet='{bet}']")).to_have_count(0)


def test_an_open_ladder_shows_the_latest_prices_after_a_quick_change(page: Page, server: LiveServer) -> None:
    """The full ladder is read at most every 400 ms: a change within that time of the last read is shown once the
    time is up, not left out until some later snapshot."""
    market = server.snapshot()["game"]["id"]
    bob = ApiClient(server.url, "bob", "pw-bob")
    bob.place(market, 1, "LAY", 3.0, 10)
    server.advance(0)
    page.get_by_role("button", name="Full ladder of Hand 1").click()
    price = page.get_by_role("button", name="Back Hand 1 at 3.00", exact=True)
    expect(price).to_have_text("£10")
    bob.place(market, 1, "LAY", 3.0, 5)  # more at the same odds, and a new level
    bob.place(market, 1, "LAY", 2.9, 4)
    server.advance(0)
    expect(page.get_by_role("button", name="Back Hand 1 at 2.90", exact=True)).to_have_text("£4")
    expect(price).to_have_text("£15")


def test_a_price_in_an_open_ladder_keeps_the_keyboards_focus_as_the_ladder_refreshes(page: Page,
                                                                                    server: LiveServer) -> None:
    """A price focused in the full ladder stays focused as the ladder is read again (its size updated in place),
    so Enter fills the slip at it."""
    market = server.snapshot()["game"]["id"]
    bob = ApiClient(server.url, "bob", "pw-bob")
    bob.place(market, 1, "LAY", 3.0, 10)
    server.advance(0)
    page.get_by_role("button", name="Full ladder of Hand 1").click()
    price = page.get_by_role("button", name="Back Hand 1 at 3.00", exact=True)
    expect(price).to_have_text("£10")
    price.focus()
    bob.place(market, 1, "LAY", 3.0, 5)
    bob.place(market, 1, "LAY", 3.05, 4)  # a level above it
    server.advance(0)
    expect(page.get_by_role("button", name="Back Hand 1 at 3.05", exact=True)).to_have_text("£4")
    expect(price).to_have_text("£15")
    expect(price).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#slip-what")).to_have_text(f"Back Hand 1 · {market}")
    expect(page.locator("#slip-price")).to_have_value("3.00")


def test_opening_a_ladder_on_a_phone_leaves_the_price_grid_as_it_was(page: Page, server: LiveServer) -> None:
    """A phone's width shows only the best price of each side: a ladder opened under a hand spans those columns,
    and every price cell keeps its width (the ladder's row spanning the hidden ones squeezed them till "Back"
    and the prices no longer fitted)."""
    market = server.snapshot()["game"]["id"]
    ApiClient(server.url, "bob", "pw-bob").place(market, 1, "LAY", 3.0, 150.5)
    server.advance(0)
    page.set_viewport_size({"width": 390, "height": 844})
    best = page.locator("tr[data-selection='1'] button.price.back.best")
    expect(best).to_have_text("3.00£150")
    width = _width(best)
    page.get_by_role("button", name="Full ladder of Hand 1").click()
    expect(page.locator(".ladder-row")).to_contain_text("£150")
    assert _width(best) == width
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.set_viewport_size({"width": 1280, "height": 900})  # and back to a laptop's: all six columns again
    expect(page.locator("tr[data-selection='1'] button.price.back[data-level='2']")).to_be_visible()
    page.wait_for_function(  # the page fits its ladders on the resize event, which comes after the new layout
        """() => { const cell = document.querySelector('.ladder-row td');
                   const row = cell.closest('tr').previousElementSibling;
                   const shown = [...row.cells].filter((c) => getComputedStyle(c).display !== 'none');
                   return cell.colSpan === shown.length; }""",
        timeout=5_000)
    assert _width(page.locator(".ladder-row td").first) > _width(best) * 6


def _width(locator: Locator) -> float:
    box = locator.bounding_box()
    assert box is not None, "the element is not laid out"
    return box["width"]


def test_every_bet_on_the_table_is_listed_past_a_page_of_current_orders(browser: Browser, tmp_path: Path) -> None:
    """listCurrentOrders answers a page at a time (1,000 orders by default; one here): an account with more bets on
    the table than a page, or than twenty pages, sees them all, the matched and the lapsed included."""
    live = LiveServer(tmp_path / "exchange.db", limits=Limits(max_rows_per_call=1))
    live.start()
    try:
        live.add_account("bob", "pw-bob", 100_000)
        market = live.snapshot()["game"]["id"]
        bob, demo = ApiClient(live.url, "bob", "pw-bob"), ApiClient(live.url, "demo", "demo")
        bob.place(market, 1, "LAY", 3.0, 2)
        bets = [demo.place(market, 1, "BACK", 3.0, 2)["betId"]]  # matched
        bets += [demo.place(market, 2, "BACK", price, 2)["betId"] for price in range(30, 990, 40)]  # 24 unmatched
        live.advance(0)
        with watched_page(browser, f"{live.url}/#/table/holdem") as page:
            page.get_by_role("button", name="Log in").click()
            expect(page.locator(f"#matched li[data-bet='{bets[0]}']")).to_contain_text("£2.00 at 3.00")
            expect(page.locator("#unmatched li[data-bet]")).to_have_count(len(bets) - 1)
            live.advance(WINDOW_MS)  # the Deal window closes: they lapse
            expect(page.locator("#cancelled li[data-bet]")).to_have_count(len(bets) - 1)
            for bet in bets[1:]:
                expect(page.locator(f"#cancelled li[data-bet='{bet}']")).to_contain_text("lapsed")
    finally:
        live.stop()


def test_on_a_phone_the_answer_to_a_bet_is_in_view_of_the_slip(page: Page, server: LiveServer) -> None:
    """At a phone's width the slip is far below the top of the page: the server's answer to a bet (here a refusal,
    in its own words) is shown where the trader is looking, not at the top of the page, out of view."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator("tr[data-selection='3'] button.price.lay.best").click()
    page.locator("#slip-price").fill("3.03")
    page.locator("#slip-confirm").click()
    notice = page.locator("#notice")
    expect(notice).to_contain_text("price 3.03 is not on the ladder")
    expect(notice).to_be_in_viewport()
    expect(page.locator("#slip-confirm")).to_be_in_viewport()
