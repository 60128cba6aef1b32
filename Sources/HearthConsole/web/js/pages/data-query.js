// The Data page's query panel: orderBy, a range (startAt/endAt/equalTo, after/before) and a limit over the open
// path's children; the result is a table kept live by a stream with the same query parameters.
import { api, h } from '../app.js';
import { dbUrl, isObject, liveSnapshot, orderedEntries, parseJson, pick, summary } from './data-util.js';

const RANGES = ['startAt', 'startAfter', 'endAt', 'endBefore', 'equalTo'];

/** The query card for `path` in namespace `ns`. */
export function queryPanel(ns, path) {
  const orderBy = h('input', { id: 'q-orderby', type: 'text', value: '$key', list: 'q-orderby-list', spellcheck: 'false', autocomplete: 'off' });
  const list = h('datalist', { id: 'q-orderby-list' }, ['$key', '$value', '$priority'].map((v) => h('option', { value: v })));
  const fields = Object.fromEntries(RANGES.map((r) => [r, h('input', { id: `q-${r}`, type: 'text', spellcheck: 'false', autocomplete: 'off', placeholder: 'JSON' })]));
  const limitKind = h('select', { id: 'q-limit-kind' }, h('option', { value: 'limitToFirst', text: 'First' }), h('option', { value: 'limitToLast', text: 'Last' }));
  const limit = h('input', { id: 'q-limit', type: 'number', min: '1', max: '10000', value: '20', inputmode: 'numeric' });
  const error = h('p', { class: 'error', id: 'q-error', role: 'alert' });
  const note = h('p', { class: 'muted', id: 'q-status', role: 'status' });
  const body = h('tbody', { id: 'q-rows' });
  const table = h('div', { class: 'table-wrap', hidden: true },
    h('table', { class: 'data-query-table' }, h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: '#' }), h('th', { scope: 'col', text: 'Key' }),
      h('th', { scope: 'col', id: 'q-by-col', text: 'Ordered by' }), h('th', { scope: 'col', text: 'Value' }))), body));
  let stop = null;
  let seen = new Map();

  function params() {
    const p = {};
    const by = orderBy.value.trim();
    if (!by) throw new Error('orderBy is needed: $key, $value, $priority or a child path such as score or address/city.');
    if (/[.#[\]]/.test(by) && !by.startsWith('$')) throw new Error(`"${by}" is not a child path (no . # [ ]).`);
    p.orderBy = JSON.stringify(by);
    for (const r of RANGES) {
      if (!fields[r].value.trim()) continue;
      const parsed = parseJson(fields[r].value);
      if (parsed.error) throw new Error(`${r}: ${parsed.error}`);
      if (isObject(parsed.value)) throw new Error(`${r}: a range takes a string, number, boolean or null.`);
      p[r] = JSON.stringify(parsed.value);
    }
    if (limit.value.trim()) {
      const n = Number(limit.value);
      if (!Number.isInteger(n) || n < 1 || n > 10000) throw new Error('The limit is a whole number from 1 to 10000.');
      p[limitKind.value] = String(n);
    } else {
      throw new Error('Give a limit (1 to 10000): a query without one could read millions of children.');
    }
    return p;
  }

  function show(snapshot, by) {
    const entries = orderedEntries(snapshot, by);
    table.hidden = false;
    note.textContent = `${entries.length} ${entries.length === 1 ? 'child' : 'children'} · live`;
    const next = new Map();
    body.replaceChildren(...(entries.length ? entries.map(([k, v], i) => {
      const json = JSON.stringify(v);
      next.set(k, json);
      const tr = h('tr', { 'data-key': k },
        h('td', { class: 'muted', text: String(i + 1) }),
        h('td', { class: 'mono', text: k }),
        h('td', { class: 'mono', text: by === '$key' ? k : JSON.stringify(by === '$value' ? v : pick(v, by)) ?? 'null' }),
        h('td', { class: 'mono data-query-value', text: isObject(v) && json.length > 200 ? summary(v) : json }));
      if (seen.size && seen.get(k) !== json) tr.classList.add('flash');
      return tr;
    }) : [h('tr', {}, h('td', { colspan: '4', class: 'empty', text: 'No children match.' }))]));
    seen = next;
  }

  async function run(e) {
    e.preventDefault();
    stop?.();
    stop = null;
    error.textContent = '';
    let p;
    try { p = params(); } catch (err) { error.textContent = err.message; return; }
    const by = JSON.parse(p.orderBy);
    document.getElementById('q-by-col').textContent = by;
    note.textContent = 'Running…';
    seen = new Map();
    try {
      // A plain read first: an EventSource cannot tell why the server refused (e.g. an index the rules lack).
      show(await api('GET', dbUrl(path, ns, p)), by);
    } catch (err) {
      table.hidden = true;
      note.textContent = '';
      error.textContent = err.status === 400 && /index/i.test(err.message)
        ? `${err.message}. Add the index in the Rules page (".indexOn"), or order by $key.`
        : `The query failed: ${err.message}`;
      return;
    }
    stop = liveSnapshot(dbUrl(path, ns, p), (snap) => show(snap, by), (message) => { error.textContent = message; });
  }

  const form = h('form', { class: 'data-query-form', onsubmit: run },
    h('div', { class: 'toolbar' },
      h('label', { for: 'q-orderby' }, 'orderBy', orderBy), list,
      RANGES.map((r) => h('label', { for: `q-${r}` }, r, fields[r])),
      h('label', { for: 'q-limit-kind' }, 'Limit to', limitKind),
      h('label', { for: 'q-limit' }, 'Count', limit),
      h('button', { type: 'submit', class: 'primary', id: 'q-run' }, 'Run query'),
      h('button', { type: 'button', id: 'q-stop', onclick: () => { stop?.(); stop = null; note.textContent = note.textContent.replace(' · live', ' · stopped'); } }, 'Stop')));

  const section = h('section', { class: 'card data-query', 'aria-labelledby': 'q-title' },
    h('h2', { id: 'q-title', text: `Query the children of ${path}` }),
    h('p', { class: 'muted', text: 'Values are JSON: "text", 12, true. Ordering by a child needs ".indexOn" in the rules.' }),
    form, error, note, table);
  section.stopQuery = () => stop?.();
  return section;
}
