// A trader's side of the page: own orders (from the order stream and API-NG), the "if it wins" P&L, the bet slip,
// and the lists of bets. Money is held in pennies and prices in hundredths: no float arithmetic on money.

import { $, h, keepChildren, replaceChildren, setText } from "./dom.js";
import { formatAverage, formatPrice, hundredths, money, oddsProblem, pennies, stakeProblem, stepPrice, winnings }
  from "./ladder.js";

/** The :meth:`Orders.matchedKey` of a market where none of the account's bets is matched. */
export const NOTHING_MATCHED = "[]";

/** An order normalised from an Exchange Stream ``uo`` entry. */
function fromStream(marketId, selectionId, uo) {
  return {
    betId: String(uo.id), marketId, selectionId, side: uo.side === "B" ? "BACK" : "LAY",
    price: hundredths(uo.p), size: pennies(uo.s), matched: pennies(uo.sm ?? 0), remaining: pennies(uo.sr ?? 0),
    avg10k: tenThousandths(uo.avp), complete: uo.status === "EC", cancelled: pennies(uo.sc ?? 0),
    lapsed: pennies(uo.sl ?? 0), voided: pennies(uo.sv ?? 0),
  };
}

/** An order normalised from API-NG's ``CurrentOrderSummary``. */
function fromApi(o) {
  return {
    betId: String(o.betId), marketId: o.marketId, selectionId: o.selectionId, side: o.side,
    price: hundredths(o.priceSize.price), size: pennies(o.priceSize.size), matched: pennies(o.sizeMatched ?? 0),
    remaining: pennies(o.sizeRemaining ?? 0), avg10k: tenThousandths(o.averagePriceMatched),
    complete: o.status === "EXECUTION_COMPLETE", cancelled: pennies(o.sizeCancelled ?? 0),
    lapsed: pennies(o.sizeLapsed ?? 0), voided: pennies(o.sizeVoided ?? 0),
  };
}

/**
 * A bet of a closed market normalised from API-NG's ``ClearedOrderSummary`` and the ``betStatus`` it was listed by:
 * settled (its matched stake and average price), voided (its voided matches), lapsed or cancelled. A settled bet's
 * unmatched part (``sizeCancelled``) is ``unmatched``: cancelled or lapsed, the row does not tell which.
 */
function fromCleared(row) {
  const settled = row.betStatus === "SETTLED" ? pennies(row.sizeSettled ?? 0) : 0;
  const unmatched = row.betStatus === "SETTLED" ? pennies(row.sizeCancelled ?? 0) : 0;
  const voided = row.betStatus === "VOIDED" ? pennies(row.sizeSettled ?? 0) : 0;
  const cancelled = row.betStatus === "CANCELLED" ? pennies(row.sizeCancelled ?? 0) : 0;
  const lapsed = row.betStatus === "LAPSED" ? pennies(row.sizeCancelled ?? 0) : 0;
  return {
    betId: String(row.betId), marketId: row.marketId, selectionId: row.selectionId, side: row.side,
    price: hundredths(row.priceRequested), size: settled + unmatched + voided + cancelled + lapsed, matched: settled,
    remaining: 0, avg10k: tenThousandths(row.priceMatched), complete: true, cancelled, lapsed, voided, unmatched,
  };
}

/**
 * One bet from two of its cleared rows (``earlier`` undefined for its first): a bet settled on the stake that stood
 * after a void is listed under SETTLED with that stake and under VOIDED with the voided one, each row a part of it.
 */
function joined(earlier, part) {
  if (!earlier) return part;
  const sum = (name) => earlier[name] + part[name];
  return {
    ...earlier, size: sum("size"), matched: sum("matched"), cancelled: sum("cancelled"), lapsed: sum("lapsed"),
    voided: sum("voided"), unmatched: sum("unmatched"), avg10k: earlier.avg10k ?? part.avg10k,
  };
}

/** An average matched price as API-NG gives it (to four decimals) in ten-thousandths, or null when none. */
export function tenThousandths(price) {
  return price ? Math.round(Number(price) * 10000) : null;
}

/** ``num / 10000`` rounded to the nearest integer, an exact half down: as settlement rounds an exact result. */
function roundHalfDown(num) {
  return Math.ceil((2 * num - 10000) / 20000);
}

