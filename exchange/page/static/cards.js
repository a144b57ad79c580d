// Playing cards drawn with CSS: a face (rank and suit symbol) or a back. No images are downloaded.

import { h } from "./dom.js";

const SUITS = { s: ["♠", "spades", false], h: ["♥", "hearts", true], d: ["♦", "diamonds", true], c: ["♣", "clubs", false] };
const RANKS = { T: "10", J: "J", Q: "Q", K: "K", A: "A" };
const RANK_NAMES = { A: "ace", K: "king", Q: "queen", J: "jack", T: "ten" };

/**
 * A card as the server sent it, normalised: a string ("As", "NOT AVAILABLE") or an object carrying the card
 * and whether it is face up (`{card: "As", up: true}`), so games that deal up and down cards draw as well.
 */
export function cardCode(card) {
  if (card && typeof card === "object") return card.card ?? card.code ?? null;
  if (typeof card !== "string" || !/^[2-9TJQKA][shdc]$/i.test(card)) return null;
  return card;
}

export function drawCard(card) {
  const code = cardCode(card);
  if (code === null) return h("span", { class: "card back", role: "img", "aria-label": "face-down card" });
  const rank = code[0].toUpperCase();
  const [symbol, suitName, red] = SUITS[code[1].toLowerCase()];
  // A card dealt face down in the poker sense (stud's hole cards) is shown to spectators, marked "down".
  const down = typeof card === "object" && (card.up === false || card.faceUp === false);
  const label = `${RANK_NAMES[rank] ?? rank} of ${suitName}${down ? " (down)" : ""}`;
  return h("span", { class: `card${red ? " red" : ""}${down ? " down" : ""}`, role: "img", "aria-label": label,
    title: label, dataset: { card: code } },
  h("span", { class: "rank", "aria-hidden": "true" }, RANKS[rank] ?? rank),
  h("span", { class: "pip", "aria-hidden": "true" }, symbol));
}

/** The cards of a hand or the board as a list of elements. */
export function drawCards(cards) {
  return (cards ?? []).map(drawCard);
}
