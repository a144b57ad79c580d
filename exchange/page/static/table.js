// The table of one channel: hands and board as cards, each hand's status, and every market of the game as a
// Betfair-style price grid built from what the server sends (any number of markets and selections).
// The grid is built once per game and market shape, then only its texts change: focus stays, nothing jumps.

import { cardCode, drawCard, drawCards } from "./cards.js";
import { $, h, keepChildren, replaceChildren, setClass, setText } from "./dom.js";
import { formatPrice, hundredths, pennies, shortMoney, signedMoney } from "./ladder.js";

const DEPTH = 3;
export const STATUS_WORDS = {
  IN_PLAY: "in play", CAN_NOT_WIN: "can't win", LOSER: "lost", WINNER: "winner", TIED_DEAD_HEAT: "dead heat",
  REMOVED: "void", // in play when its market was voided: its bets were refunded (no hand is ever withdrawn)
};
const MARKET_WORDS = {
  OPEN: "open for betting", SUSPENDED: "suspended", CLOSED: "settled", VOID: "void", INACTIVE: "not open",
};

export class TableView {
  /**
   * ``onPrice({marketId, selectionId, name, side, price})`` when a price (or an empty cell) is clicked;
   * ``onLadder(marketId, selectionId, open)`` when a ladder is opened or closed.
   */
  constructor({ onPrice, onLadder }) {
    this.onPrice = onPrice;
    this.onLadder = onLadder;
    this.handsKey = null;
    this.boardKey = null;
    this.exposedKey = null;
    this.marketsKey = null;
    this.cells = new Map(); // `${marketId}:${selectionId}` -> the row's elements
    this.ladders = new Map(); // same key -> {row, cell, under, body, …} of an open ladder
    window.addEventListener("resize", () => this.fitLadders());
  }

  reset() {
    this.handsKey = this.boardKey = this.exposedKey = this.marketsKey = null;
    this.cells.clear();
    this.ladders.clear();
    replaceChildren($("hands"), []);
    replaceChildren($("board"), []);
    replaceChildren($("exposed"), []);
    $("exposed-wrap").hidden = true;
    replaceChildren($("markets"), []);
  }

  render(channel, snapshot, extras) {
    setText($("table-title"), channel?.name ?? snapshot.channel.name);
    const game = snapshot.game;
    if (!game) {
      setText($("game-id"), "waiting for the next game");
      setText($("round-name"), "–");
      this.reset();
      return;
    }
    setText($("game-id"), `Game ${game.gameNumber} · ${game.id}`);
    setText($("round-name"), roundWords(game));
    this.renderHands(game);
    this.renderBoard(game);
    this.renderExposed(game);
    this.renderMarkets(game, extras);
  }

  renderHands(game) {
    const hands = game.gameData?.hands ?? [];
    const key = JSON.stringify(hands.map((hand) => [hand.name, hand.cards, hand.status, hand.draws]));
    if (key === this.handsKey) return;
    this.handsKey = key;
    replaceChildren($("hands"), hands.map((hand) => h("div", {
      class: `hand ${hand.status}`, dataset: { selection: hand.selectionId },
      "aria-label": `${hand.name}: ${STATUS_WORDS[hand.status] ?? hand.status}`,
    },
    h("div", { class: "hand-head" }, h("span", {}, hand.name),
      h("span", { class: `status ${hand.status}` }, STATUS_WORDS[hand.status] ?? hand.status)),
    h("div", { class: "cards" }, drawCards(withFaces(hand))), drawsList(hand.draws))));
  }

  renderBoard(game) {
    const board = game.gameData?.communityCards ?? [];
    const key = JSON.stringify(board);
    if (key === this.boardKey) return;
    this.boardKey = key;
    $("board").parentElement.hidden = !board.length; // stud and draw games have no board
    replaceChildren($("board"), drawCards(board));
  }

  /** Cards a dealer's error showed before their time (``exposedCards``), those out of play marked dead. */
  renderExposed(game) {
    const exposed = game.gameData?.exposedCards ?? [];
    const dead = new Set(game.gameData?.deadCards ?? []);
    const key = JSON.stringify([exposed, [...dead]]);
    if (key === this.exposedKey) return;
    this.exposedKey = key;
    $("exposed-wrap").hidden = !exposed.length;
    replaceChildren($("exposed"), exposed.map((card) => exposedCard(card, dead.has(card))));
  }

