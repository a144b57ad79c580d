"""The trading page on a live Omaha Hi/Lo table in headless Chromium: the two markets as a trader meets them.

One server (a single ``omaha-hilo`` channel, no house, on a virtual clock) and
one browser for the module; each test starts from a fresh game in a fresh
browser context and ends by checking the page logged no console error. Bets go
in through the page's own bet slip, and what the page then shows is checked
against what the server's API-NG answers the same account.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from playwright.sync_api import Browser, Locator, Page, expect

from exchange.game.channels import OMAHA_HILO
from exchange.server.limits import Limits
from tests.page.harness import WINDOW_MS, ApiClient, LiveServer, watched_page, window_opens

CHANNEL = OMAHA_HILO.name


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path_factory.mktemp("page-hilo") / "exchange.db", channel=CHANNEL)
    live.start()
    live.add_account("bob", "pw-bob", 1_000_000)
    live.add_account("ops", "pw-ops", 0, operator=True)
    yield live
    live.stop()


@pytest.fixture
def page(browser: Browser, server: LiveServer) -> Iterator[Page]:
    """A fresh tab, logged in as ``demo``, at the table of a fresh game."""
    server.to_game_time(0, next_game=True)
    with watched_page(browser, f"{server.url}/#/table/{CHANNEL}") as tab:
        tab.get_by_role("button", name="Log in").click()
        expect(tab.locator("#who")).to_have_text("demo")
        expect(tab.locator("#markets .market")).to_have_count(2)
        yield tab


def markets(server: LiveServer) -> tuple[str, str]:
    """The ids of the current game's High and Low markets."""
    high, low = (m["marketId"] for m in server.snapshot()["game"]["markets"])
    return high, low


def slip(page: Page, market: str, selection: int, side: str) -> Locator:
    """Click the best price cell of ``side`` for ``selection`` of ``market``; the bet slip it filled."""
    row = page.locator(f"section[data-market='{market}'] tr[data-selection='{selection}']")
    row.locator(f"button.price.{side.lower()}.best").click()
    expect(page.locator("#slip-form")).to_be_visible()
    return page.locator("#slip-form")


def place(page: Page, market: str, selection: int, side: str, price: str, stake: str) -> None:
    form = slip(page, market, selection, side)
    form.locator("#slip-price").fill(price)
    form.locator("#slip-stake").fill(stake)
    form.locator("#slip-confirm").click()


def test_a_bet_left_unmatched_is_listed_lapsed_when_its_window_closes(page: Page, server: LiveServer) -> None:
    high, _ = markets(server)
    demo = ApiClient(server.url, "demo", "demo")
    place(page, high, 2, "BACK", "80", "2")
    expect(page.locator("#notice")).to_contain_text("£0.00 matched")
    [order] = demo.current_orders(high)
    bet = order["betId"]
    expect(page.locator(f"#unmatched li[data-bet='{bet}']")).to_contain_text("£2.00 at 80")

    server.advance(WINDOW_MS)  # the Deal window closes: what rests lapses
    [lapsed] = demo.current_orders(high)
    assert (lapsed["status"], lapsed["sizeLapsed"], lapsed["sizeCancelled"]) == ("EXECUTION_COMPLETE", 2.0, 0.0)
    expect(page.locator(f"#unmatched li[data-bet='{bet}']")).to_have_count(0)
    expect(page.locator(f"#cancelled li[data-bet='{bet}']")).to_contain_text("£2.00 at 80 lapsed")


def test_bets_made_before_the_page_was_reloaded_are_listed_again(page: Page, server: LiveServer) -> None:
    """A reload (or a table opened straight from its address) reads the account's bets on the table back: the
    matched one with its "if wins" and the lapsed one, neither of which the order stream's image holds."""
    high, _ = markets(server)
    bob, demo = ApiClient(server.url, "bob", "pw-bob"), ApiClient(server.url, "demo", "demo")
    bob.place(high, 1, "LAY", 3.0, 10)
    server.advance(0)
    place(page, high, 1, "BACK", "3", "4")
    expect(page.locator("#notice")).to_contain_text("£4.00 matched")
    place(page, high, 2, "BACK", "80", "2")
    expect(page.locator("#notice")).to_contain_text("£0.00 matched")
    server.advance(WINDOW_MS)
    backed, lapsed = (o["betId"] for o in sorted(demo.current_orders(high), key=lambda o: int(o["betId"])))
    for _ in range(3):
        page.reload()
        expect(page.locator(f"#matched li[data-bet='{backed}']")).to_contain_text("£4.00 at 3.00")
        expect(page.locator(f"section[data-market='{high}'] tr[data-selection='1'] .pnl")).to_have_text(
            "if wins +£8.00")
        expect(page.locator(f"#cancelled li[data-bet='{lapsed}']")).to_contain_text("£2.00 at 80 lapsed")


