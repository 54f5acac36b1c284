// The page's routes, in its address's fragment so that the server sees none of them and a link to one entry
// (`/_emulator/#/requests/42`) opens it: `#/` the list, `#/requests/ID` an entry beside it, `#/findings` what
// went wrong, `#/conversations` and `#/conversations/ID` the conversations.
"use strict";

function route() {
  const path = location.hash.replace(/^#/, "") || "/";
  const parts = path.split("/").filter(Boolean);
  const view = parts[0] === "findings" || parts[0] === "conversations" ? parts[0] : "requests";
  for (const name of ["requests", "findings", "conversations"]) {
    document.getElementById(name + "-view").hidden = name !== view;
  }
  for (const a of document.querySelectorAll("nav a")) a.classList.toggle("here", a.dataset.view === view);
  document.title = "emulator: " + (view === "requests" && parts[1] ? "request #" + parts[1] : view);
  if (view === "requests" && parts[0] === "requests" && /^\d+$/.test(parts[1] || "")) openEntry(Number(parts[1]));
  else if (view === "requests") closeEntry();
  else if (view === "findings") showFindings();
  else showConversations(/^\d+$/.test(parts[1] || "") ? parts[1] : "");
}

window.addEventListener("hashchange", route);
window.addEventListener("emulator:token", route);  // what the view could not read without the token
// Keys, outside the filters: Escape closes the entry, j and k (or the arrows) open the next or previous row shown.
window.addEventListener("keydown", (event) => {
  if (event.target.closest("input, select, textarea") || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === "Escape" && Entry.id !== null) location.hash = "#/";
  const step = {j: 1, ArrowDown: 1, k: -1, ArrowUp: -1}[event.key];
  if (!step || document.getElementById("requests-view").hidden) return;
  const shownRows = [...document.querySelectorAll("tr.entry")].filter((tr) => !tr.hidden);
  // The row the address names: the entry it opens may still be loading (a key pressed again at once).
  const hashed = location.hash.match(/^#\/requests\/(\d+)/);
  const named = hashed ? Number(hashed[1]) : Entry.id;
  const at = shownRows.findIndex((tr) => Number(tr.dataset.id) === named);
  const next = shownRows[at === -1 ? 0 : Math.min(shownRows.length - 1, Math.max(0, at + step))];
  if (!next) return;
  event.preventDefault();
  location.hash = link(next.dataset.id);
  next.scrollIntoView({block: "nearest"});
});
// The findings and conversations follow the filter as the list does.
for (const name of ["test_id", "status", "source", "endpoint", "q"]) {
  document.getElementById("f-" + name).addEventListener("change", () => {
    if (!document.getElementById("findings-view").hidden) showFindings();
    if (!document.getElementById("conversations-view").hidden) route();
  });
}
route();
poll();
countFindings();