export class Orders {
  constructor() {
    this.byId = new Map();
    // `${marketId}:${selectionId}` -> {BACK, LAY}: Map(price in hundredths -> pennies matched at it), the account's
    // matched position by fill price as the order stream gives it (``mb``/``ml``), exact where averages are not
    this.positions = new Map();
    this.streamed = 0; // changes applied from the order stream so far
    this.streamedAt = new Map(); // bet id -> the count of stream changes when the stream last changed it
  }

  /** A mark to hand :meth:`applyList` with an API-NG answer asked for now: what the stream changes from here on is
   * newer than that answer. */
  mark() {
    return this.streamed;
  }

  clear() {
    this.streamedAt.clear();
    this.byId.clear();
    this.positions.clear();
  }

  /** Forget every order and matched position but those on the markets of ``marketIds`` (a Set). */
  keepOnly(marketIds) {
    for (const [id, o] of this.byId) if (!marketIds.has(o.marketId)) this.byId.delete(id);
    for (const id of [...this.streamedAt.keys()]) if (!this.byId.has(id)) this.streamedAt.delete(id);
    for (const key of [...this.positions.keys()]) {
      if (!marketIds.has(key.slice(0, key.lastIndexOf(":")))) this.positions.delete(key);
    }
  }

  /**
   * Apply an ``ocm``'s ``oc``, as Betfair sends it. An ``image`` (a subscription's first message, again at each
   * reconnection) holds every executable order of the account: one known here as executable and not in it ended
   * unseen, and is dropped (the complete ones stay; the caller reads back what ended). A delta's ``uo`` holds only
   * the orders that changed, each replacing what was known of it.
   */
  applyStream(oc, image) {
    if (image) {
      for (const [id, o] of this.byId) {
        if (!o.complete) {
          this.byId.delete(id);
          this.streamedAt.delete(id);
        }
      }
      this.positions.clear();
    }
    for (const market of oc) {
      for (const orc of market.orc ?? []) {
        for (const uo of orc.uo ?? []) {
          this.byId.set(String(uo.id), fromStream(market.id, orc.id, uo));
          this.streamedAt.set(String(uo.id), ++this.streamed);
        }
        this.applyPosition(market.id, orc);
      }
    }
  }

  /** A runner's ``mb``/``ml``: the whole position with ``fullImage``, else the levels that moved (size 0: gone). */
  applyPosition(marketId, orc) {
    if (!orc.mb && !orc.ml && !orc.fullImage) return;
    const key = `${marketId}:${orc.id}`;
    if (orc.fullImage || !this.positions.has(key)) this.positions.set(key, { BACK: new Map(), LAY: new Map() });
    const position = this.positions.get(key);
    for (const [side, levels] of [["BACK", orc.mb], ["LAY", orc.ml]]) {
      for (const [price, size] of levels ?? []) {
        if (pennies(size) > 0) position[side].set(hundredths(price), pennies(size));
        else position[side].delete(hundredths(price));
      }
    }
  }

  /**
   * The matched stakes of ``orders`` (one market's) by fill price, from the order stream's positions, as
   * ``{selectionId, side, matched, avg10k}`` parts; null unless the positions account for every matched penny of
   * the orders, side by side (the stream refused or behind, or the bets read over API-NG only).
   */
  exactParts(orders) {
    const matched = new Map(); // `${selectionId}:${side}` -> pennies, by the orders
    for (const o of orders) {
      const key = `${o.selectionId}:${o.side}`;
      matched.set(key, (matched.get(key) ?? 0) + o.matched);
    }
    const parts = [];
    for (const [key, total] of matched) {
      const [selectionId, side] = key.split(":");
      const levels = this.positions.get(`${orders[0].marketId}:${selectionId}`)?.[side] ?? new Map();
      let sum = 0;
      for (const [x100, size] of levels) {
        sum += size;
        parts.push({ selectionId: Number(selectionId), side, matched: size, avg10k: x100 * 100 });
      }
      if (sum !== total) return null;
    }
    return parts;
  }

  /**
   * What the P&L of ``marketId`` depends on: each bet's matched stake (so a figure can be told stale); the key of a
   * market with nothing matched is ``NOTHING_MATCHED``.
   */
  matchedKey(marketId) {
    return JSON.stringify(this.of([marketId]).filter((o) => o.matched > 0).map((o) => [o.betId, o.matched]));
  }