def test_settled_bets_name_no_low_and_agree_with_the_cleared_orders(page: Page, server: LiveServer) -> None:
    """The Low market's fifth selection is "No low" in the settled bets too, and each settled market and bet
    shows the profit and commission listClearedOrders gives the account."""
    high, low = markets(server)
    bob, demo = ApiClient(server.url, "bob", "pw-bob"), ApiClient(server.url, "demo", "demo")
    bob.place(low, 5, "LAY", 2.0, 10)
    bob.place(high, 3, "LAY", 4.0, 10)
    server.advance(0)
    place(page, low, 5, "BACK", "2", "3")
    expect(page.locator("#notice")).to_contain_text("£3.00 matched")
    place(page, high, 3, "BACK", "4", "2.50")
    expect(page.locator("#notice")).to_contain_text("£2.50 matched")
    server.to_game_time(window_opens(4) + WINDOW_MS)  # the Turn window closes: the river, both markets settle
    expect(page.locator(f"#results li[data-game='{high}']")).to_have_count(1)

    bets = demo.call("listClearedOrders", {"betStatus": "SETTLED", "marketIds": [high, low]})["clearedOrders"]
    assert sorted((b["marketId"], b["selectionId"]) for b in bets) == [(high, 3), (low, 5)]
    for bet in bets:  # named by the game, as the bets list names them: the Low one was "<game>-low No low"
        name = f"{high} No low · Low" if bet["marketId"] == low else f"{high} Hand 3 · High"
        shown = page.locator("#settled-bets li", has_text=name)
        expect(shown).to_have_count(1)
        expect(shown).to_contain_text(f"profit {money(bet['profit'])}")
    groups = demo.call("listClearedOrders", {"betStatus": "SETTLED", "groupBy": "MARKET",
                                             "marketIds": [high, low]})["clearedOrders"]
    for group in groups:
        market = page.locator("td:first-child", has_text=re.compile(rf"^{re.escape(group['marketId'])}$"))
        row = page.locator("#settled tr").filter(has=market)
        expect(row.locator("td").nth(2)).to_have_text(money(group["profit"]))
        expect(row.locator("td").nth(3)).to_have_text(money(group["commission"]))


def test_if_wins_follows_a_hand_settled_early_while_its_market_trades_on(page: Page, server: LiveServer) -> None:
    """A hand settled early fixes the results of the bets on it while its market trades on, with no bet matched:
    the page kept the figures from before (a green "if wins +£2.00" beside a hand that had lost) until reloaded.
    Bets on every selection of both markets, then at each reveal (before the next window opens, which brings nothing
    that would read the figures again): each selection settled early shows what listMarketProfitAndLoss says, game
    after game until one has settled a hand early in a market still open."""
    bob, demo = ApiClient(server.url, "bob", "pw-bob"), ApiClient(server.url, "demo", "demo")
    checked = 0
    for _ in range(4):  # games
        high, low = markets(server)
        for market, selections in ((high, range(1, 5)), (low, range(1, 6))):
            for selection in selections:
                bob.place(market, selection, "LAY", 3.0, 2)
                demo.place(market, selection, "BACK", 3.0, 2)
        server.advance(0)
        for number in (2, 3, 4):
            server.to_game_time(window_opens(number) - 1)  # the cards turned, the next window not open yet
            game = server.snapshot()["game"]
            open_ids = [m["marketId"] for m in game["markets"] if m["status"] != "CLOSED"]
            settled = {m["marketId"]: [s["selectionId"] for s in m["selections"] if s["status"] != "IN_PLAY"]
                       for m in game["markets"] if m["marketId"] in open_ids}
            if not any(settled.values()):
                continue
            answer = demo.call("listMarketProfitAndLoss", {"marketIds": open_ids, "includeSettledBets": True})
            for market in answer:
                for figure in market["profitAndLosses"]:
                    if figure["selectionId"] in settled[market["marketId"]]:
                        shown = page.locator(f"section[data-market='{market['marketId']}'] "
                                             f"tr[data-selection='{figure['selectionId']}'] .pnl")
                        if_win = figure["ifWin"]
                        expect(shown).to_have_text(f"if wins {'+' if if_win > 0 else ''}{money(if_win)}")
                        checked += 1
        if checked:
            return
        server.to_game_time(0, next_game=True)
    raise AssertionError("no hand was settled early in a market still open in four games")


