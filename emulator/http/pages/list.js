// The list of requests: polled from the journal once a second with each row's preview, newest first. Rows are
// added and updated in place: the scroll position (the first row in view stays where it was) and an open entry
// survive new rows. Test id, endpoint and the search are asked of the server (a search reads bodies the list
// never holds); status and source filter the rows held.
"use strict";

const List = {
  KEEP: 2000,                // rows the page holds, the newest
  PAGE: 200,                 // rows read at once: the first poll reads the newest, then older pages follow
  entries: new Map(),        // id -> summary with preview
  rows: new Map(),           // id -> <tr>
  since: 0,
  generation: 0,             // bumped when the server-side filters change: answers to older polls are dropped
  selected: null,
  timer: null,
  busy: false,
  listeners: [],             // called with the entries a poll brought
};

function field(name) { return document.getElementById("f-" + name).value.trim(); }

function serverFilter() {
  return {test_id: field("test_id"), endpoint: field("endpoint"), q: field("q")};
}

// The status filter: a code (`503`), a class (`4xx`), `ok`, `failed` or `none` (no status line was sent).
function statusShown(e, want) {
  if (!want) return true;
  const w = want.toLowerCase();
  if (w === "ok") return !failed(e);
  if (w === "failed") return failed(e);
  if (w === "none") return e.status === null;
  if (/^[1-5]xx$/.test(w)) return e.status !== null && Math.floor(e.status / 100) === Number(w[0]);
  return String(e.status) === w;
}

function shown(e) {
  const source = field("source");
  return statusShown(e, field("status"))
    && (!source || (e.source || "").includes(source) || e.source_kind === source);
}

function row(e) {
  const tr = el("tr", {className: "entry " + (failed(e) ? "failed" : "ok"), dataset: {id: e.id}},
    el("td", {className: "num"}, el("a", {href: link(e.id)}, e.id)),
    el("td", {className: "time", title: day(e.time)}, clock(e.time)),
    el("td", {className: "status"}, e.status === null ? "none" : e.status),
    el("td", {className: "what"},
      el("div", {className: "meta"}, el("b", {}, e.endpoint || e.path), e.model ? " \u00b7 " + e.model : "",
        " \u00b7 " + (e.source || "refused"), e.test_id ? " \u00b7 " + e.test_id : "", " ", marks(e)),
      previewLines(e)),
    el("td", {className: "num"}, ms(e.ttft_ms), el("div", {className: "dim"},
      e.duration_ms === null ? "\u2026" : ms(e.duration_ms))));
  tr.hidden = !shown(e);
  if (e.id === List.selected) tr.classList.add("selected");
  tr.addEventListener("click", (event) => {
    if (event.target.closest("a")) return;
    location.hash = List.selected === e.id ? "#/" : link(e.id);
  });
  return tr;
}

// The first row in view and how far it is from the list's top edge, to put back after rows change above it.
function anchor(scroller) {
  if (scroller.scrollTop === 0) return null;  // at the top: new rows come into view
  const top = scroller.getBoundingClientRect().top + document.querySelector("#list thead").offsetHeight;
  for (const tr of document.getElementById("rows").children) {
    if (tr.hidden) continue;
    const box = tr.getBoundingClientRect();
    if (box.bottom > top) return {tr, offset: box.top};
  }
  return null;
}

function upsert(found) {
  const scroller = document.getElementById("list");
  const body = document.getElementById("rows");
  const held = anchor(scroller);
  const added = [];
  for (const e of found) {
    const was = List.entries.get(e.id);
    List.entries.set(e.id, e);
    if (!was) { added.push(e); continue; }
    if (JSON.stringify(was) === JSON.stringify(e)) continue;
    const tr = row(e);
    List.rows.get(e.id).replaceWith(tr);
    List.rows.set(e.id, tr);
  }
  added.sort((a, b) => b.id - a.id);
  const first = body.firstChild;
  for (const e of added) {
    const tr = row(e);
    List.rows.set(e.id, tr);
    if (first && Number(first.dataset.id) > e.id) placeOlder(body, tr, e.id);
    else body.insertBefore(tr, first);
  }
  prune();
  if (held) scroller.scrollTop += held.tr.getBoundingClientRect().top - held.offset;
  showEmpty();
}

