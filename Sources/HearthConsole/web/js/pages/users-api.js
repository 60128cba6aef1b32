// The Users page's calls: Identity Toolkit's admin API, as firebase-admin makes them (the console session stands
// for the admin credential).
import { api, session } from '../app.js';

const base = () => `/identitytoolkit.googleapis.com/v1/projects/${encodeURIComponent(session.project)}/accounts`;

/** Firebase's error codes as people read them; the code itself is kept at the end. */
const MESSAGES = {
  EMAIL_EXISTS: 'Another user already has this email.',
  PHONE_NUMBER_EXISTS: 'Another user already has this phone number.',
  DUPLICATE_LOCAL_ID: 'Another user already has this uid.',
  WEAK_PASSWORD: 'The password is too weak: use at least 6 characters.',
  INVALID_EMAIL: 'That is not a valid email address.',
  INVALID_PHONE_NUMBER: 'That is not a valid phone number: use the international form, e.g. +15555550100.',
  USER_NOT_FOUND: 'There is no such user (deleted meanwhile?).',
  EMAIL_NOT_FOUND: 'No user has this email.',
  CLAIMS_TOO_LARGE: 'The custom claims are longer than 1000 characters.',
  INVALID_CLAIMS: 'The custom claims must be a JSON object.',
  FORBIDDEN_CLAIM: 'The custom claims use a name reserved by the ID token.',
  MISSING_EMAIL: 'This user has no email address.',
};

/** An Identity Toolkit error message ("CODE : detail") in words. */
export function explain(error) {
  const text = error?.message ?? String(error);
  const code = text.split(/[\s:]/)[0];
  return MESSAGES[code] ? `${MESSAGES[code]} (${text})` : text;
}

/** One page of users in uid order: { users, nextPageToken }. */
export async function listUsers(maxResults, pageToken) {
  const q = new URLSearchParams({ maxResults: String(maxResults) });
  if (pageToken) q.set('nextPageToken', pageToken);
  const answer = await api('GET', `${base()}:batchGet?${q}`);
  return { users: answer?.users ?? [], nextPageToken: answer?.nextPageToken ?? null };
}

/** How many users there are. */
export async function countUsers() {
  const answer = await api('POST', `${base()}:query`, { json: { returnUserInfo: false } });
  return Number(answer?.recordsCount ?? 0);
}

/** Users by exact email, phone number or uid ({ email: [...] } etc.). */
export async function lookup(body) {
  const answer = await api('POST', `${base()}:lookup`, { json: body });
  return answer?.users ?? [];
}

/** One user by uid, or null. */
export async function getUser(uid) {
  return (await lookup({ localId: [uid] }))[0] ?? null;
}

/** Creates a user; answers its uid. */
export async function createUser(fields) {
  const answer = await api('POST', base(), { json: fields });
  return answer.localId;
}

/** accounts:update for one uid. */
export function updateUser(uid, fields) {
  return api('POST', `${base()}:update`, { json: { localId: uid, ...fields } });
}

/** Deletes a user. */
export function deleteUser(uid) {
  return api('POST', `${base()}:delete`, { json: { localId: uid } });
}

/** Ends every session the user has: refresh tokens issued before now stop working. */
export function revokeSessions(uid) {
  return updateUser(uid, { validSince: String(Math.floor(Date.now() / 1000)) });
}

/** A password reset: mailed (returnLink false) or handed back as a link. */
export function passwordReset(email, returnLink) {
  return api('POST', `${base()}:sendOobCode`, {
    json: { requestType: 'PASSWORD_RESET', email, ...(returnLink ? { returnOobLink: true } : {}) },
  });
}

/** Imports users (≤ 1000) with the hash parameters; answers the errors ({ index, message }). */
export async function importUsers(users, hash) {
  const answer = await api('POST', `${base()}:batchCreate`, { json: { users, ...hash } });
  return answer?.error ?? answer?.errors ?? [];
}

/** The reserved names Firebase refuses as custom claims. */
export const RESERVED_CLAIMS = ['acr', 'amr', 'at_hash', 'aud', 'auth_time', 'azp', 'cnf', 'c_hash', 'exp', 'firebase', 'iat',
  'iss', 'jti', 'nbf', 'nonce', 'sub'];

/**
 * Checks custom claims typed by a person: answers { text } (compact JSON to send, "{}" for none) or { error }.
 */
export function checkClaims(input) {
  const trimmed = input.trim();
  if (trimmed === '') return { text: '{}' };
  let value;
  try { value = JSON.parse(trimmed); } catch (e) { return { error: `Not valid JSON: ${e.message}` }; }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { error: 'Custom claims must be a JSON object, like {"admin": true}.' };
  const reserved = Object.keys(value).filter((k) => RESERVED_CLAIMS.includes(k));
  if (reserved.length) return { error: `Reserved claim names cannot be used: ${reserved.join(', ')}.` };
  const text = JSON.stringify(value);
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > 1000) return { error: `The claims take ${bytes} bytes; Firebase allows at most 1000.` };
  return { text };
}