@pytest.mark.parametrize(("odds", "stake", "why"), [
    ("", "2", "Give the odds: 1.01 to 1000."),
    ("abc", "2", "Odds abc are not a number: give decimal odds, 1.01 to 1000."),
    ("1", "2", "Odds 1 are below the lowest on the ladder, 1.01."),
    ("1001", "2", "Odds 1001 are above the highest on the ladder, 1000."),
    ("3.03", "2", "Odds 3.03 are not on the ladder: the nearest are 3.00 and 3.05."),
    ("3.001", "2", "Odds 3.001 are not on the ladder: the nearest are 3.00 and 3.05."),
    ("3", "", "Give a stake in pounds."),
    ("3", "x", "Stake x is not an amount: give pounds and pence, e.g. 2.50."),
    ("3", "-1", "Stake -1 must be at least this market's minimum stake, £2.00."),
    ("3", "0", "Stake 0 must be at least this market's minimum stake, £2.00."),
    ("3", "+5", "Stake +5 is not an amount: give pounds and pence, e.g. 2.50."),
    ("+3", "2", "Odds +3 are not a number: give decimal odds, 1.01 to 1000."),
    ("3", "2.555", "Stake 2.555 has more than two decimals: give pounds and pence, e.g. 2.50."),
    ("3", "0x10", "Stake 0x10 is not an amount: give pounds and pence, e.g. 2.50."),
    ("3", "1e2", "Stake 1e2 is not an amount: give pounds and pence, e.g. 2.50."),
    ("0x10", "2", "Odds 0x10 are not a number: give decimal odds, 1.01 to 1000."),
])
def test_the_slip_says_what_is_wrong_with_the_odds_or_stake_before_anything_is_sent(
        page: Page, server: LiveServer, odds: str, stake: str, why: str) -> None:
    """What the page can see is wrong is said in the slip, in place of a profit it could not pay; where the
    server could only misname it (no odds sent as "price 0", text as "price is required") nothing is sent, nor
    where it would read them otherwise than as typed (hexadecimal or an exponent, which a browser's number takes)."""
    _, low = markets(server)
    demo = ApiClient(server.url, "demo", "demo")
    form = slip(page, low, 5, "LAY")
    form.locator("#slip-price").fill(odds)
    form.locator("#slip-stake").fill(stake)
    expect(page.locator("#slip-outcome")).to_have_text(why)
    form.locator("#slip-confirm").click()
    unsendable = odds in ("", "abc", "0x10", "+3") or stake in ("", "x", "0x10", "1e2", "-1", "0", "+5")
    expect(page.locator("#notice")).to_contain_text(why if unsendable else "Refused")
    assert demo.current_orders(low) == []

def test_a_change_of_odds_left_empty_or_off_the_ladder_is_stopped_and_said(page: Page, server: LiveServer) -> None:
    """Odds off the ladder are stopped too: sent, the server would cancel the bet and place none (a replace cancels
    first, as Betfair's), so a typo would cost the bet."""
    high, _ = markets(server)
    demo = ApiClient(server.url, "demo", "demo")
    place(page, high, 2, "BACK", "80", "2")
    expect(page.locator("#notice")).to_contain_text("£0.00 matched")
    [order] = demo.current_orders(high)
    row = page.locator(f"#unmatched li[data-bet='{order['betId']}']")
    for typed, said in (("", "Give the odds: 1.01 to 1000."),
                        ("3.03", "Odds 3.03 are not on the ladder: the nearest are 3.00 and 3.05."),
                        ("1001", "Odds 1001 are above the highest on the ladder, 1000.")):
        row.get_by_label(f"New odds for bet {order['betId']}").fill(typed)
        row.get_by_role("button", name="Change").click()
        expect(page.locator("#notice")).to_have_text(f"Not changed: {said}")
    [same] = demo.current_orders(high)
    assert (same["betId"], same["priceSize"]["price"], same["status"]) == (order["betId"], 80.0, "EXECUTABLE")

