"""flumine live, unmodified, against a server: run in a spawned process (importing flumine patches
betfairlightweight for the whole process).

The only settings are the ones a Betfair trader would change to point the clients at another host: the
client's base URLs and the stream's host and port (``BetfairStream.HOSTS[None]`` and its port attribute).
The strategy backs one hand at the best price offered once a market is open (once per market: a bet placed as
a window closes is refused, and the next game's market gets another), waits until the order stream shows a bet
matched, then asks flumine to stop. A watchdog stops flumine after ``timeout_s`` whatever
happened, so a run is bounded; the result says what the strategy saw, and the test judges it.
"""

from __future__ import annotations

import threading
import time
from typing import Any


def run_flumine_live(url: str, stream_port: int, username: str, password: str, cert_dir: str,
                     strategy_ref: str | None, timeout_s: float, async_place: bool = False) -> dict[str, Any]:
    from betfairlightweight.resources.bettingresources import CurrentOrder
    from betfairlightweight.streaming.betfairstream import BetfairStream
    from flumine import BaseStrategy, config
    from flumine.events.events import TerminationEvent
    from flumine.order.ordertype import LimitOrder
    from flumine.order.trade import Trade

    BetfairStream.HOSTS[None] = "127.0.0.1"
    BetfairStream._BetfairStream__port = stream_port
    config.customer_strategy_ref = strategy_ref
    config.async_place_orders = async_place

    seen: dict[str, Any] = {"books": 0, "placed": [], "matched": None, "order_stream": None}
    matched_orders: list[Any] = []

    class BackOnce(BaseStrategy):
        def check_market_book(self, market: Any, market_book: Any) -> bool:
            seen["books"] += 1
            return bool(market_book.status == "OPEN" and not market.blotter.strategy_orders(self))

        def process_market_book(self, market: Any, market_book: Any) -> None:
            for runner in market_book.runners:
                if runner.status == "ACTIVE" and runner.ex.available_to_back:
                    price = runner.ex.available_to_back[0]["price"]
                    trade = Trade(market_book.market_id, runner.selection_id, runner.handicap, self)
                    order = trade.create_order(side="BACK", order_type=LimitOrder(price, 2.0))
                    market.place_order(order)
                    seen["placed"].append((market_book.market_id, runner.selection_id, price))
                    return

        def process_orders(self, market: Any, orders: list[Any]) -> None:
            for order in orders:
                # flumine sets current_order from the place report too; the order stream's is a CurrentOrder
                current = order.current_order
                if isinstance(current, CurrentOrder) and order.size_matched > 0 and seen["matched"] is None:
                    # the stream's bet id: flumine sets a synchronous order's own from the place report, which
                    # its placing thread may read after the stream has shown the fill (on Betfair too)
                    seen["matched"] = (order.market_id, order.selection_id, order.size_matched, current.bet_id)
                    seen["order_stream"] = {"rfs": current.customer_strategy_ref,
                                            "rfo": current.customer_order_ref, "status": current.status}
                    matched_orders.append(order)
                    market.flumine.handler_queue.put(TerminationEvent(market.flumine))

    framework = _run(url, username, password, cert_dir, BackOnce, timeout_s)
    if matched_orders:  # the place report, once flumine's placing thread has read it (bounded: 30 s)
        responses = matched_orders[0].responses
        for _ in range(600):
            if responses.place_response is not None:
                break
            time.sleep(0.05)
        report = responses.place_response
        seen["place_report"] = None if report is None else (report.order_status, report.bet_id)
    details = framework.clients.get_default().account_details
    seen["account_currency"] = None if details is None else details.currency_code
    return seen


