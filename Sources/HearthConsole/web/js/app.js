// The console's frame: the session, the API helper every page uses, small DOM helpers, the router.
// Each page is a module in ./pages/NAME.js whose default export is { title, mount(root, ctx) } and whose
// mount may return a function that stops what it started (streams, timers) when the page is left.

// Script errors, kept for the browser tests (Firefox's driver has no access to the page's console log).
window.hearthErrors = [];
window.addEventListener('error', (e) => window.hearthErrors.push(String(e.message)));
window.addEventListener('unhandledrejection', (e) => window.hearthErrors.push(String(e.reason?.stack ?? e.reason)));

const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.content ?? '';

/** What the server put in the page: the CSRF token, project, default database, `--dev`, enabled products. */
export const session = {
  csrf: meta('hearth-csrf'),
  project: meta('hearth-project'),
  namespace: meta('hearth-namespace'),
  dev: meta('hearth-dev') === 'true',
  products: new Set(meta('hearth-products').split(',').filter(Boolean)),
};

/** An API answer that was not 2xx: `status`, the server's `message`, and the parsed `body` when it was JSON. */
export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

function errorMessage(status, body, text) {
  if (body && typeof body === 'object') {
    if (typeof body.error === 'string') return body.error;
    if (body.error && typeof body.error.message === 'string') return body.error.message;
    if (typeof body.message === 'string') return body.message;
  }
  return text ? text.slice(0, 300) : `HTTP ${status}`;
}

/**
 * Calls a Hearth API with the session (the cookie goes by itself; changes carry the CSRF token).
 * options: json (a value sent as JSON), body (sent as is), headers, raw (return the Response),
 * text (return the body as text), signal.
 * Returns the parsed JSON answer (null for an empty one). Throws ApiError when the status is not 2xx;
 * a 401 means the session ended, and sends the browser to the sign-in page.
 */
export async function api(method, url, options = {}) {
  const headers = new Headers(options.headers ?? {});
  let body = options.body;
  if ('json' in options) {
    body = JSON.stringify(options.json);
    if (!headers.has('Content-Type')) headers.set('Content-Type', 'application/json');
  }
  if (method !== 'GET' && method !== 'HEAD') headers.set('X-Hearth-CSRF', session.csrf);
  const response = await fetch(url, { method, headers, body, credentials: 'same-origin', signal: options.signal });
  if (options.raw && response.ok) return response;
  const text = await response.text();
  let parsed = null;
  if (text) {
    try { parsed = JSON.parse(text); } catch { parsed = undefined; }
  }
  if (!response.ok) {
    if (response.status === 401 && !options.allowUnauthenticated) signedOut();
    throw new ApiError(response.status, errorMessage(response.status, parsed, text), parsed);
  }
  if (options.text) return text;
  return parsed === undefined ? text : parsed;
}

/**
 * Sends a request with upload progress (fetch has none): onProgress(loaded, total) as the body goes out.
 * Resolves with the parsed JSON answer; rejects with ApiError.
 */
export function upload(method, url, body, { headers = {}, onProgress } = {}) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, url);
    for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
    xhr.setRequestHeader('X-Hearth-CSRF', session.csrf);
    if (onProgress) xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : body.size ?? 0);
    xhr.onload = () => {
      let parsed = null;
      try { parsed = xhr.responseText ? JSON.parse(xhr.responseText) : null; } catch { parsed = xhr.responseText; }
      if (xhr.status >= 200 && xhr.status < 300) resolve(parsed);
      else {
        if (xhr.status === 401) signedOut();
        reject(new ApiError(xhr.status, errorMessage(xhr.status, parsed, xhr.responseText), parsed));
      }
    };
    xhr.onerror = () => reject(new ApiError(0, 'The connection failed', null));
    xhr.send(body);
  });
}

/**
 * Builds an element: h('button', { class: 'primary', onclick: fn, 'aria-label': 'Save' }, 'Save').
 * Attributes starting with "on" are listeners; `class`, `text`, `html`-free (text only, never innerHTML);
 * children are nodes, strings, or arrays of them (null and false are skipped).
 */
