// The Users page's forms: create, edit (profile and custom claims), password reset. Each is a modal <dialog> that
// stays open while the server refuses, showing why next to the form.
import { h, toast } from '../app.js';
import { checkClaims, createUser, explain, passwordReset, updateUser } from './users-api.js';

let fieldCount = 0;

/** A labelled input: { wrap, input }. */
function field(label, attrs = {}, help = null) {
  const id = `uf-${++fieldCount}`;
  const helpId = help ? `${id}-help` : null;
  const input = h(attrs.tag ?? 'input', { id, ...attrs, tag: null, 'aria-describedby': helpId });
  const wrap = h('div', { class: 'field' }, h('label', { for: id, text: label }), input, help ? h('span', { id: helpId, class: 'muted', text: help }) : null);
  return { wrap, input };
}

/**
 * A modal form. `submit()` does the work and returns true to close; what it throws is shown in the form.
 * Resolves with true when it closed after a submit, false when cancelled.
 */
function formDialog({ id, title, body, action, submit, danger = false }) {
  return new Promise((resolve) => {
    const before = document.activeElement;
    const error = h('p', { class: 'error', role: 'alert', id: `${id}-error` });
    const save = h('button', { type: 'submit', class: danger ? 'danger' : 'primary', id: `${id}-save` }, action);
    const d = h('dialog', { class: 'dialog users-dialog', id, 'aria-labelledby': `${id}-title` });
    const close = (value) => { d.close(); d.remove(); before?.focus?.(); resolve(value); };
    const form = h('form', { method: 'dialog', novalidate: true, onsubmit: async (e) => {
      e.preventDefault();
      error.textContent = '';
      save.disabled = true;
      try {
        if (await submit()) close(true);
      } catch (err) {
        error.textContent = err.userMessage ?? explain(err);
      } finally {
        save.disabled = false;
      }
    } },
    h('h2', { id: `${id}-title`, text: title }),
    h('div', { class: 'dialog-body' }, body),
    error,
    h('div', { class: 'actions' },
      h('button', { type: 'button', onclick: () => close(false) }, 'Cancel'),
      save));
    // A refusal is about what was sent: editing the form takes it away.
    form.addEventListener('input', () => { error.textContent = ''; });
    d.append(form);
    d.addEventListener('cancel', (e) => { e.preventDefault(); close(false); });
    document.body.append(d);
    d.showModal();
    d.querySelector('input, textarea, select')?.focus();
  });
}

/** An error whose text is shown as is. */
function refusal(message) {
  const e = new Error(message);
  e.userMessage = message;
  return e;
}

/** Asks for a new user's email and password (or phone) and display name, and creates it; resolves with its uid. */
export async function createDialog() {
  const email = field('Email', { type: 'email', name: 'email', autocomplete: 'off' });
  const password = field('Password', { type: 'password', name: 'password', autocomplete: 'new-password' }, 'At least 6 characters; needed with an email.');
  const phone = field('Phone number (optional)', { type: 'tel', name: 'phone', placeholder: '+15555550100' }, 'International form: + and the country code. A phone alone is enough.');
  const name = field('Display name (optional)', { type: 'text', name: 'displayName' });
  const uid = field('uid (optional)', { type: 'text', name: 'uid', autocomplete: 'off' }, 'Left empty, the server picks one.');
  let created = null;
  const ok = await formDialog({
    id: 'create-user', title: 'New user', action: 'Create user',
    body: [email.wrap, password.wrap, phone.wrap, name.wrap, uid.wrap],
    submit: async () => {
      const body = {};
      const e = email.input.value.trim();
      const p = phone.input.value.trim();
      if (!e && !p) throw refusal('Give an email (with a password) or a phone number.');
      if (e) {
        if (!/^[^@\s]+@[^@\s]+$/.test(e)) throw refusal('That is not a valid email address.');
        if (!password.input.value) throw refusal('A user with an email needs a password.');
        body.email = e;
      }
      if (password.input.value) body.password = password.input.value;
      if (p) {
        if (!/^\+[0-9 ()-]{6,}$/.test(p)) throw refusal('Phone numbers start with + and the country code, e.g. +15555550100.');
        body.phoneNumber = p.replace(/[ ()-]/g, '');
      }
      if (name.input.value.trim()) body.displayName = name.input.value.trim();
      if (uid.input.value.trim()) body.localId = uid.input.value.trim();
      created = await createUser(body);
      return true;
    },
  });
  if (ok) toast(`Created user ${created}.`, 'ok');
  return ok ? created : null;
}

