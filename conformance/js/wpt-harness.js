// Collects the reports of every document of the test (postMessage to the
// top-level window), folds them as docs/conformance.md describes, and asserts
// that the observation is one the draft allows (ALLOWED, from the model).
const __reports = [];
window.addEventListener('message', (e) => {
  if (e.data && e.data.webmcpReport) __reports.push(e.data.webmcpReport);
});
function __fold(reports, tree) {
  const last = new Map();
  const ordered = reports.slice().sort((a, b) => (a.doc < b.doc ? -1 : a.doc > b.doc ? 1 : a.seq - b.seq));
  for (const r of ordered) {
    if (['note', 'api', 'surfaces', 'ran', 'intervened'].includes(r.key)) continue;
    last.set(r.doc + '\u0000' + r.key, typeof r.value === 'string' ? r.value : JSON.stringify(r.value));
  }
  const destroyed = new Set();
  for (const [doc, frames] of tree) {
    for (const [nav, child] of frames) {
      if (destroyed.has(doc) || last.get(doc + '\u0000iframe ' + nav) === 'removed') destroyed.add(child);
    }
  }
  const obs = {};
  const invocations = {};
  for (const [k, v] of last) {
    const [doc, key] = k.split('\u0000');
    if (destroyed.has(doc)) continue;
    if (key.startsWith('invoke ')) {
      const tool = key.slice(7).replace(/ #\d+$/, '');
      (invocations[doc + ': invoke ' + tool] ||= []).push(v);
    } else obs[doc + ': ' + key] = v;
  }
  for (const [k, vs] of Object.entries(invocations)) obs[k] = vs.sort().join('; ');
  return obs;
}
function __same(a, b) {
  const ka = Object.keys(a).sort(), kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a[k] === b[k]);
}
promise_test(async (t) => {
  await new Promise((resolve) => t.step_timeout(resolve, QUIET_MS));
  const observed = __fold(__reports, TREE);
  assert_true(ALLOWED.some((a) => __same(a, observed)),
    'observation allowed by the draft: ' + JSON.stringify(observed, null, 1));
}, TITLE);
