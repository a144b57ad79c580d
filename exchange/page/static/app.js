// The trading page: lobby and tables live from the games stream; login, bet slip, orders and history over API-NG
// and the Exchange Stream. In a replay (exchange-poker replay DIR) the same page shows a backtest's games with
// play / pause / speed, and the strategy's orders instead of a login.

import { ApiRefusal, Session, instructionRefusal } from "./api.js";
import { timeLeftWords, windowShare } from "./countdown.js";
import { $, setText } from "./dom.js";
import { LIMIT_RETRY_MS, gamesFeed, orderFeed } from "./feeds.js";
import { Lobby } from "./lobby.js";
import { formatAverage, formatPrice, hundredths, money, oddsProblem, pennies } from "./ladder.js";
import { STATUS_WORDS, TableView, marketTitle } from "./table.js";
import { Results } from "./results.js";
import {
  NOTHING_MATCHED, Orders, Slip, renderOrders, renderSettled, setFunds, settledName, tenThousandths,
} from "./trading.js";

const SETTLED_KEPT = 10;
const LOW_SUFFIX = "-low"; // a hi/lo game's Low market id: the game's, then this ("omaha-hilo.3-low")
const LADDER_REFRESH_MS = 400;

const state = {
  channels: new Map(), // id -> channel entry of the channel list
  snapshots: new Map(), // id -> {snapshot, at: performance.now() when received}
  current: null, // the channel shown as a table, or null for the lobby
  showEquity: true,
  session: new Session(),
  orders: new Orders(),
  orderFeed: null,
  ordersPoll: null, // the timer reading the bets over API-NG while the order stream is refused for the connection limit
  resultsLoaded: false, // whether each channel's past results were asked of the server (a live server only)
  replay: null, // the replay's state when this page shows a backtest
  sessionResumed: false, // whether the tab's saved session was looked at (once the server said what it is)
  kind: null, // "live" or "replay": what the server said it is in its first channel list
  connected: false, // the games feed is open
  ladderAt: 0,
  ladderTimer: null, // a read of the open ladders due once LADDER_REFRESH_MS has passed since the last
  pnl: new Map(), // market id -> Map(selection id -> pennies): the server's "if wins" (listMarketProfitAndLoss)
  settledWhileOpen: new Map(), // market id -> the selections it had settled when last seen open
};

const table = new TableView({
  onPrice(bet) {
    const markets = currentMarkets();
    const market = markets.find((m) => m.marketId === bet.marketId);
    // with several markets on the table the slip names the one it bets on as the lists do ("High", "Low")
    const where = market && markets.length > 1 ? marketTitle(market) : bet.marketId;
    slip.fill({ ...bet, minStake: market?.minStake, where });
    slip.follow(currentMarkets());
  },
  onLadder: () => refreshLadders(true),
});
const slip = new Slip({ onSubmit: place, onMissing: (words) => notify(`Not placed: ${words}`) });
const results = new Results($("results"));

// --- notices --------------------------------------------------------------------------------------------------

let noticeTimer = null;

function notify(text, ok = false) {
  const el = $("notice");
  el.className = ok ? "notice ok" : "notice";
  el.hidden = false;
  setText(el, text);
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => { el.hidden = true; }, ok ? 4000 : 10000);
}

/**
 * Say why a request failed. ``unsure``: what the trader asked for (a bet placed, changed or cancelled), when the
 * connection failed under it: the server may have done it, so the page says so rather than "Refused" (which would
 * have the trader send it again, a second bet if the first went through).
 */
function refused(err, unsure = null) {
  if (err instanceof ApiRefusal && (err.code === "INVALID_SESSION_INFORMATION" || err.code === "NO_SESSION")) {
    if (state.session.loggedIn) return sessionLost(err.message);
    if (err.code === "INVALID_SESSION_INFORMATION") return; // a request under way as the session ended: said already
  }
  if (unsure && err instanceof ApiRefusal && err.code === "NETWORK") {
    return notify(`No answer from the server to this ${unsure.what} (${err.message}): it may have been ` +
      `${unsure.done}: check your bets before ${unsure.again} it again.`);
  }
  notify(`Refused: ${err.message}`);
}

