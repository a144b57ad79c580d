// The server's public HTTP routes: interactive login, API-NG JSON-RPC (betting and accounts).
// Every refusal becomes an ApiRefusal carrying the server's own error code and message.

export const APP_KEY = "exchange-poker-page";
const BETTING = "/exchange/betting/json-rpc/v1";
const ACCOUNT = "/exchange/account/json-rpc/v1";

/**
 * The list calls the server counts against an account's reads in progress (three at once, as Betfair's): the page
 * sends at most ``READS_AT_ONCE`` of them at a time and queues the rest, leaving one of the three to another tab or a
 * bot on the same account; one refused TOO_MANY_REQUESTS all the same (those others took their share) is sent again
 * after a pause, up to ``READ_TRIES`` times, before the refusal is shown. The reads are the page's own, made after
 * every game and bet: their refusal is not something the trader did.
 */
const LIST_CALLS = new Set(["listCurrentOrders", "listClearedOrders"]);
const READS_AT_ONCE = 2;
const READ_TRIES = 6;
const READ_PAUSE_MS = 250; // times the try's number: 250 ms, 500 ms, ... 1.25 s (3.75 s in all)

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class ApiRefusal extends Error {
  constructor(code, message) {
    super(message ? `${message} (${code})` : code);
    this.code = code;
  }
}

export class Session {
  constructor(token = null, account = null) {
    this.token = token;
    this.account = account;
    this.nextId = 1;
    this.reading = 0; // list calls under way (at most READS_AT_ONCE)
    this.waiting = []; // list calls waiting for one of those to end: each one's start
  }

  get loggedIn() {
    return this.token !== null;
  }

  async login(username, password) {
    const body = new URLSearchParams({ username, password });
    const answer = await fetchJson("/api/login", { method: "POST", body, headers: { "X-Application": APP_KEY } });
    if (answer.status !== "SUCCESS") throw new ApiRefusal(answer.error || "LOGIN_FAILED", loginWords(answer));
    this.token = answer.token;
    // The account's own name, not the login as typed (names are any case: DEMO logs in to demo); the name typed if
    // the details cannot be read.
    const details = await this.accountCall("getAccountDetails").catch(() => null);
    this.account = details?.firstName || username;
  }

  async logout() {
    if (!this.token) return;
    const token = this.token;
    this.token = null;
    await fetchJson("/api/logout", { method: "POST", headers: { "X-Application": APP_KEY, "X-Authentication": token } })
      .catch(() => null); // the session is forgotten here whatever the server answers
  }

  betting(method, params) {
    const send = () => this.call(BETTING, `SportsAPING/v1.0/${method}`, params);
    return LIST_CALLS.has(method) ? this.read(send) : send();
  }

  /** ``send()`` a list call in its turn (:data:`LIST_CALLS`), again after a pause while the server has too many. */
  async read(send) {
    if (this.reading < READS_AT_ONCE) this.reading += 1;
    else await new Promise((start) => this.waiting.push(start)); // started with the place of a call that ended
    try {
      for (let tries = 1; ; tries += 1) {
        try {
          return await send();
        } catch (err) {
          if (!(err instanceof ApiRefusal && err.code === "TOO_MANY_REQUESTS") || tries >= READ_TRIES) throw err;
          await pause(READ_PAUSE_MS * tries);
        }
      }
    } finally {
      const next = this.waiting.shift();
      if (next) next(); // its place handed on: no call sent meanwhile can take it
      else this.reading -= 1;
    }
  }

  accountCall(method, params = {}) {
    return this.call(ACCOUNT, `AccountAPING/v1.0/${method}`, params);
  }

  async call(path, method, params) {
    if (!this.token) throw new ApiRefusal("NO_SESSION", "log in first");
    const answer = await fetchJson(path, {
      method: "POST",
      headers: { "X-Application": APP_KEY, "X-Authentication": this.token, "Content-Type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: this.nextId++, method, params }),
    });
    if (answer.error) {
      const data = answer.error.data ?? {};
      const exception = data.APINGException ?? data.AccountAPINGException ?? {};
      throw new ApiRefusal(exception.errorCode ?? String(answer.error.code), exception.errorDetails ?? answer.error.message);
    }
    return answer.result;
  }

  funds() {
    return this.accountCall("getAccountFunds");
  }

  /**
   * Every row of a paged API-NG list call (``fromRecord``, ``moreAvailable``): page after page until the server says
   * there are no more (or sends an empty page), so no bet is left out of view however many there are.
   */
  async everyPage(method, params, field) {
    const rows = [];
    for (;;) {
      const answer = await this.betting(method, { ...params, fromRecord: rows.length });
      rows.push(...answer[field]);
      if (!answer.moreAvailable || !answer[field].length) return rows;
    }
  }

  /** Every row of a listClearedOrders call, page after page (the recent games' bets: a few pages at most). */
  clearedOrders(params) {
    return this.everyPage("listClearedOrders", params, "clearedOrders");
  }

  /** The account's cleared bets on ``marketIds``, each row with the ``betStatus`` it was asked by. */
  async clearedBets(marketIds) {
    const statuses = ["SETTLED", "VOIDED", "LAPSED", "CANCELLED"];
    const answers = await Promise.all(statuses.map((betStatus) => this.clearedOrders({ betStatus, marketIds })));
    return answers.flatMap((rows, i) => rows.map((row) => ({ ...row, betStatus: statuses[i] })));
  }

  /** The account's orders on ``marketIds`` (listCurrentOrders), page after page: all of them, however many. */
  currentOrders(marketIds) {
    return this.everyPage("listCurrentOrders", { marketIds }, "currentOrders");
  }
}

async function fetchJson(path, init) {
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new ApiRefusal("NETWORK", `the server did not answer: ${err.message}`);
  }
  let body;
  try {
    body = await response.json();
  } catch {
    throw new ApiRefusal(`HTTP_${response.status}`, `the server answered ${response.status} without JSON`);
  }
  if (!response.ok && body && body.error) throw new ApiRefusal(body.error, body.details);
  return body;
}

/** A refused login in the page's words; a refusal it has none for in the server's (its errorDetails). */
function loginWords(answer) {
  return {
    INVALID_USERNAME_OR_PASSWORD: "wrong username or password",
    TEMPORARY_BAN_TOO_MANY_REQUESTS: "too many login attempts: wait a minute",
    INPUT_VALIDATION_ERROR: "give a username and a password",
  }[answer.error] ?? answer.errorDetails ?? "login refused";
}

/** The refusal of one instruction of a place/cancel/replace report, or null when it succeeded. */
export function instructionRefusal(report) {
  if (report.status === "SUCCESS") return null;
  const failed = (report.instructionReports ?? []).find((r) => r.status !== "SUCCESS") ?? {};
  const code = failed.errorCode ?? report.errorCode ?? "FAILURE";
  // The server says what was wrong in plain words: "instruction 0: INVALID_ODDS: price 2.03 is not on the ladder…"
  const words = (report.errorMessage ?? failed.errorMessage ?? "").replace(/^instruction \d+: [A-Z_]+: /, "");
  return new ApiRefusal(code, words);
}