def test_if_wins_agrees_with_the_servers_profit_and_loss_when_a_bet_fills_at_two_prices(
        page: Page, server: LiveServer) -> None:
    """A back of £300 taking £100 at 3.05 and £200 at 3.00 wins £605.00 if its hand wins: its average price,
    3.0167 to four places, is no ladder price and no base for the sum (£605.01 from it, £606.00 from 3.02); each
    selection's "if wins" is what listMarketProfitAndLoss says, on the Low market's five selections too."""
    high, low = markets(server)
    bob, demo = ApiClient(server.url, "bob", "pw-bob"), ApiClient(server.url, "demo", "demo")
    for market, selection in ((high, 1), (low, 5)):
        bob.place(market, selection, "LAY", 3.0, 200)
        bob.place(market, selection, "LAY", 3.05, 100)
    server.advance(0)
    notice, said = page.locator("#notice"), ""
    for market, selection in ((high, 1), (low, 5)):
        place(page, market, selection, "BACK", "3", "300")
        expect(notice).not_to_have_text(said)  # the second bet's own notice (it names its bet), not the first's
        expect(notice).to_contain_text("£300.00 matched")
        said = notice.inner_text()
    answer = demo.call("listMarketProfitAndLoss", {"marketIds": [high, low]})
    assert {m["marketId"]: len(m["profitAndLosses"]) for m in answer} == {high: 4, low: 5}
    for market in answer:
        for selection in market["profitAndLosses"]:
            shown = page.locator(f"section[data-market='{market['marketId']}'] "
                                 f"tr[data-selection='{selection['selectionId']}'] .pnl")
            if_win = selection["ifWin"]
            expect(shown).to_have_text(f"if wins {'+' if if_win > 0 else ''}{money(if_win)}")
    [backed] = [p for m in answer if m["marketId"] == high for p in m["profitAndLosses"] if p["selectionId"] == 1]
    assert backed["ifWin"] == 605.0

def test_an_operators_void_mid_game_shows_both_markets_void_and_the_bets_refunded(
        page: Page, server: LiveServer) -> None:
    """An operator voids the game in its Pre-flop window (by its High market's id): both markets are shown void,
    the matched bet voided (out of the matched list, its "if wins" gone), the resting one cancelled, and the
    balance and exposure are back where they were before any bet."""
    high, low = markets(server)
    bob, demo = ApiClient(server.url, "bob", "pw-bob"), ApiClient(server.url, "demo", "demo")
    before = demo.funds()["availableToBetBalance"]
    server.to_game_time(window_opens(2))
    bob.place(high, 1, "LAY", 3.0, 10)
    server.advance(0)
    place(page, high, 1, "BACK", "3", "5")
    expect(page.locator("#notice")).to_contain_text("£5.00 matched")
    place(page, high, 2, "BACK", "90", "2")
    expect(page.locator("#notice")).to_contain_text("£0.00 matched")
    matched, resting = sorted(demo.current_orders(high), key=lambda o: int(o["betId"]))
    expect(page.locator(f"section[data-market='{high}'] tr[data-selection='1'] .pnl")).to_have_text("if wins +£10.00")

    ops = ApiClient(server.url, "ops", "pw-ops")
    answer = requests.post(f"{server.url}/operator/v1/markets/{high}/void", json={"reason": "a fault"},
                           headers=ops.headers, timeout=5)
    assert answer.status_code == 200, answer.text
    server.advance(0)
    for market in (high, low):
        expect(page.locator(f"section[data-market='{market}'] .market-status")).to_have_text("void")
    expect(page.locator("#round-name")).to_have_text("Pre-flop · void")
    expect(page.locator(f"#matched li[data-bet='{matched['betId']}']")).to_have_count(0)
    expect(page.locator(f"#cancelled li[data-bet='{matched['betId']}']")).to_contain_text("£5.00 matched, voided")
    expect(page.locator(f"#cancelled li[data-bet='{resting['betId']}']")).to_contain_text("£2.00 at 90 cancelled")
    expect(page.locator(f"section[data-market='{high}'] tr[data-selection='1'] .pnl")).to_have_text("")
    assert demo.funds()["availableToBetBalance"] == before
    expect(page.locator("#balance")).to_have_text(money(before))
    expect(page.locator("#exposure")).to_have_text("£0.00")