// --- the games stream: lobby and table --------------------------------------------------------------------------

function onChannels(message) {
  // Another kind of server on this address since the page loaded (a replay stopped, a live server started, or the
  // other way round): the page starts afresh, rather than show one kind's controls and bets over the other's games.
  const kind = message.replay ? "replay" : "live";
  if (state.kind !== null && state.kind !== kind) return location.reload();
  state.kind = kind;
  state.channels = new Map(message.channels.map((c) => [c.id, c]));
  // A channel gone from the list (the server restarted with others) takes its last snapshot with it: no table of a
  // game that will never move again.
  for (const id of [...state.snapshots.keys()]) if (!state.channels.has(id)) state.snapshots.delete(id);
  forgetUnshown();
  if (!state.sessionResumed) resumeSession(Boolean(message.replay));
  if (message.replay) setReplay(message.replay);
  else if (!state.resultsLoaded) loadResults([...state.channels.keys()]);
  renderLobby();
  if (state.current) renderTable();
}

/** Ask the server for the past results of ``channels`` (games settled before the page opened), then draw them. */
async function loadResults(channels) {
  state.resultsLoaded = true;
  await Promise.all(channels.map((id) => results.load(id)));
  renderResults();
  if (state.current) renderTable(); // a closed market's "if wins" counts the hands the records say settled early
  refreshSettled();
}

function onSnapshot(message) {
  const previous = state.snapshots.get(message.channel)?.snapshot;
  state.snapshots.set(message.channel, { snapshot: message.snapshot, at: performance.now() });
  noteSettled(message.snapshot.game, previous?.game);
  noteResult(message, previous);
  if (message.settled) renderSettled(message.settled.slice(-SETTLED_KEPT).reverse(), []);
  if (message.results) {
    results.replaceAll(message.results);
    renderResults();
  }
  if (message.snapshot.game?.orders) {  // a replay: the strategy's orders, and its matched position by fill price
    const game = message.snapshot.game;
    state.orders.applyList(game.markets.map((m) => m.marketId), game.orders);
    state.orders.applyStream(game.positions ?? [], false);
  }
  if (previous?.game?.id !== message.snapshot.game?.id) forgetUnshown();
  renderLobby();
  if (message.channel !== state.current) return;
  renderTable();
  // The table's first snapshot, or a new game's: read the account's bets on its markets (the order stream's image
  // holds only the executable ones, so what was matched in full, cancelled or lapsed is known from here only).
  if (!state.replay && previous?.game?.id !== message.snapshot.game?.id) refreshOrders();
}

/** The markets of the games on the tables (every channel's), the only ones whose bets and figures the page shows. */
function shownMarkets() {
  return new Set([...state.snapshots.values()].flatMap((e) => (e.snapshot.game?.markets ?? []).map((m) => m.marketId)));
}

/**
 * Forget the bets, positions and figures of every market no table shows any more (past games'): a tab open for
 * hours on a busy account holds what it shows, not every bet it ever saw. The history it shows (recent results,
 * settled markets and bets) is bounded on its own and read again from the server.
 */
function forgetUnshown() {
  const shown = shownMarkets();
  state.orders.keepOnly(shown);
  for (const map of [state.pnl, state.settledWhileOpen]) {
    for (const id of [...map.keys()]) if (!shown.has(id)) map.delete(id);
  }
}

/** Which selections each open market of ``game`` has settled, kept for its "if wins" once it closes; the previous
 * game's are dropped when a new one comes. A hand settled early settles the account's bets on it while the market
 * trades on: the settled bets are read again then (nothing else says so: the market is not closed). */
function noteSettled(game, previousGame) {
  if (previousGame && previousGame.id !== game?.id) {
    for (const m of previousGame.markets) state.settledWhileOpen.delete(m.marketId);
  }
  let more = false;
  for (const m of game?.markets ?? []) {
    if (m.status === "CLOSED") continue;
    const settled = m.selections.filter((s) => s.status !== "IN_PLAY").map((s) => s.selectionId);
    more ||= settled.length > (state.settledWhileOpen.get(m.marketId)?.length ?? 0);
    state.settledWhileOpen.set(m.marketId, settled);
  }
  if (more && state.session.loggedIn && !state.replay) refreshSettled();
}