// A row older than the newest held (a search's or a late answer's): in its place by id.
function placeOlder(body, tr, id) {
  for (const other of body.children) {
    if (Number(other.dataset.id) < id) { body.insertBefore(tr, other); return; }
  }
  body.append(tr);
}

function prune() {
  if (List.entries.size <= List.KEEP) return;
  const ids = [...List.entries.keys()].sort((a, b) => a - b).slice(0, List.entries.size - List.KEEP);
  for (const id of ids) {
    List.entries.delete(id);
    List.rows.get(id).remove();
    List.rows.delete(id);
  }
}

function showEmpty() {
  const any = [...List.rows.values()].some((tr) => !tr.hidden);
  const empty = document.getElementById("empty");
  empty.hidden = any;
  const filtered = Object.values(serverFilter()).some(Boolean) || field("status") || field("source");
  empty.textContent = filtered ? "No request matches the filter."
    : "No requests yet. Point a client at this server and they appear here.";
}

function refilter() {
  for (const [id, tr] of List.rows) tr.hidden = !shown(List.entries.get(id));
  showEmpty();
}

function selectRow(id) {
  if (List.selected !== null && List.rows.has(List.selected)) List.rows.get(List.selected).classList.remove("selected");
  List.selected = id;
  if (id !== null && List.rows.has(id)) List.rows.get(id).classList.add("selected");
}

async function poll() {
  clearTimeout(List.timer);
  if (List.busy) { List.timer = setTimeout(poll, 200); return; }
  List.busy = true;
  const generation = List.generation;
  const pending = [...List.entries.values()].filter((e) => e.duration_ms === null).map((e) => e.id);
  const from = pending.length ? Math.min(...pending) - 1 : List.since;
  const status = document.getElementById("status");
  try {
    const first = !List.since;
    const page = await api("requests", {
      ...serverFilter(), since: from, bodies: "false", preview: "true", limit: first ? List.PAGE : "",
    });
    if (generation === List.generation) {
      upsert(page.requests);
      if (first && page.requests.length === List.PAGE) loadOlder(generation, page.requests[0].id);
      List.since = Math.max(List.since, page.last);
      status.textContent = List.entries.size + " requests"
        + (page.dropped ? ", " + page.dropped + " dropped" : "") + " \u00b7 live";
      status.className = "";
      for (const listener of List.listeners) listener(page.requests);
    }
  } catch (error) {
    status.textContent = error instanceof Refused ? "needs the admin token" : "not reachable: " + error.message;
    status.className = "bad";
  } finally {
    List.busy = false;
    List.timer = setTimeout(poll, 1000);
  }
}

// The rows older than the first page, a page at a time (each read on the server is short), up to KEEP.
async function loadOlder(generation, before) {
  while (generation === List.generation && List.entries.size < List.KEEP) {
    let page;
    try {
      page = await api("requests", {...serverFilter(), before, bodies: "false", preview: "true", limit: List.PAGE});
    } catch (error) {
      return;  // the poll's status line says why
    }
    if (generation !== List.generation || !page.requests.length) return;
    upsert(page.requests);
    before = page.requests[0].id;
    if (page.requests.length < List.PAGE) return;
  }
}

// A server-side filter changed: start over from the journal's beginning.
function restart() {
  List.generation += 1;
  List.entries.clear();
  List.rows.clear();
  List.since = 0;
  document.getElementById("rows").replaceChildren();
  poll();
}

let typing = null;
for (const name of ["test_id", "q"]) {
  document.getElementById("f-" + name).addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(restart, 300);
  });
}
document.getElementById("f-endpoint").addEventListener("change", restart);
for (const name of ["status", "source"]) document.getElementById("f-" + name).addEventListener("input", refilter);
document.getElementById("filters").addEventListener("submit", (event) => event.preventDefault());
window.addEventListener("emulator:token", restart);
