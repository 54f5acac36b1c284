// One entry, opened beside the list (`#/requests/ID`): the answer as the client assembled it, the request folded
// by messages, and the raw events with their offsets, the planned pacing and the fault beside them.
"use strict";

const Entry = {id: null, full: null};

async function openEntry(id) {
  const pane = document.getElementById("entry");
  pane.hidden = false;
  document.getElementById("requests-view").classList.add("open");
  selectRow(id);
  if (Entry.id !== id) {
    Entry.id = id;
    Entry.full = null;
    pane.replaceChildren(el("p", {className: "dim"}, "loading #" + id + "\u2026"));
    pane.scrollTop = 0;
  }
  try {
    const full = await api("requests/" + id, {transcript: "true"});
    if (Entry.id !== id) return;
    Entry.full = full;
    const scroll = pane.scrollTop;
    pane.replaceChildren(...entryView(full));
    pane.scrollTop = scroll;
  } catch (error) {
    if (Entry.id === id) pane.replaceChildren(el("p", {className: "bad"}, "Entry #" + id + ": " + error.message
      + " (it never was, or the journal dropped it to make room)."));
  }
}

function closeEntry() {
  Entry.id = null;
  document.getElementById("entry").hidden = true;
  document.getElementById("requests-view").classList.remove("open");
  selectRow(null);
}

// A poll brought the open entry's answer: read it again.
List.listeners.push((found) => {
  const e = found.find((f) => f.id === Entry.id);
  if (e && Entry.full && Entry.full.response === null && e.duration_ms !== null) openEntry(e.id);
});

function entryView(full) {
  const t = full.transcript;
  const bar = el("div", {className: "actions"},
    el("button", {onclick: (ev) => copyText(location.origin + location.pathname + link(full.id), ev.target)}, "copy link"),
    el("button", {onclick: (ev) => copyText(curlCommand(full), ev.target)}, "copy as curl"),
    el("a", {className: "button", href: "#/conversations/" + full.id}, "conversation"),
    el("a", {className: "button", href: "#/", title: "close"}, "\u2715"));
  const title = el("h2", {}, el("a", {href: link(full.id)}, "#" + full.id), " ", full.method, " ", full.path,
    el("span", {className: "status " + (failed(full) ? "bad" : "good")}, full.status === null ? "no status" : full.status));
  const facts = el("dl", {className: "facts"}, ...fact("time", day(full.time) + " " + clock(full.time)),
    ...fact("model", full.model), ...fact("source", full.source && full.source + " (" + full.source_kind + ")"),
    ...fact("test id", full.test_id), ...fact("key", full.key), ...fact("attempt", full.attempt),
    ...fact("fault", full.fault && full.fault + (full.ended ? " \u00b7 ended by the " + full.ended : "")),
    ...fact("timing", full.timing), ...fact("recording", full.tier), ...fact("nearest", full.nearest),
    ...fact("first token", ms(full.ttft_ms)), ...fact("took", ms(full.duration_ms)));
  return [bar, title, facts, answerView(full, t.answer, t.headers), requestView(full, t.request), rawView(full),
    el("details", {className: "curl"}, el("summary", {}, "curl"), el("pre", {id: "curl"}, curlCommand(full)))];
}

function fact(name, value) {
  if (value === null || value === undefined || value === "") return [];
  return [el("dt", {}, name), el("dd", {}, value)];
}

function answerView(full, a, headers) {
  const box = el("section", {className: "answer"}, el("h3", {}, "Answer", full.stream ? " (streamed)" : ""));
  if (!a) return box.appendChild(el("p", {className: "dim"}, "still being delivered\u2026")).parentNode;
  if (a.error) box.append(el("div", {className: "error"}, el("b", {}, a.error.type || "error"), " ", a.error.message));
  if (!a.complete) box.append(el("p", {className: "bad"}, "The stream ended before its end: this is what the client had read."));
  if (a.reasoning) box.append(el("details", {className: "reasoning", open: true}, el("summary", {}, "reasoning"),
    el("div", {className: "text"}, a.reasoning)));
  if (a.text) box.append(el("div", {className: "text said"}, a.text));
  for (const call of a.tool_calls) {
    box.append(el("div", {className: "call"}, el("div", {className: "name"}, "\u2692 ", call.name,
      call.id ? el("span", {className: "dim"}, " " + call.id) : ""), el("pre", {}, pretty(call.arguments))));
  }
  if (!a.text && !a.tool_calls.length && !a.error && !a.reasoning) box.append(el("p", {className: "dim"}, "(empty)"));
  const usage = Object.entries(a.usage || {}).filter(([, v]) => typeof v === "number")
    .map(([k, v]) => k.replace(/_tokens$/, "").replaceAll("_", " ") + " " + v).join(" \u00b7 ");
  box.append(el("dl", {className: "facts"}, ...fact("finish reason", a.finish_reason), ...fact("tokens", usage),
    ...fact("id", a.id), ...fact("model", a.model)));
  if (Object.keys(headers).length) box.append(el("dl", {className: "facts headers"},
    ...Object.entries(headers).flatMap(([k, v]) => fact(k, v))));
  return box;
}