/** A game whose markets have settled joins the recent results (once); the account's history is refreshed. */
function noteResult(message, previous) {
  const snapshot = message.snapshot;
  const game = snapshot.game;
  if (state.replay || !game || !game.markets.length || !game.markets.every((m) => m.status === "CLOSED")) return;
  if (results.has(game.id)) return;
  results.add(message.channel, snapshot.channel.name, message.pt ?? Date.now(), game);
  renderResults();
  results.load(message.channel).then(renderResults); // the server's record: a void's reason, an early settlement
  if (state.session.loggedIn && previous?.game?.id === game.id) {
    refreshFunds();
    refreshSettled();
  }
}

const lobby = new Lobby();

function renderLobby() {
  lobby.render([...state.channels.values()], (id) => state.snapshots.get(id)?.snapshot.game, timeLeft);
}

function renderTable() {
  const entry = state.snapshots.get(state.current);
  if (!entry) {
    if (state.current && state.channels.size && !state.channels.has(state.current)) {  // a typo, an old bookmark
      table.reset();
      setText($("table-title"), `No table ${state.current} on this server`);
      setText($("game-id"), "see all tables");
      setText($("round-name"), "–");
      if (slip.bet) slip.clear(`Table ${state.current} is not on this server: its slip was cleared.`);
      renderMyOrders();
      tick();
    }
    return;
  }
  const snapshot = entry.snapshot;
  table.render(state.channels.get(state.current), snapshot, {
    showEquity: state.showEquity,
    // Voided: the page's own sum over the bets still matched, those on hands settled before the void (their results
    // fixed, as the server keeps them), every other match voided and refunded; none left, nothing shown. Else the
    // server's exact figures, kept once the market has closed. The hands settled early: as the page saw them while
    // the market was open, else (a market first met closed) as the server's record of the game says.
    pnl: (market) => (market.marketStatus !== "VOID" && serverPnl(market.marketId))
      || state.orders.pnl(market, state.settledWhileOpen.get(market.marketId) ?? results.settledEarly(market.marketId)),
  });
  slip.follow(currentMarkets());
  renderMyOrders();
  tick();
  refreshLadders(false);
}

/**
 * The server's "if wins" of ``marketId`` if they count the bets matched now (else null: a fill came after them, or
 * nothing is matched: the server answers for a market with unmatched bets alone, all its figures 0).
 */
function serverPnl(marketId) {
  const kept = state.pnl.get(marketId);
  const matched = state.orders.matchedKey(marketId);
  return kept && kept.key === matched && matched !== NOTHING_MATCHED ? kept.figures : null;
}

function currentMarkets() {
  const game = state.snapshots.get(state.current)?.snapshot.game;
  return game ? game.markets : [];
}

/** A bet's selection by name; with several markets on the table, the market's too ("Hand 1 · Low"). */
function selectionName(marketId, selectionId) {
  const markets = currentMarkets();
  const market = markets.find((m) => m.marketId === marketId);
  const name = market?.selections.find((s) => s.selectionId === selectionId)?.name ?? `Selection ${selectionId}`;
  return market && markets.length > 1 ? `${name} · ${marketTitle(market)}` : name;
}

/**
 * A settled bet by its game and selection; where its channel's games have two markets, which one it was on, as the
 * bets list names it ("omaha-hilo.3 No low · Low", "omaha-hilo.3 Hand 2 · High"; it was the Low market's id).
 */
function settledBetName(bet) {
  const low = bet.marketId.endsWith(LOW_SUFFIX);
  const game = low ? bet.marketId.slice(0, -LOW_SUFFIX.length) : bet.marketId;
  const channel = state.channels.get(game.slice(0, game.lastIndexOf(".")));
  const named = settledName({ ...bet, marketId: game });
  return (channel?.markets.length ?? 1) > 1 ? `${named} · ${low ? "Low" : "High"}` : named;
}

