// The notice under the header: what the page has to tell the trader (a bet placed, a refusal, a session ended),
// shown until the next one or for a few seconds (a success 4 s, anything else 10 s); a ``sticky`` one (what the
// trader must act on, such as logging in again) stays until the next.

import { $, setText } from "./dom.js";

let noticeTimer = null;

export function notify(text, ok = false, sticky = false) {
  const el = $("notice");
  el.className = ok ? "notice ok" : "notice";
  el.hidden = false;
  setText(el, text);
  clearTimeout(noticeTimer);
  if (!sticky) noticeTimer = setTimeout(() => { el.hidden = true; }, ok ? 4000 : 10000);
}

/** Take the notice down now (what it said no longer holds: a login refused, then one that succeeded). */
export function clearNotice() {
  clearTimeout(noticeTimer);
  $("notice").hidden = true;
}
