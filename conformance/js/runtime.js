// Runs one document's browser form (FORM, set before this script) against
// the implementation chosen by FORM.impl, and reports every observation with
// __report({doc, key, value}). Statement semantics: docs/conformance.md.
(function () {
  'use strict';
  const F = FORM;
  // Reports travel as separate requests and may arrive out of order: each
  // carries its document's sequence number, and the fold sorts by it.
  let seq = 0;
  const send = (key, value) => __report({ doc: F.doc, seq: seq++, key, value });
  const note = (text) => send('note', text);

  // Model origins (https://a.example) <-> loopback origins.
  const toReal = (s) => {
    for (const [m, r] of Object.entries(F.origins)) {
      if (s === m || s.startsWith(m + '/')) return r + s.slice(m.length);
    }
    return s;
  };
  const toModel = (s) => {
    for (const [m, r] of Object.entries(F.origins)) if (s === r) return m;
    return s;
  };

  function windowOf(doc) {
    const path = F.windows[doc];
    if (!path) return undefined;
    let w = window.top;
    for (const i of path) { w = w && w.frames[i]; }
    return w;
  }
  function docOfWindow(w) {
    for (const doc of Object.keys(F.windows)) {
      try { if (windowOf(doc) === w) return doc; } catch (e) { /* detached */ }
    }
    return '?';
  }

  class Unsupported extends Error {
    constructor(what) { super(what); this.name = 'Unsupported'; }
  }

  // The draft's API, as written: document.modelContext. A method it lacks makes the
  // statements that need it unsupported (not-implemented), never a fallback.
  function draftApi() {
    const mc = document.modelContext;
    if (!mc || typeof mc.registerTool !== 'function') return null;
    const method = (m) => {
      if (typeof mc[m] !== 'function') throw new Unsupported('document.modelContext.' + m);
      return mc[m].bind(mc);
    };
    return {
      name: 'document.modelContext',
      registerTool: (tool, options) => method('registerTool')(tool, options),
      getTools: (options) => method('getTools')(options),
      executeTool: (tool, input, options) => method('executeTool')(tool, input, options),
      onToolchange: (cb) => {
        if (typeof mc.addEventListener !== 'function') throw new Unsupported('toolchange');
        mc.addEventListener('toolchange', cb);
      },
    };
  }

  // Chromium's earlier shape: navigator.modelContext.registerTool (returns
  // undefined), discovery and execution only through the testing interface
  // navigator.modelContextTesting, for the calling document's own tools.
  function navigatorApi() {
    const mc = navigator.modelContext;
    const t = navigator.modelContextTesting;
    if (!mc || typeof mc.registerTool !== 'function') return null;
    return {
      name: 'navigator.modelContext + navigator.modelContextTesting',
      registerTool: (tool, options) => mc.registerTool(tool, options),
      getTools: (options) => {
        if (!t) throw new Unsupported('getTools');
        if (options && options.fromOrigins) throw new Unsupported('getTools fromOrigins');
        return t.listTools().map((x) => ({
          name: x.name, description: x.description, origin: location.origin, window: window,
        }));
      },
      executeTool: (tool, input, options) => {
        if (!t) throw new Unsupported('executeTool');
        // The testing interface takes a tool name for the calling document:
        // a RegisteredTool of another window or origin cannot be expressed.
        if (tool.window !== window) throw new Unsupported('cross-document executeTool');
        if (tool.origin !== location.origin) throw new Unsupported('executeTool with another origin');
        return t.executeTool(tool.name, JSON.stringify(input), options);
      },
      onToolchange: (cb) => {
        if (t) t.addEventListener('toolchange', cb);
        else throw new Unsupported('toolchange');
      },
    };
  }

  // Every surface the page exposes, whichever the run uses.
  function surfaces() {
    const found = [];
    const methods = (o, names) => names.filter((m) => typeof o[m] === 'function').join(', ');
    if (document.modelContext) {
      found.push('document.modelContext (' + methods(document.modelContext, ['registerTool', 'unregisterTool', 'getTools', 'executeTool']) + ')');
    }
    if (navigator.modelContext) {
      found.push('navigator.modelContext (' + methods(navigator.modelContext, ['registerTool', 'unregisterTool', 'provideContext', 'clearContext']) + ')');
    }
    if (navigator.modelContextTesting) {
      found.push('navigator.modelContextTesting (' + methods(navigator.modelContextTesting, ['listTools', 'executeTool']) + ')');
    }
    return found.length ? found.join('; ') : 'none';
  }

  if (window.originAgentCluster === false) note('window.originAgentCluster is false');
  send('surfaces', surfaces());
  // The API the run was told to use (--api): never another one.
  const api = F.api === 'testing' ? navigatorApi() : draftApi();
  send('api', api ? api.name : 'none');
  // toolactivated (imperative-execute-steps#4) and toolcancel (cancel-pending-execution#6.6),
  // and toolcanceled, the name of the 2026-08 text's ISSUE: noted wherever an implementation
  // fires them, not yet projected into the judged observation.
  const targets = [['window', window], ['document.modelContext', document.modelContext],
    ['navigator.modelContextTesting', navigator.modelContextTesting]];
  for (const [where, target] of targets) {
    if (!target || typeof target.addEventListener !== 'function') continue;
    for (const type of ['toolcancel', 'toolcanceled', 'toolactivated']) {
      target.addEventListener(type, () => note('event ' + type + ' at ' + where));
    }
  }
  if (!api) { send('script', 'no API'); return; }

  const errName = (e) => (e && e.name) || typeof e;
  function describe(v) {
    if (v === undefined) return 'fulfilled undefined';
    if (typeof v === 'string') return 'fulfilled string ' + v;
    if (Array.isArray(v)) {
      return 'fulfilled tools [' + v.map((t) =>
        t.name + ' @' + toModel(String(t.origin)) + ' in ' + docOfWindow(t.window)).join(', ') + ']';
    }
    let text;
    try { text = JSON.stringify(v); } catch (e) { text = String(v); }
    return 'fulfilled other ' + text;
  }
  function settledName(e) {
    return e instanceof Unsupported ? 'unsupported ' + e.message : 'rejected ' + errName(e);
  }
  // A call's outcome. The draft's methods always return promises; a
  // synchronous throw or a non-promise return is noted as outside the draft.
  function call(what, f) {
    let r;
    try { r = f(); } catch (e) {
      if (!(e instanceof Unsupported)) note(what + ' threw synchronously (' + errName(e) + ')');
      return Promise.reject(e);
    }
    if (!(r instanceof Promise)) {
      note(what + ' returned ' + (r === undefined ? 'undefined' : typeof r) + ', not a promise');
      return Promise.resolve(r);
    }
    return r;
  }

  const js = (v) => {
    if (v && typeof v === 'object' && !Array.isArray(v) && '$js' in v) {
      switch (v.$js) {
        case 'to-json-undefined': return { toJSON() { return undefined; } };
        case 'to-json-function': return { toJSON() { return HTMLDivElement; } };
        case 'circular': { const o = {}; o.self = o; return o; }
        case 'to-json-throws': return { toJSON() { throw new Error('toJSON'); } };
        case 'to-json-primitive': return { toJSON() { return 42; } };
        case 'undefined': return undefined;
        case 'reaches-body': return {};
      }
    }
    return v;
  };

  // Environment interventions this document performs, once: when any tool
  // body is invoked anywhere in the page (so they land during the run), or
  // shortly after the script starts if no body has been invoked by then.
  let intervened = false;
  function intervene(when) {
    if (intervened) return;
    intervened = true;
    send('intervened', when);
    for (const c of F.interventions.abort) { controllers[c].abort(); send('controller ' + c, 'aborted'); }
    for (const nav of F.interventions.removeIframe) {
      const el = document.getElementById('nav-' + nav);
      if (el) { el.remove(); send('iframe ' + nav, 'removed'); }
    }
  }
  let forwarded = false;
  window.addEventListener('message', (e) => {
    if (!e.data || e.data.webmcpConformance !== 'invoked' || forwarded) return;
    forwarded = true;
    for (let i = 0; i < window.frames.length; i++) window.frames[i].postMessage(e.data, '*');
    intervene('after a tool body was invoked');
  });
  const announceInvocation = () => window.top.postMessage({ webmcpConformance: 'invoked' }, '*');

  // Whether a call of executeTool() is on the stack, in this page's same-origin frames:
  // a body invoked then ran inside the call, which the draft never does (it invokes
  // bodies from a task queued in parallel, execute-tool#16).
  function insideExecute(delta) {
    let holder = window;
    try { void window.top.__webmcpInsideExecute; holder = window.top; } catch (e) { /* cross-origin top */ }
    holder.__webmcpInsideExecute = (holder.__webmcpInsideExecute || 0) + delta;
    return holder.__webmcpInsideExecute > 0;
  }

  // A scripted body (docs/scenarios.md, "Tool bodies"): an async function whose
  // statements run in order; falling off the end fulfils with undefined.
  async function runBody(script, signal) {
    for (const st of script) {
      if (st.abort !== undefined) {
        controllers[st.abort].abort();
        send('controller ' + st.abort, 'aborted');
      } else if (st.awaitAbort) {
        if (!signal) await new Promise(() => {});
        if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      } else if ('return' in st) {
        return js(st.return);
      } else if (st.throw) {
        throw new Error('tool failed');
      }
    }
    return undefined;
  }

  let invocations = 0;
  function body(toolName, script) {
    return (input, options) => {
      const n = invocations++;
      const signal = options && options.signal;
      let text;
      try { text = JSON.stringify(input); } catch (e) { text = 'unserializable'; }
      const key = 'invoke ' + toolName + ' #' + n;
      const when = insideExecute(0) ? 'inside executeTool()' : 'later';
      const state = () => (signal ? (signal.aborted ? 'aborted' : 'live') : 'none');
      const atCall = state();
      const value = (later) => 'input=' + text + ' signal=' + atCall + '/' + later + ' when=' + when;
      send(key, value(atCall));
      if (signal) signal.addEventListener('abort', () => send(key, value('aborted')));
      announceInvocation();
      if (script) return runBody(script, signal);
      const settle = () => {
        if (F.body === 'reject') throw new Error('tool failed');
        if (F.body === 'fulfil-unserializable') return undefined;
        return 'done';
      };
      if (F.bodyDelay === 0) return Promise.resolve().then(settle);
      return new Promise((resolve) => setTimeout(resolve, F.bodyDelay)).then(settle);
    };
  }

  for (const nav of F.iframes) send('iframe ' + nav, 'attached');
  const controllers = {};
  for (const c of F.controllers) { controllers[c] = new AbortController(); send('controller ' + c, 'live'); }
  const promises = {};
  const lists = {};
  let toolchanges = 0;
  const toolchangeWaiters = [];
  try {
    api.onToolchange(() => {
      toolchanges++;
      send('toolchange', Math.min(toolchanges, 3));
      for (const w of toolchangeWaiters.splice(0)) w();
    });
    send('toolchange', 0);
  } catch (e) { note('no toolchange event: ' + e.message); }

  function track(label, p) {
    promises[label] = p;
    send('call ' + label, 'pending');
    p.then((v) => { lists[label] = v; send('call ' + label, describe(v)); },
      (e) => {
        send('call ' + label, settledName(e));
        if (e && e.message && !(e instanceof Unsupported)) note(label + ' rejected: ' + errName(e) + ': ' + e.message);
      });
  }
  const THREW = {};
  function resolveTool(ref) {
    if (ref.from !== undefined) {
      const list = lists[ref.from];
      if (!Array.isArray(list)) return THREW;
      const t = list.find((x) => x.name === ref.name);
      return t === undefined ? THREW : t;
    }
    return { name: ref.name, description: '', origin: toReal(ref.origin), window: windowOf(ref.window) };
  }

  const parsed = new Promise((resolve) => {
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', resolve);
    else resolve();
  });

  async function run() {
    let awaitedToolchanges = 0;
    const S = F.statements;
    for (let pc = 0; pc < S.length; pc++) {
      const st = S[pc];
      send('ran', pc);
      if (st.registerTool) {
        const t = st.registerTool;
        const tool = { name: t.name, description: t.description, execute: body(t.name, t.body) };
        if (t.title !== undefined) tool.title = t.title;
        if (t.inputSchema !== undefined) tool.inputSchema = js(t.inputSchema);
        if (t.annotations !== undefined) tool.annotations = t.annotations;
        const options = {};
        if (st.exposedTo) options.exposedTo = st.exposedTo.map(toReal);
        if (st.signal) options.signal = controllers[st.signal].signal;
        track(st.label, call('registerTool', () => api.registerTool(tool, options)));
      } else if (st.getTools) {
        const options = {};
        if (st.getTools.fromOrigins) options.fromOrigins = st.getTools.fromOrigins.map(toReal);
        track(st.label, call('getTools', () => api.getTools(options)));
      } else if (st.executeTool) {
        // A hand-built dictionary names a window: the top-level script runs before the
        // parser has inserted its iframes, so wait for them (a delay of this document's
        // task, which the model's interleavings include).
        if (st.executeTool.from === undefined && windowOf(st.executeTool.window) === undefined) {
          await parsed;
        }
        const tool = resolveTool(st.executeTool);
        if (tool === THREW) { send('script', 'threw at ' + pc); return; }
        const input = st.input === undefined ? {} : js(st.input);
        const options = {};
        if (st.signal) options.signal = controllers[st.signal].signal;
        track(st.label, call('executeTool', () => {
          insideExecute(1);
          try { return api.executeTool(tool, input, options); } finally { insideExecute(-1); }
        }));
      } else if (st.abort) {
        controllers[st.abort].abort();
        send('controller ' + st.abort, 'aborted');
      } else if (st.await) {
        send('script', 'waiting at ' + pc);
        await promises[st.await].then(() => {}, () => {});
      } else if (st.awaitToolchange) {
        awaitedToolchanges++;
        send('script', 'waiting at ' + pc);
        const k = awaitedToolchanges;
        if (toolchanges < k) {
          await new Promise((resolve) => {
            const check = () => (toolchanges >= k ? resolve() : toolchangeWaiters.push(check));
            check();
          });
        }
      } else if (st.removeIframe) {
        const el = document.getElementById('nav-' + st.removeIframe);
        if (el) { el.remove(); send('iframe ' + st.removeIframe, 'removed'); }
      }
    }
    send('script', 'finished');
  }
  send('script', 'running');
  if (F.interventions.abort.length + F.interventions.removeIframe.length > 0) {
    setTimeout(() => intervene('by the fallback timer, no tool body invoked'), F.interventionFallback);
  }
  run().catch((e) => send('script', 'crashed ' + errName(e) + ': ' + e.message));
})();