function renderMyOrders() {
  const markets = currentMarkets().map((m) => m.marketId);
  $("orders-login").hidden = state.session.loggedIn || state.replay !== null;
  renderOrders(state.orders.of(markets), (o) => selectionName(o.marketId, o.selectionId), {
    onCancel: cancel, onReplace: replace, readOnly: state.replay !== null,
  });
}

function renderResults() {
  results.render(state.current);
}

function timeLeft(channelId) {
  return timeLeftWords(state.snapshots.get(channelId), speed());
}

/** How fast the games' time goes by against the page's: a replay's speed (none while paused), else 1. */
function speed() {
  return state.replay ? (state.replay.playing ? state.replay.speed : 0) : 1;
}

/** The countdowns, a few times a second between messages (the server's own figure on every message). */
function tick() {
  for (const el of document.querySelectorAll(".lobby-time")) setText(el, timeLeft(el.dataset.channel));
  if (!state.current) return;
  setText($("countdown-text"), timeLeft(state.current));
  const share = windowShare(state.snapshots.get(state.current), speed());
  $("countdown-bar").style.width = `${Math.round(share * 100)}%`;
}

// --- routing ----------------------------------------------------------------------------------------------------

function route() {
  const match = /^#\/table\/(.+)$/.exec(location.hash);
  const channel = match ? decodeURIComponent(match[1]) : null;
  const moved = channel !== state.current;
  if (moved) {
    table.reset();
    slip.clear();
  }
  state.current = channel;
  $("lobby").hidden = channel !== null;
  $("table").hidden = channel === null;
  // A keyboard or screen reader user lands on the view's heading, not on the page's body (the card or link
  // followed is hidden now).
  if (moved) $(channel ? "table-title" : "lobby-title").focus({ preventScroll: true });
  renderResults();
  if (channel) {
    renderTable();
    refreshOrders();
    if (state.resultsLoaded && !state.replay && state.channels.has(channel)) loadResults([channel]);
  }
}

// --- trading ------------------------------------------------------------------------------------------------------

async function place(bet) {
  if (state.replay) return notify("This is a replay: watch the strategy's bets; nothing can be placed.");
  if (!state.session.loggedIn) return notify("Log in to place bets (the demo account: demo / demo).");
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
  try {
    const report = await state.session.betting("cancelOrders", { marketId: order.marketId, instructions: [{ betId: order.betId }] });
    const failure = instructionRefusal(report);
    if (failure) throw failure;
    notify(`Bet ${order.betId} cancelled.`, true);
  } catch (err) {
    refused(err, { what: "cancel", done: "cancelled", again: "cancelling" });
  }
  await Promise.all([refreshOrders(), refreshFunds()]);
}

/** Move ``order`` to the odds typed as ``typed``; odds that are no number are stopped here, the rest is the server's. */
async function replace(order, typed) {
  const problem = oddsProblem(typed);
  if (problem?.missing) return notify(`Not changed: ${problem.words}`);
  const newPrice = Number(typed);
  try {
    const report = await state.session.betting("replaceOrders", {
      marketId: order.marketId, instructions: [{ betId: order.betId, newPrice }],
    });
    const failure = instructionRefusal(report);
    if (failure) throw failure;
    // a replace is a cancel and a new bet: name the new bet, the one the list shows from now on
    const newId = report.instructionReports?.[0]?.placeInstructionReport?.betId;
    const now = newId ? `: it is now bet ${newId}` : "";
    notify(`Bet ${order.betId} moved to ${formatPrice(hundredths(newPrice))}${now}.`, true);
  } catch (err) {
    refused(err, { what: "change of odds", done: "changed", again: "changing" });
  }
  await Promise.all([refreshOrders(), refreshFunds()]);
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
    refused(err);
  }
  renderTable();
  await refreshPnl();
}