function requestView(full, r) {
  const box = el("section", {className: "request"}, el("h3", {}, "Request"));
  if (r.system) box.append(el("details", {className: "message system"}, el("summary", {}, "system"),
    el("div", {className: "text"}, r.system)));
  for (const m of r.messages) box.append(messageView(m));
  if (!r.messages.length && full.body_text) box.append(el("pre", {}, full.body_text));
  if (r.tools.length) box.append(el("p", {className: "dim"}, "tools offered: " + r.tools.join(", ")));
  const body = full.body && typeof full.body === "object" ? full.body : {};
  const rest = Object.fromEntries(Object.entries(body).filter(([k]) =>
    !["messages", "input", "system", "instructions", "tools"].includes(k)));
  box.append(el("details", {}, el("summary", {}, "parameters"), el("pre", {}, pretty(rest))),
    el("details", {}, el("summary", {}, "headers (credentials masked)"), el("pre", {}, pretty(full.headers))),
    el("details", {}, el("summary", {}, "body as sent"), el("pre", {}, pretty(full.body !== null ? full.body : full.body_text || ""))));
  return box;
}

function messageView(m) {
  const box = el("div", {className: "message " + m.role}, el("div", {className: "role"}, m.role));
  for (const p of m.parts) {
    if (p.type === "text") box.append(el("div", {className: "text"}, p.text));
    else if (p.type === "image") box.append(el("div", {className: "placeholder"}, "[image" + (p.detail ? ": " + p.detail : "") + "]"));
    else if (p.type === "tool_call") box.append(el("div", {className: "call"}, el("div", {className: "name"}, "\u2692 " + p.name,
      p.id ? el("span", {className: "dim"}, " " + p.id) : ""), el("pre", {}, pretty(p.arguments))));
    else if (p.type === "tool_result") box.append(el("div", {className: "result" + (p.error ? " bad" : "")},
      el("div", {className: "name"}, "tool result", p.id ? el("span", {className: "dim"}, " " + p.id) : "", p.error ? " (error)" : ""),
      el("div", {className: "text"}, p.content)));
    else if (p.type === "reasoning") box.append(el("details", {className: "reasoning"}, el("summary", {}, "reasoning"),
      el("div", {className: "text"}, p.text)));
    else box.append(el("div", {className: "placeholder"}, "[" + p.kind + "]"));
  }
  return box;
}

// The raw answer, one click away: each event with its offset from the request's arrival and the gap before it;
// the planned pacing and the fault beside them, the fault where it struck when the plan says where.
function rawView(full) {
  const answer = full.response;
  const details = el("details", {className: "raw"}, el("summary", {}, answer && answer.events
    ? "raw events (" + answer.events.length + ")" : "raw answer"));
  if (!answer) return details;
  const plan = [];
  if (full.timing) plan.push(el("div", {className: "plan"}, "planned pacing: " + full.timing));
  if (full.fault) plan.push(el("div", {className: "plan bad"}, "planned fault: " + full.fault));
  details.append(...plan, el("pre", {className: "headers"}, answer.status + "\n" + Object.entries(answer.headers)
    .map(([k, v]) => k + ": " + v).join("\n")));
  if (!answer.events) {
    details.append(el("pre", {}, pretty(answer.body !== null ? answer.body : answer.body_text || "")));
    return details;
  }
  const strike = /after_events=(\d+)/.exec(full.fault || "");
  const table = el("table", {className: "events"}, el("tr", {}, el("th", {}, "at"), el("th", {}, "gap"), el("th", {}, "event"), el("th", {}, "data")));
  let before = 0;
  answer.events.forEach((ev, i) => {
    if (strike && Number(strike[1]) === i) table.append(faultRow(full));
    const data = ev.data !== undefined ? (typeof ev.data === "string" ? ev.data : JSON.stringify(ev.data))
      : ev.comment !== undefined ? ": " + ev.comment : "(cut off) " + ev.partial;
    table.append(el("tr", {className: ev.partial !== undefined ? "bad" : ""}, el("td", {className: "num"}, ms(ev.t)),
      el("td", {className: "num dim"}, "+" + ms(ev.t - before)), el("td", {}, ev.event || ""), el("td", {}, data)));
    before = ev.t;
  });
  if (full.fault && !(strike && Number(strike[1]) < answer.events.length)) table.append(faultRow(full));
  details.append(table);
  return details;
}

function faultRow(full) {
  return el("tr", {className: "fault-row"}, el("td", {colSpan: 4}, "\u26a1 fault " + full.kind + ": " + full.fault
    + (full.ended ? " (the " + full.ended + " ended the connection)" : "")));
}