def test_each_price_and_ladder_button_names_its_market(page: Page, server: LiveServer) -> None:
    """A screen reader lists buttons by name: with two markets on the table "Back Hand 1 at 3.00" would be two
    buttons, so each says which market it trades; the keyboard's Enter on one fills the slip for that market."""
    high, low = markets(server)
    bob = ApiClient(server.url, "bob", "pw-bob")
    bob.place(high, 1, "LAY", 3.0, 10)
    bob.place(low, 1, "LAY", 3.0, 10)
    server.advance(0)
    for title in ("High", "Low"):
        button = page.get_by_role("button", name=f"Back Hand 1, {title} market, at 3.00, £10 available")
        expect(button).to_have_count(1)
        button.focus()
        page.keyboard.press("Enter")
        expect(page.locator("#slip-what")).to_have_text(f"Back Hand 1 · {title}")  # as the bets list names it
        expect(page.get_by_role("button", name=f"Full ladder of Hand 1, {title} market")).to_have_count(1)
    no_low = page.locator(f"section[data-market='{low}'] tr[data-selection='5'] button.price.lay.best")
    expect(no_low).to_have_attribute("aria-label", "Lay No low, Low market (no price offered: choose your own)")
    names = page.evaluate("[...document.querySelectorAll('#markets button.best, #markets .ladder-btn')]"
                          ".map((b) => b.getAttribute('aria-label'))")
    assert len(names) == 3 * 9 and len(set(names)) == len(names)

def test_the_settled_lists_show_the_latest_bets_past_a_page_of_cleared_orders(
        browser: Browser, tmp_path: Path) -> None:
    """listClearedOrders answers a page at a time, oldest first (1,000 rows by default; 3 here): an account with
    more settled bets than a page still sees its latest markets and bets, not the oldest page's."""
    live = LiveServer(tmp_path / "exchange.db", limits=Limits(max_rows_per_call=3))
    live.start()
    try:
        live.add_account("bob", "pw-bob", 100_000)
        bob, demo = ApiClient(live.url, "bob", "pw-bob"), ApiClient(live.url, "demo", "demo")
        games = []
        for stake in (2, 3, 4):  # three games of two matched bets each
            market = live.snapshot()["game"]["id"]
            games.append(market)
            for selection in (1, 2):
                bob.place(market, selection, "LAY", 4.0, stake)
                demo.place(market, selection, "BACK", 4.0, stake)
            live.to_game_time(0, next_game=True)  # the game settles, the next one is dealt
        with watched_page(browser, f"{live.url}/") as page:
            page.get_by_role("button", name="Log in").click()
            last = games[-1]
            expect(page.locator("#settled tr").first.locator("td").first).to_have_text(last)
            expect(page.locator("#settled-bets li").first).to_contain_text(f"{last} Hand")
            expect(page.locator("#settled-bets li").first).to_contain_text("£4.00 at 4.00")
    finally:
        live.stop()

def test_the_slip_rounds_profit_and_liability_as_settlement_pays_them(page: Page, server: LiveServer) -> None:
    """£2.57 backed at 1.33 wins £0.8481, paid £0.85; £2.50 laid at 1.33 risks £0.825, an exact half penny that
    settlement rounds down, so the layer pays £0.83. The slip says so before the bet, and listMarketProfitAndLoss
    after it."""
    high, low = markets(server)
    bob, demo = ApiClient(server.url, "bob", "pw-bob"), ApiClient(server.url, "demo", "demo")
    bob.place(high, 2, "LAY", 1.33, 10)
    bob.place(low, 1, "BACK", 1.33, 10)
    server.advance(0)
    for market, selection, side, stake, words in (
            (high, 2, "BACK", "2.57", "Profit £0.85 if Hand 2 wins; you risk £2.57."),
            (low, 1, "LAY", "2.50", "Liability £0.83 if Hand 1 wins; you win £2.50 if it loses.")):
        form = slip(page, market, selection, side)
        form.locator("#slip-stake").fill(stake)
        expect(form.locator("#slip-price")).to_have_value("1.33")
        expect(page.locator("#slip-outcome")).to_have_text(words)
        form.locator("#slip-confirm").click()
        expect(page.locator("#notice")).to_contain_text(f"£{stake} matched")
    answer = demo.call("listMarketProfitAndLoss", {"marketIds": [high, low]})
    if_win = {(m["marketId"], p["selectionId"]): p["ifWin"] for m in answer for p in m["profitAndLosses"]}
    assert (if_win[(high, 2)], if_win[(low, 1)]) == (0.85, -0.83)

