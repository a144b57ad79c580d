// The account over API-NG: the trader's bets placed, cancelled and moved to other odds, and what the page reads
// back: the account's bets on the table's markets, each open market's "if wins", its funds and its settled markets
// and bets.

import { instructionRefusal } from "./api.js";
import { $ } from "./dom.js";
import { formatAverage, formatPrice, hundredths, money, oddsProblem, pennies } from "./ladder.js";
import { notify } from "./notice.js";
import { whose } from "./replay.js";
import { renderSettled, setFunds, tenThousandths } from "./trading.js";

/** How many settled markets the page lists (and twice as many settled bets). */
export const SETTLED_KEPT = 10;

/** Why nothing is sent while the games stream is down (the slip says it too). */
export const OFFLINE = "the connection to the server is lost (reconnecting…): nothing was sent, and the prices and " +
  "figures shown may be out of date until it is back.";

/** A bet's row redrawn after a cancel or a change took its button, and focus with it: back to the list of bets, not
 * to the top of the page. */
function keepFocus() {
  if (document.activeElement === null || document.activeElement === document.body) $("orders-title").focus();
}

/**
 * What the server's "if wins" of ``marketId`` count, as the page knows it: the account's bets matched there, and the
 * hands the market has settled while open (an early settlement fixes the results of the bets on a hand, and changes
 * its figures with no bet matched).
 */
export function pnlKey(state, marketId) {
  return `${state.orders.matchedKey(marketId)} ${JSON.stringify(state.settledWhileOpen.get(marketId) ?? [])}`;
}

/**
 * The trader's actions and the account's reads, on the page's ``state`` (its session, bets, figures and snapshots),
 * with what they need of the page: ``refused(err, unsure, read)`` says why a request failed; ``renderTable()``,
 * ``renderMyOrders()`` draw again; ``currentMarkets()`` the table's markets; ``selectionName(marketId, selectionId)``
 * and ``settledBetName(bet)`` name a bet; ``slip`` the bet slip; ``results`` the recent results.
 */
