// Export and import of users in the JSON `firebase auth:export` writes ({"users": [...]}), through accounts:batchGet
// and accounts:batchCreate.
import { h, toast } from '../app.js';
import { explain, importUsers, listUsers } from './users-api.js';

/** What lookups show instead of a hash (base64 of "REDACTED"): no password. */
const REDACTED = 'UkVEQUNURUQ=';

/** One batchGet user in auth:export's shape. */
export function exportedUser(u) {
  const out = { localId: u.localId };
  const copy = (from, to = from) => { if (u[from] !== undefined && u[from] !== null) out[to] = u[from]; };
  copy('email');
  out.emailVerified = u.emailVerified === true;
  if (u.passwordHash && u.passwordHash !== REDACTED) { out.passwordHash = u.passwordHash; copy('salt'); }
  copy('displayName');
  copy('photoUrl');
  copy('phoneNumber');
  out.disabled = u.disabled === true;
  copy('customAttributes');
  // auth:export lists linked providers only; `password` and `phone` follow from the fields above.
  out.providerUserInfo = (u.providerUserInfo ?? []).filter((p) => p.providerId !== 'password' && p.providerId !== 'phone')
    .map((p) => Object.fromEntries(['providerId', 'rawId', 'email', 'displayName', 'photoUrl'].filter((k) => p[k] !== undefined).map((k) => [k, p[k]])));
  copy('createdAt');
  copy('lastLoginAt', 'lastSignedInAt');
  return out;
}

/** Every user, page by page; onPage(count) after each. */
export async function exportAll(onPage) {
  const users = [];
  let token = null;
  do {
    const page = await listUsers(1000, token);
    users.push(...page.users.map(exportedUser));
    token = page.nextPageToken;
    onPage?.(users.length);
  } while (token);
  return { users };
}