  /**
   * Replace the orders of ``marketIds`` with a ``listCurrentOrders`` answer and the ``cleared`` bets of those markets
   * that have closed (``ClearedOrderSummary`` rows, each with its ``betStatus``), a bet listed current kept as such.
   * ``since``: the :meth:`mark` taken when the answer was asked for; a bet the order stream changed after it keeps the
   * stream's state, newer than the answer's (none is kept without it: a replay's list is the whole truth).
   */
  applyList(marketIds, currentOrders, cleared = [], since = Infinity) {
    const markets = new Set(marketIds);
    const newer = (id) => (this.streamedAt.get(id) ?? -Infinity) > since;
    for (const [id, o] of this.byId) if (markets.has(o.marketId) && !newer(id)) this.byId.delete(id);
    for (const o of currentOrders) if (!newer(String(o.betId))) this.byId.set(String(o.betId), fromApi(o));
    const closed = new Map(); // bet id -> the bet from its cleared rows (a bet settled after a void has two)
    for (const row of cleared) {
      const id = String(row.betId);
      closed.set(id, joined(closed.get(id), fromCleared(row)));
    }
    for (const [id, bet] of closed) if (!this.byId.has(id)) this.byId.set(id, bet);
  }

  of(marketIds) {
    const markets = new Set(marketIds);
    return [...this.byId.values()].filter((o) => markets.has(o.marketId)).sort((a, b) => Number(a.betId) - Number(b.betId));
  }

  /**
   * What the account wins or loses on ``market`` if each selection wins (matched bets only, before commission),
   * summed and then rounded to the penny: exact from the prices of the fills where the order stream gave them,
   * else from each bet's average price to the four decimals API-NG gives (possibly a penny off). A live page shows
   * the server's own figures (listMarketProfitAndLoss) in place of these when it has them for the bets matched now.
   * ``settledWhileOpen``: the selections the market had settled when last seen open (for a closed market, whose
   * snapshot no longer tells them from those settled at the end).
   */
  pnl(market, settledWhileOpen = []) {
    const matched = this.of([market.marketId]).filter((o) => o.matched > 0);
    if (!matched.length) return null;
    const orders = this.exactParts(matched) ?? matched;
    // A selection settled while the market was open (it could no longer win) has its bets' results fixed, whichever
    // selection wins, as the server counts them (includeSettledBets): so the two sums agree.
    const settled = new Set(market.status === "CLOSED" ? settledWhileOpen
      : market.selections.filter((s) => s.status !== "IN_PLAY").map((s) => s.selectionId));
    const exact = new Map(market.selections.map((s) => [s.selectionId, 0])); // in ten-thousandths of a penny
    for (const o of orders) {
      const win = o.matched * ((o.avg10k ?? o.price * 100) - 10000);
      const stake = o.matched * 10000;
      for (const selectionId of exact.keys()) {
        const mine = selectionId === o.selectionId && !settled.has(o.selectionId);
        const delta = o.side === "BACK" ? (mine ? win : -stake) : (mine ? -win : stake);
        exact.set(selectionId, exact.get(selectionId) + delta);
      }
    }
    return new Map([...exact].map(([selectionId, value]) => [selectionId, roundHalfDown(value)]));
  }
}

/**
 * The arrow keys in an odds field (``event`` a keydown of ``field``): up and down step its odds one tick along the
 * ladder (odds off it snap to it first; none typed start from 2.00). True if the key was one of them.
 */
function stepOdds(field, event) {
  if (event.key !== "ArrowUp" && event.key !== "ArrowDown") return false;
  event.preventDefault();
  const now = hundredths(field.value) ?? 200;
  field.value = formatPrice(stepPrice(now, event.key === "ArrowUp" ? 1 : -1));
  return true;
}

