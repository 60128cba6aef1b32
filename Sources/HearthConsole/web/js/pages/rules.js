// Rules: edit a database's rules or the storage rules with highlighting and line:column errors as you type (the
// server's checker, POST /.hearth/rules/check), simulate a request (POST /.hearth/rules/simulate), run a cases file
// (POST /.hearth/rules/test), and publish through the public endpoints (PUT /.settings/rules.json?ns=…,
// PUT /internal/setRules).
import { api, confirmDanger, guarded, h, session, setParams, toast } from '../app.js';
import { createEditor } from './rules-editor.js';
import { casesRunner, simulator } from './rules-tools.js';

/** Unpublished edits by `kind:namespace`, kept while the console stays open (switching tabs or pages keeps them). */
const drafts = new Map();

const KINDS = [
  { key: 'database', name: 'Database' },
  { key: 'storage', name: 'Storage' },
];

/** The published rules text of a kind. */
async function published(kind, ns) {
  if (kind === 'database') return api('GET', `/.settings/rules.json?ns=${encodeURIComponent(ns)}`, { text: true });
  const answer = await api('GET', '/internal/getRules');
  return answer?.rules?.files?.[0]?.content ?? '';
}

/** Puts `source` in force. */
async function publish(kind, ns, source) {
  if (kind === 'database') {
    await api('PUT', `/.settings/rules.json?ns=${encodeURIComponent(ns)}`, { body: source, headers: { 'Content-Type': 'application/json' } });
  } else {
    await api('PUT', '/internal/setRules', { json: { rules: { files: [{ name: 'storage.rules', content: source }] } } });
  }
}

export default {
  title: 'Rules',
  usesNamespace: true,
  styles: true,
  async mount(root, ctx) {
    const ns = ctx.namespace;
    let kind = new URLSearchParams(location.search).get('tab') === 'storage' ? 'storage' : 'database';
    let stop = () => {};

    const tabs = KINDS.map((k) => h('button', {
      type: 'button', role: 'tab', id: `rules-tab-${k.key}`, 'aria-controls': 'rules-panel',
      onclick: () => show(k.key), onkeydown: (e) => {
        if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
        e.preventDefault();
        const next = KINDS[(KINDS.findIndex((x) => x.key === k.key) + 1) % KINDS.length].key;
        show(next);
        document.getElementById(`rules-tab-${next}`).focus();
      },
    }, k.name));
    const panel = h('div', { id: 'rules-panel', role: 'tabpanel' });
    root.append(
      h('h1', { id: 'page-title', text: 'Rules' }),
      h('div', { class: 'rules-tabs', role: 'tablist', 'aria-label': 'Which rules' }, tabs),
      panel);

    function show(next) {
      kind = next;
      setParams({ tab: kind === 'storage' ? 'storage' : null });
      for (const t of tabs) {
        const on = t.id === `rules-tab-${kind}`;
        t.setAttribute('aria-selected', String(on));
        t.tabIndex = on ? 0 : -1;
      }
      panel.setAttribute('aria-labelledby', `rules-tab-${kind}`);
      stop();
      stop = mountKind(panel, kind, ns);
    }
    show(kind);
    return () => stop();
  },
};