/**
 * Each open market's "if wins" as the server counts it (listMarketProfitAndLoss, settled bets included), kept with
 * the bets they count. The server answers for open markets only (one that has just closed is left out): a market's
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
  const keys = new Map(marketIds.map((id) => [id, state.orders.matchedKey(id)])); // the bets the answer counts
  try {
    const answer = await state.session.betting("listMarketProfitAndLoss", { marketIds, includeSettledBets: true });
    for (const market of answer) {
      const figures = new Map(market.profitAndLosses.map((p) => [p.selectionId, pennies(p.ifWin)]));
      state.pnl.set(market.marketId, { figures, key: keys.get(market.marketId) });
    }
  } catch (err) {
    refused(err);
  }
  if (state.current) renderTable();
}

async function refreshFunds() {
  if (!state.session.loggedIn) return;
  try {
    setFunds(await state.session.funds());
  } catch (err) {
    refused(err);
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
    refused(err);
  }
}

/** The full ladders open on the table: over API-NG when logged in (at most every LADDER_REFRESH_MS, the last change
 * included), else the best offers known. */
async function refreshLadders(now) {
  const open = table.openLadders();
  if (!open.length) return;
  if (!state.session.loggedIn) {
    for (const [marketId, selectionId] of open) {
      const sel = currentMarkets().find((m) => m.marketId === marketId)?.selections.find((s) => s.selectionId === selectionId);
      table.showLadder(marketId, selectionId, sel && { availableToBack: sel.bestAvailableToBackPrices,
        availableToLay: sel.bestAvailableToLayPrices }, "no prices");
    }
    return;
  }
  const since = performance.now() - state.ladderAt;
  if (!now && since < LADDER_REFRESH_MS) {
    // Read once the time is up, so the last change before a quiet spell is shown too.
    state.ladderTimer ??= setTimeout(() => {
      state.ladderTimer = null;
      refreshLadders(true);
    }, LADDER_REFRESH_MS - since);
    return;
  }
  state.ladderAt = performance.now();
  const marketIds = [...new Set(open.map(([m]) => m))];
  try {
    const books = await state.session.betting("listMarketBook", { marketIds, priceProjection: { priceData: ["EX_ALL_OFFERS"] } });
    for (const [marketId, selectionId] of open) {
      const runner = books.find((b) => b.marketId === marketId)?.runners.find((r) => r.selectionId === selectionId);
      table.showLadder(marketId, selectionId, runner?.ex, "this market is closed");
    }
  } catch (err) {
    refused(err);
  }
}

// --- login ----------------------------------------------------------------------------------------------------------

async function login(event) {
  event.preventDefault();
  const form = new FormData(event.target);
  try {
    await state.session.login(String(form.get("username")), String(form.get("password")));
  } catch (err) {
    return notify(`Login refused: ${err.message}`);
  }
  sessionStorage.setItem("session", JSON.stringify({ token: state.session.token, account: state.session.account }));
  startSession();
}

/**
 * The tab's session from before a reload, resumed once the first channel list says what serves the page: a live
 * server. A replay (on an address a live server used before) has no login: the old session is forgotten there.
 */
function resumeSession(replay) {
  state.sessionResumed = true;
  const saved = sessionStorage.getItem("session");
  if (!saved || state.session.loggedIn) return; // (logged in meanwhile: that session is the one saved)
  if (replay) return sessionStorage.removeItem("session");
  const { token, account } = JSON.parse(saved);
  state.session.token = token;
  state.session.account = account;
  startSession();
}

function startSession() {
  $("login-form").hidden = true;
  $("funds").hidden = false;
  setText($("who"), state.session.account);
  state.orderFeed = orderFeed(state.session.token, {
    onOrders(oc, image) {
      state.orders.applyStream(oc, image);
      forgetUnshown(); // (a late change of a past game's bet)
      if (image) refreshOrders();  // what ended unseen is read back
      if (oc.some((m) => m.closed)) refreshSettled();
      refreshFunds();
      refreshPnl();
      if (state.current) renderTable();
    },
    onRefused(words, status) {
      // A session logged out elsewhere or expired: the page is logged out too, and says why.
      if (status.connectionClosed && status.errorCode === "INVALID_SESSION_INFORMATION") return sessionLost(words);
      if (status.errorCode === "MAX_CONNECTION_LIMIT_EXCEEDED") return ordersUnstreamed(words);
      notify(`The order stream refused: ${words}`);
    },
    onLive: ordersStreamed,
  });
  refreshFunds();
  refreshSettled();
  refreshOrders();
}

/**
 * The account holds every stream connection it may (other tabs, a bot): the page says so where the bets are
 * listed and reads them over API-NG every few seconds instead, while the stream is tried again as often.
 */
