// The Data page: a live tree of one database (namespace) from the open path (?path=), values edited inline as JSON,
// children added and deleted, a JSON file imported and a subtree exported (data-io.js), and a live query
// (data-query.js). Each level shown (the open path and every expanded node) is read a page of 50 children at a time
// with `shallow=values` (data-levels.js): an object child shows as "object" and is read only when expanded, so
// opening a database whose /users holds a million users reads one row per child shown. The tree stays live by
// re-reading the loaded pages about once a second while the tab is visible (at most ~20 requests a second: the cycle
// slows down when many pages are open) and highlighting what changed.
import { api, confirmDanger, currentNamespace, dialog, guarded, h, toast } from '../app.js';
import { childPath, dbUrl, isObject, parseJson, segments, validKey } from './data-util.js';
import { ioPanel } from './data-io.js';
import { queryPanel } from './data-query.js';
import { PAGE, readLevel } from './data-levels.js';

/** Requests a second the live check may make, at most. */
const RATE = 20;
/** The shortest time between two live checks, in ms. */
const CYCLE = 1000;

export default {
  title: 'Data',
  usesNamespace: true,
  styles: true,
  mount(root) {
    const ns = currentNamespace();
    const rootPath = segments(new URLSearchParams(location.search).get('path') ?? '').length
      ? `/${segments(new URLSearchParams(location.search).get('path')).join('/')}` : '/';
    // levels: path → { pages, kind ('loading' | 'children' | 'leaf' | 'empty'), entries, more, value, error, version }.
    // The open path's level always exists; an expanded node is one whose path has a level.
    const levels = new Map();
    const state = { editing: null, checking: false, failure: '' };
    let timer = null;
    let kicked = false;
    let stopped = false;

    const tree = h('ul', { class: 'data-tree', role: 'tree', 'aria-label': `Data under ${rootPath}`, id: 'data-tree' });
    const status = h('p', { class: 'muted data-status', id: 'data-status', role: 'status' });
    const more = h('div', { class: 'data-more' });
    const live = h('span', { class: 'badge data-live', id: 'data-live', role: 'status' });
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
      h('section', { class: 'card data-card', 'aria-label': 'Tree' }, h('div', { class: 'data-head' }, status, live), tree, more),
      ioPanel(ns, rootPath),
      query,
    );

    function pageHref(path) {
      const q = new URLSearchParams(location.search);
      if (path === '/') q.delete('path'); else q.set('path', path);
      const s = q.toString().replaceAll('%2F', '/');
      return `/_/data${s ? `?${s}` : ''}`;
    }

    // ---- loading levels ----
    /** Shows `path`'s children: its level is read (first page) and kept live from then on. */
    async function expand(path) {
      const level = { pages: 1, kind: 'loading', entries: [], more: false, version: 0 };
      levels.set(path, level);
      render();
      try {
        Object.assign(level, await readLevel(ns, path, 1), { error: '' });
      } catch (err) {
        level.error = err.message;
      }
      if (levels.get(path) === level) render();
    }

    /** Hides `path`'s children and forgets the levels under it. */
    function collapse(path) {
      for (const p of [...levels.keys()]) if (p === path || p.startsWith(`${path === '/' ? '' : path}/`)) levels.delete(p);
      render();
    }

    /** Reads the next page of `path`'s children. */
    async function loadMore(path) {
      const level = levels.get(path);
      if (!level || level.loadingMore) return;
      level.loadingMore = true;
      level.version += 1;
      render();
      try {
        const next = await readLevel(ns, path, 1, level.entries.at(-1)?.[0] ?? null);
        if (levels.get(path) === level && next.kind === 'children') {
          const known = new Set(level.entries.map(([k]) => k));
          level.entries.push(...next.entries.filter(([k]) => !known.has(k)));
          level.more = next.more;
          level.pages += 1;
        }
      } catch (err) {
        toast(err.message, 'error');
      }
      level.loadingMore = false;
      level.version += 1;
      if (levels.get(path) === level) render();
    }

    // ---- keeping it live ----
    /** Requests one check makes: one per loaded page (two at a value or an empty place). */
    function requestsPerCheck() {
      let n = 0;
      for (const level of levels.values()) n += level.kind === 'children' ? level.pages : 2;
      return n;
    }

    /** The time between two checks: a second, longer when more pages are open than RATE requests a second allow. */
    function period() {
      return Math.max(CYCLE, Math.ceil((requestsPerCheck() * 1000) / RATE));
    }

    function schedule(delay) {
      clearTimeout(timer);
      timer = stopped ? null : setTimeout(check, delay);
      showLive();
    }

    /** Checks now (after a change made here), or right after the check under way. */
    function kick() {
      if (state.checking) kicked = true; else schedule(0);
    }

    /** Re-reads every loaded page, applies the differences, and highlights changed values and new keys. */
    async function check() {
      timer = null;
      if (stopped) return;
      if (document.visibilityState !== 'visible') { showLive(); return; }
      state.checking = true;
      const started = performance.now();
      const changed = new Set();
      let dirty = false;
      let failure = '';
      await Promise.all([...levels.entries()].map(async ([path, level]) => {
        if ((level.kind === 'loading' && !level.error) || level.loadingMore) return;
        const version = level.version;
        let read;
        try {
          read = await readLevel(ns, path, Math.max(1, level.pages));
        } catch (err) {
          failure = err.message;
          return;
        }
        if (levels.get(path) !== level || level.version !== version) return;
        if (apply(path, level, read, changed)) dirty = true;
      }));
      state.checking = false;
      if (failure !== state.failure) { state.failure = failure; dirty = true; }
      if (dirty) render(changed);
      if (stopped) return;
      if (kicked) { kicked = false; schedule(0); } else schedule(Math.max(0, period() - (performance.now() - started)));
    }

    /** Replaces a level's content by what was read; adds the paths of changed values and new keys to `changed`. */
    function apply(path, level, read, changed) {
      let dirty = read.kind !== level.kind || read.more !== level.more || (level.error ?? '') !== '';
      if (read.kind === 'leaf' && JSON.stringify(read.value) !== JSON.stringify(level.value)) {
        dirty = true;
        if (level.kind === 'leaf') changed.add(path);
      }
      const before = new Map(level.entries.map(([k, v]) => [k, JSON.stringify(v)]));
      const after = read.kind === 'children' ? read.entries : [];
      if (after.length !== before.size) dirty = true;
      for (const [k, v] of after) {
        const json = JSON.stringify(v);
        if (before.get(k) === json) continue;
        dirty = true;
        changed.add(childPath(path, k));
        if (!isObject(v)) collapseQuietly(childPath(path, k));
      }
      const keys = new Set(after.map(([k]) => k));
      for (const k of before.keys()) if (!keys.has(k)) collapseQuietly(childPath(path, k));
      if (read.kind !== 'children') for (const p of [...levels.keys()]) if (p.startsWith(`${path === '/' ? '' : path}/`)) levels.delete(p);
      Object.assign(level, { kind: read.kind, value: read.value, entries: after, more: read.more ?? false, error: '' });
      return dirty;
    }

    /** Forgets the levels at and under a path that is gone or became a value. */
    function collapseQuietly(path) {
      for (const p of [...levels.keys()]) if (p === path || p.startsWith(`${path}/`)) levels.delete(p);
    }

    function showLive() {
      const n = requestsPerCheck();
      const every = period();
      if (document.visibilityState !== 'visible') live.textContent = 'Live updates paused while this tab is hidden';
      else if (state.failure) live.textContent = `Live updates failing (${state.failure}); retrying`;
      else live.textContent = every > CYCLE
        ? `Live: checked every ${(every / 1000).toFixed(1)} s (${n} pages open, ${RATE} requests a second at most)`
        : 'Live: checked every second';
      live.classList.toggle('error', Boolean(state.failure));
    }

    function onVisibility() {
      if (document.visibilityState === 'visible' && !state.checking) schedule(0); else showLive();
    }

    // ---- rendering ----
    function render(changed = new Set()) {
      const active = document.activeElement?.dataset?.focus;
      const selection = document.activeElement?.selectionStart;
      const flashes = [];
      const rows = [];
      const top = levels.get(rootPath);
      if (top.kind === 'loading') {
        status.textContent = top.error ? `Could not read ${rootPath}: ${top.error}` : 'Loading…';
      } else if (top.kind === 'leaf') {
        status.textContent = `${rootPath} is a value.`;
        rows.push(row(parts.at(-1) ?? '/', rootPath, top.value, changed, flashes, 1, false));
      } else if (top.kind === 'empty') {
        status.textContent = '';
        rows.push(h('li', { class: 'empty', text: `No data at ${rootPath}. Add a child to create it.` }));
      } else {
        status.textContent = `${top.entries.length}${top.more ? '+' : ''} ${top.entries.length === 1 && !top.more ? 'child' : 'children'}`;
        for (const [k, v] of top.entries) rows.push(row(k, childPath(rootPath, k), v, changed, flashes, 1));
      }
      tree.replaceChildren(...rows);
      more.replaceChildren(top.kind === 'children' && top.more
        ? h('button', { type: 'button', id: 'data-load-more', 'data-focus': 'more', disabled: top.loadingMore, onclick: () => loadMore(rootPath) },
          top.loadingMore ? 'Loading…' : `Load ${PAGE} more`)
        : '');
      showLive();
      for (const el of flashes) { el.classList.remove('flash'); void el.offsetWidth; el.classList.add('flash'); }
      if (active) {
        const el = root.querySelector(`[data-focus="${CSS.escape(active)}"]`);
        if (el) { el.focus(); if (typeof selection === 'number' && el.setSelectionRange) el.setSelectionRange(selection, selection); }
      }
    }

    function row(key, path, value, changed, flashes, level, expandable = true) {
      const object = isObject(value) && expandable;
      const children = object ? levels.get(path) : undefined;
      const open = Boolean(children);
      const line = h('div', { class: 'data-line', 'data-path': path });
      if (changed.has(path)) flashes.push(line);
      const toggle = object
        ? h('button', { type: 'button', class: 'ghost small data-toggle', 'aria-expanded': String(open), 'data-focus': `${path}|toggle`,
          'aria-label': `${open ? 'Collapse' : 'Expand'} ${key}`, onclick: () => (open ? collapse(path) : expand(path)) }, open ? '▾' : '▸')
        : h('span', { class: 'data-toggle-space', 'aria-hidden': 'true' });
      line.append(toggle, h('span', { class: 'data-key', text: key }), h('span', { class: 'data-sep', 'aria-hidden': 'true', text: ':' }));
      if (state.editing?.path === path) line.append(editor(key, path));
      else if (object) line.append(h('span', { class: 'data-summary muted', text: 'object' }));
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
        const ul = h('ul', { role: 'group' });
        if (children.kind === 'loading') ul.append(h('li', { class: 'muted data-loading', text: children.error ? `Could not read ${path}: ${children.error}` : 'Loading…' }));
        else if (children.kind === 'children') ul.append(...children.entries.map(([k, v]) => row(k, childPath(path, k), v, changed, flashes, level + 1)));
        else ul.append(h('li', { class: 'muted', text: children.kind === 'leaf' ? 'Now a value.' : 'No children.' }));
        if (children.kind === 'children' && children.more) {
          ul.append(h('li', { class: 'data-more' }, h('button', { type: 'button', class: 'small', 'data-focus': `${path}|more`,
            'aria-label': `Load ${PAGE} more children of ${key}`, disabled: children.loadingMore, onclick: () => loadMore(path) },
          children.loadingMore ? 'Loading…' : `Load ${PAGE} more`)));
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
          kick();
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
            if (levels.has(path)) kick(); else expand(path);
            toast(`Added ${target}`, 'ok');
          }
          return;
        }
      }
    }

    async function remove(path) {
      if (!(await confirmDanger(`Delete ${path}?`, `This deletes ${path} and everything under it from ${ns}.`))) return;
      if (await guarded(() => api('DELETE', dbUrl(path, ns))) !== undefined) { toast(`Deleted ${path}`, 'ok'); kick(); }
    }

    history.replaceState(null, '', pageHref(rootPath));
    document.addEventListener('visibilitychange', onVisibility);
    expand(rootPath).then(() => schedule(period()));
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
      query.stopQuery();
    };
  },
};