/** The bet slip: side, selection, price and stake, with the profit or liability shown before confirming. */
export class Slip {
  /**
   * ``onSubmit(bet)`` with the odds and stake as numbers; ``onMissing(words)`` instead when a field holds no number
   * (the server would name it "price 0" or "required") or the stake is below the market's minimum: what else is
   * wrong the slip says, and the server refuses.
   */
  constructor({ onSubmit, onMissing }) {
    this.bet = null;
    this.minimum = null; // the market's minimum stake in pennies, when the server gives it
    this.blocked = null; // why the bet cannot be placed now (its market suspended, its selection out), or null
    this.sending = false; // an order from the slip is on its way: another click is not another order
    this.offline = false; // the games stream is down: the slip says so and sends nothing
    this.origin = null; // the element (a price cell) that filled the slip, where focus goes back when it is done
    this.onSubmit = onSubmit;
    this.form = $("slip-form");
    this.price = $("slip-price");
    this.stake = $("slip-stake");
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (!this.bet || this.blocked || this.offline || this.sending) return;
      const missing = [oddsProblem(this.price.value), this.stakeProblem()].find((p) => p?.missing || p?.stop);
      if (missing) onMissing(missing.words);
      else this.send({ ...this.bet, price: Number(this.price.value), size: Number(this.stake.value) });
    });
    $("slip-clear").addEventListener("click", () => this.done());
    this.form.addEventListener("keydown", (event) => {  // Escape, as in any dialog: the trader changed their mind
      if (event.key !== "Escape" || !this.bet) return;
      event.preventDefault();
      this.done();
    });
    this.price.addEventListener("input", () => this.describe());
    this.stake.addEventListener("input", () => this.describe());
    this.price.addEventListener("keydown", (event) => {
      if (stepOdds(this.price, event)) this.describe();
    });
  }

  /**
   * Fill the slip for a bet; ``minStake`` is the market's minimum stake in pounds as the server gives it, if it does;
   * ``where`` names its market ("Low"; by default its id).
   */
  fill({ marketId, selectionId, name, side, price, minStake, where = marketId }) {
    this.bet = { marketId, selectionId, name, side };
    this.blocked = null;
    this.origin = document.activeElement instanceof HTMLButtonElement ? document.activeElement : null;
    this.minimum = minStake ? pennies(minStake) : null;
    this.price.value = price ? formatPrice(hundredths(price)) : "";
    $("slip-empty").hidden = true;
    this.form.hidden = false;
    const what = $("slip-what");
    what.className = `slip-what ${side}`;
    setText(what, `${side === "BACK" ? "Back" : "Lay"} ${name} · ${where}`);
    setText($("slip-confirm"), side === "BACK" ? "Place back bet" : "Place lay bet");
    this.describe();
    (price ? this.stake : this.price).focus();
  }

  /**
   * Keep the slip to its market as the table changes (``markets``: the game's, as the snapshot gives them): it says
   * so and will not place while the market is suspended or its selection out, and is cleared once the market has
   * closed or left the table (a new game), rather than send a bet there.
   */
  follow(markets) {
    if (!this.bet) return;
    const market = markets.find((m) => m.marketId === this.bet.marketId);
    if (!market || market.status === "CLOSED") {
      this.clear(`Market ${this.bet.marketId} has closed: its slip was cleared.`);
      return;
    }
    const selection = market.selections.find((s) => s.selectionId === this.bet.selectionId);
    let blocked = null;
    if (market.status !== "OPEN") blocked = "The market is suspended until its next betting window opens.";
    else if (selection && selection.status !== "IN_PLAY") blocked = `${this.bet.name} can no longer win: it takes no bets.`;
    if (blocked !== this.blocked) {
      this.blocked = blocked;
      this.describe();
    }
  }

  /** Whether the games stream is up: while it is down the slip sends nothing (the server is not there, or the
   * prices it was filled from may be out of date), and says so. */
  connected(up) {
    this.offline = !up;
    this.describe();
  }

  /** The profit or liability of the bet as filled in, what is wrong with its odds or stake, or why it cannot be placed. */
  describe() {
    if (!this.bet) return;
    const stop = this.offline
      ? "The connection to the server is lost (reconnecting…): no bet is sent until it is back."
      : this.blocked;
    $("slip-confirm").disabled = stop !== null || this.sending;
    const problem = oddsProblem(this.price.value) ?? this.stakeProblem();
    let words = stop ?? problem?.words;
    if (!stop && !problem) {
      const x100 = hundredths(this.price.value);
      const stake = pennies(this.stake.value);
      words = this.bet.side === "BACK"
        ? `Profit ${money(winnings(stake, x100))} if ${this.bet.name} wins; you risk ${money(stake)}.`
        : `Liability ${money(-winnings(stake, x100, "LAY"))} if ${this.bet.name} wins; you win ${money(stake)} if it loses.`;
    }
    setText($("slip-outcome"), words);
  }

  stakeProblem() {
    return stakeProblem(this.stake.value, this.minimum);
  }

  /** Send ``bet`` by ``onSubmit`` (which answers once the server has), the slip held meanwhile. */
  async send(bet) {
    this.sending = true;
    $("slip-confirm").disabled = true;
    try {
      await this.onSubmit(bet);
    } finally {
      this.sending = false;
      this.describe();
    }
  }

  /** The trader is done with the slip (the bet placed, or cleared): empty it, and focus goes back where it came from. */
  done() {
    const origin = this.origin;
    this.clear();
    if (origin?.isConnected && origin.offsetParent !== null) origin.focus();
  }

  /** Empty the slip; ``why`` it was emptied, when not by the trader, is said in its place. */
  clear(why = "") {
    this.bet = null;
    this.blocked = null;
    this.origin = null;
    this.form.hidden = true;
    setText($("slip-empty"), `${why ? `${why} ` : ""}Click a price to fill the slip.`);
    $("slip-empty").hidden = false;
  }
}

