// The Data page's import (a .json file PUT or PATCHed at the open path, with upload progress) and export (the
// subtree downloaded with progress and offered as a file).
import { ApiError, api, confirmDanger, formatBytes, h, toast, upload } from '../app.js';
import { dbUrl, isObject } from './data-util.js';

/** The server's default limit on a request body (--max-body-bytes); a larger file is refused before sending. */
export const MAX_IMPORT = 16 * 1024 * 1024;

/** The import/export card for `path` in namespace `ns`. */
export function ioPanel(ns, path) {
  const file = h('input', { type: 'file', id: 'data-import-file', accept: '.json,application/json' });
  const mode = h('select', { id: 'data-import-mode' },
    h('option', { value: 'PATCH', text: 'Merge (PATCH): keep other children' }),
    h('option', { value: 'PUT', text: 'Replace (PUT): the file becomes the path' }));
  const importBar = h('progress', { class: 'progress', id: 'data-import-progress', max: '1', value: '0', hidden: true, 'aria-label': 'Import progress' });
  const importNote = h('p', { class: 'muted', id: 'data-import-status', role: 'status' });
  const importButton = h('button', { type: 'submit', class: 'primary', id: 'data-import' }, 'Import');

  async function runImport(e) {
    e.preventDefault();
    const chosen = file.files?.[0];
    importNote.className = 'muted';
    if (!chosen) { fail('Choose a .json file first.'); return; }
    if (chosen.size > MAX_IMPORT) {
      fail(`${chosen.name} is ${formatBytes(chosen.size)}: the server takes ${formatBytes(MAX_IMPORT)} at most in one request (--max-body-bytes). Split it by child.`);
      return;
    }
    const text = await chosen.text();
    let value;
    try { value = JSON.parse(text); } catch (err) { fail(`${chosen.name} is not valid JSON: ${err.message}`); return; }
    if (mode.value === 'PATCH' && !isObject(value)) { fail('Merging needs a JSON object; choose Replace to write a single value.'); return; }
    if (mode.value === 'PUT' && !(await confirmDanger(`Replace ${path}?`,
      `Everything now at ${path} in ${ns} is replaced by ${chosen.name}.`, 'Replace'))) return;
    importButton.disabled = true;
    importBar.hidden = false;
    importBar.value = 0;
    importNote.textContent = `Sending ${chosen.name}…`;
    try {
      await upload(mode.value, dbUrl(path, ns), new Blob([text], { type: 'application/json' }), {
        headers: { 'Content-Type': 'application/json' },
        onProgress: (loaded, total) => {
          importBar.value = total ? loaded / total : 0;
          importNote.textContent = `Sending ${chosen.name}: ${formatBytes(loaded)} of ${formatBytes(total)}`;
        },
      });
      importBar.value = 1;
      importNote.className = 'ok';
      importNote.textContent = `Imported ${chosen.name} (${formatBytes(chosen.size)}) into ${path} (${mode.value === 'PUT' ? 'replaced' : 'merged'}).`;
      toast(`Imported ${chosen.name}`, 'ok');
    } catch (err) {
      fail(err instanceof ApiError && err.status === 413
        ? `The server refused ${formatBytes(chosen.size)}: too large for one request (--max-body-bytes, 16 MiB by default).`
        : `Import failed: ${err.message}`);
    } finally {
      importButton.disabled = false;
    }
  }

  function fail(message) {
    importBar.hidden = true;
    importNote.className = 'error';
    importNote.textContent = message;
  }

  const exportBar = h('progress', { class: 'progress', id: 'data-export-progress', max: '1', hidden: true, 'aria-label': 'Export progress' });
  const exportNote = h('p', { class: 'muted', id: 'data-export-status', role: 'status' });
  const exportLink = h('div', { class: 'row' });
  let blobUrl = null;
  const exportButton = h('button', { type: 'button', id: 'data-export', onclick: runExport }, 'Export');

  async function runExport() {
    exportButton.disabled = true;
    exportLink.replaceChildren();
    if (blobUrl) URL.revokeObjectURL(blobUrl);
    exportBar.hidden = false;
    exportBar.removeAttribute('value');
    exportNote.className = 'muted';
    exportNote.textContent = `Reading ${path}…`;
    try {
      const response = await api('GET', dbUrl(path, ns, { format: 'export' }), { raw: true });
      const total = Number(response.headers.get('Content-Length')) || 0;
      const reader = response.body.getReader();
      const chunks = [];
      let loaded = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        loaded += value.length;
        if (total) exportBar.value = loaded / total;
        exportNote.textContent = `Reading ${path}: ${formatBytes(loaded)}${total ? ` of ${formatBytes(total)}` : ''}`;
      }
      const blob = new Blob(chunks, { type: 'application/json' });
      blobUrl = URL.createObjectURL(blob);
      const name = `${ns}${path === '/' ? '' : path.replaceAll('/', '-')}.json`;
      exportBar.hidden = true;
      exportNote.className = 'ok';
      exportNote.textContent = `Exported ${path}: ${formatBytes(blob.size)}.`;
      const link = h('a', { class: 'button primary', id: 'data-export-link', href: blobUrl, download: name }, `Save ${name} (${formatBytes(blob.size)})`);
      link.exportedBlob = blob; // the file's content, for the browser test (CSP's connect-src keeps fetch off blob: URLs)
      exportLink.replaceChildren(link);
      link.focus();
    } catch (err) {
      exportBar.hidden = true;
      exportNote.className = 'error';
      exportNote.textContent = `Export failed: ${err.message}`;
    } finally {
      exportButton.disabled = false;
    }
  }

  return h('section', { class: 'card data-io', 'aria-labelledby': 'data-io-title' },
    h('h2', { id: 'data-io-title', text: `Import and export ${path}` }),
    h('form', { class: 'toolbar', onsubmit: runImport },
      h('label', { for: 'data-import-file' }, 'JSON file', file),
      h('label', { for: 'data-import-mode' }, 'How', mode),
      importButton),
    importBar, importNote,
    h('div', { class: 'toolbar' }, exportButton, exportLink),
    exportBar, exportNote);
}
