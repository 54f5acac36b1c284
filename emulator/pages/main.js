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
window.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && Entry.id !== null && !event.target.closest("input")) location.hash = "#/";
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