/** Each unmatched bet's row as drawn: kept while the bet is, so the odds being typed in it survive each redraw. */
const unmatchedRows = new Map(); // bet id -> {key, li, amount}
const NONE_UNMATCHED = h("li", { class: "muted" }, "none");

/** Bet ids with a change of odds or a cancel on its way: another click on the bet is not another request (it would
 * name a bet the first has replaced or cancelled, and its refusal would be the last word shown). */
const acting = new Set();

/** Run ``act()`` (a change or cancel of ``o``, answering once done) unless one for ``o`` is on its way; the row's
 * buttons (``buttons``) are held meanwhile. */
async function actOnce(o, buttons, act) {
  if (acting.has(o.betId)) return;
  acting.add(o.betId);
  for (const button of buttons) button.disabled = true;
  try {
    await act();
  } finally {
    acting.delete(o.betId);
    for (const button of buttons) button.disabled = false;
  }
}

/** An unmatched bet's row, the one drawn before when it still fits: only its remaining stake is updated. */
function unmatchedRow(o, name, { onCancel, onReplace, readOnly }) {
  const key = JSON.stringify([o.side, name, o.price, o.marketId, readOnly]);
  let row = unmatchedRows.get(o.betId);
  if (row?.key !== key) {
    // The keyboard as in the slip: the arrows step the odds along the ladder, Enter changes the bet.
    const buttons = [];
    const change = () => actOnce(o, buttons, () => onReplace(o, input.value));
    const input = h("input", { "aria-label": `New odds for bet ${o.betId}`, value: formatPrice(o.price), inputmode: "decimal",
      onkeydown: (event) => {
        if (stepOdds(input, event) || event.key !== "Enter") return;
        event.preventDefault();
        change();
      } });
    // each named for its bet: a screen reader's list of buttons tells one bet's Cancel from another's
    buttons.push(h("button", { type: "button", "aria-label": `Change odds of bet ${o.betId}`, onclick: change }, "Change"),
      h("button", { type: "button", "aria-label": `Cancel bet ${o.betId}`,
        onclick: () => actOnce(o, buttons, () => onCancel(o)) }, "Cancel"));
    const amount = h("span", {});
    const li = h("li", { class: o.side, dataset: { bet: o.betId } },
      h("span", { class: "tag" }, o.side), h("span", {}, name), amount,
      readOnly ? null : h("span", { class: "acts" }, input, ...buttons));
    row = { key, li, amount };
    unmatchedRows.set(o.betId, row);
  }
  setText(row.amount, `${money(o.remaining)} at ${formatPrice(o.price)}`);
  return row.li;
}

/** The unmatched, matched, and cancelled, lapsed or voided bets on the table's markets, with cancel and change-price
 * on each unmatched one. What rested unmatched when its window closed is listed lapsed; a match a dealer's error
 * voided leaves the matched list for the last one. */
