// Betfair's price ladder (1.01 to 1000) and money in pennies: the page does no float arithmetic on money.

const BANDS = [[100, 200, 1], [200, 300, 2], [300, 400, 5], [400, 600, 10], [600, 1000, 20], [1000, 2000, 50],
  [2000, 3000, 100], [3000, 5000, 200], [5000, 10000, 500], [10000, 100000, 1000]];

/** Every price on the ladder, in hundredths (101 … 100000). */
export const TICKS = (() => {
  const out = [101];
  for (const [from, to, step] of BANDS) {
    for (let p = from + step; p <= to; p += step) out.push(p);
  }
  return out;
})();

/** A price typed or received (2.5, "2.50") in hundredths, or null if it is not a number (nothing typed is none). */
export function hundredths(price) {
  if (price === null || price === undefined || String(price).trim() === "") return null;
  const n = Number(price);
  return Number.isFinite(n) ? Math.round(n * 100) : null;
}

export function onLadder(x100) {
  return TICKS.includes(x100);
}

/** The price ``steps`` ticks from ``x100`` (up is positive), clamped to the ladder; off-ladder snaps first. */
export function stepPrice(x100, steps) {
  let i = TICKS.findIndex((p) => p >= x100);
  if (i < 0) i = TICKS.length - 1;
  if (TICKS[i] !== x100 && steps > 0) steps -= 1;
  return TICKS[Math.min(TICKS.length - 1, Math.max(0, i + steps))];
}

/**
 * A number as a trader writes one: digits with a decimal point or not, a sign at most ("2", "2.50", ".5", "-1").
 * JavaScript's ``Number`` also reads "0x10" (16), "1e2" (100) and "0b11" (3): a field would send what was not typed.
 */
const PLAIN_DECIMAL = /^-?(\d+\.?\d*|\.\d+)$/; // no "+" or exponent ("1e2"): plain decimal text only

/**
 * What is wrong with odds typed as ``text`` ("3.03"), or null when they are a price of the ladder. A ``missing``
 * problem (nothing typed, or not a plain decimal number) is one no order can carry; the others the server refuses in
 * its own words.
 */
export function oddsProblem(text) {
  const typed = String(text).trim();
  if (typed === "") return { missing: true, words: "Give the odds: 1.01 to 1000." };
  const n = Number(typed);
  if (!PLAIN_DECIMAL.test(typed) || !Number.isFinite(n)) {
    return { missing: true, words: `Odds ${typed} are not a number: give decimal odds, 1.01 to 1000.` };
  }
  const x100 = n * 100;
  if (x100 < TICKS[0]) return { missing: false, words: `Odds ${typed} are below the lowest on the ladder, 1.01.` };
  if (x100 > TICKS[TICKS.length - 1]) {
    return { missing: false, words: `Odds ${typed} are above the highest on the ladder, 1000.` };
  }
  const whole = Math.round(x100);
  if (Math.abs(x100 - whole) < 1e-6 && onLadder(whole)) return null;
  const below = TICKS.filter((p) => p <= x100 + 1e-6).pop();
  const above = TICKS.find((p) => p >= x100 - 1e-6);
  return { missing: false,
    words: `Odds ${typed} are not on the ladder: the nearest are ${formatPrice(below)} and ${formatPrice(above)}.` };
}

/**
 * What is wrong with a stake typed as ``text`` ("2.50"), or null; ``missing`` as for :func:`oddsProblem`. A stake
 * of 0 or less, or below ``minimum`` pennies (the market's minimum stake, as the server publishes it), is a ``stop``
 * problem: the page knows the rule, so it says so and sends nothing.
 */
export function stakeProblem(text, minimum = null) {
  const typed = String(text).trim();
  if (typed === "") return { missing: true, words: "Give a stake in pounds." };
  const n = Number(typed);
  if (!PLAIN_DECIMAL.test(typed) || !Number.isFinite(n)) {
    return { missing: true, words: `Stake ${typed} is not an amount: give pounds and pence, e.g. 2.50.` };
  }
  if (n <= 0) {  // the page knows the rule: nothing to send
    const least = minimum === null ? "more than £0" : `at least this market's minimum stake, ${money(minimum)}`;
    return { missing: false, stop: true, words: `Stake ${typed} must be ${least}.` };
  }
  if (Math.abs(n * 100 - Math.round(n * 100)) > 1e-6) {
    return { missing: false, words: `Stake ${typed} has more than two decimals: give pounds and pence, e.g. 2.50.` };
  }
  if (minimum !== null && Math.round(n * 100) < minimum) {
    return { missing: false, stop: true, words: `Stake ${typed} is below this market's minimum stake, ${money(minimum)}.` };
  }
  return null;
}

export function formatPrice(x100) {
  if (x100 === null || x100 === undefined) return "";
  const s = (x100 / 100).toFixed(2);
  return x100 >= 1000 ? String(Number(s)) : s;
}

/**
 * A bet's average matched price, in ten-thousandths (API-NG gives it to four decimals): a ladder price as any other
 * ("3.05"), else "avg 3.025" with the decimals it needs. Rounded to two decimals an average reads as a ladder
 * price that never traded (2.005, £6 at 2.00 and £2 at 2.02, would be "2.01").
 */
export function formatAverage(x10k) {
  if (x10k === null || x10k === undefined) return "";
  if (x10k % 100 === 0 && onLadder(x10k / 100)) return formatPrice(x10k / 100);
  const decimals = String(x10k % 10000).padStart(4, "0").replace(/0{1,2}$/, "");
  return `avg ${Math.floor(x10k / 10000)}.${decimals}`;
}

/** An amount in pounds from the wire (12.34) in pennies. */
export function pennies(amount) {
  return Math.round(Number(amount) * 100);
}

/** Pennies as "£12.34" (negative "−£1.20"). */
export function money(p) {
  const sign = p < 0 ? "−" : "";
  const abs = Math.abs(p);
  return `${sign}£${Math.floor(abs / 100).toLocaleString("en-GB")}.${String(abs % 100).padStart(2, "0")}`;
}

/** Signed pennies for a P&L: "+£1.20", "−£2.00", "£0.00". */
export function signedMoney(p) {
  return p > 0 ? `+${money(p)}` : money(p);
}

/**
 * A size on the price grid: whole pounds from £100, the pence dropped (never rounded up: a bet of the size shown
 * should be matched in full), else pennies dropped when zero ("£150" for £150.50, "£12", "£3.50").
 */
export function shortMoney(p) {
  if (p >= 10000) return `£${Math.floor(p / 100).toLocaleString("en-GB")}`;
  return p % 100 === 0 ? `£${p / 100}` : money(p);
}

/**
 * What a bet of ``stake`` pennies at ``x100`` pays if its selection wins, in pennies as settlement rounds it: the
 * exact amount to the nearest penny, an exact half penny down. So the backer's profit is ``winnings(…)`` and the
 * layer's liability ``-winnings(…, "LAY")`` (£2.50 laid at 1.33: £0.825 exact, £0.83 paid).
 */
export function winnings(stake, x100, side = "BACK") {
  const hundredthsOfPenny = stake * (x100 - 100) * (side === "BACK" ? 1 : -1);
  return Math.ceil((2 * hundredthsOfPenny - 100) / 200);
}