  renderMarkets(game, extras) {
    const markets = game.markets ?? [];
    const key = JSON.stringify(markets.map((m) => [m.marketId, m.selections.map((s) => [s.selectionId, s.name])]));
    if (key !== this.marketsKey) {
      this.marketsKey = key;
      this.cells.clear();
      this.ladders.clear();
      replaceChildren($("markets"), markets.map((market) => this.buildMarket(market, markets.length)));
    }
    for (const market of markets) {
      const status = this.cells.get(market.marketId);
      const shown = market.marketStatus === "VOID" ? "VOID" : market.status;  // closed, but voided: not settled
      setText(status, MARKET_WORDS[shown] ?? shown);
      setClass(status, `market-status ${shown}`);
      const pnl = extras.pnl(market);
      for (const sel of market.selections) this.updateRow(market, sel, pnl, extras);
    }
  }

  buildMarket(market, count) {
    const title = count > 1 ? marketTitle(market) : "Winner";
    const status = h("span", { class: "market-status" });
    this.cells.set(market.marketId, status);
    const head = h("tr", {},
      h("th", { class: "sel", scope: "col" }, "Selection"),
      ...[2, 1, 0].map((i) => h("th", { scope: "col", class: i ? "deep" : "" }, i ? "" : "Back")),
      ...[0, 1, 2].map((i) => h("th", { scope: "col", class: i ? "deep" : "" }, i ? "" : "Lay")));
    const body = h("tbody", {});
    // With several markets on the table each button says which one it trades ("Back Hand 1, Low market, at 3.00").
    const where = count > 1 ? `, ${title} market` : "";
    for (const sel of market.selections) {
      const row = this.buildRow(market, sel, where);
      body.append(row);
    }
    return h("section", { class: "market", "aria-label": `${title} market ${market.marketId}`,
      dataset: { market: market.marketId } },
    h("div", { class: "market-head" }, h("h2", {}, title), h("span", { class: "game-id" }, market.marketId), status),
    h("div", { class: "grid-cap" }, h("span", { class: "cap-back" }, "Back (for)"), h("span", { class: "cap-lay" }, "Lay (against)")),
    h("table", { class: "grid" }, h("thead", {}, head), body));
  }

  buildRow(market, sel, where) {
    const key = `${market.marketId}:${sel.selectionId}`;
    const name = h("span", { class: "sel-name" }, sel.name);
    const status = h("span", { class: "status-word" });
    const equity = h("span", { class: "equity" });
    const pnl = h("span", { class: "pnl" });
    const ltp = h("span", { class: "ltp" });
    const ladderButton = h("button", { type: "button", class: "ladder-btn", "aria-expanded": "false",
      "aria-label": `Full ladder of ${sel.name}${where}` }, "Ladder");
    const price = (side, level) => {
      const button = h("button", { type: "button", class: `price ${side.toLowerCase()}${level === 0 ? " best" : ""}`,
        dataset: { side, level, selection: sel.selectionId } },
      h("span", { class: "odds" }), h("span", { class: "size" }));
      button.addEventListener("click", () => this.onPrice({
        marketId: market.marketId, selectionId: sel.selectionId, name: sel.name, side,
        price: button.dataset.price ? Number(button.dataset.price) : null,
      }));
      return button;
    };
    const backs = [0, 1, 2].map((i) => price("BACK", i));
    const lays = [0, 1, 2].map((i) => price("LAY", i));
    const row = h("tr", { dataset: { selection: sel.selectionId } },
      h("td", { class: "sel" }, h("div", {}, name, " ", ladderButton),
        h("div", { class: "sel-sub" }, status, equity, ltp, pnl)),
      ...[2, 1, 0].map((i) => h("td", { class: i ? "deep" : "" }, backs[i])),
      ...[0, 1, 2].map((i) => h("td", { class: i ? "deep" : "" }, lays[i])));
    ladderButton.addEventListener("click", () => {
      const open = ladderButton.getAttribute("aria-expanded") !== "true";
      ladderButton.setAttribute("aria-expanded", String(open));
      if (open) {
        const ladderBody = h("div", { class: "ladder" }, h("p", { class: "muted" }, "loading the ladder…"));
        const cell = h("td", {}, ladderBody);
        const ladderRow = h("tr", { class: "ladder-row" }, cell);
        row.after(ladderRow);
        this.ladders.set(key, { row: ladderRow, cell, under: row, body: ladderBody, market: market.marketId, sel, where });
        this.fitLadders();
      } else {
        this.ladders.get(key)?.row.remove();
        this.ladders.delete(key);
      }
      this.onLadder(market.marketId, sel.selectionId, open);
    });
    this.cells.set(key, { status, equity, pnl, ltp, backs, lays, row, where });
    return row;
  }

