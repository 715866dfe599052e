// Runs one legacy scenario against navigator.modelContext (page scripts) and
// navigator.modelContextTesting (the agent), stepping the actors in the scenario's
// browser schedule, then every actor still able to move; reports the observation in the
// model's vocabulary (model/src/legacy/observe.rs). Needs __done from REPORT_JS.
async function __runLegacy(sc) {
  // Set by the page before the polyfill loads.
  const native = !!window.__nativeModelContext;
  const mc = navigator.modelContext;
  const mct = navigator.modelContextTesting;
  const obs = {};
  const macrotask = () => new Promise((r) => setTimeout(r, 0));
  const callers = {};
  for (const [name, ops] of Object.entries(sc.page)) {
    callers[name] = { ops, pc: 0 };
    ops.forEach((_, i) => (obs[`${name}#${i}`] = 'not-run'));
  }
  const agent = { ops: sc.agent || [], pc: 0 };
  const execs = {};
  for (const op of agent.ops) {
    if ('list' in op) obs[op.list] = 'not-run';
    else {
      obs[op.as] = 'pending';
      obs[`${op.as}.tool`] = 'none';
      execs[op.as] = { steps: [], pc: 0, invoked: false, ruis: [], answers: [] };
    }
  }
  const bodies = sc.bodies || {};
  const nameOf = (spec) => (typeof spec === 'string' ? spec : spec.name);

  function dictionary(spec, label) {
    const name = nameOf(spec);
    const tool = {
      name,
      description: `tool ${name}`,
      inputSchema: { type: 'object', properties: { exec: { type: 'string' } } },
      execute: (input, client) => invoked(input.exec, name, label, client),
    };
    if (typeof spec === 'object' && spec.readOnlyHint !== undefined) {
      tool.annotations = { readOnlyHint: spec.readOnlyHint };
    }
    return tool;
  }

  function invoked(label, name, defLabel, client) {
    const x = execs[label];
    x.invoked = true;
    x.client = client;
    x.steps = bodies[name] || ['fulfil'];
    obs[`${label}.tool`] = defLabel;
    const inSet = mct.listTools().some((t) => t.name === name);
    obs[`${label}.at-start`] = inSet ? 'in-set' : 'not-in-set';
    return new Promise((resolve, reject) => {
      x.resolve = resolve;
      x.reject = reject;
    });
  }

  function pageStep(name) {
    const c = callers[name];
    if (c.pc >= c.ops.length) return false;
    const i = c.pc++;
    const op = c.ops[i];
    const label = `${name}#${i}`;
    try {
      if (op === 'clearContext') mc.clearContext();
      else if ('provideContext' in op)
        mc.provideContext({ tools: op.provideContext.map((t) => dictionary(t, label)) });
      else if ('registerTool' in op) mc.registerTool(dictionary(op.registerTool, label));
      else if ('unregisterTool' in op) mc.unregisterTool(op.unregisterTool);
      obs[label] = 'returned';
    } catch (e) {
      obs[label] = 'threw';
    }
    return true;
  }

  function agentStep() {
    if (agent.pc >= agent.ops.length) return false;
    const op = agent.ops[agent.pc++];
    if ('list' in op) {
      obs[op.list] = mct.listTools().map((t) => t.name).sort().join(',');
    } else {
      mct.executeTool(op.execute, JSON.stringify({ exec: op.as })).then(
        () => (obs[op.as] = 'result'),
        () => (obs[op.as] = 'error'),
      );
    }
    return true;
  }

  function bodyStep(label) {
    const x = execs[label];
    if (!x.invoked || x.pc >= x.steps.length) return false;
    const step = x.steps[x.pc++];
    if (step === 'fulfil') x.resolve({ done: label });
    else if (step === 'reject') x.reject(new Error(`${label} failed`));
    else {
      const r = { ran: false, state: 'pending' };
      x.ruis.push(r);
      let p;
      try {
        p = x.client.requestUserInteraction(() => {
          r.ran = true;
          return new Promise((answer) => x.answers.push(answer));
        });
      } catch (e) {
        p = Promise.reject(e);
      }
      p.then(() => (r.state = 'fulfilled'), () => (r.state = 'rejected'));
    }
    return true;
  }

  function userStep(label) {
    const answer = execs[label].answers.shift();
    if (!answer) return false;
    answer('yes');
    return true;
  }

  function step(actor) {
    if (actor === 'agent') return agentStep();
    if (actor.startsWith('body:')) return bodyStep(actor.slice(5));
    if (actor.startsWith('user:')) return userStep(actor.slice(5));
    return pageStep(actor);
  }

  const taken = [];
  const skipped = [];
  for (const entry of (sc.browser && sc.browser.schedule) || []) {
    const sameTask = entry.startsWith('+');
    const actor = sameTask ? entry.slice(1) : entry;
    if (!sameTask) await macrotask();
    (step(actor) ? taken : skipped).push(entry);
  }
  const actors = ['agent', ...Object.keys(callers)];
  for (const label of Object.keys(execs)) actors.push(`body:${label}`, `user:${label}`);
  for (let progress = true; progress; ) {
    progress = false;
    for (const actor of actors) {
      await macrotask();
      if (step(actor)) {
        taken.push(actor);
        progress = true;
      }
    }
  }
  await new Promise((r) => setTimeout(r, 50));
  for (const [label, x] of Object.entries(execs)) {
    x.ruis.forEach((r, k) => {
      obs[`${label}.rui#${k}`] = r.ran
        ? `callback+${r.state}`
        : r.state === 'rejected'
          ? 'rejected'
          : 'no-callback+pending';
    });
  }
  return { native, polyfill: !!(mc && mc.__isWebMCPPolyfill), observation: obs, taken, skipped };
}
