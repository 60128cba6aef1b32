// The Storage page: buckets, a folder view (prefixes as folders, paged), uploads by file picker or drag and drop with
// progress, and the object panel (storage-object.js). State in the address: ?bucket=&prefix=&object=.
import { dialog, formatBytes, formatTime, h, navigate, session, setParams, toast } from '../app.js';
import { bucketNames, defaultBucket, listFolder, uploadFile } from './storage-api.js';
import { showObject } from './storage-object.js';

const PAGE_SIZES = [25, 100, 250];

// Uploads outlive the page view (an upload started in one folder keeps going while you browse another).
const uploads = [];
let redrawUploads = null;

export default {
  title: 'Storage',
  styles: true,
  async mount(root) {
    const params = new URLSearchParams(location.search);
    const prefix = params.get('prefix') ?? '';
    let pageSize = PAGE_SIZES.includes(Number(params.get('pageSize'))) ? Number(params.get('pageSize')) : 100;
    let stopPanel = null;

    root.append(h('h1', { id: 'page-title', text: 'Storage' }));
    if (!session.products.has('storage')) {
      root.append(h('p', { class: 'card empty', text: 'Storage is not enabled on this server.' }));
      return undefined;
    }
    let names;
    try {
      names = await bucketNames();
    } catch (error) {
      root.append(h('p', { class: 'error', role: 'alert', text: `The buckets could not be listed: ${error.message}` }));
      return undefined;
    }
    const bucket = names.includes(params.get('bucket')) ? params.get('bucket') : (params.get('bucket') || defaultBucket());
    if (!names.includes(bucket)) names.push(bucket);

    const href = (p, b = bucket) => {
      const q = new URLSearchParams();
      if (b !== defaultBucket()) q.set('bucket', b);
      if (p) q.set('prefix', p);
      if (pageSize !== 100) q.set('pageSize', String(pageSize));
      const s = q.toString();
      return `/_/storage${s ? `?${s}` : ''}`;
    };

    // ---- toolbar ----
    const bucketSelect = h('select', { id: 'bucket', onchange: () => navigate(href('', bucketSelect.value)) },
      names.map((n) => h('option', { value: n, text: n === defaultBucket() ? `${n} (default)` : n })));
    bucketSelect.value = bucket;
    const sizeSelect = h('select', { id: 'page-size', onchange: () => { pageSize = Number(sizeSelect.value); setParams({ pageSize: pageSize === 100 ? null : pageSize }); reload(); } },
      PAGE_SIZES.map((n) => h('option', { value: String(n), text: String(n) })));
    sizeSelect.value = String(pageSize);
    const fileInput = h('input', { type: 'file', id: 'upload-input', multiple: true, class: 'visually-hidden', tabindex: '-1', 'aria-label': 'Files to upload',
      onchange: () => { startUploads([...fileInput.files]); fileInput.value = ''; } });
    const toolbar = h('div', { class: 'toolbar' },
      h('label', {}, 'Bucket', bucketSelect),
      h('label', {}, 'Per page', sizeSelect),
      h('span', { class: 'grow' }),
      h('button', { type: 'button', id: 'new-folder', onclick: newFolder }, 'New folder'),
      fileInput,
      h('button', { type: 'button', class: 'primary', id: 'upload-button', onclick: () => fileInput.click() }, 'Upload files'));

    // ---- breadcrumb ----
    const parts = prefix.split('/').filter((p, i, all) => i < all.length - 1 || p !== '');
    const crumbs = h('nav', { class: 'crumbs', 'aria-label': 'Folder' }, h('ol', {},
      h('li', {}, prefix === '' ? h('span', { 'aria-current': 'page', text: bucket }) : h('a', { href: href(''), text: bucket })),
      parts.map((part, i) => {
        const p = `${parts.slice(0, i + 1).join('/')}/`;
        return h('li', {}, i === parts.length - 1 ? h('span', { 'aria-current': 'page', text: part || '(empty name)' }) : h('a', { href: href(p), text: part || '(empty name)' }));
      })));

    // ---- folder view (also the drop zone) ----
    const folderRows = h('tbody', { id: 'folders' });
    const fileRows = h('tbody', { id: 'files' });
    const table = h('div', { class: 'table-wrap' }, h('table', { id: 'objects' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'Name' }), h('th', { scope: 'col', text: 'Size' }),
        h('th', { scope: 'col', text: 'Type' }), h('th', { scope: 'col', text: 'Updated' }))),
      folderRows, fileRows));
    const status = h('p', { class: 'muted', id: 'listing-status', role: 'status' });
    const more = h('button', { type: 'button', id: 'load-more', hidden: true, onclick: () => loadPage() }, 'Load more');
    const uploadList = h('ul', { class: 'uploads', id: 'uploads', 'aria-label': 'Uploads' });
    const dropHint = h('p', { class: 'drop-hint muted', id: 'drop-hint' },
      `Drop files here to upload them to ${prefix ? `${prefix}` : 'the top of the bucket'}. `,
      'Cloud Storage has no real folders: a folder is the part of a name before a "/", and it exists while a file is in it.');
    const zone = h('div', { class: 'card folder', id: 'dropzone' }, crumbs, dropHint, uploadList, table, status, more);
    const panel = h('aside', { class: 'card object-panel', id: 'object-panel', 'aria-labelledby': 'object-title', hidden: true });
    root.append(toolbar, h('div', { class: 'storage-layout' }, zone, panel));

    let depth = 0;
    zone.addEventListener('dragenter', (e) => { if (hasFiles(e)) { e.preventDefault(); depth++; zone.classList.add('dragging'); } });
    zone.addEventListener('dragover', (e) => { if (hasFiles(e)) { e.preventDefault(); e.dataTransfer.dropEffect = 'copy'; } });
    zone.addEventListener('dragleave', () => { depth = Math.max(0, depth - 1); if (!depth) zone.classList.remove('dragging'); });
    zone.addEventListener('drop', (e) => {
      e.preventDefault();
      depth = 0;
      zone.classList.remove('dragging');
      const files = [...(e.dataTransfer?.files ?? [])];
      if (!files.length) { toast('Only files can be dropped here (folders are not uploaded).', 'error'); return; }
      startUploads(files);
    });

    // ---- listing ----
    let token = null;
    let generation = 0;
    const seenFolders = new Set();
    const rowsByName = new Map();

    async function loadPage() {
      const mine = generation;
      more.disabled = true;
      status.textContent = 'Loading…';
      let page;
      try {
        page = await listFolder(bucket, prefix, pageSize, token);
      } catch (error) {
        if (mine !== generation) return;
        status.textContent = '';
        status.append(h('span', { class: 'error', role: 'alert', text: `The folder could not be listed: ${error.message}` }));
        more.disabled = false;
        return;
      }
      if (mine !== generation) return;
      for (const p of page.prefixes) addFolder(p);
      for (const o of page.items) putFile(o);
      token = page.nextPageToken;
      more.hidden = !token;
      more.disabled = false;
      showCount();
    }

    function showCount() {
      const folders = folderRows.children.length;
      const files = fileRows.children.length;
      if (!folders && !files) {
        status.textContent = prefix ? 'This folder is empty: upload a file to keep it.' : 'This bucket is empty: upload a file to start.';
      } else {
        const counts = [folders && `${folders} folder${folders === 1 ? '' : 's'}`, files && `${files} file${files === 1 ? '' : 's'}`].filter(Boolean);
        status.textContent = `${counts.join(', ')}${token ? ' shown so far' : ''}.`;
      }
    }

    function reload() {
      generation++;
      token = null;
      seenFolders.clear();
      rowsByName.clear();
      folderRows.replaceChildren();
      fileRows.replaceChildren();
      return loadPage();
    }

    function addFolder(p) {
      if (seenFolders.has(p)) return;
      seenFolders.add(p);
      const label = p.slice(prefix.length, -1) || '(empty name)';
      folderRows.append(h('tr', { class: 'folder-row' },
        h('td', {}, h('a', { href: href(p), class: 'folder-link', 'aria-label': `Folder ${label}` }, folderIcon(), ` ${label}/`)),
        h('td', { class: 'muted', text: '—' }), h('td', { class: 'muted', text: 'folder' }), h('td', { class: 'muted', text: '—' })));
    }

    /** Adds or updates the row of an object in this folder (or the row of its sub-folder). */
    function putFile(o) {
      if (!o.name.startsWith(prefix)) return;
      const rest = o.name.slice(prefix.length);
      if (rest.includes('/')) { addFolder(prefix + rest.slice(0, rest.indexOf('/') + 1)); return; }
      const row = h('tr', { class: 'file-row', dataset: { name: o.name } },
        h('td', {}, h('button', { type: 'button', class: 'linklike file-open', 'aria-haspopup': 'true', onclick: () => open(o.name) }, rest || '(empty name)')),
        h('td', { class: 'num', text: formatBytes(Number(o.size)) }),
        h('td', { class: 'type', text: o.contentType ?? '—' }),
        h('td', { text: formatTime(o.updated) }));
      const old = rowsByName.get(o.name);
      if (old) old.replaceWith(row); else fileRows.append(row);
      rowsByName.set(o.name, row);
      if (params.get('object') === o.name) row.classList.add('selected');
      return row;
    }

    // ---- object panel ----
    function open(name) {
      stopPanel?.();
      setParams({ object: name });
      params.set('object', name);
      for (const r of fileRows.querySelectorAll('.selected')) r.classList.remove('selected');
      rowsByName.get(name)?.classList.add('selected');
      stopPanel = showObject(panel, bucket, name, {
        onClose: close,
        onChanged: (o) => { putFile(o)?.classList.add('flash'); },
        onDeleted: (n) => {
          rowsByName.get(n)?.remove();
          rowsByName.delete(n);
          close();
          showCount();
        },
      });
    }

    function close() {
      const name = params.get('object');
      stopPanel?.();
      stopPanel = null;
      panel.hidden = true;
      panel.replaceChildren();
      setParams({ object: null });
      params.delete('object');
      const row = name && rowsByName.get(name);
      row?.classList.remove('selected');
      (row?.querySelector('button') ?? toolbar.querySelector('#upload-button'))?.focus();
    }

    // ---- uploads ----
    async function newFolder() {
      const input = h('input', { type: 'text', id: 'folder-name', required: true, autocomplete: 'off' });
      const error = h('p', { class: 'error', role: 'alert', id: 'folder-error' });
      const body = [h('label', { for: 'folder-name', text: `Folder name (inside ${bucket}/${prefix})` }), input,
        h('p', { class: 'muted', text: 'Cloud Storage has no folders, only names with slashes: this opens the new folder, and it exists once you upload a file into it.' }),
        error];
      setTimeout(() => input.focus(), 0);
      const ok = await dialog('New folder', body, [{ label: 'Cancel', value: false }, { label: 'Open folder', value: true, primary: true }]);
      if (!ok) return;
      const name = input.value.trim().replace(/^\/+|\/+$/g, '');
      if (!name || name.split('/').some((s) => s === '' || s === '.' || s === '..')) {
        toast('A folder name needs at least one character, and no empty, "." or ".." parts.', 'error');
        return;
      }
      const target = `${prefix}${name}/`;
      navigate(href(target));
    }

    function startUploads(files) {
      for (const file of files) {
        const entry = { bucket, name: prefix + file.name, size: file.size, loaded: 0, state: 'uploading', error: '' };
        uploads.unshift(entry);
        drawUploads();
        uploadFile(bucket, entry.name, file, (loaded, total) => { entry.loaded = loaded; entry.size = total || entry.size; drawUploads(); })
          .then((resource) => {
            entry.state = 'done';
            entry.loaded = entry.size;
            redrawUploads?.();
            entry.onDone?.(resource);
          })
          .catch((error) => {
            entry.state = 'failed';
            entry.error = error.message;
            redrawUploads?.();
            toast(`${entry.name} was not uploaded: ${error.message}`, 'error');
          });
        entry.onDone = (resource) => {
          if (redrawUploads === drawUploads && resource) {
            const row = putFile(resource);
            row?.classList.add('flash');
            showCount();
          }
        };
      }
    }

    function drawUploads() {
      const recent = uploads.filter((u) => u.bucket === bucket).slice(0, 20);
      uploadList.replaceChildren(...recent.map((u) => {
        const percent = u.size ? Math.round((100 * u.loaded) / u.size) : (u.state === 'done' ? 100 : 0);
        const bar = h('progress', { class: 'progress', max: '100', value: String(u.state === 'done' ? 100 : percent), 'aria-label': `Upload of ${u.name}` });
        const label = u.state === 'done' ? h('span', { class: 'badge ok', text: 'Uploaded' })
          : u.state === 'failed' ? h('span', { class: 'badge error', title: u.error, text: 'Failed' })
            : h('span', { class: 'muted', text: `${percent} %` });
        return h('li', { class: `upload ${u.state}`, dataset: { name: u.name } },
          h('span', { class: 'upload-name mono', text: u.name }), h('span', { class: 'muted', text: formatBytes(u.size) }), bar, label,
          u.state === 'failed' ? h('span', { class: 'error upload-error', text: u.error }) : null);
      }));
      const finished = uploads.filter((u) => u.bucket === bucket && u.state !== 'uploading').length;
      if (finished) {
        uploadList.append(h('li', { class: 'uploads-clear' }, h('button', { type: 'button', class: 'small ghost', id: 'uploads-clear', onclick: () => {
          for (let i = uploads.length - 1; i >= 0; i--) if (uploads[i].bucket === bucket && uploads[i].state !== 'uploading') uploads.splice(i, 1);
          drawUploads();
          toolbar.querySelector('#upload-button')?.focus();
        } }, 'Clear finished uploads')));
      }
    }
    redrawUploads = drawUploads;
    drawUploads();

    await reload();
    if (params.get('object')) open(params.get('object'));
    return () => {
      generation++;
      stopPanel?.();
      if (redrawUploads === drawUploads) redrawUploads = null;
    };
  },
};

/** A small folder drawing (no emoji: a server's browser may have no emoji font). */
function folderIcon() {
  return h('svg:svg', { class: 'folder-icon', viewBox: '0 0 16 16', width: '16', height: '16', 'aria-hidden': 'true', focusable: 'false' },
    h('svg:path', { d: 'M1.5 3.5h4.5l1.5 1.5h7v8.5h-13z', fill: 'currentColor', 'fill-opacity': '0.18', stroke: 'currentColor', 'stroke-width': '1.2', 'stroke-linejoin': 'round' }));
}

function hasFiles(e) {
  return [...(e.dataTransfer?.types ?? [])].includes('Files');
}