def test_a_session_ended_elsewhere_logs_the_page_out(page: Page, server: LiveServer) -> None:
    """The session is logged out by another client (or expires): the order stream says so and closes; the page
    says it too and offers the login again, rather than go on showing a balance and bets it no longer hears of."""
    token = page.evaluate("JSON.parse(sessionStorage.getItem('session')).token")
    answer = requests.post(f"{server.url}/api/logout", headers={"X-Application": "exchange-poker-page",
                                                                "X-Authentication": token}, timeout=5).json()
    assert answer["status"] == "SUCCESS", answer
    server.advance(0)
    expect(page.locator("#notice")).to_have_text("Your session has ended (the server restarted, or the session "
                                                  "expired or was logged out elsewhere): log in again to trade.")
    expect(page.locator("#login-form")).to_be_visible()
    expect(page.locator("#funds")).to_be_hidden()
    expect(page.locator("#orders-login")).to_be_visible()

def test_a_size_on_the_grid_never_shows_more_than_is_there(page: Page, server: LiveServer) -> None:
    """A size of £100 or more is shown in whole pounds: £150.50 on offer reads "£150", never "£151", as a
    bet of the size shown should be matched in full (on the price grid and in the full ladder alike)."""
    high, _ = markets(server)
    bob = ApiClient(server.url, "bob", "pw-bob")
    bob.place(high, 1, "LAY", 3.0, 150.5)
    bob.place(high, 1, "LAY", 2.98, 99.99)
    server.advance(0)
    row = page.locator(f"section[data-market='{high}'] tr[data-selection='1']")
    expect(row.locator("button.price.back[data-level='0']")).to_have_text("3.00£150")
    expect(row.locator("button.price.back[data-level='1']")).to_have_text("2.98£99.99")
    row.locator(".ladder-btn").click()
    expect(page.locator(".ladder-row tbody tr").first).to_have_text("£1503.00")

def test_the_arrow_keys_step_the_odds_along_the_ladder(page: Page, server: LiveServer) -> None:
    """From empty odds (a cell with no price) ↑ and ↓ step from 2.00; odds off the ladder go to the tick above or
    below; each press is one tick, the band's own step."""
    high, _ = markets(server)
    form = slip(page, high, 1, "BACK")
    odds = form.locator("#slip-price")
    expect(odds).to_have_value("")
    expect(odds).to_be_focused()
    for key, shown in (("ArrowUp", "2.02"), ("ArrowUp", "2.04"), ("ArrowDown", "2.02"), ("ArrowDown", "2.00"),
                       ("ArrowDown", "1.99")):
        page.keyboard.press(key)
        expect(odds).to_have_value(shown)
    odds.fill("")
    page.keyboard.press("ArrowDown")
    expect(odds).to_have_value("1.99")
    odds.fill("3.03")
    page.keyboard.press("ArrowUp")
    expect(odds).to_have_value("3.05")
    odds.fill("3.03")
    page.keyboard.press("ArrowDown")
    expect(odds).to_have_value("3.00")

def money(pounds: float) -> str:
    """Pounds as the page shows them: "£1,234.50", "−£2.00"."""
    sign = "−" if pounds < 0 else ""
    return f"{sign}£{abs(pounds):,.2f}"


def test_each_bet_listed_says_which_market_it_is_on(page: Page, server: LiveServer) -> None:
    """A back of Hand 1 on the High market and one on the Low are two different bets: the lists, and the answer
    to a bet placed from the slip, name the market of each (on a one-market table the selection alone is
    enough)."""
    high, low = markets(server)
    demo = ApiClient(server.url, "demo", "demo")
    bets = {market: demo.place(market, 1, "BACK", 80, 2)["betId"] for market in (high, low)}
    server.advance(0)
    for market, name in ((high, "High"), (low, "Low")):
        expect(page.locator(f"#unmatched li[data-bet='{bets[market]}']")).to_contain_text(f"Hand 1 · {name}£2.00 at 80")
    place(page, low, 2, "BACK", "90", "2")  # the slip's answer names the market too
    expect(page.locator("#notice")).to_contain_text("Back Hand 2 · Low at 90 for £2.00 placed")
    server.advance(WINDOW_MS)  # all lapse
    for market, name in ((high, "High"), (low, "Low")):
        expect(page.locator(f"#cancelled li[data-bet='{bets[market]}']")).to_contain_text(f"Hand 1 · {name}£2.00 at 80")
