// Shared by the emitted WebMCP tests (resources/webmcp-harness.js): collects
// what every document of a test reports (webmcp-runtime.js posts each report
// to the top-level window), folds the reports into one observation as
// docs/conformance.md describes, and compares it with the observations the
// model of the draft allows.
'use strict';

const webmcp_reports = [];
let webmcp_last_report_at = performance.now();
window.addEventListener('message', (e) => {
  if (e.data && e.data.webmcpReport) {
    webmcp_reports.push(e.data.webmcpReport);
    webmcp_last_report_at = performance.now();
  }
});

// The observation: for every document still attached, the last value of each
// key ("DOC: KEY"); a document whose iframe was removed (or whose container
// was) contributes nothing. The invocations of one tool are joined, sorted.
function webmcp_fold(reports, tree) {
  const last = new Map();
  const ordered = reports.slice().sort(
    (a, b) => (a.doc < b.doc ? -1 : a.doc > b.doc ? 1 : a.seq - b.seq));
  for (const r of ordered) {
    if (['note', 'api', 'surfaces', 'ran', 'intervened'].includes(r.key)) continue;
    last.set(r.doc + '\u0000' + r.key,
      typeof r.value === 'string' ? r.value : JSON.stringify(r.value));
  }
  const destroyed = new Set();
  for (const [doc, frames] of tree) {
    for (const [nav, child] of frames) {
      if (destroyed.has(doc) || last.get(doc + '\u0000iframe ' + nav) === 'removed') {
        destroyed.add(child);
      }
    }
  }
  const observed = {};
  const invocations = {};
  for (const [k, v] of last) {
    const [doc, key] = k.split('\u0000');
    if (destroyed.has(doc)) continue;
    if (key.startsWith('invoke ')) {
      const tool = key.slice(7).replace(/ #\d+$/, '');
      (invocations[doc + ': invoke ' + tool] ||= []).push(v);
    } else {
      observed[doc + ': ' + key] = v;
    }
  }
  for (const [k, vs] of Object.entries(invocations)) observed[k] = vs.sort().join('; ');
  return observed;
}

function webmcp_same(a, b) {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a[k] === b[k]);
}

// The statements that started ("DOC#INDEX"), from the pages' `ran` reports.
function webmcp_ran() {
  return new Set(webmcp_reports.filter((r) => r.key === 'ran').map((r) => r.doc + '#' + r.value));
}

// Waits, without a fixed sleep, until the pages' observation is one the
// draft allows and every statement it depends on has run, or until they have
// stopped reporting for `quiet_ms` (an implementation that diverges), then
// returns the observation.
async function webmcp_observation(t, { tree, allowed, required, quiet_ms, timeout_ms }) {
  await t.step_wait(() => {
    const observed = webmcp_fold(webmcp_reports, tree);
    const ran = webmcp_ran();
    return (allowed.some((a) => webmcp_same(a, observed)) && required.every(([id]) => ran.has(id))) ||
      (webmcp_reports.length > 0 && performance.now() - webmcp_last_report_at >= quiet_ms);
  }, 'the pages reach an observation the draft allows or stop reporting', timeout_ms, 50);
  return webmcp_fold(webmcp_reports, tree);
}

// An allowed observation shows nothing if the statements it depends on did not
// run (a script stuck at its first await), or if the interventions landed
// before any tool body was invoked where every run of the draft invokes one.
function assert_webmcp_ran(required, body_before_interventions) {
  const ran = webmcp_ran();
  for (const [id, statement] of required) {
    assert_true(ran.has(id), `${statement} (${id}) ran: the observation depends on it`);
  }
  if (body_before_interventions) {
    for (const r of webmcp_reports.filter((r) => r.key === 'intervened')) {
      assert_false(String(r.value).startsWith('by the fallback'),
        `${r.doc}'s interventions landed while a tool body ran, not ${r.value}`);
    }
  }
}

// Keys no allowed observation has (a callback invoked, a document that
// should be gone), then the observation as a whole.
function assert_webmcp_allowed(observed, allowed, keys, draft) {
  for (const key of Object.keys(observed).sort()) {
    assert_true(keys.includes(key),
      `${key} = ${observed[key]}, which no observation ${draft} allows has`);
  }
  assert_true(allowed.some((a) => webmcp_same(a, observed)),
    `the observation as a whole is one ${draft} allows: ${JSON.stringify(observed, null, 1)}`);
}