export function h(tag, attrs = {}, ...children) {
  const el = tag.startsWith('svg:') ? document.createElementNS('http://www.w3.org/2000/svg', tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.setAttribute('class', v);
    else if (k === 'text') el.textContent = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'value' && 'value' in el) el.value = v;
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Shows a short message at the bottom of the screen; kind is 'info', 'ok' or 'error'. */
export function toast(message, kind = 'info') {
  const box = document.getElementById('toasts');
  const item = h('div', { class: `toast ${kind}`, role: kind === 'error' ? 'alert' : null }, message);
  box.append(item);
  setTimeout(() => item.remove(), kind === 'error' ? 8000 : 4000);
}

/** Runs `work` and shows its error as a toast; returns what work returned, or undefined after an error. */
export async function guarded(work) {
  try {
    return await work();
  } catch (error) {
    toast(error.message || String(error), 'error');
    return undefined;
  }
}

/**
 * A modal dialog: title, body (nodes), and buttons [{ label, value, primary, danger }]. Resolves with the value of
 * the button pressed (undefined for Escape). Focus moves into it and back afterwards.
 */
export function dialog(title, body, buttons = [{ label: 'OK', value: true, primary: true }]) {
  return new Promise((resolve) => {
    const before = document.activeElement;
    const d = h('dialog', { class: 'dialog', 'aria-label': title });
    const close = (value) => { d.close(); d.remove(); before?.focus?.(); resolve(value); };
    const form = h('form', { method: 'dialog', onsubmit: (e) => { e.preventDefault(); close(buttons.find((b) => b.primary)?.value); } },
      h('h2', { text: title }),
      h('div', { class: 'dialog-body' }, body),
      h('div', { class: 'actions' }, buttons.map((b) =>
        h('button', { type: b.primary ? 'submit' : 'button', class: b.danger ? 'danger' : b.primary ? 'primary' : '',
          onclick: b.primary ? null : () => close(b.value) }, b.label))));
    d.append(form);
    d.addEventListener('cancel', (e) => { e.preventDefault(); close(undefined); });
    document.body.append(d);
    d.showModal();
  });
}

/** Asks to confirm something that cannot be undone; resolves true or false. */
export async function confirmDanger(title, message, action = 'Delete') {
  return (await dialog(title, h('p', { text: message }), [
    { label: 'Cancel', value: false },
    { label: action, value: true, primary: true, danger: true },
  ])) === true;
}

/** 1536 → "1.5 KiB". */
export function formatBytes(n) {
  if (n === null || n === undefined || Number.isNaN(n)) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = Number(n);
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${i === 0 ? v : v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

/** Milliseconds since 1970 (or an ISO string) as local date and time. */
export function formatTime(t) {
  if (t === null || t === undefined || t === '') return '—';
  const d = new Date(typeof t === 'string' && /^\d+$/.test(t) ? Number(t) : t);
  return Number.isNaN(d.getTime()) ? String(t) : d.toLocaleString();
}

// ---- the database the pages work on ----

/** The database (namespace) the Data and Rules pages work on: ?ns= in the address, else the default (a page
 * that sets `usesNamespace: true` shows the picker and is mounted again when another one is picked). */
export function currentNamespace() {
  return new URLSearchParams(location.search).get('ns') || session.namespace;
}

/** Replaces the address's query parameters (keeps the page); null removes one. */
export function setParams(params) {
  const q = new URLSearchParams(location.search);
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined || v === '') q.delete(k); else q.set(k, v);
  }
  const s = q.toString();
  history.replaceState(null, '', location.pathname + (s ? `?${s}` : ''));
}

async function loadNamespaces() {
  const picker = document.getElementById('ns-picker');
  const select = document.getElementById('ns-select');
  let names = [];
  try { names = await api('GET', '/.settings/namespaces.json'); } catch { names = []; }
  const current = currentNamespace();
  if (!names.includes(current)) names.unshift(current);
  select.replaceChildren(...names.map((n) => h('option', { value: n, text: n })));
  select.value = current;
  picker.hidden = false;
  select.onchange = () => {
    // The page starts again on the other database.
    setParams({ ns: select.value === session.namespace ? null : select.value, path: null });
    route();
  };
}

// ---- the router ----

const pages = ['overview', 'data', 'rules', 'users', 'storage', 'functions', 'links'];
let stopPage = null;

/** Shows the page at `path` (an address under /_/), adding it to the history unless `replace`. */
export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', path); else history.pushState(null, '', path);
  route();
}