/** Saves `text` as a file through a download link. */
export function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = h('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** One user of an auth:export file as batchCreate takes it; throws when it is not an object with a localId. */
export function importedUser(u) {
  if (!u || typeof u !== 'object' || Array.isArray(u)) throw new Error('not an object');
  if (typeof u.localId !== 'string' || !u.localId) throw new Error('no localId');
  const out = {};
  for (const k of ['localId', 'email', 'emailVerified', 'displayName', 'photoUrl', 'phoneNumber', 'disabled', 'customAttributes', 'rawPassword']) {
    if (u[k] !== undefined && u[k] !== null && u[k] !== '') out[k] = u[k];
  }
  if (u.customAttributes && typeof u.customAttributes === 'object') out.customAttributes = JSON.stringify(u.customAttributes);
  if (u.passwordHash && u.passwordHash !== REDACTED) { out.passwordHash = u.passwordHash; out.salt = u.salt ?? ''; }
  const number = (v) => (v === undefined || v === null || v === '' || Number.isNaN(Number(v)) ? undefined : Number(v));
  if (number(u.createdAt) !== undefined) out.createdAt = number(u.createdAt);
  const last = number(u.lastSignedInAt ?? u.lastLoginAt);
  if (last !== undefined) out.lastLoginAt = last;
  const linked = (u.providerUserInfo ?? []).filter((p) => p && p.providerId && p.providerId !== 'password' && p.providerId !== 'phone');
  if (linked.length) out.providerUserInfo = linked;
  return out;
}

/** The hash algorithms an import may name, with the parameters each needs. */
export const HASHES = {
  '': { label: 'None: the file has no password hashes', fields: [] },
  HEARTH: { label: 'Hearth (STANDARD_SCRYPT, from hearth users export --password-hashes)', fields: ['memoryCost'] },
  SCRYPT: { label: 'Firebase (SCRYPT, from firebase auth:export)', fields: ['signerKey', 'saltSeparator', 'rounds', 'memoryCost'] },
  STANDARD_SCRYPT: { label: 'STANDARD_SCRYPT', fields: ['memoryCost', 'blockSize', 'parallelization', 'dkLen'] },
  BCRYPT: { label: 'BCRYPT', fields: [] },
  PBKDF2_SHA256: { label: 'PBKDF2_SHA256', fields: ['rounds'] },
  PBKDF_SHA1: { label: 'PBKDF_SHA1', fields: ['rounds'] },
};

/** The request fields of the chosen algorithm and parameters (values are strings from inputs); throws a message. */
export function hashParameters(algorithm, values) {
  if (!algorithm) return {};
  const int = (name, label) => {
    const v = String(values[name] ?? '').trim();
    if (!/^\d+$/.test(v)) throw new Error(`${label} must be a whole number.`);
    return Number(v);
  };
  if (algorithm === 'HEARTH') {
    return { hashAlgorithm: 'STANDARD_SCRYPT', memoryCost: int('memoryCost', 'N (memory cost)'), blockSize: 8, parallelization: 1, dkLen: 32 };
  }
  const out = { hashAlgorithm: algorithm };
  for (const f of HASHES[algorithm].fields) {
    if (f === 'signerKey') {
      if (!String(values.signerKey ?? '').trim()) throw new Error('SCRYPT needs the signer key (base64_signer_key).');
      out.signerKey = values.signerKey.trim();
    } else if (f === 'saltSeparator') out.saltSeparator = String(values.saltSeparator ?? '').trim();
    else out[f] = int(f, f);
  }
  return out;
}

/**
 * Imports `users` (auth:export's entries) in requests of at most 1000; onProgress(done, total).
 * Answers { imported, errors: [{ index, localId, message }] } with indexes into `users`.
 */
export async function importAll(users, hash, onProgress) {
  const errors = [];
  let imported = 0;
  for (let start = 0; start < users.length; start += 1000) {
    const chunk = [];
    const at = [];
    users.slice(start, start + 1000).forEach((u, i) => {
      try { chunk.push(importedUser(u)); at.push(start + i); } catch (e) {
        errors.push({ index: start + i, localId: u?.localId, message: `Skipped: ${e.message}` });
      }
    });
    if (chunk.length) {
      try {
        const refused = await importUsers(chunk, hash);
        for (const r of refused) errors.push({ index: at[r.index], localId: chunk[r.index]?.localId, message: r.message });
        imported += chunk.length - refused.length;
      } catch (e) {
        // The whole request was refused (bad hash parameters, duplicate uids): say so for each of its users.
        for (let i = 0; i < chunk.length; i++) errors.push({ index: at[i], localId: chunk[i].localId, message: explain(e) });
      }
    }
    onProgress?.(Math.min(start + 1000, users.length), users.length);
  }
  errors.sort((a, b) => a.index - b.index);
  return { imported, errors };
}

/** Reads an auth:export file's text: its users, or throws a message. */
export function parseExport(text) {
  let value;
  try { value = JSON.parse(text); } catch (e) { throw new Error(`The file is not JSON: ${e.message}`); }
  const users = Array.isArray(value) ? value : value?.users;
  if (!Array.isArray(users)) throw new Error('The file has no "users" list (expected {"users": [...]}, as firebase auth:export writes).');
  return users;
}

/** Shows an import's outcome in `box`. */
export function showImportResult(box, total, result) {
  const { imported, errors } = result;
  box.replaceChildren(
    h('p', { class: errors.length ? 'warn' : 'ok', id: 'import-summary', text: `Imported ${imported} of ${total} users${errors.length ? `; ${errors.length} refused:` : '.'}` }),
    errors.length ? h('div', { class: 'table-wrap' }, h('table', { id: 'import-errors' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: '#' }), h('th', { scope: 'col', text: 'uid' }), h('th', { scope: 'col', text: 'Why' }))),
      h('tbody', {}, errors.slice(0, 200).map((e) => h('tr', {},
        h('td', { text: String(e.index + 1) }), h('td', { class: 'mono', text: e.localId ?? '—' }), h('td', { text: e.message })))))) : null,
    errors.length > 200 ? h('p', { class: 'muted', text: `…and ${errors.length - 200} more.` }) : null);
  toast(`Imported ${imported} of ${total} users.`, errors.length ? 'error' : 'ok');
}