def run_flumine_replace_cancel(url: str, stream_port: int, username: str, password: str, cert_dir: str | None,
                               timeout_s: float) -> dict[str, Any]:
    """flumine places a back at 1000 (nobody takes it: the server runs no house), replaces it at 900 once the
    order stream shows it resting, then cancels the replacement once that rests; stops when the order stream
    shows the replacement cancelled (a window that closes in between lapses the bet: the next game's market
    starts again). Returns what flumine's orders said at each step."""
    from betfairlightweight.streaming.betfairstream import BetfairStream
    from flumine import BaseStrategy
    from flumine.events.events import TerminationEvent
    from flumine.order.ordertype import LimitOrder
    from flumine.order.trade import Trade

    BetfairStream.HOSTS[None] = "127.0.0.1"
    BetfairStream._BetfairStream__port = stream_port
    seen: dict[str, Any] = {"steps": []}

    class ReplaceThenCancel(BaseStrategy):
        def check_market_book(self, market: Any, market_book: Any) -> bool:
            return bool(market_book.status == "OPEN" and not market.blotter.strategy_orders(self))

        def process_market_book(self, market: Any, market_book: Any) -> None:
            runner = market_book.runners[0]
            trade = Trade(market_book.market_id, runner.selection_id, runner.handicap, self)
            market.place_order(trade.create_order(side="BACK", order_type=LimitOrder(1000.0, 2.0)))

        def process_orders(self, market: Any, orders: list[Any]) -> None:
            for order in orders:
                price, status = order.order_type.price, order.status.value
                if (price, status) == (1000.0, "Executable") and "replace" not in seen:
                    seen["replace"] = order.bet_id
                    market.replace_order(order, 900.0)
                elif (price, status) == (900.0, "Executable") and "cancel" not in seen:
                    seen["cancel"] = order.bet_id
                    market.cancel_order(order)
                elif price == 900.0 and status == "Execution complete" and order.size_lapsed:
                    del seen["replace"]  # the window closed first: the next game's market starts again
                    seen.pop("cancel", None)
                elif (price == 1000.0 and status == "Execution complete" and order.size_lapsed
                      and seen.get("replace") == order.bet_id):
                    del seen["replace"]  # it lapsed before the replace came: so does the next game's market
                elif price == 900.0 and status == "Execution complete" and "done" not in seen:
                    seen["done"] = {"bet_id": order.bet_id, "size_cancelled": order.size_cancelled,
                                    "cancel_report": order.responses.cancel_responses[-1].status
                                    if order.responses.cancel_responses else None}
                    original = [o for o in market.blotter if o.order_type.price == 1000.0]
                    seen["original"] = [(o.bet_id, o.status.value, o.size_cancelled) for o in original]
                    market.flumine.handler_queue.put(TerminationEvent(market.flumine))

    _run(url, username, password, cert_dir, ReplaceThenCancel, timeout_s)
    return seen


def _run(url: str, username: str, password: str, cert_dir: str | None, strategy: type, timeout_s: float) -> Any:
    """Run flumine live with one ``strategy`` on every market of the server's stream until the strategy stops it,
    or ``timeout_s`` has passed; the framework, once it has stopped. flumine logs in with certificates from
    ``cert_dir`` (its default login), or, with none, interactively (as the README's example does)."""
    import betfairlightweight
    from flumine import Flumine, clients
    from flumine.events.events import TerminationEvent
    from flumine.streams.betfairmarketstream import BetfairMarketStream

    trading = betfairlightweight.APIClient(username, password, app_key="flumine-test", certs=cert_dir)
    trading.identity_uri = trading.identity_cert_uri = f"{url}/api/"
    trading.api_uri = f"{url}/exchange/"
    framework = Flumine(client=clients.BetfairClient(trading, interactive_login=cert_dir is None))
    stream = BetfairMarketStream(market_filter={}, market_data_filter={"fields": ["EX_BEST_OFFERS",
                                                                                  "EX_MARKET_DEF"]})
    framework.add_strategy(strategy(streams=[stream], max_order_exposure=10, max_selection_exposure=10))
    watchdog = threading.Timer(timeout_s, lambda: framework.handler_queue.put(TerminationEvent(framework)))
    watchdog.start()
    try:
        framework.run()
    finally:
        watchdog.cancel()
    return framework
