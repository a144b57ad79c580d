// A replay (exchange-poker replay DIR) on the page: its controls in the header (play, pause, the next game, the
// speed), sent to the replay's control route, with its state beside them; no login, and the lists of bets are the
// strategy's (a backtest's) or the account's the replay was given (a server's recording). The games feed's state in
// the header says "replay" rather than "live".

import { ApiRefusal } from "./api.js";
import { $, setText } from "./dom.js";

/** The replay's controls, on the page's ``state`` (the replay's state, and whether the games feed is connected);
 * ``refused(err)`` says why a request failed. */
export function replayControls(state, { refused }) {
  // The feed's state in the header: a replay's feed is connected, not live. While it is down the table is shown
  // faded (its prices, countdown and figures are the last known), as out of date.
  function showConnection() {
    setText($("connection"), !state.connected ? "reconnecting…" : state.replay ? "● replay" : "● live");
    document.body.classList.toggle("offline", !state.connected);
  }

  function setReplay(replay) {
    state.replay = replay;
    showConnection();
    $("replay-controls").hidden = false;
    $("account").hidden = true;
    setText($("orders-title"), `${whose(replay)} bets`);
    setText($("settled-title"), `${whose(replay)} settled markets`);
    showSpeed(replay.speed);
    setText($("replay-state"), `${replay.playing ? "playing" : "paused"} · ${replay.speed}× · ${replay.position ?? ""}`);
  }

  /** The speed in its list, added to it if it is not one of the list's (``replay --speed 3``: the list was blank). */
  function showSpeed(speed) {
    const select = $("replay-speed");
    const value = String(speed);
    if (![...select.options].some((option) => option.value === value)) {
      const option = new Option(`${value}×`, value);
      const after = [...select.options].find((o) => Number(o.value) > speed);
      select.add(option, after ?? null);
    }
    select.value = value;
  }

  async function control(body) {
    try {
      const response = await fetch("/replay/v1/control", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body) });
      const answer = await response.json();
      if (!response.ok) throw new ApiRefusal(answer.error, answer.details);
      setReplay(answer);
    } catch (err) {
      refused(err);
    }
  }

  return { showConnection, setReplay, control };
}

/** Whose bets a replay shows: the strategy's (a backtest's), or those of the account the replay names, its name as
 * it is spelt; ``first``: at the start of a sentence. */
export function whose(replay, first = true) {
  if (replay?.account) return `${replay.account}'s`;
  return first ? "The strategy's" : "the strategy's";
}
