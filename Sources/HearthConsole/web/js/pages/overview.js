// Overview: the server's load (connections, requests and writes per second), its sizes, the last hour as a chart,
// and each database's size. Refreshed every 2 seconds while the page is open.
import { api, formatBytes, h, session } from '../app.js';
import { legend, lineChart, palette } from './chart.js';

const REFRESH_MS = 2000;
const HOUR_MS = 3600 * 1000;
const SPAN_MIN_MS = 5 * 60 * 1000;

function rate(n) {
  if (n === null || n === undefined) return '—';
  return n >= 100 ? String(Math.round(n)) : n >= 10 ? n.toFixed(1) : n.toFixed(2);
}

function statCard(id, label, help) {
  const value = h('p', { class: 'stat', id, text: '—' });
  const sub = h('p', { class: 'muted stat-help', id: `${id}-help`, text: help });
  return { card: h('div', { class: 'card stat-card' }, h('h2', { class: 'stat-label', text: label }), value, sub), value, sub };
}

export default {
  title: 'Overview',
  styles: true,
  mount(root) {
    const connections = statCard('stat-connections', 'Connections', 'Realtime connections open now');
    const requests = statCard('stat-requests', 'Requests / s', 'Over the last 10 seconds');
    const writes = statCard('stat-writes', 'Writes / s', 'Database commits, last 10 seconds');
    const database = statCard('stat-database', 'Database size', 'All databases');
    const storage = statCard('stat-storage', 'Storage size', session.products.has('storage') ? 'Stored files' : 'Storage is off');
    const status = h('p', { class: 'muted', id: 'overview-status', role: 'status' });
    const chartBox = h('div', { class: 'chart-box', id: 'history' }, h('p', { class: 'muted', text: 'Loading…' }));
    const chartNote = h('p', { class: 'muted', id: 'history-summary' });
    const nsBody = h('tbody', { id: 'namespaces-rows' });

    root.append(
      h('h1', { id: 'page-title', text: 'Overview' }),
      h('div', { class: 'grid stats' }, connections.card, requests.card, writes.card, database.card, storage.card),
      h('section', { class: 'card history', 'aria-labelledby': 'history-title' },
        h('h2', { id: 'history-title', text: 'Last hour' }),
        chartNote,
        chartBox),
      h('h2', { id: 'namespaces-title', text: 'Databases' }),
      h('div', { class: 'table-wrap' }, h('table', { id: 'namespaces-table', 'aria-labelledby': 'namespaces-title' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'Database' }), h('th', { scope: 'col', class: 'num', text: 'Size' }),
          h('th', { scope: 'col', text: 'Share' }))),
        nsBody)),
      status);

    let timer = null;
    let stopped = false;
    let busy = false;
    let failures = 0;

    function render(o) {
      connections.value.textContent = String(o.connections);
      connections.sub.textContent = `Realtime connections open now; ${o.listeners} listener${o.listeners === 1 ? '' : 's'}`;
      requests.value.textContent = rate(o.requestsPerSecond);
      writes.value.textContent = rate(o.writesPerSecond);
      database.value.textContent = formatBytes(o.databaseBytes);
      database.sub.textContent = `${o.namespaces.length} database${o.namespaces.length === 1 ? '' : 's'}`;
      storage.value.textContent = o.storageBytes === null ? '—' : formatBytes(o.storageBytes);

      // Per second in each 10-second bucket; the current one is divided by the seconds it has run so far.
      const now = Date.now();
      const points = o.history.map((b) => {
        const seconds = Math.min(10, Math.max(1, (now - b.t) / 1000));
        return { t: b.t + (seconds * 1000) / 2, requests: b.requests / seconds, writes: b.writes / seconds };
      });
      const series = [
        { key: 'requests', name: 'Requests / s', color: palette[0] },
        { key: 'writes', name: 'Writes / s', color: palette[1] },
      ];
      const peak = (key) => Math.max(0, ...points.map((p) => p[key]));
      const summary = points.length
        ? `Requests and writes per second in 10-second steps, over the last hour or since the server started. `
          + `Peak: ${rate(peak('requests'))} requests/s, ${rate(peak('writes'))} writes/s.`
        : 'No history yet.';
      chartNote.textContent = summary;
      // The last hour, or the time since the server started when that is shorter (at least 5 minutes).
      const from = Math.min(now - SPAN_MIN_MS, Math.max(now - HOUR_MS, o.history.length ? o.history[0].t : now));
      chartBox.replaceChildren(
        lineChart({ points, series, label: summary, id: 'history-chart', from, to: now }),
        legend(series.map((s) => ({ name: s.name, color: s.color })), 'history-legend'));

      const total = o.databaseBytes || 0;
      nsBody.replaceChildren(...(o.namespaces.length === 0
        ? [h('tr', {}, h('td', { colspan: 3, class: 'empty', text: 'No databases yet.' }))]
        : o.namespaces.map((ns) => {
          const share = total > 0 ? ns.bytes / total : 0;
          const meter = h('meter', { min: 0, max: 1, value: share, 'aria-label': `${ns.name}: ${Math.round(share * 100)} % of all` });
          return h('tr', { dataset: { ns: ns.name } },
            h('th', { scope: 'row' }, h('a', { href: `/_/data?ns=${encodeURIComponent(ns.name)}`, text: ns.name })),
            h('td', { class: 'num', text: formatBytes(ns.bytes) }),
            h('td', {}, meter, ` ${Math.round(share * 100)} %`));
        })));
    }

    async function refresh() {
      if (busy || stopped) return;
      busy = true;
      try {
        const o = await api('GET', '/.hearth/overview');
        if (stopped) return;
        render(o);
        failures = 0;
        status.textContent = `Updated ${new Date().toLocaleTimeString()}; refreshes every 2 seconds.`;
        status.classList.remove('error');
      } catch (error) {
        failures += 1;
        status.textContent = `Could not refresh: ${error.message}${failures > 1 ? ` (${failures} times in a row)` : ''}. Trying again.`;
        status.classList.add('error');
      } finally {
        busy = false;
      }
    }

    refresh();
    timer = setInterval(refresh, REFRESH_MS);
    return () => { stopped = true; clearInterval(timer); };
  },
};
