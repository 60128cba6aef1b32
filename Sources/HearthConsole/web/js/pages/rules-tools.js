// The Rules page's simulator (one request decided by the draft in the editor) and cases runner (a `hearth rules
// test` cases file against the draft).
import { api, guarded, h, toast } from '../app.js';

const OPERATIONS = {
  database: [['read', 'Read'], ['set', 'Write (set)'], ['update', 'Update (multi-path)']],
  storage: [['get', 'get (download, metadata)'], ['list', 'list'], ['create', 'create (upload)'], ['update', 'update'],
    ['delete', 'delete']],
};
const WRITES = new Set(['set', 'update', 'create']);

/** Parses a JSON field; throws an Error naming the field when it is not JSON. */
function parseField(text, name) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${name} is not valid JSON: ${error.message}`);
  }
}

/** A labelled field: h('label') around the text and the control, with optional help below. */
function field(labelText, control, help) {
  return h('div', { class: 'field' }, h('label', { for: control.id, text: labelText }), control,
    help ? h('span', { class: 'muted help', id: `${control.id}-help`, text: help }) : null);
}

/** The simulator form for `kind`; the decision highlights the deciding rule in `editor`. */
export function simulator({ kind, ns, editor, draft }) {
  const op = h('select', { id: 'sim-op' }, OPERATIONS[kind].map(([v, t]) => h('option', { value: v, text: t })));
  const path = h('input', { id: 'sim-path', type: 'text', autocomplete: 'off', spellcheck: 'false',
    value: kind === 'database' ? '/users/alice' : 'users/alice/avatar.png' });
  const signedOut = h('input', { id: 'sim-signed-out', type: 'checkbox' });
  const auth = h('textarea', { id: 'sim-auth', class: 'code', rows: 3, spellcheck: 'false',
    value: '{"uid": "alice", "token": {"email": "alice@example.com"}}' });
  const value = h('textarea', { id: 'sim-value', class: 'code', rows: 3, spellcheck: 'false',
    value: kind === 'database' ? '{"name": "Alice"}' : '{"size": 20480, "contentType": "image/png"}' });
  const data = h('textarea', { id: 'sim-data', class: 'code', rows: 3, spellcheck: 'false', placeholder: 'Empty: the database\'s own data' });
  const result = h('div', { id: 'sim-result', class: 'sim-result', 'aria-live': 'polite' });
  const valueLabel = kind === 'database' ? 'Value (JSON; for an update, {"relative/path": value})' : 'request.resource (JSON)';
  const valueField = field(valueLabel, value);
  const dataField = kind === 'database'
    ? field('Data (optional JSON standing for the whole database)', data,
      'Leave empty to use this database\'s data; only what the rules look at is read.')
    : null;

  function sync() {
    auth.disabled = signedOut.checked;
    valueField.hidden = !WRITES.has(op.value) && !(kind === 'storage' && op.value === 'update');
  }
  op.addEventListener('change', sync);
  signedOut.addEventListener('change', sync);
  sync();

  async function run(e) {
    e.preventDefault();
    await guarded(async () => {
      const body = { kind, operation: op.value, path: path.value.trim(), source: draft() };
      if (!body.path && kind === 'database') throw new Error('Give a path, such as /users/alice.');
      body.auth = signedOut.checked ? null : parseField(auth.value, 'Auth');
      if (kind === 'database') {
        body.namespace = ns;
        if (op.value === 'set') body.value = parseField(value.value, 'Value');
        if (op.value === 'update') body.values = parseField(value.value, 'Value');
        if (data.value.trim()) body.data = parseField(data.value, 'Data');
      } else if (!valueField.hidden && value.value.trim()) {
        body.resource = parseField(value.value, 'request.resource');
      }
      const answer = await api('POST', '/.hearth/rules/simulate', { json: body });
      show(answer);
    });
  }

  function show(answer) {
    const line = kind === 'database' ? answer.rule?.line : answer.line;
    editor.mark({ hit: line ?? null });
    if (line) editor.reveal(line);
    result.replaceChildren(
      h('p', { class: 'sim-verdict' },
        h('span', { class: `badge ${answer.allowed ? 'ok' : 'error'}`, id: 'sim-verdict', text: answer.allowed ? 'Allowed' : 'Denied' }),
        kind === 'storage' && answer.operation ? h('span', { class: 'muted', text: ` as ${answer.operation}` }) : null),
      h('p', { id: 'sim-reason', class: 'mono', text: answer.reason }),
      answer.rule ? h('p', {}, 'Deciding rule: ', h('code', { text: answer.rule.location }),
        line ? h('span', { class: 'muted', text: ` (line ${line}, highlighted in the editor)` }) : null)
        : kind === 'storage' && line ? h('p', { class: 'muted', text: `Line ${line} is highlighted in the editor.` })
          : h('p', { class: 'muted', text: 'No rule stood on the way: denied by default.' }));
  }

  return h('form', { class: 'card rules-sim', 'aria-labelledby': 'sim-title', onsubmit: run },
    h('h2', { id: 'sim-title', text: 'Simulator' }),
    h('p', { class: 'muted', text: 'Asks the rules in the editor (not yet published ones too) about one request. Nothing is written.' }),
    h('div', { class: 'toolbar' }, field('Operation', op), h('div', { class: 'grow-field' },
      field(kind === 'database' ? 'Path' : 'Object path', path))),
    h('div', { class: 'row' }, signedOut, h('label', { for: 'sim-signed-out', text: 'Signed out (auth is null)' })),
    field(kind === 'database' ? 'auth (JSON)' : 'request.auth (JSON: uid and token claims)', auth),
    valueField,
    dataField,
    h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary', id: 'sim-run' }, 'Simulate')),
    result);
}

/** The cases runner: paste or open a cases file, run it against the draft, see a table of results. */
export function casesRunner({ ns, draft }) {
  const text = h('textarea', { id: 'cases-text', class: 'code', rows: 6, spellcheck: 'false',
    placeholder: '[{"name": "owner writes", "auth": {"uid": "alice"}, "op": "set", "path": "/users/alice", "value": {"name": "A"}, "expect": "allow"}]' });
  const file = h('input', { id: 'cases-file', type: 'file', accept: '.json,application/json' });
  const out = h('div', { id: 'cases-result', 'aria-live': 'polite' });
  file.addEventListener('change', async () => {
    const picked = file.files?.[0];
    if (!picked) return;
    text.value = await picked.text();
    toast(`Loaded ${picked.name}.`, 'info');
  });

  async function run(e) {
    e.preventDefault();
    await guarded(async () => {
      if (!text.value.trim()) throw new Error('Paste a cases file or open one first.');
      const cases = parseField(text.value, 'The cases file');
      const answer = await api('POST', '/.hearth/rules/test', { json: { kind: 'database', namespace: ns, source: draft(), cases } });
      out.replaceChildren(
        h('p', { id: 'cases-summary' },
          h('span', { class: `badge ${answer.failed ? 'error' : 'ok'}`, text: answer.failed ? `${answer.failed} failed` : 'All passed' }),
          ` ${answer.passed} of ${answer.passed + answer.failed} cases as expected`),
        h('div', { class: 'table-wrap' }, h('table', { id: 'cases-table' },
          h('thead', {}, h('tr', {}, ['Case', 'Expected', 'Result', 'Why'].map((t) => h('th', { scope: 'col', text: t })))),
          h('tbody', {}, answer.results.map((r) => h('tr', { class: r.ok ? '' : 'failed' },
            h('th', { scope: 'row', text: r.name }),
            h('td', { text: r.expected ?? '—' }),
            h('td', {}, h('span', { class: `badge ${r.ok ? 'ok' : 'error'}`,
              text: r.error ? 'error' : `${r.allowed ? 'allowed' : 'denied'}${r.ok ? '' : ' ✗'}` })),
            h('td', { class: 'mono why', text: r.reason })))))));
    });
  }

  return h('form', { class: 'card rules-cases', 'aria-labelledby': 'cases-title', onsubmit: run },
    h('h2', { id: 'cases-title', text: 'Cases' }),
    h('p', { class: 'muted', text: 'A `hearth rules test` cases file: an array of cases or {"data": …, "cases": […]}. Run against the rules in the editor.' }),
    field('Cases (JSON)', text),
    h('div', { class: 'row' }, h('label', { for: 'cases-file', text: 'Or open a file:' }), file,
      h('span', { class: 'grow' }), h('button', { type: 'submit', class: 'primary', id: 'cases-run' }, 'Run cases')),
    out);
}
