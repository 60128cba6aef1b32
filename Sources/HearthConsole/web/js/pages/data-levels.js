// The Data page's tree is read a level at a time with `shallow=values` (children one level deep: primitives as values,
// objects as {}), PAGE children per request in key order, so nothing below the levels shown is ever downloaded,
// however big a child is. A level of n pages costs n requests, each one row per child on the server.
import { api } from '../app.js';
import { dbUrl, decodeShallow } from './data-util.js';

/** Children per page (per request). */
export const PAGE = 50;

/** One page of `path`'s children after the key `after` (null: from the first); PAGE + 1 asked to know if more follow. */
async function readPage(ns, path, after) {
  const params = { shallow: 'values', orderBy: JSON.stringify('$key'), limitToFirst: PAGE + 1 };
  if (after !== null) params.startAfter = JSON.stringify(after);
  return decodeShallow(await api('GET', dbUrl(path, ns, params)));
}

/**
 * Reads up to `pages` pages of `path`'s children in namespace `ns`, starting after the key `after` (null: from the
 * first child). Resolves with { kind: 'children', entries, more, requests } (entries in key order, object children
 * as {}; more: children follow the last one), or at the first page of a location without children
 * { kind: 'leaf', value } / { kind: 'empty' } (a key query at a value answers null, so the value is asked for itself).
 */
export async function readLevel(ns, path, pages, after = null) {
  const entries = [];
  let requests = 0;
  let cursor = after;
  for (let i = 0; i < pages; i++) {
    const page = await readPage(ns, path, cursor);
    requests += 1;
    if (page.kind !== 'children') {
      if (i > 0 || after !== null) return { kind: 'children', entries, more: false, requests };
      const self = decodeShallow(await api('GET', dbUrl(path, ns, { shallow: 'values' })));
      requests += 1;
      if (self.kind !== 'children') return { ...self, requests };
      // It became an object in between: keep its first page only.
      return { kind: 'children', entries: self.entries.slice(0, PAGE), more: self.entries.length > PAGE, requests };
    }
    const more = page.entries.length > PAGE;
    entries.push(...page.entries.slice(0, PAGE));
    if (!more) return { kind: 'children', entries, more: false, requests };
    cursor = entries.at(-1)[0];
  }
  return { kind: 'children', entries, more: true, requests };
}