  updateRow(market, sel, pnl, extras) {
    const cells = this.cells.get(`${market.marketId}:${sel.selectionId}`);
    if (!cells) return;
    setClass(cells.row, `sel-row ${sel.status}`);
    setText(cells.status, sel.status === "IN_PLAY" ? "" : STATUS_WORDS[sel.status] ?? sel.status);
    setText(cells.equity, extras.showEquity && sel.equity !== undefined ? equityWords(sel) : "");
    cells.equity.title = sel.equityStderr != null ? `Monte Carlo estimate, standard error ${(sel.equityStderr * 100).toFixed(2)}%`
      : sel.equityExact ? `exact share ${sel.equityExact}` : "";
    setText(cells.ltp, sel.lastPriceTraded ? `last ${formatPrice(hundredths(sel.lastPriceTraded))}` : "");
    const mine = pnl?.get(sel.selectionId);
    setText(cells.pnl, mine === undefined ? "" : `if wins ${signedMoney(mine)}`);
    setClass(cells.pnl, mine === undefined ? "pnl" : `pnl ${mine > 0 ? "pos" : mine < 0 ? "neg" : ""}`);
    fillPrices(cells.backs, sel.bestAvailableToBackPrices ?? [], "Back", sel.name, cells.where);
    fillPrices(cells.lays, sel.bestAvailableToLayPrices ?? [], "Lay", sel.name, cells.where);
  }

  /**
   * Show a full ladder (API-NG runner ``ex``) in the ladder opened for ``marketId``/``selectionId``. Each price's
   * row is built once and its sizes updated in place, so a price focused (or being clicked) is not replaced.
   */
  showLadder(marketId, selectionId, ex, note) {
    const open = this.ladders.get(`${marketId}:${selectionId}`);
    if (!open) return;
    if (!ex) {
      open.tbody = null;
      replaceChildren(open.body, [h("p", { class: "muted" }, note)]);
      return;
    }
    const levels = new Map();
    for (const { price, size } of ex.availableToBack ?? []) levels.set(hundredths(price), { back: pennies(size) });
    for (const { price, size } of ex.availableToLay ?? []) {
      levels.set(hundredths(price), { ...(levels.get(hundredths(price)) ?? {}), lay: pennies(size) });
    }
    if (!open.tbody) {
      open.tbody = h("tbody", {});
      open.rows = new Map(); // price in hundredths -> its row
      replaceChildren(open.body, [h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "to back"), h("th", {}, "odds"),
        h("th", {}, "to lay"))), open.tbody)]);
    }
    for (const x100 of [...open.rows.keys()]) if (!levels.has(x100)) open.rows.delete(x100);
    const rows = [...levels.keys()].sort((a, b) => b - a).map((x100) => this.ladderRow(open, x100, levels.get(x100)));
    keepChildren(open.tbody, rows.length ? rows : [h("tr", {}, h("td", { colspan: 3 }, "no prices"))]);
  }

  /** The row of the open ladder ``open`` at ``x100``, built once; its sizes (``level``: back and lay) set now. */
  ladderRow(open, x100, level) {
    let row = open.rows.get(x100);
    if (!row) {
      const cell = (side) => ({ td: h("td", { class: side === "BACK" ? "b" : "l" }), button: h("button", {
        type: "button", "aria-label": `${side === "BACK" ? "Back" : "Lay"} ${open.sel.name}${open.where ? `${open.where},` : ""} at ${formatPrice(x100)}`,
        onclick: () => this.onPrice({ marketId: open.market, selectionId: open.sel.selectionId, name: open.sel.name, side,
          price: x100 / 100 }) }) });
      row = { back: cell("BACK"), lay: cell("LAY") };
      row.tr = h("tr", {}, row.back.td, h("th", { scope: "row" }, formatPrice(x100)), row.lay.td);
      open.rows.set(x100, row);
    }
    for (const [part, size] of [[row.back, level.back], [row.lay, level.lay]]) {
      if (size === undefined) {
        part.button.remove();
      } else {
        setText(part.button, shortMoney(size));
        if (part.button.parentNode !== part.td) part.td.append(part.button);
      }
    }
    return row.tr;
  }

  /**
   * Each open ladder spans the columns its grid shows (a phone's width hides the deeper prices): a span over hidden
   * columns would make columns of its own and squeeze the prices. Again on each resize.
   */
  fitLadders() {
    for (const { cell, under } of this.ladders.values()) {
      cell.colSpan = [...under.cells].filter((c) => getComputedStyle(c).display !== "none").length;
    }
  }

  openLadders() {
    return [...this.ladders.values()].map((l) => [l.market, l.sel.selectionId]);
  }
}

