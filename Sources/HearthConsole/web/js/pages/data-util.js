// Helpers of the Data page: database addresses, Firebase's ordering, JSON values and a live snapshot fed by an
// EventSource (the REST streaming protocol: `put` and `patch` events with a path relative to the stream's).

/** "/a/b" → ["a", "b"]; "" and "/" → []. */
export function segments(path) {
  return String(path ?? '').split('/').filter(Boolean);
}

/** ["a", "b"] → "/a/b" (the root is "/"). */
export function joinPath(parts) {
  return `/${parts.join('/')}`;
}

/** A child's path. */
export function childPath(path, key) {
  return joinPath([...segments(path), key]);
}

/** The REST address of `path` in namespace `ns` with query parameters (values given as JS, JSON-encoded when `json`). */
export function dbUrl(path, ns, params = {}) {
  const q = new URLSearchParams({ ns });
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  return `/${segments(path).map(encodeURIComponent).join('/')}.json?${q}`;
}

/** Whether a key may be used in the database (Firebase's rules: no . $ # [ ] / or control characters, ≤ 768 bytes). */
export function validKey(key) {
  return typeof key === 'string' && key.length > 0 && !/[.$#[\]/\u0000-\u001f\u007f]/.test(key) && new TextEncoder().encode(key).length <= 768;
}

const INT = /^-?(0|[1-9]\d{0,9})$/;

/** Firebase's key order: keys that are 32-bit integers first, by value, then the others as strings. */
export function keyCompare(a, b) {
  const ai = INT.test(a) && Math.abs(Number(a)) <= 2147483647;
  const bi = INT.test(b) && Math.abs(Number(b)) <= 2147483647;
  if (ai && bi) return Number(a) - Number(b) || (a < b ? -1 : a > b ? 1 : 0);
  if (ai) return -1;
  if (bi) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function rank(v) {
  if (v === null || v === undefined) return 0;
  if (v === false) return 1;
  if (v === true) return 2;
  if (typeof v === 'number') return 3;
  if (typeof v === 'string') return 4;
  return 5;
}

/** Firebase's value order: null, false, true, numbers, strings, objects (which tie). */
export function valueCompare(a, b) {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 3) return a - b;
  if (ra === 4) return a < b ? -1 : a > b ? 1 : 0;
  return 0;
}

/** The value at a child path ("a/b") of `value`, or null. */
export function pick(value, path) {
  let v = value;
  for (const s of segments(path)) {
    if (v === null || typeof v !== 'object' || !(s in v)) return null;
    v = v[s];
  }
  return v ?? null;
}

/** The entries of an object snapshot in the order of `orderBy` ("$key", "$value", or a child path), ties by key. */
export function orderedEntries(value, orderBy = '$key') {
  if (value === null || typeof value !== 'object') return [];
  const entries = Object.entries(value);
  if (orderBy === '$key' || !orderBy) return entries.sort((x, y) => keyCompare(x[0], y[0]));
  const of = orderBy === '$value' ? (v) => v : (v) => pick(v, orderBy);
  return entries.sort((x, y) => valueCompare(of(x[1]), of(y[1])) || keyCompare(x[0], y[0]));
}

/**
 * Decodes an answer of `GET …?shallow=values` (a Hearth extension): primitive children come as their values and object
 * children as {} (no stored value is an empty object). Returns { kind: 'empty' }, { kind: 'leaf', value } or
 * { kind: 'children', entries } with entries [key, value] in key order, an object child's value being {}.
 */
export function decodeShallow(answer) {
  if (answer === null || answer === undefined) return { kind: 'empty' };
  if (typeof answer !== 'object') return { kind: 'leaf', value: answer };
  const entries = Object.entries(answer).filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => [k, v !== null && typeof v === 'object' ? {} : v]);
  return entries.length ? { kind: 'children', entries: entries.sort((x, y) => keyCompare(x[0], y[0])) } : { kind: 'empty' };
}

/** Whether a value is an object (a node with children). */
export function isObject(v) {
  return v !== null && typeof v === 'object';
}

/** A short text for a value: JSON for leaves, "{n children}" for objects. */
export function summary(v) {
  if (isObject(v)) {
    const n = Object.keys(v).length;
    return `{${n} ${n === 1 ? 'child' : 'children'}}`;
  }
  return JSON.stringify(v);
}

/** Parses JSON typed by a person; returns { value } or { error }. */
export function parseJson(text) {
  const t = text.trim();
  if (!t) return { error: 'Type a JSON value: "text", 12, true, null or {"a": 1}.' };
  try {
    return { value: JSON.parse(t) };
  } catch (e) {
    return { error: `Not valid JSON (${e.message.replace(/^JSON\.parse: /, '')}). Strings need quotes: "text".` };
  }
}

function setAt(root, parts, data) {
  if (parts.length === 0) return data;
  const base = isObject(root) ? { ...root } : {};
  const [head, ...rest] = parts;
  const next = setAt(base[head] ?? null, rest, data);
  if (next === null) delete base[head]; else base[head] = next;
  return Object.keys(base).length ? base : null;
}

/**
 * Follows `url` with an EventSource, keeping the snapshot it describes. onChange(snapshot) after every event;
 * onError(message) when the server cancels the stream or it cannot connect. Returns a function that closes it.
 */
export function liveSnapshot(url, onChange, onError) {
  let snapshot = null;
  const source = new EventSource(url, { withCredentials: true });
  const apply = (kind) => (e) => {
    let msg;
    try { msg = JSON.parse(e.data); } catch { return; }
    if (!msg || typeof msg.path !== 'string') return;
    const parts = segments(msg.path);
    if (kind === 'put') snapshot = setAt(snapshot, parts, msg.data);
    else for (const [k, v] of Object.entries(msg.data ?? {})) snapshot = setAt(snapshot, [...parts, ...segments(k)], v);
    onChange(snapshot);
  };
  source.addEventListener('put', apply('put'));
  source.addEventListener('patch', apply('patch'));
  source.addEventListener('cancel', (e) => { onError?.(`The server ended the live view: ${e.data || 'permission denied'}`); source.close(); });
  source.addEventListener('auth_revoked', () => { onError?.('The session ended; sign in again.'); source.close(); });
  source.onerror = () => { if (source.readyState === EventSource.CLOSED) onError?.('The live connection failed.'); };
  return () => source.close();
}
