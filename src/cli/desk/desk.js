// The desk's part of the review page: a correction (a move, or a header field) is
// posted to the desk at once; the desk locks it, re-reads the rest of the game and
// answers the new report; the page reloads with it. Keys as on the review page.
"use strict";
const DESK_SAVED = "scoresheet-desk:" + DESK.stem;
corrections.length = 0;
localStorage.removeItem("scoresheet-corrections:" + DATA.batch);
(function () {
  const b = document.getElementById("save");
  b.textContent = "Round";
  b.title = "back to the round";
  b.onclick = () => { location.href = "/"; };
  document.querySelector("#game legend").textContent = "Game (headers; an edit is saved at once)";
  document.querySelector("header strong").textContent = "scoresheet desk";
})();
async function deskPost(body) {
  body.version = DESK.version;
  body.by = body.by || "desk-page";
  const r = await fetch("/api/games/" + encodeURIComponent(DESK.stem) + "/corrections", {
    method: "POST", headers: { "Content-Type": "application/json" },
    credentials: "same-origin", body: JSON.stringify(body) });
  let j = {};
  try { j = await r.json(); } catch (e) { j = { error: r.status + " " + r.statusText }; }
  if (!r.ok) throw new Error(j.error || (r.status + " " + r.statusText));
  return j;
}
function deskReload(msg) {
  sessionStorage.setItem(DESK_SAVED, JSON.stringify({ sel: sel, msg: msg }));
  location.reload();
}
let deskBusy = false;
// A move: the page has checked that it is legal in the position shown.
pick = function (san, input) {
  const s = sheet(), m = s.moves[sel];
  if (!s.positions[m.pos].legal.some(l => l.san === san)) { setMsg(san + " is not legal here", true); return false; }
  if (deskBusy) return false;
  deskBusy = true;
  const name = m.move + (m.side === "white" ? ". " : "... ") + san;
  setMsg("saving " + name + " and re-reading the game\u2026", false);
  deskPost({ cell: m.move + (m.side === "white" ? "w" : "b"), move: san })
    .then(() => deskReload("saved: " + name + " (locked; the game re-read around it)"))
    .catch(e => { deskBusy = false; setMsg(e.message, true); });
  return true;
};
// A header field: the review page calls save() after an edit.
save = function () {
  const edits = corrections.filter(c => c.header);
  corrections.length = 0;
  if (edits.length === 0 || deskBusy) return;
  deskBusy = true;
  const c = edits[edits.length - 1];
  deskPost({ header: c.header, value: c.value })
    .then(() => deskReload("saved: " + c.header + " = " + c.value))
    .catch(e => { deskBusy = false; setMsg(e.message, true); });
};
download = function () { setMsg("every correction is saved on the desk as it is made", false); };
// Back where the reviewer was, with what happened.
(function () {
  const saved = JSON.parse(sessionStorage.getItem(DESK_SAVED) || "null");
  sessionStorage.removeItem(DESK_SAVED);
  if (saved) { select(saved.sel); setMsg(saved.msg, false); }
  else { const order = flaggedOrder(sheet()); select(order.length ? order[0] : 0); }
})();
// Another browser or the scanner changed the game: reload when the reviewer is not typing.
setInterval(async () => {
  if (deskBusy) return;
  try {
    const r = await fetch("/api/games/" + encodeURIComponent(DESK.stem), { credentials: "same-origin" });
    if (!r.ok) return;
    const j = await r.json();
    const typing = document.activeElement && document.activeElement.tagName === "INPUT";
    if (j.version !== DESK.version && !typing) deskReload("the game changed elsewhere; reloaded");
  } catch (e) { /* the desk is restarting */ }
}, 3000);
