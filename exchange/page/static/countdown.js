// The betting window's countdown between the server's messages: each snapshot says how long the window has left
// when it was sent; the page counts down from there (at the replay's speed in a replay, not at all while paused).

/**
 * A betting window's length in ms, of a channel or a game: ``bettingWindowMs`` where the server gives it (exact), else
 * the Games API's ``bettingWindowTime`` (whole seconds: a window of 2.5 s would read as 2).
 */
export function windowMs(x) {
  return x.bettingWindowMs ?? x.bettingWindowTime * 1000;
}

/** A playing window's length in ms, of a channel: ``playingWindowMs`` where given, else from whole seconds. */
export function playingMs(channel) {
  return channel.playingWindowMs ?? channel.playingWindowTime * 1000;
}

/** Milliseconds as seconds to the decimals they need: "30", "2.5". */
export function seconds(ms) {
  return String(ms / 1000);
}

/** What ``entry``'s game ({snapshot, at: performance.now() when received}) has left of its open window, in ms. */
function leftMs(entry, speed) {
  const game = entry.snapshot.game;
  return Math.max(0, (game.bettingWindowRemainingMs ?? 0) - (performance.now() - entry.at) * speed);
}

/** The time left as the lobby and the table say it: "12.3 s", "suspended", "settled", "void", or "—" (no game). */
export function timeLeftWords(entry, speed) {
  const game = entry?.snapshot.game;
  if (!game) return "—";
  if (!game.bettingOpen) {
    if (!game.markets.every((m) => m.status === "CLOSED")) return "suspended";
    return game.markets.every((m) => m.marketStatus === "VOID") ? "void" : "settled";
  }
  return `${(leftMs(entry, speed) / 1000).toFixed(1)} s`;
}

/** The share of the window gone by, 0 to 1, for the countdown bar: all of it between windows, none without a game. */
export function windowShare(entry, speed) {
  const game = entry?.snapshot.game;
  if (!game) return 0;
  if (!game.bettingOpen) return 1;
  return Math.min(1, Math.max(0, 1 - leftMs(entry, speed) / (windowMs(game) || 1)));
}
