// Login and the session: the login form, the tab's session resumed after a reload, the order stream while logged in
// (or the bets read every few seconds while the account's stream connections are all taken), and the logout, or
// the end of a session the server no longer knows.

import { $, setText } from "./dom.js";
import { LIMIT_RETRY_MS, orderFeed } from "./feeds.js";
import { clearNotice, notify } from "./notice.js";
import { renderSettled } from "./trading.js";

/**
 * The session's controls, on the page's ``state`` (its session, order feed, bets and figures), with what they need of the
 * page: ``renderTable()`` draws the table again; ``forgetUnshown()`` drops what no table shows; ``refreshOrders()``,
 * ``refreshFunds()``, ``refreshSettled()`` and ``refreshPnl()`` read the account's bets, funds, settled history and
 * "if wins" again.
 */
export function sessionControls(state, {
  renderTable, forgetUnshown, refreshOrders, refreshFunds, refreshSettled, refreshPnl,
}) {
  async function login(event) {
    event.preventDefault();
    const form = new FormData(event.target);
    try {
      await state.session.login(String(form.get("username")), String(form.get("password")));
    } catch (err) {
      return notify(`Login refused: ${err.message}`);
    }
    clearNotice(); // a refusal of an earlier try no longer holds
    sessionStorage.setItem("session", JSON.stringify({ token: state.session.token, account: state.session.account }));
    startSession();
  }

  /**
   * The tab's session from before a reload, resumed once the first channel list says what serves the page: a live
   * server. A replay (on an address a live server used before) has no login: the old session is forgotten there.
   */
  function resumeSession(replay) {
    state.sessionResumed = true;
    const saved = sessionStorage.getItem("session");
    if (!saved || state.session.loggedIn) return; // (logged in meanwhile: that session is the one saved)
    if (replay) return sessionStorage.removeItem("session");
    const { token, account } = JSON.parse(saved);
    state.session.token = token;
    state.session.account = account;
    startSession();
  }

  function startSession() {
    const typing = $("login-form").contains(document.activeElement); // the trader just logged in
    $("login-form").hidden = true;
    $("funds").hidden = false;
    if (typing) $("funds").focus(); // (hiding the form took focus to the top of the page)
    setText($("who"), state.session.account);
    state.orderFeed = orderFeed(state.session.token, {
      onOrders(oc, image) {
        state.orders.applyStream(oc, image);
        forgetUnshown(); // (a late change of a past game's bet)
        if (image) refreshOrders();  // what ended unseen is read back
        if (oc.some((m) => m.closed)) refreshSettled();
        refreshFunds();
        refreshPnl();
        if (state.current) renderTable();
      },
      onRefused(words, status) {
        // A session logged out elsewhere or expired: the page is logged out too, and says why.
        if (status.connectionClosed && status.errorCode === "INVALID_SESSION_INFORMATION") return sessionLost();
        if (status.errorCode === "MAX_CONNECTION_LIMIT_EXCEEDED") return ordersUnstreamed(words);
        notify(`The order stream refused: ${words}`);
      },
      onLive: ordersStreamed,
    });
    refreshFunds();
    refreshSettled();
    refreshOrders();
  }

  /**
   * The account holds every stream connection it may (other tabs, a bot): the page says so where the bets are
   * listed and reads them over API-NG every few seconds instead, while the stream is tried again as often.
   */
  function ordersUnstreamed(words) {
    const note = $("orders-feed");
    setText(note, `Your bets are read every ${LIMIT_RETRY_MS / 1000} s, not streamed: ${words}`);
    note.hidden = false;
    if (state.ordersPoll === null) {
      state.ordersPoll = setInterval(() => Promise.all([refreshOrders(), refreshFunds()]), LIMIT_RETRY_MS);
    }
  }

  /** The order stream is (back) on: what changed while it was not is in its image. */
  function ordersStreamed() {
    clearInterval(state.ordersPoll);
    state.ordersPoll = null;
    $("orders-feed").hidden = true;
    document.body.dataset.ordersFeed = "live"; // the order stream is subscribed: every change of an order reaches the page
  }

  /** The server no longer knows the page's session: logged out, and told why and what to do (kept until they log in). */
  function sessionLost() {
    if (!state.session.loggedIn) return; // (said once: the other requests under way meet the same end)
    endSession();
    notify("Your session has ended (the server restarted, or the session expired or was logged out elsewhere): " +
      "log in again to trade.", false, true);
  }

  function endSession() {
    state.orderFeed?.stop();
    state.orderFeed = null;
    ordersStreamed();
    delete document.body.dataset.ordersFeed;
    state.session.token = null;
    sessionStorage.removeItem("session");
    state.orders.clear();
    state.pnl.clear();
    $("login-form").hidden = false;
    $("funds").hidden = true;
    renderSettled([], []);
    if (state.current) renderTable();
  }

  async function logout() {
    await state.session.logout();
    endSession();
  }

  return { login, resumeSession, sessionLost, logout };
}
