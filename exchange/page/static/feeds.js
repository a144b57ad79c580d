// The two WebSockets the page listens to: the spectators' games stream (cards, rounds, prices, equities; no login)
// and, once logged in, the Exchange Stream's order subscription (the account's own orders as they change).

import { APP_KEY } from "./api.js";

const RETRY_MS = [500, 1000, 2000, 5000];
/**
 * How long a stream that beats (the games stream sends a heartbeat every 5 s) may be silent before the page takes
 * it for stalled (open, carrying nothing: a table frozen in time shown as live) and connects again.
 */
export const STALE_MS = 15000;
/** How often a connection refused for the account's stream connection limit is tried again. */
export const LIMIT_RETRY_MS = 5000;

function wsUrl(path) {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${path}`;
}

/**
 * A WebSocket that reconnects (with back-off) until stopped; ``onOpen(ws)`` after each connect. Once the server has
 * sent a ``heartbeat``, a connection silent for ``staleMs`` is dropped and another made (``onState`` says
 * "reconnecting", then "live"): a server that sends none is never taken for stalled.
 */
export class Reconnecting {
  constructor(path, { onOpen, onMessage, onState, staleMs = STALE_MS }) {
    this.path = path;
    this.handlers = { onOpen, onMessage, onState };
    this.stopped = false;
    this.failures = 0;
    this.ws = null;
    this.retryMs = null; // the wait before the next try, when the server said how long it should be
    this.staleMs = staleMs;
    this.beating = false; // a heartbeat heard: silence now means a stalled connection
    this.heardAt = 0;
    this.watch = setInterval(() => this.checkAlive(), Math.min(1000, staleMs / 3));
    this.connect();
  }

  checkAlive() {
    const ws = this.ws;
    if (this.stopped || !this.beating || ws?.readyState !== WebSocket.OPEN) return;
    if (performance.now() - this.heardAt < this.staleMs) return;
    this.ws = null; // its close, whenever it comes, is not this feed's any more
    ws.close();
    this.handlers.onState?.("reconnecting");
    this.connect();
  }

  connect() {
    if (this.stopped) return;
    const ws = new WebSocket(wsUrl(this.path));
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.failures = 0;
      this.heardAt = performance.now();
      this.handlers.onState?.("live");
      this.handlers.onOpen?.(ws);
    });
    ws.addEventListener("message", (event) => {
      if (this.ws !== ws) return;
      this.heardAt = performance.now();
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      this.handlers.onMessage(message, ws);
    });
    ws.addEventListener("close", () => {
      if (this.ws !== ws || this.stopped) return;
      this.handlers.onState?.("reconnecting");
      const delay = this.retryMs ?? RETRY_MS[Math.min(this.failures, RETRY_MS.length - 1)];
      this.retryMs = null;
      this.failures += 1;
      setTimeout(() => this.connect(), delay);
    });
  }

  stop() {
    this.stopped = true;
    clearInterval(this.watch);
    this.ws?.close();
  }
}

export function gamesFeed({ onChannels, onSnapshot, onReplay, onState }) {
  const feed = new Reconnecting("/games/v1/stream", {
    onState,
    onMessage(message) {
      if (message.op === "heartbeat") feed.beating = true;
      else if (message.op === "channels") onChannels(message);
      else if (message.op === "snapshot") onSnapshot(message);
      else if (message.op === "replay") onReplay?.(message);
    },
  });
  return feed;
}

/**
 * The Exchange Stream's order subscription for ``token``: ``onOrders(oc, image)`` with each ``ocm``'s order
 * changes (``image`` true for the image of the executable orders each connection starts with, then false for the
 * deltas of the orders that changed), ``onRefused(words, status)`` when the server refuses or ends the session,
 * ``onLive()`` when the subscription is accepted. A refusal that closes the connection ends the feed, except the
 * account's connection limit: then it is tried again every :data:`LIMIT_RETRY_MS`, until a connection is free.
 */
export function orderFeed(token, { onOrders, onRefused, onLive }) {
  const feed = new Reconnecting("/stream", {
    onOpen(ws) {
      ws.send(JSON.stringify({ op: "authentication", id: 1, appKey: APP_KEY, session: token }));
      ws.send(JSON.stringify({ op: "orderSubscription", id: 2, orderFilter: { includeOverallPosition: true } }));
    },
    onMessage(message) {
      if (message.op === "ocm" && message.oc) onOrders(message.oc, message.ct === "SUB_IMAGE");
      else if (message.op === "status" && message.statusCode === "SUCCESS" && message.id === 2) onLive?.();
      else if (message.op === "status" && message.statusCode === "FAILURE") {
        if (message.errorCode === "MAX_CONNECTION_LIMIT_EXCEEDED") feed.retryMs = LIMIT_RETRY_MS;
        else if (message.connectionClosed) feed.stop();
        onRefused(`${message.errorMessage ?? ""} (${message.errorCode})`, message);
      }
    },
  });
  return feed;
}