function ordersUnstreamed(words) {
  const note = $("orders-feed");
  setText(note, `Your bets are read every ${LIMIT_RETRY_MS / 1000} s, not streamed: ${words}`);
  note.hidden = false;
  if (state.ordersPoll === null) {
    state.ordersPoll = setInterval(() => Promise.all([refreshOrders(), refreshFunds()]), LIMIT_RETRY_MS);
  }
}

/** The order stream is (back) on: what changed while it was not is in its image. */
function ordersStreamed() {
  clearInterval(state.ordersPoll);
  state.ordersPoll = null;
  $("orders-feed").hidden = true;
  document.body.dataset.ordersFeed = "live"; // the order stream is subscribed: every change of an order reaches the page
}

/** The server no longer knows the page's session (``words``: what it said): logged out, and told why and what to do. */
function sessionLost(words) {
  if (!state.session.loggedIn) return; // (said once: the other requests under way meet the same end)
  endSession();
  notify(`Your session has ended (${words}): the server restarted, or the session expired or was logged out ` +
    "elsewhere. Log in again to trade.");
}

function endSession() {
  state.orderFeed?.stop();
  state.orderFeed = null;
  ordersStreamed();
  delete document.body.dataset.ordersFeed;
  state.session.token = null;
  sessionStorage.removeItem("session");
  state.orders.clear();
  state.pnl.clear();
  $("login-form").hidden = false;
  $("funds").hidden = true;
  renderSettled([], []);
  if (state.current) renderTable();
}

async function logout() {
  await state.session.logout();
  endSession();
}

// --- replay ---------------------------------------------------------------------------------------------------------

// The feed's state in the header: a replay's feed is connected, not live.
function showConnection() {
  setText($("connection"), !state.connected ? "reconnecting…" : state.replay ? "● replay" : "● live");
}

function setReplay(replay) {
  state.replay = replay;
  showConnection();
  $("replay-controls").hidden = false;
  $("account").hidden = true;
  setText($("orders-title"), "The strategy's bets");
  setText($("settled-title"), "The strategy's settled markets");
  $("replay-speed").value = String(replay.speed);
  setText($("replay-state"), `${replay.playing ? "playing" : "paused"} · ${replay.speed}× · ${replay.position ?? ""}`);
}

async function control(body) {
  try {
    const response = await fetch("/replay/v1/control", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body) });
    const answer = await response.json();
    if (!response.ok) throw new ApiRefusal(answer.error, answer.details);
    setReplay(answer);
  } catch (err) {
    refused(err);
  }
}

// --- start ------------------------------------------------------------------------------------------------------------

function start() {
  $("login-form").addEventListener("submit", login);
  $("logout").addEventListener("click", logout);
  $("equity-toggle").addEventListener("change", (event) => {
    state.showEquity = event.target.checked;
    renderTable();
  });
  $("replay-play").addEventListener("click", () => control({ action: "play" }));
  $("replay-pause").addEventListener("click", () => control({ action: "pause" }));
  $("replay-next").addEventListener("click", () => control({ action: "next" }));
  $("replay-speed").addEventListener("change", (event) => control({ speed: Number(event.target.value) }));
  window.addEventListener("hashchange", route);
  gamesFeed({
    onChannels, onSnapshot,
    onState(status) {
      state.connected = status === "live";
      // Games may end unseen while the stream is down: the next channel list reads the results route again.
      if (status === "reconnecting" && !state.replay) state.resultsLoaded = false;
      showConnection();
    },
  });
  renderResults();
  route();
  setInterval(tick, 200);
}

start();
export { STATUS_WORDS };

/** What the tab holds, counted: for the tests that check it stays bounded however long the tab is open. */
export function held() {
  const orders = [...state.orders.byId.values()];
  return {
    orders: orders.length,
    orderMarkets: [...new Set(orders.map((o) => o.marketId))],
    positions: state.orders.positions.size,
    streamedAt: state.orders.streamedAt.size,
    pnl: state.pnl.size,
    settledWhileOpen: state.settledWhileOpen.size,
    snapshots: [...state.snapshots.keys()],
  };
}
