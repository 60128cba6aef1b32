// Functions: what the server runs (triggers, callables, HTTP functions, schedules with "Run now"), the recent runs
// (refreshed every 2 s while the page is open) and the dead letters, each retryable.
// APIs: GET /.hearth/functions, POST /.hearth/functions/schedules/NAME:run, GET /.hearth/functions/deadLetters,
// POST /.hearth/functions/deadLetters/QUEUE/ID:retry.
import { h, api, toast, session, ApiError } from '../app.js';
import { kindLabel, triggerText, formatDuration, outcomeBadge, timeCell, deadLetterSubject } from './functions-format.js';

const REFRESH_MS = 2000;
/** How long after a retry the page looks for the run it caused. */
const RETRY_WATCH_MS = 15000;

const runKey = (r) => `${r.function}\u0000${r.trigger}\u0000${r.startedAt}\u0000${r.attempt ?? ''}`;

export default {
  title: 'Functions',
  styles: true,
  mount(root) {
    const status = h('p', { class: 'error', role: 'alert', id: 'functions-status', hidden: true });
    const fnBody = h('div', { id: 'functions-list' }, h('p', { class: 'muted', text: 'Loading…' }));
    const runsBody = h('div', { id: 'runs-list' }, h('p', { class: 'muted', text: 'Loading…' }));
    const deadBody = h('div', { id: 'dead-letters' }, h('p', { class: 'muted', text: 'Loading…' }));
    const runsNote = h('p', { class: 'muted', id: 'runs-note',
      text: 'The last 200 runs on this server (kept in memory: a restart clears them), newest first. Refreshes every 2 seconds.' });

    const summary = h('p', { class: 'fn-summary', id: 'functions-summary', 'aria-live': 'polite' });
    const kindFilter = h('select', { id: 'kind-filter', onchange: () => { lastFunctions = ''; refresh(); } },
      h('option', { value: '', text: 'All kinds' }));
    const showAll = h('button', { type: 'button', class: 'small ghost', id: 'runs-show-all', hidden: true,
      'aria-pressed': 'false', onclick: () => {
        allRuns = !allRuns;
        showAll.setAttribute('aria-pressed', String(allRuns));
        refresh();
      } });

    // Dead letters first (what needs an admin), then what ran, then what is registered.
    root.append(
      h('h1', { id: 'page-title', text: 'Functions' }),
      status,
      summary,
      h('section', { 'aria-labelledby': 'dead-heading' },
        h('h2', { id: 'dead-heading', tabindex: '-1', text: 'Dead letters' }),
        h('p', { class: 'muted', text: 'Trigger events whose function failed on every attempt. Fix the cause, then retry: the event runs again with a fresh set of attempts.' }),
        deadBody),
      h('section', { 'aria-labelledby': 'runs-heading' },
        h('div', { class: 'section-head' }, h('h2', { id: 'runs-heading', text: 'Recent runs' }), showAll), runsNote, runsBody),
      h('section', { 'aria-labelledby': 'fn-heading' },
        h('div', { class: 'section-head' }, h('h2', { id: 'fn-heading', text: 'Registered functions' }),
          h('label', { class: 'row', for: 'kind-filter' }, 'Show', kindFilter)),
        fnBody),
    );

    let stopped = false;
    let timer = null;
    let lastFunctions = '';
    let lastDead = '';
    const seenRuns = new Set();
    let firstRuns = true;
    let allRuns = false;
    const RUNS_SHOWN = 15;
    const running = new Set();
    const watches = []; // { trigger, since, until }

    function showStatus(message) {
      status.hidden = !message;
      status.textContent = message ?? '';
    }

    // Re-rendering a table must not lose the keyboard focus: put it back on the element with the same id.
    function keepingFocus(render) {
      const id = document.activeElement?.id;
      render();
      if (id && !document.getElementById(id)) return;
      if (id && document.activeElement?.id !== id) document.getElementById(id)?.focus();
    }

    // ---- registered functions ----

    function renderFunctions(functions) {
      if (functions.length === 0) {
        fnBody.replaceChildren(h('p', { class: 'empty', text: 'This server runs no functions. Register them in your own server (see docs/functions.md) and start it instead of hearth.' }));
        return;
      }
      const kinds = [...new Set(functions.map((fn) => fn.kind))];
      if (kindFilter.options.length !== kinds.length + 1) {
        const current = kindFilter.value;
        kindFilter.replaceChildren(h('option', { value: '', text: `All kinds (${functions.length})` }),
          ...kinds.map((k) => h('option', { value: k, text: `${kindLabel(k)} (${functions.filter((fn) => fn.kind === k).length})` })));
        kindFilter.value = current;
      }
      const now = Date.now();
      const shown = kindFilter.value ? functions.filter((fn) => fn.kind === kindFilter.value) : functions;
      const rows = shown.map((fn) => h('tr', { dataset: { function: fn.name, kind: fn.kind } },
        h('th', { scope: 'row', class: 'fn-name' }, h('code', { text: fn.name })),
        h('td', {}, h('span', { class: `badge kind-${fn.kind}`, text: kindLabel(fn.kind) })),
        h('td', { class: 'fn-trigger' }, h('code', { text: triggerText(fn, session.namespace) })),
        fn.kind === 'schedule' ? timeCell(fn.nextRun, now) : h('td', { class: 'muted', text: '—' }),
        fn.kind === 'schedule' ? timeCell(fn.lastRun, now) : h('td', { class: 'muted', text: '—' }),
        h('td', {}, fn.kind === 'schedule' ? runNowButton(fn.name) : null)));
      fnBody.replaceChildren(h('div', { class: 'table-wrap' }, h('table', { id: 'functions-table' },
        h('caption', { class: 'visually-hidden', text: 'Registered functions' }),
        h('thead', {}, h('tr', {}, ['Name', 'Kind', 'Trigger or schedule', 'Next run', 'Last run', 'Actions'].map((t) => h('th', { scope: 'col', text: t })))),
        h('tbody', {}, rows))));
    }

    function runNowButton(name) {
      const busy = running.has(name);
      return h('button', { type: 'button', class: 'small primary run-now', id: `run-now-${name}`, disabled: busy,
        'aria-label': `Run ${name} now`, onclick: () => runNow(name) }, busy ? 'Running…' : 'Run now');
    }

    async function runNow(name) {
      running.add(name);
      lastFunctions = '';
      await refresh();
      try {
        const result = await api('POST', `/.hearth/functions/schedules/${encodeURIComponent(name)}:run`);
        if (result.outcome === 'ok') toast(`${name} ran in ${formatDuration(result.durationMs)}.`, 'ok');
        else toast(`${name} failed: ${result.error ?? result.outcome}`, 'error');
      } catch (error) {
        toast(error instanceof ApiError && error.status === 409 ? `${name} is running already.` : `${name} did not run: ${error.message}`, 'error');
      } finally {
        running.delete(name);
        lastFunctions = '';
        await refresh();
        document.getElementById(`run-now-${name}`)?.focus();
      }
    }

    // ---- recent runs ----

    function renderRuns(runs) {
      if (runs.length === 0) {
        runsBody.replaceChildren(h('p', { class: 'empty', id: 'runs-empty', text: 'No runs yet since the server started.' }));
        seenRuns.clear();
        firstRuns = false;
        return;
      }
      showAll.hidden = runs.length <= RUNS_SHOWN;
      showAll.textContent = allRuns ? `Show the latest ${RUNS_SHOWN}` : `Show all ${runs.length}`;
      const rows = (allRuns ? runs : runs.slice(0, RUNS_SHOWN)).map((r) => {
        const key = runKey(r);
        const fresh = !firstRuns && !seenRuns.has(key);
        return h('tr', { class: fresh ? 'flash' : null, dataset: { function: r.function, trigger: r.trigger, outcome: r.outcome } },
          timeCell(r.startedAt, Date.now()),
          h('td', {}, h('code', { text: r.function })),
          h('td', {}, h('code', { text: r.trigger }), r.attempt ? h('span', { class: 'muted', text: ` · attempt ${r.attempt}` }) : null),
          h('td', { class: 'num', text: formatDuration(r.durationMs) }),
          h('td', {}, outcomeBadge(r.outcome)),
          h('td', { class: 'run-error' }, r.error ? h('span', { class: 'error', text: r.error }) : null));
      });
      seenRuns.clear();
      for (const r of runs) seenRuns.add(runKey(r));
      firstRuns = false;
      runsBody.replaceChildren(h('div', { class: 'table-wrap' }, h('table', { id: 'runs-table' },
        h('caption', { class: 'visually-hidden', text: 'Recent runs, newest first' }),
        h('thead', {}, h('tr', {}, ['Started', 'Function', 'Trigger', 'Duration', 'Outcome', 'Error'].map((t) => h('th', { scope: 'col', text: t })))),
        h('tbody', {}, rows))));
    }

    // A retried event's run: tell the user how it went once it shows up.
    function checkWatches(runs) {
      const now = Date.now();
      for (let i = watches.length - 1; i >= 0; i--) {
        const w = watches[i];
        const run = runs.find((r) => r.trigger === w.trigger && r.startedAt >= w.since);
        if (run) {
          watches.splice(i, 1);
          if (run.outcome === 'ok') toast(`Retried ${w.trigger}: ${run.function} ran fine.`, 'ok');
          else toast(`Retried ${w.trigger}: it failed again (${run.error ?? run.outcome}).`, 'error');
        } else if (now > w.until) {
          watches.splice(i, 1);
        }
      }
    }

    // ---- dead letters ----

    function renderDead(letters) {
      if (letters.length === 0) {
        deadBody.replaceChildren(h('p', { class: 'empty', id: 'dead-empty', text: 'No dead letters: every trigger event was delivered.' }));
        return;
      }
      const queues = new Map();
      for (const l of letters) {
        if (!queues.has(l.queue)) queues.set(l.queue, []);
        queues.get(l.queue).push(l);
      }
      deadBody.replaceChildren(...[...queues].map(([queue, items]) => {
        const headingId = `dead-queue-${queue.replace(/[^a-zA-Z0-9_-]/g, '-')}`;
        return h('div', { class: 'dead-queue' },
          h('h3', { id: headingId, text: `${queueLabel(queue)} (${items.length})` }),
          h('div', { class: 'table-wrap' }, h('table', { class: 'dead-table', 'aria-labelledby': headingId },
            h('thead', {}, h('tr', {}, ['Event', 'Function', 'What failed', 'Attempts', 'Queued', 'Last error', 'Actions'].map((t) => h('th', { scope: 'col', text: t })))),
            h('tbody', {}, items.map((l) => deadRow(l))))));
      }));
    }

    function queueLabel(queue) {
      if (queue.startsWith('db:')) return `Database ${queue.slice(3)}`;
      if (queue === 'auth') return 'Auth';
      if (queue === 'storage') return 'Storage';
      return queue;
    }

    function deadRow(l) {
      const event = `${l.queue}/${l.id}`;
      return h('tr', { dataset: { event, function: l.function } },
        h('td', {}, h('code', { class: 'nowrap', text: event })),
        h('td', {}, h('code', { text: l.function })),
        h('td', {}, h('code', { text: deadLetterSubject(l) }),
          h('details', {}, h('summary', { text: 'Event' }), h('pre', { class: 'payload', text: JSON.stringify(l.payload, null, 2) }))),
        h('td', { class: 'num', text: String(l.attempts) }),
        timeCell(l.createdAt, Date.now()),
        h('td', { class: 'run-error' }, l.error ? h('span', { class: 'error', text: l.error }) : h('span', { class: 'muted', text: '—' })),
        h('td', {}, h('button', { type: 'button', class: 'small primary retry', id: `retry-${event.replace(/[^a-zA-Z0-9_-]/g, '-')}`,
          'aria-label': `Retry ${event} (${l.function})`, onclick: (e) => retry(l, e.currentTarget) }, 'Retry')));
    }

    async function retry(letter, button) {
      const event = `${letter.queue}/${letter.id}`;
      button.disabled = true;
      button.textContent = 'Retrying…';
      const since = Date.now() - 1000;
      try {
        await api('POST', `/.hearth/functions/deadLetters/${letter.queue}/${letter.id}:retry`);
        watches.push({ trigger: event, since, until: Date.now() + RETRY_WATCH_MS });
        toast(`${event} is queued again.`);
      } catch (error) {
        toast(`Could not retry ${event}: ${error.message}`, 'error');
      }
      lastDead = '';
      await refresh();
      document.getElementById('dead-heading')?.focus?.();
    }

    function renderSummary(catalog, letters) {
      const fns = catalog.functions ?? [];
      const runs = catalog.runs ?? [];
      const failed = runs.filter((r) => r.outcome !== 'ok').length;
      summary.replaceChildren(
        `${fns.length} function${fns.length === 1 ? '' : 's'} registered · `,
        h('span', { class: letters.length ? 'error' : null, text: `${letters.length} dead letter${letters.length === 1 ? '' : 's'}` }),
        ` · ${runs.length} recent run${runs.length === 1 ? '' : 's'}`,
        failed ? h('span', { class: 'error', text: ` (${failed} failed)` }) : null);
    }

    // ---- refreshing ----

    async function refresh() {
      if (stopped) return;
      try {
        const [catalog, dead] = await Promise.all([
          api('GET', '/.hearth/functions'),
          api('GET', '/.hearth/functions/deadLetters?limit=1000'),
        ]);
        if (stopped) return;
        showStatus(null);
        renderSummary(catalog, dead.deadLetters ?? []);
        const fnText = JSON.stringify(catalog.functions) + [...running].join();
        if (fnText !== lastFunctions) {
          lastFunctions = fnText;
          keepingFocus(() => renderFunctions(catalog.functions ?? []));
        }
        renderRuns(catalog.runs ?? []);
        checkWatches(catalog.runs ?? []);
        const deadText = JSON.stringify(dead.deadLetters);
        if (deadText !== lastDead) {
          lastDead = deadText;
          keepingFocus(() => renderDead(dead.deadLetters ?? []));
        }
      } catch (error) {
        if (!stopped) showStatus(`Could not load the functions: ${error.message}. Trying again…`);
      }
    }

    async function loop() {
      await refresh();
      if (!stopped) timer = setTimeout(loop, REFRESH_MS);
    }
    loop();

    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  },
};
