// The lobby: a card per channel the server runs (its game, round, time left and window lengths), each a link to
// its table. The cards are built once per channel list, then only their texts change: a focused card keeps focus.

import { playingMs, seconds, windowMs } from "./countdown.js";
import { $, h, replaceChildren, setText } from "./dom.js";
import { roundWords } from "./table.js";

export class Lobby {
  constructor() {
    this.key = null; // what the cards were built for: the channels, their names and windows
    this.cards = new Map(); // channel id -> {game, round}: the card's cells that change
  }

  /** Draw ``channels`` (the channel list's entries); ``gameOf(id)`` a channel's game shown now (or none),
   * ``timeLeft(id)`` its countdown's words. */
  render(channels, gameOf, timeLeft) {
    const key = JSON.stringify(channels.map((c) => [c.id, c.name, windowMs(c), playingMs(c)]));
    if (key !== this.key) {
      this.key = key;
      this.cards.clear();
      const cards = channels.map((channel) => this.card(channel, timeLeft(channel.id)));
      replaceChildren($("lobby-list"), cards.length ? cards : [h("p", { class: "muted" }, "No channels yet.")]);
    }
    for (const [id, cells] of this.cards) {
      const game = gameOf(id);
      setText(cells.game, game ? game.id : "—");
      setText(cells.round, game ? roundWords(game) : "—");
    }
  }

  /** A channel's card: a link named by the channel alone, the game, round and times its description (read after
   * it: the whole card as the link's name was every term and figure run together). */
  card(channel, left) {
    const cells = { game: h("dd", { class: "lobby-game" }), round: h("dd", { class: "lobby-round" }) };
    this.cards.set(channel.id, cells);
    const id = `lobby-${channel.id}`;
    return h("a", { class: "lobby-card", href: `#/table/${encodeURIComponent(channel.id)}`, dataset: { channel: channel.id },
      "aria-labelledby": `${id}-name`, "aria-describedby": `${id}-details` },
      h("h2", { id: `${id}-name` }, channel.name),
      h("dl", { id: `${id}-details` },
        h("dt", {}, "Game"), cells.game,
        h("dt", {}, "Round"), cells.round,
        h("dt", {}, "Time left"), h("dd", { class: "lobby-time", dataset: { channel: channel.id } }, left),
        h("dt", {}, "Windows"), h("dd", {}, `${seconds(windowMs(channel))} s betting, ${seconds(playingMs(channel))} s playing`)));
  }
}
