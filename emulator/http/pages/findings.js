// What went wrong (`#/findings`): the client report's findings for the current filter, each linking to the
// requests it names, and every call that met a fault with its attempts. The report is graded by the server
// (`report?test_id=`); the page's other filters keep the findings that name a request they show.
"use strict";

// `shown`: the latest reading asked for, the only one drawn; `drawn`: what the view shows, not drawn again (a filter's
// field that loses focus to a click on a link says "change" again, and a view redrawn between the press and the
// release of a click loses the click).
const Findings = {shown: 0, drawn: ""};

async function readReport() {
  const report = await api("report", {test_id: field("test_id")});
  const narrowed = field("status") || field("source") || field("endpoint") || field("q");
  const keep = (ids) => !narrowed || ids.some((id) => List.entries.has(id) && shown(List.entries.get(id)));
  return {
    ...report,
    findings: report.findings.filter((f) => keep(f.requests)),
    calls: report.calls.filter((c) => keep(c.requests)),
  };
}

function requestLink(id) {
  const a = el("a", {href: link(id), className: "request-link"}, "#" + id);
  const ref = el("span", {className: "request-ref"}, a);
  if (!described(ref, id)) a.dataset.unread = "yes";
  return ref;
}

// A request's status, kind and time after its link, once the list holds it; whether it does.
function described(ref, id) {
  const e = List.entries.get(id);
  if (!e) return false;
  ref.append(" ", el("span", {className: "status " + (failed(e) ? "bad" : "good")}, e.status === null ? "none" : e.status),
    e.kind ? " " + e.kind : "", " ", el("span", {className: "dim"}, clock(e.time)));
  return true;
}

async function showFindings() {
  const view = document.getElementById("findings-view");
  const asked = ++Findings.shown;
  let report;
  try {
    report = await readReport();
  } catch (error) {
    if (asked !== Findings.shown) return;
    Findings.drawn = "";
    view.replaceChildren(el("p", {className: "bad"}, "The report could not be read: " + error.message));
    return;
  }
  if (asked !== Findings.shown) return;  // a later reading (another filter) is on its way: this one is stale
  const drawn = field("test_id") + "\n" + JSON.stringify(report);  // the scope is drawn too
  if (drawn === Findings.drawn && view.childElementCount) return;
  Findings.drawn = drawn;
  const scope = field("test_id") ? "test " + field("test_id") : "every test";
  const verdict = el("p", {className: "verdict " + (report.findings.length ? "bad" : "good")},
    report.findings.length ? report.findings.length + " finding(s)" : "Nothing went wrong that the server could see",
    el("span", {className: "dim"}, " \u00b7 " + report.faulted_requests + " faulted request(s) checked, " + scope));
  const list = el("ol", {className: "findings"});
  for (const f of report.findings) {
    list.append(el("li", {className: "finding"}, el("div", {className: "rule"}, el("b", {}, f.rule.replaceAll("_", " ")),
      " \u2014 ", f.means), el("div", {}, f.detail), el("div", {className: "refs"}, f.requests.map(requestLink))));
  }
  const calls = el("table", {className: "calls"}, el("tr", {}, el("th", {}, "call"), el("th", {}, "attempts"),
    el("th", {}, "outcome")));
  report.calls.forEach((c, i) => calls.append(el("tr", {}, el("td", {}, "call " + (i + 1)),
    el("td", {className: "refs"}, c.requests.map(requestLink)),
    el("td", {className: c.outcome === "answered" ? "good" : "bad"}, c.outcome))));
  view.replaceChildren(el("h2", {}, "What went wrong"), verdict, list,
    report.calls.length ? el("h3", {}, "Calls that met a fault") : "", report.calls.length ? calls : "");
}

// The list's polls bring the rows a finding names: each link gets its status once they do, in place, so that a
// link being clicked is never swapped for another under the pointer (a click whose press and release land on
// two elements is no click).
List.listeners.push(() => {
  for (const a of document.querySelectorAll("#findings-view [data-unread]")) {
    if (described(a.parentElement, Number(a.getAttribute("href").split("/").pop()))) delete a.dataset.unread;
  }
});

// The count in the navigation, kept fresh every few seconds.
async function countFindings() {
  try {
    const report = await readReport();
    const count = document.getElementById("finding-count");
    count.textContent = report.findings.length ? String(report.findings.length) : "";
    count.className = "count" + (report.findings.length ? " bad" : "");
  } catch (error) {
    // the list's status line says why the server cannot be read
  }
  setTimeout(countFindings, 5000);
}
