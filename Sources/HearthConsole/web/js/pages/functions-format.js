// How the Functions page words things: triggers, durations, outcomes, and what a dead letter was about.
import { h, formatTime } from '../app.js';

const KIND_LABELS = {
  database: 'Database', auth: 'Auth', storage: 'Storage', callable: 'Callable', http: 'HTTP', schedule: 'Schedule',
};

/** "Database", "HTTP"… for a kind the server sends (unknown kinds as they are). */
export function kindLabel(kind) {
  return KIND_LABELS[kind] ?? String(kind);
}

/** What a function listens to, as a short line: "written /profiles/{uid}", "POST /functions/x", "0 6 * * * (UTC)". */
export function triggerText(fn, defaultNamespace) {
  const t = fn.trigger ?? {};
  switch (fn.kind) {
    case 'database': {
      const where = t.namespace && t.namespace !== defaultNamespace ? ` in ${t.namespace}` : '';
      return `${t.event ?? 'written'} ${t.path ?? ''}${where}`;
    }
    case 'auth': return `account ${t.event ?? ''}`.trim();
    case 'storage': return `object ${t.event ?? ''}`.trim();
    case 'callable':
    case 'http': return `${t.method ?? ''} ${t.path ?? ''}`.trim();
    case 'schedule': return `${fn.schedule ?? t.cron ?? ''} (${fn.timeZone ?? t.timeZone ?? 'UTC'})`;
    default: return JSON.stringify(t);
  }
}

/** 0.42 → "0.42 ms", 12.3 → "12 ms", 1530 → "1.53 s", 95000 → "1 min 35 s". */
export function formatDuration(ms) {
  if (typeof ms !== 'number' || Number.isNaN(ms)) return '—';
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 100) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(2)} s`;
  return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
}

/** "in 3 h", "5 min ago": how far a time is from now, for the schedule columns. */
export function relative(ms, now = Date.now()) {
  const d = ms - now;
  const a = Math.abs(d);
  const text = a < 60000 ? `${Math.max(1, Math.round(a / 1000))} s` : a < 3600000 ? `${Math.round(a / 60000)} min`
    : a < 172800000 ? `${Math.round(a / 3600000)} h` : `${Math.round(a / 86400000)} days`;
  return d >= 0 ? `in ${text}` : `${text} ago`;
}

const OUTCOMES = {
  ok: { label: 'ok', class: 'badge ok' },
  error: { label: 'error', class: 'badge error' },
  retry: { label: 'will retry', class: 'badge warn' },
  dead: { label: 'dead letter', class: 'badge error' },
};

/** The badge for a run's outcome. */
export function outcomeBadge(outcome) {
  const o = OUTCOMES[outcome] ?? { label: String(outcome), class: 'badge' };
  return h('span', { class: o.class, text: o.label });
}

/** A time cell: the local time, and how long ago / until (muted). */
export function timeCell(ms, now) {
  if (ms === undefined || ms === null) return h('td', { class: 'muted', text: '—' });
  return h('td', {}, h('time', { datetime: new Date(ms).toISOString(), text: formatTime(ms) }),
    h('br'), h('span', { class: 'muted small-text', text: relative(ms, now) }));
}

/** What a dead letter was about, in a line: the database path it changed, the account, the object. */
export function deadLetterSubject(letter) {
  const p = letter.payload;
  if (p && typeof p === 'object') {
    if (typeof p.path === 'string') {
      const change = p.before === null || p.before === undefined ? 'created' : p.after === null || p.after === undefined ? 'deleted' : 'changed';
      return `${change} ${p.path}`;
    }
    if (typeof p.localId === 'string' || typeof p.uid === 'string') return `account ${p.email ?? p.localId ?? p.uid}`;
    if (typeof p.name === 'string') return `object ${p.bucket ? `${p.bucket}/` : ''}${p.name}`;
  }
  return letter.queue;
}
