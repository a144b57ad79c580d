// Recent results: the games that ended, newest first. On load and at each channel switch they come from the
// server's results route (games settled before the page opened); afterwards each game the games stream shows
// settling joins them at once, then is replaced by the route's record of it (which alone says why a game was
// voided, and which markets settled early). At a table only that channel's games are listed; in the lobby every
// channel's.

import { h, replaceChildren } from "./dom.js";

const SHOWN = 10;
const KEPT_PER_CHANNEL = 10;

export class Results {
  constructor(list) {
    this.list = list; // the <ol> they are drawn in
    this.games = new Map(); // game id -> {id, channelId, channelName, endedMs, game}
  }

  /** Add (or update) a finished game; ``game`` has ``markets`` (selections with statuses) and ``gameData``. */
  add(channelId, channelName, endedMs, game) {
    this.games.set(game.id, { id: game.id, channelId, channelName, endedMs, game });
    const mine = [...this.games.values()].filter((r) => r.channelId === channelId).sort(newestFirst);
    for (const old of mine.slice(KEPT_PER_CHANNEL)) this.games.delete(old.id);
  }

  has(gameId) {
    return this.games.has(gameId);
  }

  /** The selections of ``marketId`` settled before its end, as the server's record of its game says (undefined
   * when the page holds no record of it: a game the page saw end, until the route's record replaces it). */
  settledEarly(marketId) {
    for (const { game } of this.games.values()) {
      const market = game.markets.find((m) => m.marketId === marketId);
      if (market?.settledEarly) return market.settledEarly;
    }
    return undefined;
  }

  /** The markets of every game listed (each channel's last ones), for the account's settled bets on them. */
  marketIds() {
    return [...this.games.values()].flatMap((r) => r.game.markets.map((m) => m.marketId));
  }

  /** Replace everything with what a replay sends: its last games, newest first. */
  replaceAll(entries) {
    this.games.clear();
    entries.forEach((entry, i) => this.games.set(entry.id, {
      id: entry.id, channelId: null, channelName: entry.channel, endedMs: -i, game: entry.game }));
  }

  /** Fetch a channel's last games from the server (``GET /games/v1/channels/{id}/results``: its last ten, or as many
   * as it keeps, when it keeps fewer; a ``limit`` above that would be refused), its records replacing what the page
   * had of them; false if refused. */
  async load(channelId) {
    let answer;
    try {
      const response = await fetch(`/games/v1/channels/${encodeURIComponent(channelId)}/results`);
      if (!response.ok) return false;
      answer = await response.json();
    } catch {
      return false;
    }
    for (const result of answer.results ?? []) this.add(channelId, result.channel?.name ?? channelId, result.endedMs, result);
    return true;
  }

  /** Draw the list: ``channelId``'s games, or every channel's when it is null. */
  render(channelId) {
    const shown = [...this.games.values()]
      .filter((r) => channelId === null || r.channelId === null || r.channelId === channelId)
      .sort(newestFirst).slice(0, SHOWN);
    replaceChildren(this.list, shown.length ? shown.map(item) : [h("li", { class: "muted" }, "none yet")]);
  }
}

function newestFirst(a, b) {
  return b.endedMs - a.endedMs;
}

function item({ id, channelName, game }) {
  const many = game.markets.length > 1;
  const parts = game.markets.map((m) => {
    const name = many ? `${m.marketName ?? m.marketId}: ` : "";
    if (m.result === "VOID" || m.marketStatus === "VOID") return `${name}void${m.voidReason ? ` (${m.voidReason})` : ""}`;
    const won = m.selections.filter((s) => s.status === "WINNER" || s.status === "TIED_DEAD_HEAT");
    const words = won.map((s) => `${s.name}${s.status === "TIED_DEAD_HEAT" ? " (dead heat)" : ""}`).join(", ");
    return `${name}${words ? `won by ${words}` : "no winner"}${m.early ? " (settled early)" : ""}`;
  });
  const board = (game.gameData?.communityCards ?? []).filter((c) => typeof c === "string" && c.length === 2).join(" ");
  const exposed = (game.gameData?.exposedCards ?? []).join(" "); // a dealer's error showed them (a misdeal's, say)
  return h("li", { dataset: { game: id } }, h("b", {}, `${channelName} ${id}`), ` — ${parts.join("; ")}`,
    board ? ` · board ${board}` : "", exposed ? ` · exposed ${exposed}` : "");
}
