// The Storage page's object panel: preview (images, audio, video, the start of text), download, the Firebase
// download URL, the metadata editor, delete.
import { api, confirmDanger, formatBytes, formatTime, guarded, h, toast } from '../app.js';
import { deleteObject, firebaseDownloadURL, getObject, mediaURL, newDownloadToken, patchObject } from './storage-api.js';

const TEXT_PREVIEW = 64 * 1024;
const TOKEN_KEY = 'firebaseStorageDownloadTokens';
const isText = (type) => /^text\/|^application\/(json|xml|javascript|x-ndjson|yaml|x-yaml|csv)\b|\+json\b|\+xml\b/.test(type ?? '');
const baseName = (name) => name.slice(name.lastIndexOf('/') + 1) || name;

/**
 * Fills `panel` with the object `name` of `bucket`. hooks: onClose(), onChanged(resource), onDeleted(name).
 * Returns a function that forgets the panel (answers arriving later are dropped).
 */
export function showObject(panel, bucket, name, hooks) {
  let alive = true;
  const heading = h('h2', { id: 'object-title', tabindex: '-1', text: baseName(name) });
  panel.replaceChildren(
    h('div', { class: 'object-head' }, heading,
      h('button', { type: 'button', class: 'ghost small', id: 'object-close', onclick: () => hooks.onClose() }, 'Close')),
    h('p', { class: 'muted', text: 'Loading…' }));
  panel.hidden = false;
  heading.focus();

  (async () => {
    let object;
    try {
      object = await getObject(bucket, name);
    } catch (error) {
      if (!alive) return;
      panel.lastChild.replaceWith(h('p', { class: 'error', role: 'alert', text: error.status === 404 ? `${name} does not exist (any more).` : error.message }));
      return;
    }
    if (alive) render(object);
  })();

  function render(object) {
    const details = h('dl', { class: 'object-details' },
      entry('Full name', h('span', { class: 'mono', id: 'object-name', text: object.name })),
      entry('Size', `${formatBytes(Number(object.size))} (${Number(object.size).toLocaleString()} bytes)`),
      entry('Type', object.contentType ?? '—'),
      entry('Created', formatTime(object.timeCreated)),
      entry('Updated', formatTime(object.updated)),
      entry('Generation', h('span', { class: 'mono', text: object.generation })),
      entry('MD5', h('span', { class: 'mono', text: object.md5Hash ?? '—' })));
    const download = h('a', { class: 'button', id: 'object-download', href: mediaURL(object), download: baseName(object.name) }, 'Download');
    const remove = h('button', { type: 'button', class: 'danger', id: 'object-delete', onclick: () => removeObject(object) }, 'Delete');
    panel.replaceChildren(panel.firstChild,
      preview(object),
      h('div', { class: 'row object-actions' }, download, remove),
      details,
      firebaseURL(object),
      metadataEditor(object));
  }

  async function removeObject(object) {
    if (!await confirmDanger('Delete this file?', `${object.name} (${formatBytes(Number(object.size))}) will be deleted from ${bucket}. This cannot be undone.`)) return;
    const done = await guarded(async () => { await deleteObject(bucket, object.name); return true; });
    if (!done) return;
    toast(`Deleted ${object.name}`, 'ok');
    hooks.onDeleted(object.name);
  }

  function firebaseURL(object) {
    const field = h('input', { type: 'text', id: 'object-url', readonly: true, class: 'mono', value: '', 'aria-describedby': 'object-url-help' });
    const copy = h('button', { type: 'button', id: 'object-url-copy', disabled: true, onclick: async () => {
      field.select();
      try {
        await navigator.clipboard.writeText(field.value);
        toast('The download URL is copied', 'ok');
      } catch {
        // Without clipboard access (an http page on another host) the selected text is there to copy by hand.
        toast('Copy the selected URL with Ctrl+C', 'info');
      }
    } }, 'Copy');
    const fresh = h('button', { type: 'button', id: 'object-url-new', onclick: () => guarded(async () => {
      field.value = await newDownloadToken(bucket, object.name);
      copy.disabled = false;
      toast('A new download token was made; older URLs keep working', 'ok');
    }) }, 'New token');
    guarded(async () => {
      const url = await firebaseDownloadURL(bucket, object.name);
      if (!alive) return;
      field.value = url ?? '';
      copy.disabled = !url;
    });
    return h('div', { class: 'object-url' },
      h('label', { for: 'object-url', text: 'Firebase download URL' }),
      h('div', { class: 'row' }, field, copy, fresh),
      h('p', { class: 'muted small-print', id: 'object-url-help',
        text: 'Anyone holding this URL can read the file, whatever the storage rules say (as getDownloadURL() in the SDKs).' }));
  }

  function metadataEditor(object) {
    const fields = [
      ['contentType', 'Content type', 'application/octet-stream'],
      ['cacheControl', 'Cache-Control', 'public, max-age=3600'],
      ['contentDisposition', 'Content-Disposition', 'inline; filename="…"'],
      ['contentLanguage', 'Content-Language', 'en'],
    ];
    const inputs = {};
    const custom = Object.entries(object.metadata ?? {}).filter(([k]) => k !== TOKEN_KEY);
    const rows = h('div', { class: 'meta-rows', id: 'meta-rows' });
    const message = h('p', { class: 'error', role: 'alert', id: 'meta-error' });
    let serial = 0;
    const addRow = (key = '', value = '') => {
      const n = ++serial;
      const keyInput = h('input', { type: 'text', id: `meta-key-${n}`, class: 'meta-key', value: key, 'aria-label': `Key ${n}`, placeholder: 'key' });
      const valueInput = h('input', { type: 'text', id: `meta-value-${n}`, class: 'meta-value', value, 'aria-label': `Value ${n}`, placeholder: 'value' });
      const row = h('div', { class: 'meta-row' }, keyInput, valueInput,
        h('button', { type: 'button', class: 'small ghost', 'aria-label': `Remove key ${n}`, onclick: () => { row.remove(); add.focus(); } }, 'Remove'));
      rows.append(row);
      return keyInput;
    };
    for (const [k, v] of custom) addRow(k, v);
    const add = h('button', { type: 'button', class: 'small', id: 'meta-add', onclick: () => addRow().focus() }, 'Add key');
    const form = h('form', { class: 'meta-form', id: 'meta-form', onsubmit: async (e) => {
      e.preventDefault();
      message.textContent = '';
      const changes = {};
      for (const [key] of fields) {
        const value = inputs[key].value.trim();
        if (value !== (object[key] ?? '')) changes[key] = value === '' ? null : value;
      }
      const wanted = new Map();
      for (const row of rows.querySelectorAll('.meta-row')) {
        const key = row.querySelector('.meta-key').value.trim();
        const value = row.querySelector('.meta-value').value;
        if (key === '' && value === '') continue;
        if (key === '') { message.textContent = 'Every custom value needs a key.'; row.querySelector('.meta-key').focus(); return; }
        if (key === TOKEN_KEY) { message.textContent = `${TOKEN_KEY} is managed with the download URL above.`; row.querySelector('.meta-key').focus(); return; }
        if (wanted.has(key)) { message.textContent = `The key ${key} is there twice.`; row.querySelector('.meta-key').focus(); return; }
        wanted.set(key, value);
      }
      const metadata = {};
      for (const [k] of custom) if (!wanted.has(k)) metadata[k] = null;
      for (const [k, v] of wanted) if ((object.metadata ?? {})[k] !== v) metadata[k] = v;
      if (Object.keys(metadata).length) changes.metadata = metadata;
      if (!Object.keys(changes).length) { toast('Nothing changed', 'info'); return; }
      const saved = await guarded(() => patchObject(bucket, object.name, changes));
      if (!saved || !alive) return;
      toast('Metadata saved', 'ok');
      hooks.onChanged(saved);
      render(saved);
      panel.querySelector('#meta-save')?.focus();
    } },
    h('h3', { text: 'Metadata' }),
    fields.map(([key, label, hint]) => {
      inputs[key] = h('input', { type: 'text', id: `meta-${key}`, name: key, value: object[key] ?? '', placeholder: hint });
      return h('div', { class: 'field' }, h('label', { for: `meta-${key}`, text: label }), inputs[key]);
    }),
    h('fieldset', { class: 'meta-custom' }, h('legend', { text: 'Custom metadata' }), rows, add),
    message,
    h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary', id: 'meta-save' }, 'Save metadata')));
    return form;
  }

  return () => { alive = false; };
}

function entry(term, value) {
  return [h('dt', { text: term }), h('dd', {}, value)];
}

/** An image, audio or video player, the start of a text file, or a note that there is no preview. */
function preview(object) {
  const type = object.contentType ?? '';
  const box = h('div', { class: 'object-preview', id: 'object-preview' });
  if (type.startsWith('image/')) {
    const img = h('img', { src: mediaURL(object), alt: `Preview of ${object.name}`, id: 'preview-image' });
    // Icons and thumbnails are drawn larger (pixel for pixel) so they can be seen.
    img.addEventListener('load', () => { if (img.naturalWidth < 64 && img.naturalHeight < 64) img.classList.add('tiny'); });
    img.addEventListener('error', () => img.replaceWith(h('p', { class: 'error', text: 'The image could not be shown (it may not be a valid image).' })));
    box.append(img);
  } else if (type.startsWith('video/')) {
    box.append(h('video', { src: mediaURL(object), controls: true, preload: 'metadata', 'aria-label': `Video ${object.name}` }));
  } else if (type.startsWith('audio/')) {
    box.append(h('audio', { src: mediaURL(object), controls: true, preload: 'metadata', 'aria-label': `Audio ${object.name}` }));
  } else if (isText(type)) {
    const pre = h('pre', { class: 'text-preview', id: 'preview-text', tabindex: '0', 'aria-label': `Start of ${object.name}`, text: 'Loading…' });
    box.append(pre);
    const size = Number(object.size);
    api('GET', mediaURL(object), { text: true, headers: size > TEXT_PREVIEW ? { Range: `bytes=0-${TEXT_PREVIEW - 1}` } : {} })
      .then((text) => {
        const shown = text.length > TEXT_PREVIEW ? text.slice(0, TEXT_PREVIEW) : text;
        pre.textContent = shown === '' ? '(empty file)' : shown;
        if (size > TEXT_PREVIEW) box.append(h('p', { class: 'muted', text: `The first ${formatBytes(TEXT_PREVIEW)} of ${formatBytes(size)}.` }));
      })
      .catch((error) => { pre.textContent = ''; pre.replaceWith(h('p', { class: 'error', text: `No preview: ${error.message}` })); });
  } else {
    box.append(h('p', { class: 'muted', text: `No preview for ${type || 'this type'}.` }));
  }
  return box;
}
