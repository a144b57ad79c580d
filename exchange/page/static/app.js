// The trading page: lobby and tables live from the games stream; login, bet slip, orders and history over API-NG
// and the Exchange Stream. In a replay (exchange-poker replay DIR) the same page shows a backtest's games with
// play / pause / speed, and the strategy's orders instead of a login. This module holds the page's state, draws the
// lobby and the table from the games stream and routes between them; the account's calls (account.js), the login
// and session (session.js) and a replay's controls (replay.js) are given what they need of it here.

import { SETTLED_KEPT, accountActions, pnlKey } from "./account.js";
import { ApiRefusal, Session } from "./api.js";
import { timeLeftWords, windowShare } from "./countdown.js";
import { $, setText } from "./dom.js";
import { gamesFeed } from "./feeds.js";
import { Lobby } from "./lobby.js";
import { notify } from "./notice.js";
import { replayControls } from "./replay.js";
import { Results } from "./results.js";
import { sessionControls } from "./session.js";
import { STATUS_WORDS, TableView, marketTitle } from "./table.js";
import { NOTHING_MATCHED, Orders, Slip, renderOrders, renderSettled, settledName } from "./trading.js";

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
const slip = new Slip({ onSubmit: (bet) => place(bet), onMissing: (words) => notify(`Not placed: ${words}`) });
const results = new Results($("results"));
const { place, cancel, replace, refreshOrders, refreshPnl, refreshFunds, refreshSettled } = accountActions(state, {
  refused, renderTable, renderMyOrders, currentMarkets, selectionName, settledBetName, slip, results,
});
const { login, resumeSession, sessionLost, logout } = sessionControls(state, {
  renderTable, forgetUnshown, refreshOrders, refreshFunds, refreshSettled, refreshPnl,
});
const { showConnection, setReplay, control } = replayControls(state, { refused });

// --- refusals ------------------------------------------------------------------------------------------------------

/**
 * Say why a request failed. ``unsure``: what the trader asked for (a bet placed, changed or cancelled), when the
 * connection failed under it: the server may have done it, so the page says so rather than "Refused" (which would
 * have the trader send it again, a second bet if the first went through). ``read``: the page reading its figures
 * again, which says nothing when the connection failed under it (the header says the page is reconnecting, and the
 * table is shown out of date): said as "Refused", it took the place of the "may have been placed" just shown.
 */
function refused(err, unsure = null, read = false) {
  if (err instanceof ApiRefusal && (err.code === "INVALID_SESSION_INFORMATION" || err.code === "NO_SESSION")) {
    if (state.session.loggedIn) return sessionLost();
    if (err.code === "INVALID_SESSION_INFORMATION") return; // a request under way as the session ended: said already
  }
  if (err instanceof ApiRefusal && err.code === "NETWORK") {
    if (unsure) {
      return notify(`No answer from the server to this ${unsure.what} (${err.message}): it may have been ` +
        `${unsure.done}: check your bets before ${unsure.again} it again.`);
    }
    if (read) return;
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
 * trades on: the settled bets and the server's "if wins" are read again then (nothing else says so: the market is
 * not closed, and no bet is matched). */
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
  if (more && state.session.loggedIn && !state.replay) {
    refreshSettled();
    refreshPnl();
  }
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
 * The server's "if wins" of ``marketId`` if they count the bets matched now and the hands settled early (else null: a
 * fill or an early settlement came after them, or nothing is matched: the server answers for a market with unmatched
 * bets alone, all its figures 0).
 */
function serverPnl(marketId) {
  const kept = state.pnl.get(marketId);
  return kept && kept.key === pnlKey(state, marketId) && state.orders.matchedKey(marketId) !== NOTHING_MATCHED
    ? kept.figures : null;
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

// --- the table's ladders -------------------------------------------------------------------------------------------

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
    refused(err, null, true);
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
      if (!state.replay) slip.connected(state.connected);
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
