// The Users page: list (paged, in uid order), exact search by email, phone or uid, create, edit (profile and custom
// claims), disable, revoke sessions, password reset, delete, and export/import in firebase auth:export's JSON.
import { confirmDanger, formatTime, guarded, h, session, setParams, toast } from '../app.js';
import { countUsers, deleteUser, explain, getUser, listUsers, lookup, revokeSessions, updateUser } from './users-api.js';
import { createDialog, editDialog, resetDialog } from './users-dialogs.js';
import { HASHES, download, exportAll, hashParameters, importAll, parseExport, showImportResult } from './users-io.js';

const PAGE_SIZE = 25;

/** What a search text asks for: an email (has @), a phone number (starts with +), else a uid. */
export function searchBody(text) {
  const q = text.trim();
  if (q.includes('@')) return { kind: 'email', body: { email: [q.toLowerCase()] } };
  if (q.startsWith('+')) return { kind: 'phone number', body: { phoneNumber: [q.replace(/[ ()-]/g, '')] } };
  return { kind: 'uid', body: { localId: [q] } };
}

export default {
  title: 'Users',
  styles: true,
  mount(root) {
    if (!session.products.has('users')) {
      root.append(h('h1', { id: 'page-title', text: 'Users' }),
        h('p', { class: 'empty', text: 'Authentication is not enabled on this server (start it without --no-auth to manage users here).' }));
      return undefined;
    }
    const state = { tokens: [null], page: 0, next: null, query: new URLSearchParams(location.search).get('q') ?? '' };

    const status = h('p', { class: 'muted', id: 'users-status', 'aria-live': 'polite' });
    const tbody = h('tbody', { id: 'users-rows' });
    const table = h('div', { class: 'table-wrap' }, h('table', { id: 'users-table' },
      h('caption', { class: 'visually-hidden', text: 'Users' }),
      h('thead', {}, h('tr', {}, ['User', 'Name', 'Providers', 'Created', 'Last sign-in', 'Status', 'Actions']
        .map((t) => h('th', { scope: 'col', text: t })))),
      tbody));
    const prev = h('button', { type: 'button', id: 'users-prev', onclick: () => { state.page--; load(); } }, '← Previous');
    const next = h('button', { type: 'button', id: 'users-next', onclick: () => { state.page++; load(); } }, 'Next →');
    const pager = h('div', { class: 'row users-pager' }, prev, next);

    // ---- search ----
    const search = h('input', { type: 'search', id: 'user-search', name: 'q', value: state.query, placeholder: 'ada@example.com, +15555550100 or a uid',
      'aria-describedby': 'user-search-help' });
    const searchForm = h('form', { class: 'toolbar users-search', role: 'search', onsubmit: (e) => {
      e.preventDefault();
      state.query = search.value.trim();
      setParams({ q: state.query || null });
      load();
    } },
    h('div', { class: 'field grow-field' }, h('label', { for: 'user-search', text: 'Find a user' }), search,
      h('span', { id: 'user-search-help', class: 'muted', text: 'Exact email, phone number (+…) or uid.' })),
    h('button', { type: 'submit', id: 'user-search-go' }, 'Search'),
    h('button', { type: 'button', id: 'user-search-clear', onclick: () => { search.value = ''; state.query = ''; setParams({ q: null }); load(); } }, 'Show all'));

    // ---- import ----
    const importPanel = buildImportPanel(() => { state.page = 0; state.tokens = [null]; load(); });

    const exportButton = h('button', { type: 'button', id: 'export-users', onclick: () => guarded(async () => {
      exportButton.disabled = true;
      try {
        const file = await exportAll((n) => { status.textContent = `Exporting… ${n} users`; });
        download(`users-${session.project}.json`, `${JSON.stringify(file, null, 2)}\n`);
        toast(`Exported ${file.users.length} users (without password hashes: see Import).`, 'ok');
      } finally {
        exportButton.disabled = false;
        showStatus();
      }
    }) }, 'Export');

    const actions = h('div', { class: 'row users-actions' },
      h('button', { type: 'button', class: 'primary', id: 'new-user', onclick: async () => {
        const uid = await createDialog();
        if (uid) { search.value = uid; state.query = uid; setParams({ q: uid }); load(uid); }
      } }, 'New user'),
      exportButton,
      h('button', { type: 'button', id: 'import-toggle', 'aria-expanded': 'false', 'aria-controls': 'import-panel', onclick: (e) => {
        importPanel.hidden = !importPanel.hidden;
        e.currentTarget.setAttribute('aria-expanded', String(!importPanel.hidden));
        if (!importPanel.hidden) importPanel.querySelector('input')?.focus();
      } }, 'Import…'));

    root.append(
      h('div', { class: 'users-head' }, h('h1', { id: 'page-title', text: 'Users' }), actions),
      importPanel, searchForm, status, table, pager);

    let lastCount = null;
    let shown = [];
    function showStatus(extra = '') {
      if (state.query) {
        status.textContent = shown.length ? `Found ${shown.length} user${shown.length === 1 ? '' : 's'} for “${state.query}”.` : '';
      } else {
        const from = state.page * PAGE_SIZE;
        status.textContent = shown.length
          ? `Users ${from + 1}–${from + shown.length}${lastCount !== null ? ` of ${lastCount}` : ''} (by uid).${extra}`
          : '';
      }
    }

    async function load(flashUid = null) {
      tbody.replaceChildren(h('tr', {}, h('td', { colspan: 7, class: 'muted', text: 'Loading…' })));
      try {
        if (state.query) {
          const { kind, body } = searchBody(state.query);
          shown = await lookup(body);
          pager.hidden = true;
          if (!shown.length) {
            tbody.replaceChildren(h('tr', {}, h('td', { colspan: 7, class: 'empty', id: 'users-none', text: `No user has the ${kind} “${state.query}”.` })));
          }
        } else {
          const page = await listUsers(PAGE_SIZE, state.tokens[state.page]);
          shown = page.users;
          state.next = page.nextPageToken;
          state.tokens[state.page + 1] = page.nextPageToken;
          pager.hidden = state.page === 0 && !state.next;
          prev.disabled = state.page === 0;
          next.disabled = !state.next;
          lastCount = await countUsers().catch(() => null);
          if (!shown.length) {
            tbody.replaceChildren(h('tr', {}, h('td', { colspan: 7, class: 'empty', id: 'users-none', text: 'No users yet. Create one with “New user”, or import a file.' })));
          }
        }
        if (shown.length) tbody.replaceChildren(...shown.map((u) => row(u, flashUid === u.localId)));
        showStatus();
      } catch (e) {
        tbody.replaceChildren(h('tr', {}, h('td', { colspan: 7, class: 'error', role: 'alert', text: `Could not load users: ${explain(e)}` })));
      }
    }

    /** Reloads one user's row (or removes it when the user is gone). */
    async function refresh(uid) {
      const current = tbody.querySelector(`tr[data-uid="${CSS.escape(uid)}"]`);
      const user = await getUser(uid);
      if (!current) return;
      if (!user) { current.remove(); shown = shown.filter((u) => u.localId !== uid); showStatus(); return; }
      current.replaceWith(row(user, true));
    }

    function row(u, flash) {
      const who = u.email ?? u.phoneNumber ?? (u.providerUserInfo?.length ? u.providerUserInfo[0].email ?? u.providerUserInfo[0].rawId : null);
      const label = who ?? u.localId;
      const disabled = u.disabled === true;
      const act = (text, attrs, fn) => h('button', { type: 'button', class: 'small', 'aria-label': `${text} ${label}`, ...attrs,
        onclick: () => guarded(async () => { try { await fn(); } catch (e) { throw new Error(explain(e)); } }) }, text);
      const claims = u.customAttributes && u.customAttributes !== '{}' ? u.customAttributes : null;
      return h('tr', { dataset: { uid: u.localId }, class: flash ? 'flash' : null },
        h('td', { class: 'users-who' },
          h('div', { class: 'users-primary', text: who ?? (u.providerUserInfo?.length ? '' : 'Anonymous') }),
          u.email && u.phoneNumber ? h('div', { text: u.phoneNumber }) : null,
          h('div', { class: 'mono muted users-uid', text: u.localId }),
          claims ? h('div', { class: 'mono users-claims', title: 'Custom claims', text: claims }) : null),
        h('td', { text: u.displayName ?? '' }),
        h('td', {}, (u.providerUserInfo ?? []).map((p) => h('span', { class: 'badge', text: p.providerId })),
          u.emailVerified ? h('span', { class: 'badge ok', text: 'verified' }) : null),
        h('td', { text: formatTime(u.createdAt) }),
        h('td', { text: u.lastLoginAt ? formatTime(u.lastLoginAt) : 'never' }),
        h('td', {}, disabled ? h('span', { class: 'badge error', text: 'Disabled' }) : h('span', { class: 'badge ok', text: 'Active' })),
        h('td', { class: 'users-row-actions' },
          act('Edit', { class: 'small primary', 'data-action': 'edit' }, async () => {
            const fresh = await getUser(u.localId);
            if (!fresh) throw new Error('This user no longer exists.');
            if (await editDialog(fresh)) await refresh(u.localId);
          }),
          act(disabled ? 'Enable' : 'Disable', { 'data-action': disabled ? 'enable' : 'disable' }, async () => {
            await updateUser(u.localId, { disableUser: !disabled });
            toast(`${label} is ${disabled ? 'enabled again' : 'disabled: no sign-in, no token refresh'}.`, 'ok');
            await refresh(u.localId);
          }),
          act('Revoke sessions', { 'data-action': 'revoke' }, async () => {
            if (!await confirmDanger('Revoke sessions?', `Every refresh token ${label} holds stops working now; the apps they are signed in to sign them out within the hour (when the ID token expires).`, 'Revoke')) return;
            await revokeSessions(u.localId);
            toast(`Sessions of ${label} revoked.`, 'ok');
            await refresh(u.localId);
          }),
          u.email ? act('Reset password', { 'data-action': 'reset' }, () => resetDialog(u)) : null,
          act('Delete', { class: 'small danger', 'data-action': 'delete' }, async () => {
            if (!await confirmDanger('Delete this user?', `${label} (uid ${u.localId}) is deleted for good: sign-ins, sessions and custom claims.`)) return;
            await deleteUser(u.localId);
            toast(`Deleted ${label}.`, 'ok');
            await refresh(u.localId);
          })));
    }

    function buildImportPanel(done) {
      const file = h('input', { type: 'file', id: 'import-file', accept: 'application/json,.json' });
      const algorithm = h('select', { id: 'import-hash' }, Object.entries(HASHES).map(([k, v]) => h('option', { value: k, text: v.label })));
      const params = {
        signerKey: ['Signer key (base64_signer_key)', 'text', ''],
        saltSeparator: ['Salt separator (base64_salt_separator)', 'text', 'Bw=='],
        rounds: ['Rounds', 'number', '8'],
        memoryCost: ['Memory cost', 'number', '14'],
        blockSize: ['Block size (r)', 'number', '8'],
        parallelization: ['Parallelization (p)', 'number', '1'],
        dkLen: ['Key length (bytes)', 'number', '32'],
      };
      const inputs = {};
      const wraps = {};
      for (const [name, [label, type, value]] of Object.entries(params)) {
        inputs[name] = h('input', { type, id: `import-${name}`, value, inputmode: type === 'number' ? 'numeric' : null });
        wraps[name] = h('div', { class: 'field' }, h('label', { for: `import-${name}`, text: label }), inputs[name]);
      }
      const showFields = () => {
        const wanted = HASHES[algorithm.value].fields;
        for (const [name, wrap] of Object.entries(wraps)) wrap.hidden = !wanted.includes(name);
        // Hearth's N (the server's --password-cost, 16384 unless changed) and Firebase's log2 memory cost differ.
        if (algorithm.value === 'HEARTH' && inputs.memoryCost.value === '14') inputs.memoryCost.value = '16384';
        if (algorithm.value === 'SCRYPT' && inputs.memoryCost.value === '16384') inputs.memoryCost.value = '14';
        wraps.memoryCost.querySelector('label').textContent = algorithm.value === 'SCRYPT' ? 'Memory cost (1-14)' : 'Memory cost (N)';
      };
      algorithm.addEventListener('change', showFields);
      showFields();
      const progress = h('progress', { class: 'progress', id: 'import-progress', max: 1, value: 0, hidden: true });
      const result = h('div', { id: 'import-result', 'aria-live': 'polite' });
      const go = h('button', { type: 'submit', class: 'primary', id: 'import-go' }, 'Import');
      const form = h('form', { class: 'card users-import', id: 'import-panel', hidden: true, 'aria-labelledby': 'import-title', onsubmit: async (e) => {
        e.preventDefault();
        result.replaceChildren();
        const picked = file.files?.[0];
        if (!picked) { result.replaceChildren(h('p', { class: 'error', role: 'alert', text: 'Choose a file first.' })); file.focus(); return; }
        let users;
        let hash;
        try {
          users = parseExport(await picked.text());
          const values = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, v.value]));
          hash = hashParameters(algorithm.value, values);
          const hashed = users.filter((u) => u?.passwordHash && u.passwordHash !== 'UkVEQUNURUQ=').length;
          if (hashed && !algorithm.value) {
            throw new Error(`${hashed} users in the file have password hashes: choose how they were made (the hash algorithm), or they cannot sign in with their passwords.`);
          }
        } catch (err) {
          result.replaceChildren(h('p', { class: 'error', role: 'alert', text: err.message }));
          return;
        }
        go.disabled = true;
        progress.hidden = false;
        try {
          const outcome = await importAll(users, hash, (n, total) => { progress.max = total; progress.value = n; });
          showImportResult(result, users.length, outcome);
          done();
        } catch (err) {
          result.replaceChildren(h('p', { class: 'error', role: 'alert', text: explain(err) }));
        } finally {
          go.disabled = false;
          progress.hidden = true;
        }
      } },
      h('h2', { id: 'import-title', text: 'Import users' }),
      h('p', { class: 'muted', text: 'A JSON file as firebase auth:export or hearth users export writes it ({"users": [...]}). Export here leaves password hashes out (the API never sends them): to move '
        + 'passwords, run hearth users export --password-hashes on the server and import that file with “Hearth”.' }),
      h('div', { class: 'toolbar' },
        h('div', { class: 'field' }, h('label', { for: 'import-file', text: 'File' }), file),
        h('div', { class: 'field' }, h('label', { for: 'import-hash', text: 'Password hashes' }), algorithm)),
      h('div', { class: 'toolbar' }, Object.values(wraps)),
      h('div', { class: 'row' }, go, progress),
      result);
      return form;
    }

    load();
    return undefined;
  },
};