export function renderOrders(orders, names, { onCancel, onReplace, readOnly = false }) {
  const unmatched = orders.filter((o) => o.remaining > 0 && !o.complete);
  const matched = orders.filter((o) => o.matched > 0);
  const label = (o) => names(o);
  const rows = unmatched.map((o) => unmatchedRow(o, label(o), { onCancel, onReplace, readOnly }));
  for (const id of [...unmatchedRows.keys()]) if (!unmatched.some((o) => o.betId === id)) unmatchedRows.delete(id);
  keepChildren($("unmatched"), rows.length ? rows : [NONE_UNMATCHED]);
  replaceChildren($("matched"), matched.length ? matched.map((o) => h("li", { class: o.side, dataset: { bet: o.betId } },
    h("span", { class: "tag" }, o.side), h("span", {}, label(o)),
    h("span", {}, `${money(o.matched)} at ${formatAverage(o.avg10k ?? o.price * 100)}`))) : [h("li", { class: "muted" }, "none")]);
  const gone = orders.filter((o) => o.cancelled > 0 || o.lapsed > 0 || o.unmatched > 0 || o.voided > 0);
  const why = (o) => [o.cancelled > 0 ? `${money(o.cancelled)} at ${formatPrice(o.price)} cancelled` : "",
    o.lapsed > 0 ? `${money(o.lapsed)} at ${formatPrice(o.price)} lapsed` : "",
    o.unmatched > 0 ? `${money(o.unmatched)} at ${formatPrice(o.price)} not matched` : "",
    o.voided > 0 ? `${money(o.voided)} matched, voided` : ""].filter(Boolean).join("; ");
  replaceChildren($("cancelled"), gone.length ? gone.map((o) => h("li", { class: o.side, dataset: { bet: o.betId } },
    h("span", { class: "tag" }, o.side), h("span", {}, label(o)), h("span", {}, why(o))))
    : [h("li", { class: "muted" }, "none")]);
}

/**
 * The account's settled markets (``listClearedOrders`` by market: profit and commission) and bets, newest first; each
 * bet named by ``name`` (by default its market id and the selection's name its ``itemDescription`` gives: "No low" is
 * a Low market's fifth). A market in ``open`` (ids) is still trading: only the bets on its hands settled early are
 * in, and its commission is charged when it settles, so its row says so.
 */
export function renderSettled(markets, bets, open = new Set(), name = settledName) {
  replaceChildren($("settled"), markets.length ? markets.map((m) => h("tr", {},
    h("td", {}, m.marketId, open.has(m.marketId)
      ? h("span", { class: "muted", title: "bets on its hands settled early; the rest settle with the market" },
        " (in part: still trading)") : ""),
    h("td", {}, m.betCount), h("td", {}, money(pennies(m.profit))),
    open.has(m.marketId) ? h("td", { class: "muted" }, "at settlement") : h("td", {}, money(pennies(m.commission ?? 0)))))
    : [h("tr", {}, h("td", { colspan: 4, class: "muted" }, "none yet"))]);
  replaceChildren($("settled-bets"), bets.map((b) => h("li", { class: b.side },
    h("span", { class: "tag" }, b.side), h("span", {}, name(b)),
    h("span", {}, `${money(pennies(b.sizeSettled ?? 0))} at ${formatAverage(tenThousandths(b.priceMatched ?? b.priceRequested))}`),
    deadHeat(b) ? h("span", { class: "muted", title: "its hand tied for the win: paid at odds divided by the number tied" },
      "dead heat") : "",
    h("span", { class: "acts" }, `profit ${money(pennies(b.profit ?? 0))}`))));
}

/** A settled bet's market id and the name of its selection. */
export function settledName(b) {
  return `${b.marketId} ${b.itemDescription?.runnerDesc ?? `Selection ${b.selectionId}`}`;
}

/**
 * Whether a settled bet was paid by the dead-heat rule (a back "WON", a lay "LOST" on a hand tied for the win): its
 * profit is neither the whole win nor the whole loss its stake and price make (a penny apart at most: a bet's share
 * of its market's rounding). A "WON" back may then show a loss (at 1.03 tied two ways it is paid at 0.515), which
 * without a word reads as a mistake.
 */
export function deadHeat(b) {
  const stake = pennies(b.sizeSettled ?? 0) * 10000;
  const price = tenThousandths(b.priceMatched);
  if (!b.betOutcome || !stake || !price) return false;
  const win = (stake / 10000) * (price - 10000);
  const whole = b.side === "BACK" ? [win, -stake] : [-win, stake];
  const profit = pennies(b.profit ?? 0) * 10000;
  return whole.every((figure) => Math.abs(profit - figure) > 10000);
}

export function setFunds(funds) {
  setText($("balance"), money(pennies(funds.availableToBetBalance)));
  setText($("exposure"), money(pennies(Math.abs(funds.exposure ?? 0))));
}