/** Builds the editor, simulator and (for databases) cases runner of one kind into `panel`; returns a cleanup. */
function mountKind(panel, kind, ns) {
  let timer = null;
  let checkSeq = 0;
  let errors = [];
  let checking = false;
  let source = '';
  let stopped = false;
  const draftKey = `${kind}:${ns}`;

  if (kind === 'storage' && !session.products.has('storage')) {
    panel.replaceChildren(h('p', { class: 'card empty', id: 'rules-storage-off',
      text: 'Storage is off on this server, so it has no storage rules.' }));
    return () => {};
  }

  const status = h('span', { id: 'rules-status', role: 'status', class: 'muted' });
  const errorList = h('ul', { id: 'rules-editor-errors', class: 'rules-errors', 'aria-live': 'polite' });
  const editor = createEditor({ kind, id: 'rules-editor', label: kind === 'database' ? `Rules of the database ${ns}` : 'Storage rules',
    onInput: (text) => {
      if (text === source) drafts.delete(draftKey); else drafts.set(draftKey, text);
      scheduleCheck();
      updateButtons();
    } });
  const publishButton = h('button', { type: 'button', class: 'primary', id: 'rules-publish', onclick: () => doPublish() }, 'Publish');
  const revertButton = h('button', { type: 'button', id: 'rules-revert', onclick: () => doRevert() }, 'Revert');
  const where = kind === 'database' ? `database ${ns}` : 'storage';

  const editorCard = h('section', { class: 'card rules-editor-card', 'aria-labelledby': 'rules-editor-title' },
    h('div', { class: 'row rules-head' },
      h('h2', { id: 'rules-editor-title', text: kind === 'database' ? `Rules of ${ns}` : 'Storage rules' }),
      status, h('span', { class: 'grow' }), revertButton, publishButton),
    editor.element,
    errorList,
    h('p', { class: 'muted small-print', text: kind === 'database'
      ? 'JSON with comments: {"rules": {…}}. Checked as you type by the same checker as `hearth rules check`. Tab moves focus out of the editor.'
      : 'rules_version = \'2\'; service firebase.storage { match /b/{bucket}/o { … } }. Checked as you type. Tab moves focus out of the editor.' }));

  const sim = simulator({ kind, ns, editor, draft: () => editor.value() });
  const cases = kind === 'database' ? casesRunner({ ns, draft: () => editor.value() }) : null;
  panel.replaceChildren(h('div', { class: 'rules-layout' }, editorCard, h('div', { class: 'rules-side' }, sim, cases)));

  function updateButtons() {
    const dirty = editor.value() !== source;
    publishButton.disabled = errors.length > 0 || checking || !dirty;
    revertButton.disabled = !dirty;
    publishButton.title = errors.length > 0 ? 'Fix the errors first' : dirty ? '' : 'Nothing changed';
  }

  function showErrors(list) {
    errors = list;
    editor.mark({ errors: list.map((e) => e.line) });
    errorList.replaceChildren(...list.map((e) => h('li', {},
      h('button', { type: 'button', class: 'ghost small error-at', onclick: () => editor.focusAt(e.line, e.column),
        title: 'Go to this place in the editor' }, `${e.line}:${e.column}`),
      ' ', h('span', { class: 'error', text: e.message }))));
    if (list.length) {
      status.className = 'error';
      status.textContent = `${list.length} error${list.length === 1 ? '' : 's'}`;
    } else {
      status.className = 'ok';
      status.textContent = editor.value() === source ? 'Published' : 'No errors · not published yet';
    }
    updateButtons();
  }

  function scheduleCheck() {
    clearTimeout(timer);
    checking = true;
    timer = setTimeout(check, 300);
  }

  async function check() {
    const seq = ++checkSeq;
    const text = editor.value();
    try {
      const answer = await api('POST', '/.hearth/rules/check', { json: { kind, source: text } });
      if (stopped || seq !== checkSeq) return;
      checking = false;
      showErrors(answer.ok ? [] : answer.errors);
    } catch (error) {
      if (stopped || seq !== checkSeq) return;
      checking = false;
      status.className = 'error';
      status.textContent = `Could not check: ${error.message}`;
      updateButtons();
    }
  }

  async function load() {
    await guarded(async () => {
      source = await published(kind, ns);
      editor.setValue(drafts.get(draftKey) ?? source);
      await check();
    });
  }

  async function doPublish() {
    clearTimeout(timer);
    await check();
    if (errors.length) { toast('Fix the errors before publishing.', 'error'); return; }
    const text = editor.value();
    if (!(await confirmDanger('Publish rules', `These rules replace the ones in force for ${where} at once: every request from now on is checked against them.`, 'Publish'))) return;
    await guarded(async () => {
      await publish(kind, ns, text);
      source = text;
      drafts.delete(draftKey);
      toast(`Rules published for ${where}.`, 'ok');
      showErrors([]);
    });
  }

  async function doRevert() {
    if (!(await confirmDanger('Revert', 'Discard your edits and load the published rules again?', 'Revert'))) return;
    drafts.delete(draftKey);
    await load();
    toast('Back to the published rules.', 'info');
  }

  updateButtons();
  load();
  return () => { stopped = true; clearTimeout(timer); };
}
