// The Storage page's calls: the Cloud Storage JSON API (`/storage/v1/…`, `/upload/storage/v1/…`) and Firebase's v0
// API for download tokens, all with the console session (the admin: storage rules do not apply).
import { api, session, upload } from '../app.js';

/** One path segment (an object name keeps its slashes as %2F, as both APIs expect). */
export const enc = (s) => encodeURIComponent(s);

/** The bucket Firebase apps use by default; Hearth creates it with its first object. */
export const defaultBucket = () => `${session.project}.appspot.com`;

/** The buckets' names, the default one first (also when it does not exist yet). */
export async function bucketNames() {
  const answer = await api('GET', `/storage/v1/b?project=${enc(session.project)}`);
  const names = (answer?.items ?? []).map((b) => b.name);
  const first = defaultBucket();
  return [first, ...names.filter((n) => n !== first)];
}

/** One page of a folder: { items, prefixes, nextPageToken }. A bucket not created yet is an empty folder. */
export async function listFolder(bucket, prefix, pageSize, pageToken) {
  const q = new URLSearchParams({ prefix, delimiter: '/', maxResults: String(pageSize) });
  if (pageToken) q.set('pageToken', pageToken);
  try {
    const answer = await api('GET', `/storage/v1/b/${enc(bucket)}/o?${q}`);
    return { items: answer?.items ?? [], prefixes: answer?.prefixes ?? [], nextPageToken: answer?.nextPageToken ?? null };
  } catch (error) {
    if (error.status === 404 && bucket === defaultBucket()) return { items: [], prefixes: [], nextPageToken: null };
    throw error;
  }
}

/** The object's `storage#object` resource. */
export const objectURL = (bucket, name) => `/storage/v1/b/${enc(bucket)}/o/${enc(name)}`;

/** The object's bytes (the session cookie authorizes `<img src>` and `<a download>`); the generation keeps caches honest. */
export const mediaURL = (o) => `${objectURL(o.bucket, o.name)}?alt=media&generation=${enc(o.generation)}`;

export const getObject = (bucket, name) => api('GET', objectURL(bucket, name));

/** PATCH semantics: fields sent replace, null clears, metadata merges key by key (null removes a key). */
export const patchObject = (bucket, name, changes) => api('PATCH', objectURL(bucket, name), { json: changes });

export const deleteObject = (bucket, name) => api('DELETE', objectURL(bucket, name));

/** Uploads a File as `name` (its content type from the file), reporting progress. */
export function uploadFile(bucket, name, file, onProgress) {
  const q = new URLSearchParams({ uploadType: 'media', name });
  return upload('POST', `/upload/storage/v1/b/${enc(bucket)}/o?${q}`, file, {
    headers: { 'Content-Type': file.type || 'application/octet-stream' }, onProgress,
  });
}

/** The Firebase download URL (what getDownloadURL() returns); reading the v0 metadata as the admin makes a token
 * when the object has none. */
export async function firebaseDownloadURL(bucket, name) {
  const meta = await api('GET', `/v0/b/${enc(bucket)}/o/${enc(name)}`);
  const token = String(meta?.downloadTokens ?? '').split(',').filter(Boolean)[0];
  if (!token) return null;
  return `${location.origin}/v0/b/${enc(bucket)}/o/${enc(name)}?alt=media&token=${enc(token)}`;
}

/** A fresh download token (the old ones keep working until revoked); returns the new URL. */
export async function newDownloadToken(bucket, name) {
  const meta = await api('POST', `/v0/b/${enc(bucket)}/o/${enc(name)}?create_token=true`);
  const tokens = String(meta?.downloadTokens ?? '').split(',').filter(Boolean);
  const token = tokens[tokens.length - 1];
  return `${location.origin}/v0/b/${enc(bucket)}/o/${enc(name)}?alt=media&token=${enc(token)}`;
}