/** A selection's equity: exact to two decimals ("equity 31.74%"), or an estimate as one ("equity ≈27.5% ±0.8"),
 * an estimate of nothing in the sample too ("equity ≈0.0% ±0.0": not proven lost, which would make it exact). */
export function equityWords(sel) {
  if (sel.equityStderr == null) return `equity ${(sel.equity * 100).toFixed(2)}%`;
  return `equity ≈${(sel.equity * 100).toFixed(1)}% ±${(sel.equityStderr * 100).toFixed(1)}`;
}

/** Fill a row's price cells of one side; ``where`` names the market (", Low market") where there are several. */
function fillPrices(buttons, levels, verb, name, where) {
  const at = where ? `${where}, at` : " at";
  buttons.forEach((button, i) => {
    const level = levels[i];
    const [odds, size] = button.children;
    if (level) {
      const x100 = hundredths(level.price);
      setText(odds, formatPrice(x100));
      setText(size, shortMoney(pennies(level.size)));
      button.dataset.price = String(level.price);
      button.setAttribute("aria-label", `${verb} ${name}${at} ${formatPrice(x100)}, ${shortMoney(pennies(level.size))} available`);
      button.classList.remove("none");
    } else {
      setText(odds, i === 0 ? verb : "");
      setText(size, "");
      delete button.dataset.price;
      button.setAttribute("aria-label", `${verb} ${name}${where} (no price offered: choose your own)`);
      button.classList.add("none");
    }
  });
}

/**
 * A hand's cards with their faces where the game deals some face up (stud, Soko, Telesina): each turned card as
 * ``{card, up}``, so a card dealt face down is marked "down"; where every card is dealt down, the plain cards.
 */
function withFaces(hand) {
  const faces = hand.faces ?? [];
  if (!faces.includes("UP")) return hand.cards;
  return hand.cards.map((card, i) => (cardCode(card) === null ? card : { card, up: faces[i] === "UP" }));
}

/** A draw game's hand: what it threw at each draw (out of play, and seen by all), or null before the first. */
function drawsList(draws) {
  if (!draws?.length) return null;
  return h("ol", { class: "draws", "aria-label": "the hand's draws" }, draws.map((draw, i) => h("li", {},
    `Draw ${i + 1}: `, draw.discarded.length ? ["threw ", ...drawCards(draw.discarded)] : "stood pat")));
}

function exposedCard(card, dead) {
  const drawn = drawCard(card);
  const label = `${drawn.getAttribute("aria-label")}, exposed${dead ? ", dead" : ""}`;
  drawn.setAttribute("aria-label", label);
  drawn.title = dead ? `${label}: burned, out of play for the rest of the game` : label;
  if (dead) drawn.classList.add("dead");
  return drawn;
}

/** The round as the lobby and the table name it: "Flop", "Flop · suspended", "Result" (a game played out: its
 * last window's name would read as if it had stopped there), "Turn · void" (where a void stopped it), "Void" (a
 * game voided before its first window, by a misdeal, has no round), "Starting". */
export function roundWords(game) {
  if (game.markets.length && game.markets.every((m) => m.status === "CLOSED")) {
    if (!game.markets.every((m) => m.marketStatus === "VOID")) return "Result";
    return game.roundName ? `${game.roundName} · void` : "Void";
  }
  if (!game.roundName) return "Starting";
  return game.bettingOpen ? game.roundName : `${game.roundName} · suspended`;
}

/** A market's name as its grid is titled: its ``marketName`` ("High", "Low"), else from its id's suffix. */
export function marketTitle(market) {
  if (market.marketName) return market.marketName;
  const suffix = market.marketId.split(".").pop();
  return { hi: "High", high: "High", lo: "Low", low: "Low" }[suffix.toLowerCase()] ?? market.marketId;
}