function pageName() {
  const name = location.pathname.replace(/^\/_\/?/, '').split('/')[0];
  return name === '' ? 'overview' : name;
}

async function route() {
  const name = pageName();
  const view = document.getElementById('view');
  if (stopPage) { try { stopPage(); } catch { /* a page's cleanup must not stop the next one */ } stopPage = null; }
  for (const a of document.querySelectorAll('#nav a')) {
    if (a.dataset.page === name) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  if (!pages.includes(name)) {
    view.replaceChildren(h('h1', { text: 'Not found' }), h('p', { text: `There is no console page at ${location.pathname}.` }));
    return;
  }
  view.replaceChildren(h('p', { class: 'muted', text: 'Loading…' }));
  const module = await import(`./pages/${name}.js`);
  const page = module.default;
  if (page.styles && !document.querySelector(`link[data-page-css="${name}"]`)) {
    document.head.append(h('link', { rel: 'stylesheet', href: `/_/assets/css/${name}.css`, 'data-page-css': name }));
  }
  document.title = `${page.title} · Hearth console`;
  const root = h('section', { class: `page page-${name}`, 'aria-labelledby': 'page-title' });
  view.replaceChildren(root);
  document.getElementById('ns-picker').hidden = !page.usesNamespace;
  const stop = await page.mount(root, { namespace: currentNamespace() });
  if (typeof stop === 'function') stopPage = stop;
}

function signedOut() {
  if (!location.pathname.startsWith('/_/login')) location.assign(`/_/login?next=${encodeURIComponent(location.pathname + location.search)}`);
}

async function signOut() {
  await guarded(async () => {
    await api('DELETE', '/.hearth/console/session', { allowUnauthenticated: true });
    location.assign('/_/login?signedOut=1');
  });
}

// ---- sign-in ----

function showLogin() {
  const view = document.getElementById('view');
  const q = new URLSearchParams(location.search);
  const next = q.get('next') && q.get('next').startsWith('/_/') ? q.get('next') : '/_/overview';
  const error = h('p', { class: 'error', role: 'alert', id: 'login-error' });
  const input = h('input', { type: 'password', id: 'credential', name: 'credential', autocomplete: 'current-password', required: !session.dev,
    'aria-describedby': 'login-help login-error' });
  const form = h('form', { class: 'card login', onsubmit: async (e) => {
    e.preventDefault();
    error.textContent = '';
    try {
      await api('POST', '/.hearth/console/session', { json: { credential: input.value }, allowUnauthenticated: true });
      location.assign(next);
    } catch (err) {
      error.textContent = err.status === 401 ? 'That is not the admin credential.' : err.message;
      input.select();
    }
  } },
  h('h1', { id: 'page-title', text: 'Sign in to the Hearth console' }),
  q.get('signedOut') ? h('p', { class: 'ok', text: 'You are signed out.' }) : null,
  h('label', { for: 'credential', text: 'Admin credential' }),
  input,
  h('p', { class: 'muted', id: 'login-help', text: session.dev
    ? 'This server runs with --dev: leave the field empty to continue.'
    : 'The server\'s admin token (--admin-token, or the file named by --admin-token-file).' }),
  error,
  h('button', { type: 'submit', class: 'primary', id: 'signin' }, session.dev ? 'Continue' : 'Sign in'));
  view.replaceChildren(form);
  input.focus();
}

function start() {
  document.getElementById('project').textContent = session.project;
  if (location.pathname.startsWith('/_/login')) { showLogin(); return; }
  document.getElementById('nav').hidden = false;
  const signout = document.getElementById('signout');
  signout.hidden = false;
  signout.onclick = signOut;
  for (const a of document.querySelectorAll('#nav a')) {
    if (!a.dataset.page || ['overview', 'data', 'rules'].includes(a.dataset.page)) continue;
    if (!session.products.has(a.dataset.page)) a.classList.add('off');
  }
  document.addEventListener('click', (e) => {
    const a = e.target.closest('a[href^="/_/"]');
    if (!a || a.target || e.metaKey || e.ctrlKey || e.shiftKey || a.hasAttribute('download')) return;
    e.preventDefault();
    navigate(a.getAttribute('href'));
    document.getElementById('view').focus();
  });
  window.addEventListener('popstate', route);
  loadNamespaces();
  route();
}

start();
