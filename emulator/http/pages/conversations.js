// Conversations (`#/conversations`, or `#/conversations/ID` for the one holding an entry): a run read as a
// story. The server chains them (`conversations`): a turn's attempts share the conversation key (a retry chain),
// and a turn continues the one whose messages and answer its own messages extend (an agent loop).
"use strict";

async function showConversations(holding) {
  const view = document.getElementById("conversations-view");
  let found;
  try {
    found = await api("conversations", {test_id: field("test_id"), endpoint: field("endpoint"), request: holding});
  } catch (error) {
    view.replaceChildren(el("p", {className: "bad"}, "The conversations could not be read: " + error.message));
    return;
  }
  const title = holding ? "The conversation of #" + holding : "Conversations of more than one request";
  const stories = found.conversations.slice().reverse();  // the newest first, as the list
  view.replaceChildren(el("h2", {}, title),
    stories.length ? "" : el("p", {className: "dim"}, "None: each request so far stands alone."),
    ...stories.map((c) => story(c, found.requests, holding)));
}

function story(c, rows, holding) {
  const attempts = c.turns.reduce((n, t) => n + t.requests.length, 0);
  const head = el("div", {className: "story-head"}, c.turns.length + " turn(s), " + attempts + " request(s)",
    el("span", {className: "dim"}, (c.test_id ? " \u00b7 test " + c.test_id : "") + (c.key ? " \u00b7 key " + c.key : "")));
  const turns = el("ol", {className: "turns"});
  c.turns.forEach((t) => turns.append(turn(t, rows, holding)));
  return el("article", {className: "story"}, head, turns);
}

function turn(t, rows, holding) {
  const shown = rows[t.ok] || rows[t.requests[t.requests.length - 1]];
  const li = el("li", {className: "turn"});
  if (shown) li.append(el("div", {className: "preview"}, previewLines(shown), el("div", {className: "marks"}, marks(shown))));
  const chain = el("div", {className: "attempts"});
  t.requests.forEach((id, i) => {
    const e = rows[id];
    if (i) {
      const wait = e && rows[t.requests[i - 1]] ? ms((e.time - rows[t.requests[i - 1]].time) * 1000) : "";
      chain.append(el("span", {className: "retry"}, " \u2192 retried after " + wait + " \u2192 "));
    }
    chain.append(el("a", {href: link(id), className: "attempt " + (e && failed(e) ? "bad" : "good")
      + (String(id) === String(holding) ? " here" : "")}, "#" + id, " ", e ? (e.status === null ? "none" : e.status) : "",
      e && e.kind ? " " + e.kind : ""));
  });
  li.append(chain);
  return li;
}