/** Edits a user's profile and custom claims; resolves true when saved. */
export async function editDialog(user) {
  const name = field('Display name', { type: 'text', value: user.displayName ?? '' });
  const email = field('Email', { type: 'email', value: user.email ?? '' });
  const verified = h('input', { type: 'checkbox', id: 'edit-verified', checked: user.emailVerified === true });
  const phone = field('Phone number', { type: 'tel', value: user.phoneNumber ?? '', placeholder: '+15555550100' });
  const password = field('New password', { type: 'password', autocomplete: 'new-password' }, 'Left empty, the password stays.');
  const claimsText = user.customAttributes ? JSON.stringify(JSON.parse(user.customAttributes), null, 2) : '';
  const claims = field('Custom claims (JSON object)', { tag: 'textarea', class: 'code', rows: 6, value: claimsText, spellcheck: 'false',
    placeholder: '{"admin": true}' }, 'Put in every ID token the user gets from now on; at most 1000 bytes. Empty: none.');
  claims.input.id = 'edit-claims';
  const meta = h('dl', { class: 'users-meta' },
    h('dt', { text: 'uid' }), h('dd', { class: 'mono', text: user.localId }),
    h('dt', { text: 'Providers' }), h('dd', { text: (user.providerUserInfo ?? []).map((p) => p.providerId).join(', ') || 'none' }));
  const ok = await formDialog({
    id: 'edit-user', title: `Edit ${user.email ?? user.phoneNumber ?? user.localId}`, action: 'Save',
    body: [meta, name.wrap, email.wrap, h('label', { class: 'check' }, verified, ' Email verified'), phone.wrap, password.wrap, claims.wrap],
    submit: async () => {
      const checked = checkClaims(claims.input.value);
      if (checked.error) { claims.input.focus(); throw refusal(checked.error); }
      const change = { customAttributes: checked.text, emailVerified: verified.checked };
      const deleteAttribute = [];
      const n = name.input.value.trim();
      if (n) change.displayName = n; else if (user.displayName) deleteAttribute.push('DISPLAY_NAME');
      const e = email.input.value.trim();
      if (e && e !== user.email) change.email = e;
      if (!e && user.email) deleteAttribute.push('EMAIL');
      const p = phone.input.value.trim().replace(/[ ()-]/g, '');
      if (p && p !== user.phoneNumber) change.phoneNumber = p;
      if (!p && user.phoneNumber) change.deleteProvider = ['phone'];
      if (password.input.value) change.password = password.input.value;
      if (deleteAttribute.length) change.deleteAttribute = deleteAttribute;
      await updateUser(user.localId, change);
      return true;
    },
  });
  if (ok) toast('Saved.', 'ok');
  return ok;
}

/** Sends a password reset, or makes its link to hand over; says what happened. */
export async function resetDialog(user) {
  const how = h('fieldset', { class: 'users-choice' },
    h('legend', { text: 'How' }),
    h('label', { class: 'check' }, h('input', { type: 'radio', name: 'reset-how', value: 'mail', checked: true, id: 'reset-mail' }),
      ` Email the reset link to ${user.email}`),
    h('label', { class: 'check' }, h('input', { type: 'radio', name: 'reset-how', value: 'link', id: 'reset-link' }),
      ' Make the link here, to hand over yourself (nothing is sent)'));
  const result = h('div', { id: 'reset-result', 'aria-live': 'polite' });
  let done = false;
  await formDialog({
    id: 'reset-user', title: 'Password reset', action: 'Go',
    body: [h('p', { class: 'muted', text: 'The link lets whoever opens it set a new password; it works once and expires.' }), how, result],
    submit: async () => {
      if (done) return true;
      const returnLink = how.querySelector('input:checked').value === 'link';
      const answer = await passwordReset(user.email, returnLink);
      if (returnLink && answer?.oobLink) {
        const link = h('input', { type: 'text', readonly: true, value: answer.oobLink, id: 'reset-oob-link', 'aria-label': 'Reset link', class: 'mono' });
        result.replaceChildren(h('p', { class: 'ok', text: 'Here is the link (it was not mailed):' }), link,
          h('button', { type: 'button', class: 'small', onclick: async () => {
            try { await navigator.clipboard.writeText(answer.oobLink); toast('Copied.', 'ok'); } catch { link.select(); toast('Select the link and copy it.', 'info'); }
          } }, 'Copy'));
        link.select();
      } else {
        result.replaceChildren(h('p', { class: 'ok', text: `The server took the reset mail to ${answer?.email ?? user.email}. `
          + 'Whether it arrives depends on its mail setup: without SMTP configured the message only goes to the server\'s log '
          + '(choose "Make the link here" to get the link instead).' }));
      }
      done = true;
      document.getElementById('reset-user-save').textContent = 'Close';
      return false;
    },
  });
}
