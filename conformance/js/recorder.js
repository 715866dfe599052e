// Records what the pages of a run do with the WebMCP API, in the log format of
// docs/trace-validation.md (version 1). Run it in every document before any other
// script (after a polyfill, if one is used): it wraps document.modelContext's
// registerTool/getTools/executeTool, the execute callbacks registered through them,
// and AbortController.prototype.abort, listens for toolchange and watches iframes.
//
// Events are POSTed as JSON, {"webmcpRecorder": 1, "events": [...]}, to the endpoint
// named by the script element's data-endpoint attribute (default /__report?run=record,
// relative to each document's own origin). The collector numbers them (`seq`) in
// arrival order and writes the header line.
//
// Documents identify themselves to each other with window.postMessage messages
// {webmcpRecorder: ...}; the recorder's own listener runs first and stops them.
(function () {
  'use strict';
  const INSTALLED = Symbol.for('webmcp-recorder');
  if (window[INSTALLED]) return;
  Object.defineProperty(window, INSTALLED, { value: true });

  // What page scripts could replace later, taken now.
  const realFetch = window.fetch;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const then = Promise.prototype.then;
  const NativePromise = Promise;
  const setTimer = window.setTimeout;
  const addListener = EventTarget.prototype.addEventListener;
  const hasOwn = Object.prototype.hasOwnProperty;
  const TAG = 'webmcpRecorder';

  const script = document.currentScript;
  const ENDPOINT = (script && script.getAttribute('data-endpoint')) || '/__report?run=record';
  const DOC = 'x' + Math.random().toString(36).slice(2, 10) + Date.now().toString(36).slice(-4);

  // ---- The outgoing queue: slots are reserved in order (dseq) and filled, possibly
  // later (a document event waits for its parent's answer; a call naming a window
  // waits for that window's id); filled slots go out in order, one request at a time.
  let dseq = 0;
  const queue = [];
  let inFlight = false;
  function reserve() {
    const slot = { doc: DOC, dseq: dseq++, ev: null };
    queue.push(slot);
    return slot;
  }
  function fill(slot, fields) {
    const ev = { doc: slot.doc, dseq: slot.dseq };
    for (const k in fields) if (hasOwn.call(fields, k)) ev[k] = fields[k];
    slot.ev = ev;
    pump(false);
  }
  function log(fields) { fill(reserve(), fields); }
  function note(text) { log({ kind: 'note', text: String(text) }); }
  // ---- Delivery. The collector numbers events in arrival order, and documents of
  // different origins post over different connections, so arrival order alone need not
  // be causal: another document could name this one (a tool's window) before this
  // document's own events reach the collector. So a document tells another its id only
  // once the collector has answered for its own events that the other may name or
  // depend on: `iam` waits for every event reserved before the question, `welcome` (a
  // child's parent and frame) for this document's own document event, which never
  // waits for a child, so no wait is circular through a welcome. Every slot fills within a
  // bounded time (a window's id is asked with a 1 s timeout, the parent's welcome with
  // 2 s), so an answer is late at worst, never lost. Two documents that each name the
  // other at once wait for each other until the asker's timeout; it then uses the id it
  // already knows, and the log may name a document early, which the reader refuses.
  const outstanding = []; // the first dseq of each request not yet answered
  let sentEnd = 0; // the dseq after the last event sent
  const waiting = []; // [mark, callback]: callback once every dseq below mark is delivered
  function deliveredBelow() {
    let low = sentEnd;
    for (const first of outstanding) if (first < low) low = first;
    return low;
  }
  function whenDelivered(mark, callback) {
    waiting.push([mark, callback]);
    release();
  }
  function release() {
    const low = deliveredBelow();
    for (let i = 0; i < waiting.length;) {
      if (waiting[i][0] <= low) { const callback = waiting[i][1]; waiting.splice(i, 1); callback(); } else i++;
    }
  }
  // At most this many events per report, so that a burst is sent in reports the collector
  // accepts (it refuses one over 4 MiB, and a refused report makes the run incomplete).
  const BATCH = 2000;
  function pump(force) {
    if (inFlight && !force) return;
    const events = [];
    while (queue.length && queue[0].ev && events.length < BATCH) events.push(queue.shift().ev);
    if (!events.length) return;
    const body = stringify({ webmcpRecorder: 1, events });
    inFlight = true;
    const first = events[0].dseq;
    outstanding.push(first);
    sentEnd = events[events.length - 1].dseq + 1;
    const done = () => {
      outstanding.splice(outstanding.indexOf(first), 1);
      inFlight = false;
      release();
      pump(false);
    };
    try {
      const p = realFetch.call(window, ENDPOINT, {
        method: 'POST', body, keepalive: body.length < 60000, mode: 'no-cors', credentials: 'omit',
      });
      then.call(p, done, done);
    } catch (e) { done(); }
  }
  // A document going away sends what it has (the collector restores per-document order).
  addListener.call(window, 'pagehide', () => {
    for (let sent = 0; queue.length && queue[0].ev && sent < 64; sent++) pump(true);
  }, true);

  // ---- Ids.
  let calls = 0, invocations = 0, controllers = 0, frames = 0;
  const frameIds = new WeakMap(); // iframe element -> frame id in this document
  const frameDocs = new WeakMap(); // iframe element -> the doc id of its current document
  const frameId = (el) => {
    if (!frameIds.has(el)) frameIds.set(el, 'f' + frames++);
    return frameIds.get(el);
  };
  const signalIds = new WeakMap(); // AbortSignal passed to the API -> controller id
  const signalId = (s) => {
    if (s === undefined || s === null || (typeof s !== 'object' && typeof s !== 'function')) return undefined;
    if (!signalIds.has(s)) signalIds.set(s, DOC + '.a' + controllers++);
    return signalIds.get(s);
  };
  const listOf = new WeakMap(); // a RegisteredTool object -> the getTools call whose result held it

  // ---- Windows -> document ids: ourselves, the parent and children that introduced
  // themselves, and otherwise by asking the window (any origin can be asked).
  const windowDocs = new WeakMap();
  windowDocs.set(window, DOC);
  let asked = 0;
  const answers = new Map();
  function docOf(w) {
    if (w === null || w === undefined || (typeof w !== 'object' && typeof w !== 'function')) {
      return NativePromise.resolve(null);
    }
    if (w === window) return NativePromise.resolve(DOC);
    let isWindow = false;
    try { isWindow = w.window === w && typeof w.postMessage === 'function'; } catch (e) { /* not a window */ }
    if (!isWindow) return NativePromise.resolve(null);
    const known = windowDocs.get(w);
    let closed = false;
    try { closed = w.closed; } catch (e) { /* answerless */ }
    if (closed) return NativePromise.resolve(known === undefined ? null : known);
    return new NativePromise((resolve) => {
      const nonce = DOC + '.q' + asked++;
      answers.set(nonce, resolve);
      setTimer(() => {
        if (answers.delete(nonce)) resolve(known === undefined ? null : known);
      }, 1000);
      try { w.postMessage({ [TAG]: 'who', nonce }, '*'); } catch (e) { /* times out */ }
    });
  }

  let parentDoc = null;
  let greeted = null;
  addListener.call(window, 'message', (e) => {
    const m = e.data;
    if (!m || typeof m !== 'object' || !hasOwn.call(m, TAG)) return;
    e.stopImmediatePropagation();
    const kind = m[TAG];
    if (kind === 'who' && e.source) {
      const asker = e.source;
      whenDelivered(dseq, () => asker.postMessage({ [TAG]: 'iam', nonce: m.nonce, doc: DOC }, '*'));
    } else if (kind === 'iam') {
      const resolve = answers.get(m.nonce);
      if (resolve) { answers.delete(m.nonce); windowDocs.set(e.source, m.doc); resolve(m.doc); }
    } else if (kind === 'hello' && e.source) {
      // A child document introduces itself: find its iframe.
      windowDocs.set(e.source, m.doc);
      let el = null;
      for (const f of document.querySelectorAll('iframe, frame')) {
        if (f.contentWindow === e.source) { el = f; break; }
      }
      // A second document in the same iframe: the iframe was navigated. Who navigated it
      // (this page's script, the child's, the user) cannot be told, so the log says the
      // environment did.
      if (el) {
        const before = frameDocs.get(el);
        if (before !== undefined && before !== m.doc) {
          log({ kind: 'frame', action: 'navigate', frame: frameId(el), by: 'environment' });
        }
        frameDocs.set(el, m.doc);
      }
      const child = e.source;
      const welcome = {
        [TAG]: 'welcome', parent: DOC, frame: el ? frameId(el) : null,
        allow: el ? el.getAttribute('allow') : null,
      };
      whenDelivered(1, () => child.postMessage(welcome, '*'));
    } else if (kind === 'welcome' && e.source === window.parent && greeted) {
      parentDoc = m.parent;
      windowDocs.set(window.parent, m.parent);
      greeted(m);
    }
  }, true);

  // ---- The document event: first, once the parent (if any) has answered.
  const documentSlot = reserve();
  const documentFields = (parent, frame, allow) => ({
    kind: 'document', url: location.href, parent, frame, allow,
    originKeyed: window.originAgentCluster === true,
  });
  if (window.parent === window) {
    fill(documentSlot, documentFields(null, null, null));
  } else {
    const timer = setTimer(() => {
      if (!greeted) return;
      greeted = null;
      fill(documentSlot, documentFields(null, null, null));
      note('the parent document did not answer: it runs no recorder');
    }, 2000);
    greeted = (m) => {
      greeted = null;
      clearTimeout(timer);
      fill(documentSlot, documentFields(m.parent, m.frame, m.allow));
    };
    window.parent.postMessage({ [TAG]: 'hello', doc: DOC }, '*');
  }

  // ---- Abstracting values.
  // A JSON value, or {"$js": NAME} for a value that is not one (docs/scenarios.md).
  function jsonOrSpecial(v) {
    if (v === undefined) return { $js: 'undefined' };
    let text;
    try { text = stringify(v); } catch (e) {
      return { $js: e && e.name === 'TypeError' ? 'circular' : 'to-json-throws' };
    }
    if (text === undefined) return { $js: 'to-json-undefined' };
    const value = parse(text);
    if (v !== null && typeof v === 'object' && (value === null || typeof value !== 'object')) {
      return { $js: 'to-json-primitive' };
    }
    return value;
  }
  const errorName = (e) => {
    try { return (e && typeof e.name === 'string') ? e.name : typeof e; } catch (x) { return 'unknown'; }
  };
  const get = (o, k) => { try { return o === null || o === undefined ? undefined : o[k]; } catch (e) { return undefined; } };

  // The members WebIDL reads from a ModelContextTool, in its (lexicographic) order.
  const TOOL_MEMBERS = ['annotations', 'description', 'execute', 'inputSchema', 'name', 'title'];

  function registerArgs(tool, options) {
    const args = {};
    for (const k of ['name', 'description', 'title', 'inputSchema', 'annotations']) {
      const v = get(tool, k);
      if (v !== undefined || k === 'name' || k === 'description') args[k] = jsonOrSpecial(v);
    }
    const exposedTo = get(options, 'exposedTo');
    if (exposedTo !== undefined) args.exposedTo = jsonOrSpecial(exposedTo);
    const signal = signalId(get(options, 'signal'));
    if (signal !== undefined) args.signal = signal;
    return args;
  }

  // ---- Wrapping.
  function sameShape(wrapper, original) {
    try {
      Object.defineProperty(wrapper, 'length', { value: original.length, configurable: true });
      Object.defineProperty(wrapper, 'name', { value: original.name, configurable: true });
    } catch (e) { /* keep the wrapper's own */ }
    return wrapper;
  }

  function wrapExecute(name, execute) {
    return sameShape(function (input, options) {
      const invocation = DOC + '.i' + invocations++;
      let text = null;
      try { const t = stringify(input); if (t !== undefined) text = t; } catch (e) { /* null */ }
      const signal = get(options, 'signal');
      const state = signal ? (get(signal, 'aborted') ? 'aborted' : 'live') : 'none';
      log({ kind: 'invoke', invocation, tool: name, input: text, signal: state });
      const settled = (outcome, v) => {
        const ev = { kind: 'body-settle', invocation, outcome };
        if (outcome === 'fulfilled') ev.value = jsonOrSpecial(v); else ev.error = errorName(v);
        log(ev);
      };
      let r;
      try { r = execute.apply(this, arguments); } catch (e) { settled('rejected', e); throw e; }
      if (r instanceof NativePromise) {
        then.call(r, (v) => settled('fulfilled', v), (e) => settled('rejected', e));
      } else {
        settled('fulfilled', r);
      }
      return r;
    }, execute);
  }

  // A copy of the tool dictionary with its execute callback wrapped, reading each
  // member once, in WebIDL's order; the original when that fails.
  function toolWithWrappedExecute(tool) {
    if (tool === null || typeof tool !== 'object') return tool;
    try {
      const copy = {};
      for (const k of TOOL_MEMBERS) {
        if (k in tool) copy[k] = tool[k];
      }
      if (typeof copy.execute === 'function') copy.execute = wrapExecute(String(copy.name), copy.execute);
      return copy;
    } catch (e) {
      return tool;
    }
  }

  // The settle event of call `id` once `r` (what the method returned) settles.
  function watch(id, method, r, value) {
    const settled = (outcome, v) => {
      const slot = reserve();
      if (outcome === 'rejected') { fill(slot, { kind: 'settle', call: id, outcome, error: errorName(v) }); return; }
      then.call(value(v), (abstracted) => fill(slot, { kind: 'settle', call: id, outcome, value: abstracted }));
    };
    if (r instanceof NativePromise) {
      then.call(r, (v) => settled('fulfilled', v), (e) => settled('rejected', e));
    } else {
      note(method + ' returned ' + (r === undefined ? 'undefined' : typeof r) + ', not a promise');
      settled('fulfilled', r);
    }
  }

  function plainValue(v) {
    if (v === undefined) return NativePromise.resolve(null);
    if (typeof v === 'string') return NativePromise.resolve(v);
    return NativePromise.resolve({ $js: 'other', json: jsonOrSpecial(v) });
  }

  function toolList(id) {
    return (v) => {
      if (!Array.isArray(v)) return plainValue(v);
      const items = [];
      for (const t of v) {
        if (t !== null && typeof t === 'object') listOf.set(t, id);
        items.push(then.call(docOf(get(t, 'window')), (window) => ({
          name: get(t, 'name'), origin: get(t, 'origin'), window,
        })));
      }
      return NativePromise.all(items);
    };
  }

  function method(name, original) {
    return sameShape(function () {
      const id = DOC + '.c' + calls++;
      const slot = reserve();
      const a = Array.prototype.slice.call(arguments);
      let fields;
      let value = plainValue;
      if (name === 'registerTool') {
        a[0] = toolWithWrappedExecute(a[0]);
        fields = NativePromise.resolve(registerArgs(a[0], a[1]));
      } else if (name === 'getTools') {
        const args = {};
        const from = get(a[0], 'fromOrigins');
        if (from !== undefined) args.fromOrigins = jsonOrSpecial(from);
        fields = NativePromise.resolve(args);
        value = toolList(id);
      } else {
        const t = a[0];
        const args = { tool: { name: get(t, 'name'), origin: get(t, 'origin') }, input: jsonOrSpecial(a[1]) };
        const list = t !== null && typeof t === 'object' ? listOf.get(t) : undefined;
        if (list !== undefined) args.tool.list = list;
        const signal = signalId(get(a[2], 'signal'));
        if (signal !== undefined) args.signal = signal;
        fields = then.call(docOf(get(t, 'window')), (w) => { args.tool.window = w; return args; });
      }
      then.call(fields, (args) => fill(slot, { kind: 'call', call: id, method: name, args }));
      let r;
      try { r = original.apply(this, a); } catch (e) {
        note(name + ' threw synchronously (' + errorName(e) + ')');
        log({ kind: 'settle', call: id, outcome: 'rejected', error: errorName(e) });
        throw e;
      }
      watch(id, name, r, value);
      return r;
    }, original);
  }

  // Replaces `name` where it is defined on `obj`'s prototype chain.
  function wrapOn(obj, name, make) {
    let o = obj;
    while (o && !hasOwn.call(o, name)) o = Object.getPrototypeOf(o);
    if (!o) return false;
    const d = Object.getOwnPropertyDescriptor(o, name);
    if (typeof d.value !== 'function') return false;
    const wrapped = make(d.value);
    if (d.configurable) {
      Object.defineProperty(o, name, { value: wrapped, writable: d.writable, enumerable: d.enumerable, configurable: true });
      return true;
    }
    if (d.writable) { o[name] = wrapped; return o[name] === wrapped; }
    return false;
  }

  // Aborts of controllers whose signals were passed to the API.
  const signalGetter = Object.getOwnPropertyDescriptor(AbortController.prototype, 'signal').get;
  wrapOn(AbortController.prototype, 'abort', (abort) => sameShape(function () {
    let id;
    try { id = signalIds.get(signalGetter.call(this)); } catch (e) { /* not a controller */ }
    if (id !== undefined) log({ kind: 'abort', controller: id });
    return abort.apply(this, arguments);
  }, abort));

  // Iframes inserted into and removed from this document.
  new MutationObserver((records) => {
    const frameElements = (n) => {
      if (n.nodeType !== 1) return [];
      const tag = n.localName;
      const found = tag === 'iframe' || tag === 'frame' ? [n] : [];
      return found.concat(Array.from(n.querySelectorAll('iframe, frame')));
    };
    for (const r of records) {
      for (const n of r.removedNodes) {
        for (const el of frameElements(n)) {
          if (frameIds.has(el)) log({ kind: 'frame', action: 'remove', frame: frameIds.get(el), by: 'script' });
        }
      }
      for (const n of r.addedNodes) {
        for (const el of frameElements(n)) {
          if (el.isConnected) log({ kind: 'frame', action: 'insert', frame: frameId(el), by: 'script' });
        }
      }
    }
  }).observe(document, { childList: true, subtree: true });

  // The earlier navigator.modelContext shape is the legacy proposal's (webmcp-check's
  // legacy profile models it), not the draft's: its presence is noted, its calls are not
  // recorded.
  if (navigator.modelContext) {
    note('navigator.modelContext is present (the earlier shape): its calls are not recorded');
  }
  const mc = document.modelContext;
  if (!mc || typeof mc !== 'object') {
    note('document.modelContext is absent: nothing is recorded');
    return;
  }
  for (const name of ['registerTool', 'getTools', 'executeTool']) {
    if (!wrapOn(mc, name, (original) => method(name, original))) {
      note('document.modelContext.' + name + ' could not be wrapped: its calls are not recorded');
    }
  }
  if (typeof mc.addEventListener === 'function') {
    addListener.call(mc, 'toolchange', () => log({ kind: 'event', type: 'toolchange' }));
  } else {
    note('document.modelContext has no addEventListener: toolchange is not recorded');
  }
})();