export function accountActions(state, {
  refused, renderTable, renderMyOrders, currentMarkets, selectionName, settledBetName, slip, results,
}) {
  async function place(bet) {
    if (state.replay) return notify(`This is a replay: watch ${whose(state.replay, false)} bets; nothing can be placed.`);
    if (!state.session.loggedIn) return notify("Log in to place bets (the demo account: demo / demo).");
    if (!state.connected) return notify(`Not placed: ${OFFLINE}`);
    try {
      const report = await state.session.betting("placeOrders", {
        marketId: bet.marketId,
        instructions: [{ selectionId: bet.selectionId, side: bet.side, orderType: "LIMIT",
          limitOrder: { size: bet.size, price: bet.price, persistenceType: "LAPSE" } }],
      });
      const failure = instructionRefusal(report);
      if (failure) throw failure;
      const done = report.instructionReports[0];
      const matched = pennies(done.sizeMatched ?? 0);
      const shown = currentMarkets().some((m) => m.marketId === bet.marketId); // else the game has moved on
      const name = shown ? selectionName(bet.marketId, bet.selectionId) : bet.name;
      // matched at the resting bets' prices, which may be better than those asked: the average says at what
      const at = matched > 0 ? ` at ${formatAverage(tenThousandths(done.averagePriceMatched))}` : "";
      notify(`${bet.side === "BACK" ? "Back" : "Lay"} ${name} at ${formatPrice(hundredths(bet.price))} for ` +
        `${money(pennies(bet.size))} placed: ${money(matched)} matched${at} (bet ${done.betId}).`, true);
      slip.done();
    } catch (err) {
      refused(err, { what: "bet", done: "placed", again: "placing" });
    }
    await Promise.all([refreshOrders(), refreshFunds()]);
  }

  async function cancel(order) {
    if (!state.connected) return notify(`Not cancelled: ${OFFLINE}`);
    try {
      const report = await state.session.betting("cancelOrders", { marketId: order.marketId, instructions: [{ betId: order.betId }] });
      const failure = instructionRefusal(report);
      if (failure) throw failure;
      notify(`Bet ${order.betId} cancelled.`, true);
    } catch (err) {
      refused(err, { what: "cancel", done: "cancelled", again: "cancelling" });
    }
    await Promise.all([refreshOrders(), refreshFunds()]);
    keepFocus();
  }

  /**
   * Move ``order`` to the odds typed as ``typed``. Odds that are no number, or not on the ladder, are stopped here:
   * the server cancels the bet first and keeps it cancelled when the new odds are refused (Betfair's replace).
   */
  async function replace(order, typed) {
    const problem = oddsProblem(typed);
    if (problem) return notify(`Not changed: ${problem.words}`);
    if (!state.connected) return notify(`Not changed: ${OFFLINE}`);
    const newPrice = Number(typed);
    try {
      const report = await state.session.betting("replaceOrders", {
        marketId: order.marketId, instructions: [{ betId: order.betId, newPrice }],
      });
      const failure = instructionRefusal(report);
      if (failure?.code === "CANCELLED_NOT_PLACED") {
        // as Betfair's, a replace cancels first and the cancel stands: the bet is gone, and no new one was placed
        notify(`Bet ${order.betId} cancelled, but not moved to ${formatPrice(hundredths(newPrice))}: ` +
          `${failure.message}.`);
      } else if (failure) throw failure;
      else {
        // a replace is a cancel and a new bet: name the new bet, the one the list shows from now on
        const newId = report.instructionReports?.[0]?.placeInstructionReport?.betId;
        const now = newId ? `: it is now bet ${newId}` : "";
        notify(`Bet ${order.betId} moved to ${formatPrice(hundredths(newPrice))}${now}.`, true);
      }
    } catch (err) {
      refused(err, { what: "change of odds", done: "changed", again: "changing" });
    }
    await Promise.all([refreshOrders(), refreshFunds()]);
    keepFocus();
  }

  /**
   * Read the account's bets on the table's markets: listCurrentOrders, and for a market that has closed its cleared
   * orders too (listCurrentOrders no longer lists a settled bet, and the order stream's image holds executable orders
   * only: a tab that meets a market once it has closed learns its bets from here alone).
   */
  async function refreshOrders() {
    const markets = currentMarkets();
    const marketIds = markets.map((m) => m.marketId);
    if (!state.session.loggedIn || !marketIds.length) return renderMyOrders();
    const closed = markets.filter((m) => m.status === "CLOSED").map((m) => m.marketId);
    const since = state.orders.mark(); // a change the order stream brings meanwhile is newer than the answer
    try {
      const [current, cleared] = await Promise.all([state.session.currentOrders(marketIds),
        closed.length ? state.session.clearedBets(closed) : []]);
      state.orders.applyList(marketIds, current, cleared, since);
    } catch (err) {
      refused(err, null, true);
    }
    renderTable();
    await refreshPnl();
  }

  /**
   * Each open market's "if wins" as the server counts it (listMarketProfitAndLoss, settled bets included), kept with
   * the bets and the hands settled early they count (:func:`pnlKey`). The server answers for open markets only (one that has just closed is left out): a market's
   * last figures are kept when it closes, as settlement changes none of them, while they count every bet matched; a
   * bet matched as the market closed (or before the page opened) is counted by the page's own sum (exact over the
   * fills the order stream gave). A voided market keeps the results of bets on hands settled before the void: the
   * page's own sum shows those alone, the voided matches counting nothing.
   */
  async function refreshPnl() {
    const markets = currentMarkets();
    const marketIds = markets.filter((m) => m.status !== "CLOSED").map((m) => m.marketId);
    for (const id of [...state.pnl.keys()]) if (!markets.some((m) => m.marketId === id)) state.pnl.delete(id);
    if (!state.session.loggedIn || state.replay || !marketIds.length) return;
    const keys = new Map(marketIds.map((id) => [id, pnlKey(state, id)])); // the bets and hands the answer counts
    try {
      const answer = await state.session.betting("listMarketProfitAndLoss", { marketIds, includeSettledBets: true });
      for (const market of answer) {
        const figures = new Map(market.profitAndLosses.map((p) => [p.selectionId, pennies(p.ifWin)]));
        state.pnl.set(market.marketId, { figures, key: keys.get(market.marketId) });
      }
    } catch (err) {
      refused(err, null, true);
    }
    if (state.current) renderTable();
  }

  async function refreshFunds() {
    if (!state.session.loggedIn) return;
    try {
      setFunds(await state.session.funds());
    } catch (err) {
      refused(err, null, true);
    }
  }

  /**
   * The account's settled markets and bets among the recent and current games', newest first. (listClearedOrders
   * answers a page at a time, oldest first: asked of every market, a long-lived account would see its oldest page.)
   */
  async function refreshSettled() {
    if (!state.session.loggedIn || state.replay) return;
    // The games being played too: a Low market can settle before its game ends, and a market with hands settled early
    // has their bets in before its own settlement.
    const live = [...state.snapshots.values()].flatMap((e) => e.snapshot.game?.markets ?? []);
    const playing = live.map((m) => m.marketId);
    const open = new Set(live.filter((m) => m.status !== "CLOSED").map((m) => m.marketId));
    const marketIds = [...new Set([...results.marketIds(), ...playing])];
    if (!marketIds.length) return renderSettled([], []);
    try {
      const [markets, bets] = await Promise.all([
        state.session.clearedOrders({ betStatus: "SETTLED", groupBy: "MARKET", marketIds }),
        state.session.clearedOrders({ betStatus: "SETTLED", includeItemDescription: true, marketIds }),
      ]);
      renderSettled(markets.slice(-SETTLED_KEPT).reverse(), bets.slice(-2 * SETTLED_KEPT).reverse(), open, settledBetName);
    } catch (err) {
      refused(err, null, true);
    }
  }

  return { place, cancel, replace, refreshOrders, refreshPnl, refreshFunds, refreshSettled };
}
