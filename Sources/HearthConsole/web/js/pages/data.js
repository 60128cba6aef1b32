// The Data page: a live tree of one database (namespace) from the open path (?path=), values edited inline as JSON,
// children added and deleted, a JSON file imported and a subtree exported (data-io.js), and a live query
// (data-query.js). The open path's children come page by page (50 at a time, ordered by key) through one stream
// limited to the children shown, so opening a node with a million children reads 51 of them; deeper levels are
// shown from that stream's data, 50 children at a time.
import { api, confirmDanger, currentNamespace, dialog, guarded, h, toast } from '../app.js';
import { childPath, dbUrl, isObject, liveSnapshot, orderedEntries, parseJson, segments, summary, validKey } from './data-util.js';
import { ioPanel } from './data-io.js';
import { queryPanel } from './data-query.js';

const PAGE = 50;

export default {
  title: 'Data',
  usesNamespace: true,
  styles: true,
  mount(root) {
    const ns = currentNamespace();
    const rootPath = segments(new URLSearchParams(location.search).get('path') ?? '').length
      ? `/${segments(new URLSearchParams(location.search).get('path')).join('/')}` : '/';
    const state = {
      shown: PAGE, snapshot: undefined, leaf: false, expanded: new Set(), childShown: new Map(),
      editing: null, seen: new Map(), quiet: true, status: 'connecting',
    };
    let stopStream = null;

    const tree = h('ul', { class: 'data-tree', role: 'tree', 'aria-label': `Data under ${rootPath}`, id: 'data-tree' });
    const status = h('p', { class: 'muted data-status', id: 'data-status', role: 'status' });
    const more = h('div', { class: 'data-more' });
    const query = queryPanel(ns, rootPath);

    // ---- the header: where we are, open another path ----
    const parts = segments(rootPath);
    const crumbs = h('nav', { class: 'data-crumbs', 'aria-label': 'Path' },
      parts.length ? h('a', { href: pageHref('/'), text: ns }) : h('span', { 'aria-current': 'location', text: ns }),
      parts.map((p, i) => [' / ', i === parts.length - 1
        ? h('span', { 'aria-current': 'location', text: p })
        : h('a', { href: pageHref(`/${parts.slice(0, i + 1).join('/')}`), text: p })]));
    const pathInput = h('input', { id: 'data-path', type: 'text', value: rootPath, spellcheck: 'false', autocomplete: 'off' });
    const pathForm = h('form', { class: 'toolbar', onsubmit: (e) => {
      e.preventDefault();
      const p = `/${segments(pathInput.value).join('/')}`;
      if (segments(p).some((k) => !validKey(k))) { toast(`"${pathInput.value}" is not a database path (no . $ # [ ]).`, 'error'); return; }
      location.assign(pageHref(p));
    } },
    h('label', { for: 'data-path' }, 'Path', pathInput),
    h('button', { type: 'submit' }, 'Open'),
    h('button', { type: 'button', class: 'primary', id: 'data-add-root', onclick: () => addChild(rootPath) }, 'Add child'));

    root.append(
      h('h1', { id: 'page-title', text: 'Data' }),
      crumbs,
      pathForm,
      h('section', { class: 'card data-card', 'aria-label': 'Tree' }, status, tree, more),
      ioPanel(ns, rootPath),
      query,
    );

    function pageHref(path) {
      const q = new URLSearchParams(location.search);
      if (path === '/') q.delete('path'); else q.set('path', path);
      const s = q.toString().replaceAll('%2F', '/');
      return `/_/data${s ? `?${s}` : ''}`;
    }

    // ---- the stream ----
    function connect() {
      stopStream?.();
      const params = state.leaf ? {} : { orderBy: JSON.stringify('$key'), limitToFirst: state.shown + 1 };
      stopStream = liveSnapshot(dbUrl(rootPath, ns, params), async (snapshot) => {
        if (!state.leaf && snapshot === null && state.snapshot === undefined) {
          // A query on a leaf answers null: look at the value itself (shallow keeps a large object small).
          const v = await guarded(() => api('GET', dbUrl(rootPath, ns, { shallow: 'true' })));
          if (v !== null && v !== undefined && !isObject(v)) { state.leaf = true; connect(); return; }
        }
        state.snapshot = snapshot;
        state.status = 'live';
        render();
      }, (message) => { state.status = message; render(); });
    }

    // ---- rendering ----
    function render() {
      const active = document.activeElement?.dataset?.focus;
      const selection = document.activeElement?.selectionStart;
      const flashes = [];
      const rows = [];
      const snap = state.snapshot;
      if (snap === undefined) {
        status.textContent = 'Loading…';
      } else if (state.leaf || (snap !== null && !isObject(snap))) {
        status.textContent = `${rootPath} is a value.`;
        rows.push(row(parts.at(-1) ?? '/', rootPath, snap, flashes, 1));
      } else if (snap === null) {
        status.textContent = '';
        rows.push(h('li', { class: 'empty', text: `No data at ${rootPath}. Add a child to create it.` }));
      } else {
        const entries = orderedEntries(snap).slice(0, state.shown);
        const count = Object.keys(snap).length;
        status.textContent = typeof state.status === 'string' && state.status !== 'live' && state.status !== 'connecting'
          ? state.status : `${entries.length}${count > state.shown ? '+' : ''} children · live`;
        for (const [k, v] of entries) rows.push(row(k, childPath(rootPath, k), v, flashes, 1));
      }
      tree.replaceChildren(...rows);
      more.replaceChildren(isObject(snap) && Object.keys(snap).length > state.shown
        ? h('button', { type: 'button', id: 'data-load-more', 'data-focus': 'more', onclick: () => { state.shown += PAGE; state.quiet = true; connect(); } },
          `Load ${PAGE} more`)
        : '');
      state.quiet = false;
      for (const el of flashes) { el.classList.remove('flash'); void el.offsetWidth; el.classList.add('flash'); }
      if (active) {
        const el = root.querySelector(`[data-focus="${CSS.escape(active)}"]`);
        if (el) { el.focus(); if (typeof selection === 'number' && el.setSelectionRange) el.setSelectionRange(selection, selection); }
      }
    }

    function row(key, path, value, flashes, level) {
      const object = isObject(value);
      const open = object && state.expanded.has(path);
      const json = object && open ? null : JSON.stringify(value);
      const before = state.seen.get(path);
      state.seen.set(path, json ?? before);
      const line = h('div', { class: 'data-line', 'data-path': path });
      if (json !== null && before !== undefined && before !== json && !state.quiet) flashes.push(line);
      if (before === undefined && !state.quiet && state.snapshot !== undefined) flashes.push(line);
      const toggle = object
        ? h('button', { type: 'button', class: 'ghost small data-toggle', 'aria-expanded': String(open), 'data-focus': `${path}|toggle`,
          'aria-label': `${open ? 'Collapse' : 'Expand'} ${key}`, onclick: () => {
            if (open) state.expanded.delete(path); else state.expanded.add(path);
            state.quiet = true; // children shown for the first time are not changes
            render();
          } }, open ? '▾' : '▸')
        : h('span', { class: 'data-toggle-space', 'aria-hidden': 'true' });
      line.append(toggle, h('span', { class: 'data-key', text: key }), h('span', { class: 'data-sep', 'aria-hidden': 'true', text: ':' }));
      if (state.editing?.path === path) line.append(editor(key, path));
      else if (object) line.append(h('span', { class: 'data-summary muted', text: summary(value) }));
      else {
        line.append(h('button', { type: 'button', class: `data-value t-${value === null ? 'null' : typeof value}`, 'data-focus': `${path}|value`,
          title: 'Edit', 'aria-label': `Edit ${key}: ${JSON.stringify(value)}`, onclick: () => {
            state.editing = { path, text: JSON.stringify(value), error: '' };
            render();
            root.querySelector(`[data-focus="${CSS.escape(`${path}|edit`)}"]`)?.select();
          } }, JSON.stringify(value)));
      }
      const actions = h('span', { class: 'data-actions' },
        object ? h('button', { type: 'button', class: 'small ghost', 'data-focus': `${path}|add`, 'aria-label': `Add a child to ${key}`,
          onclick: () => addChild(path) }, '+ Child') : null,
        object && path !== rootPath ? h('a', { class: 'button small ghost', href: pageHref(path), 'aria-label': `Open ${key} as the root` }, 'Open') : null,
        h('button', { type: 'button', class: 'small ghost data-delete', 'data-focus': `${path}|delete`, 'aria-label': `Delete ${key}`,
          onclick: () => remove(path) }, 'Delete'));
      line.append(actions);
      const li = h('li', { role: 'treeitem', 'aria-level': String(level), 'aria-expanded': object ? String(open) : null, class: 'data-node' }, line);
      if (open) {
        const shown = state.childShown.get(path) ?? PAGE;
        const entries = orderedEntries(value);
        const ul = h('ul', { role: 'group' }, entries.slice(0, shown).map(([k, v]) => row(k, childPath(path, k), v, flashes, level + 1)));
        if (entries.length > shown) {
          ul.append(h('li', { class: 'data-more' }, h('button', { type: 'button', class: 'small', 'data-focus': `${path}|more`, onclick: () => {
            state.childShown.set(path, shown + PAGE); state.quiet = true; render();
          } }, `Show ${Math.min(PAGE, entries.length - shown)} more of ${entries.length}`)));
        }
        li.append(ul);
      }
      return li;
    }

    function editor(key, path) {
      const edit = state.editing;
      const input = h('input', { type: 'text', class: 'mono data-edit', value: edit.text, 'data-focus': `${path}|edit`, spellcheck: 'false',
        'aria-label': `New value of ${key} (JSON)`, 'aria-invalid': edit.error ? 'true' : null, 'aria-describedby': edit.error ? 'data-edit-error' : null,
        oninput: (e) => { edit.text = e.target.value; },
        onkeydown: (e) => { if (e.key === 'Escape') { e.preventDefault(); state.editing = null; render(); focus(`${path}|value`); } } });
      return h('form', { class: 'data-editor', onsubmit: async (e) => {
        e.preventDefault();
        const parsed = parseJson(edit.text);
        if (parsed.error) { edit.error = parsed.error; render(); focus(`${path}|edit`); return; }
        try {
          await api('PUT', dbUrl(path, ns), { json: parsed.value });
          state.editing = null;
          render();
          focus(`${path}|value`);
          toast(`Saved ${path}`, 'ok');
        } catch (err) {
          edit.error = err.message; render(); focus(`${path}|edit`);
        }
      } }, input,
      h('button', { type: 'submit', class: 'small primary' }, 'Save'),
      h('button', { type: 'button', class: 'small', onclick: () => { state.editing = null; render(); focus(`${path}|value`); } }, 'Cancel'),
      edit.error ? h('span', { class: 'error data-edit-error', id: 'data-edit-error', role: 'alert', text: edit.error }) : null);
    }

    function focus(id) {
      root.querySelector(`[data-focus="${CSS.escape(id)}"]`)?.focus();
    }

    async function addChild(path) {
      const key = h('input', { id: 'data-new-key', type: 'text', spellcheck: 'false', autocomplete: 'off' });
      const value = h('textarea', { id: 'data-new-value', class: 'code', rows: '4', spellcheck: 'false' });
      const error = h('p', { class: 'error', role: 'alert', id: 'data-new-error' });
      const body = [
        h('label', { class: 'field', for: 'data-new-key' }, 'Key', key),
        h('label', { class: 'field', for: 'data-new-value' }, 'Value (JSON: "text", 12, true, {"a": 1})', value),
        error,
      ];
      for (;;) {
        const chosen = dialog(`Add a child to ${path}`, body, [{ label: 'Cancel', value: false }, { label: 'Add', value: true, primary: true }]);
        key.focus();
        if (!(await chosen)) return;
        const parsed = parseJson(value.value);
        if (!validKey(key.value)) error.textContent = 'A key cannot be empty or hold . $ # [ ] / (768 bytes at most).';
        else if (parsed.error) error.textContent = parsed.error;
        else if (parsed.value === null) error.textContent = 'null would delete it: give a value.';
        else {
          const target = childPath(path, key.value);
          if (await guarded(() => api('PUT', dbUrl(target, ns), { json: parsed.value })) !== undefined) {
            if (path !== rootPath) state.expanded.add(path);
            toast(`Added ${target}`, 'ok');
          }
          return;
        }
      }
    }

    async function remove(path) {
      if (!(await confirmDanger(`Delete ${path}?`, `This deletes ${path} and everything under it from ${ns}.`))) return;
      if (await guarded(() => api('DELETE', dbUrl(path, ns))) !== undefined) toast(`Deleted ${path}`, 'ok');
    }

    history.replaceState(null, '', pageHref(rootPath));
    render();
    connect();
    return () => { stopStream?.(); query.stopQuery(); };
  },
};
