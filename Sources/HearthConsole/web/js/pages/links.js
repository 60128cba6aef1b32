// Links: the project's short links with their clicks; create, delete, and a link's clicks per day and platform.
import { api, confirmDanger, formatTime, guarded, h, session, setParams, toast } from '../app.js';
import { legend, palette, stackedBars } from './chart.js';

const PLATFORMS = [
  { key: 'ios', name: 'iOS' },
  { key: 'android', name: 'Android' },
  { key: 'desktop', name: 'Desktop' },
  { key: 'other', name: 'Other' },
];
const EVENTS = [
  { key: 'CLICK', name: 'Clicks' },
  { key: 'REDIRECT', name: 'Redirects' },
  { key: 'APP_RE_OPEN', name: 'App re-opens' },
];

/** The UTC dates from `from` to `to` (yyyy-mm-dd), inclusive. */
function dateRange(from, to) {
  const out = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86400000) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}

export default {
  title: 'Links',
  styles: true,
  async mount(root) {
    root.append(h('h1', { id: 'page-title', text: 'Links' }));
    if (!session.products.has('links')) {
      root.append(h('p', { class: 'card empty', id: 'links-off',
        text: 'Short links are off on this server. Start it with --link-domains (for example https://go.example.com) to make them.' }));
      return undefined;
    }
    let links = [];
    let nextPageToken = null;
    let domains = [];
    let selected = new URLSearchParams(location.search).get('link');
    let stopped = false;

    // ---- create ----
    const target = h('input', { type: 'url', id: 'link-target', name: 'link', required: true, placeholder: 'https://example.com/welcome',
      autocomplete: 'off', 'aria-describedby': 'link-target-help' });
    const domain = h('select', { id: 'link-domain', name: 'domain' });
    const option = h('select', { id: 'link-option', name: 'option' },
      h('option', { value: 'SHORT', text: 'Short (4+ characters)' }),
      h('option', { value: 'UNGUESSABLE', text: 'Unguessable (17 characters)' }));
    const createButton = h('button', { type: 'submit', class: 'primary', id: 'link-create' }, 'Create short link');
    const created = h('p', { class: 'ok', id: 'link-created', role: 'status' });
    const form = h('form', { class: 'card links-create', 'aria-labelledby': 'links-create-title', onsubmit: (e) => { e.preventDefault(); create(); } },
      h('h2', { id: 'links-create-title', text: 'New short link' }),
      h('div', { class: 'toolbar' },
        h('label', { class: 'field grow-field' }, 'Long link (where it sends people)', target),
        h('label', { class: 'field' }, 'Domain', domain),
        h('label', { class: 'field' }, 'Suffix', option),
        createButton),
      h('p', { class: 'muted', id: 'link-target-help',
        text: 'An http or https address. The same address with the same suffix kind gives back the link made before.' }),
      created);

    // ---- list ----
    const tbody = h('tbody', { id: 'links-rows' });
    const more = h('button', { type: 'button', id: 'links-more', hidden: true, onclick: () => load(false) }, 'Load more');
    const count = h('p', { class: 'muted', id: 'links-count', role: 'status' });
    const table = h('div', { class: 'table-wrap' },
      h('table', { id: 'links-table' },
        h('caption', { class: 'visually-hidden', text: 'Short links' }),
        h('thead', {}, h('tr', {},
          h('th', { scope: 'col', text: 'Short link' }), h('th', { scope: 'col', text: 'Target' }),
          h('th', { scope: 'col', text: 'Created' }), h('th', { scope: 'col', class: 'num', text: 'Clicks' }),
          h('th', { scope: 'col', text: 'Actions' }))),
        tbody));

    // ---- stats ----
    const stats = h('section', { class: 'card links-stats', id: 'link-stats', 'aria-labelledby': 'link-stats-title', hidden: true });

    const listTitle = h('h2', { id: 'links-title', tabindex: '-1', text: 'Short links' });
    root.append(form, listTitle, count, table, more, stats);

    async function load(reset) {
      const q = new URLSearchParams({ pageSize: '50' });
      if (!reset && nextPageToken) q.set('pageToken', nextPageToken);
      const answer = await guarded(() => api('GET', `/.hearth/links?${q}`));
      if (!answer || stopped) return;
      links = reset ? answer.links : links.concat(answer.links);
      nextPageToken = answer.nextPageToken ?? null;
      if (reset) {
        domains = answer.domains ?? [];
        const before = domain.value;
        domain.replaceChildren(...domains.map((d) => h('option', { value: d, text: d })));
        if (domains.includes(before)) domain.value = before;
        createButton.disabled = domains.length === 0;
      }
      render();
    }

    function render() {
      more.hidden = !nextPageToken;
      count.textContent = links.length === 0 ? '' : `${links.length}${nextPageToken ? '+' : ''} link${links.length === 1 ? '' : 's'}`;
      if (links.length === 0) {
        tbody.replaceChildren(h('tr', {}, h('td', { colspan: 5, class: 'empty', text: 'No short links yet: make one above.' })));
        return;
      }
      tbody.replaceChildren(...links.map((link) => h('tr', { dataset: { suffix: link.suffix }, class: link.suffix === selected ? 'selected' : null },
        h('td', { class: 'mono' }, h('a', { href: link.shortLink, target: '_blank', rel: 'noopener noreferrer', text: link.shortLink })),
        h('td', { class: 'target' }, link.link ? h('a', { href: link.link, target: '_blank', rel: 'noopener noreferrer', text: link.link }) : '—'),
        h('td', { text: formatTime(link.createdAt) }),
        h('td', { class: 'num clicks', text: String(link.clicks) }),
        h('td', { class: 'actions' },
          h('button', { type: 'button', class: 'small', 'aria-pressed': String(link.suffix === selected),
            'aria-label': `Clicks of ${link.shortLink}`, onclick: () => select(link.suffix) }, 'Clicks'),
          h('button', { type: 'button', class: 'small', 'aria-label': `Copy ${link.shortLink}`, onclick: () => copy(link.shortLink) }, 'Copy'),
          h('button', { type: 'button', class: 'small danger', 'aria-label': `Delete ${link.shortLink}`, onclick: () => remove(link) },
            'Delete')))));
    }

    async function copy(text) {
      try {
        await navigator.clipboard.writeText(text);
        toast('Copied', 'ok');
      } catch {
        toast(`Could not copy; the link is ${text}`, 'error');
      }
    }

    async function create() {
      created.textContent = '';
      const value = target.value.trim();
      if (!/^https?:\/\/[^\s/]+/i.test(value)) {
        toast('The long link must be an http or https address, like https://example.com/page', 'error');
        target.focus();
        return;
      }
      createButton.disabled = true;
      const answer = await guarded(() => api('POST', '/v1/shortLinks', { json: {
        dynamicLinkInfo: { domainUriPrefix: domain.value, link: value },
        suffix: { option: option.value },
      } }));
      createButton.disabled = false;
      if (!answer) return;
      created.textContent = `Made ${answer.shortLink}`;
      for (const w of answer.warning ?? []) toast(w.warningMessage, 'info');
      target.value = '';
      await load(true);
      const suffix = answer.shortLink.slice(answer.shortLink.lastIndexOf('/') + 1);
      tbody.querySelector(`tr[data-suffix="${CSS.escape(suffix)}"]`)?.classList.add('flash');
    }

    async function remove(link) {
      if (!await confirmDanger('Delete short link', `Delete ${link.shortLink} and its click counts? The short link stops working for everyone who has it.`)) return;
      const done = await guarded(() => api('DELETE', `/.hearth/links/${encodeURIComponent(link.suffix)}`));
      if (done === undefined) return;
      toast(`Deleted ${link.shortLink}`, 'ok');
      if (selected === link.suffix) select(null);
      await load(true);
      listTitle.focus();
    }

    function select(suffix) {
      const hadFocus = document.activeElement?.closest?.('#links-rows, #link-stats') != null;
      selected = suffix;
      setParams({ link: suffix });
      render();
      showStats();
      // The row was drawn again: keep a keyboard user's place.
      if (hadFocus) {
        const again = suffix && tbody.querySelector(`tr[data-suffix="${CSS.escape(suffix)}"] button[aria-pressed]`);
        (again || listTitle).focus();
      }
    }

    let days = 30;
    let event = 'CLICK';
    async function showStats() {
      const link = links.find((l) => l.suffix === selected);
      if (!selected || !link) { stats.hidden = true; stats.replaceChildren(); return; }
      stats.hidden = false;
      const daysSelect = h('select', { id: 'stats-days', onchange: () => { days = Number(daysSelect.value); showStats(); } },
        [7, 30, 90, 365].map((n) => h('option', { value: n, text: `Last ${n} days`, selected: n === days })));
      const eventSelect = h('select', { id: 'stats-event', onchange: () => { event = eventSelect.value; showStats(); } },
        EVENTS.map((e) => h('option', { value: e.key, text: e.name, selected: e.key === event })));
      const body = h('div', { class: 'stats-body', 'aria-live': 'polite' }, h('p', { class: 'muted', text: 'Loading…' }));
      const focused = document.activeElement?.id;
      stats.replaceChildren(
        h('div', { class: 'row stats-head' },
          h('h2', { id: 'link-stats-title' }, 'Clicks of ', h('span', { class: 'mono', text: link.shortLink })),
          h('span', { class: 'grow' }),
          h('label', { class: 'field' }, 'Show', eventSelect),
          h('label', { class: 'field' }, 'Period', daysSelect),
          h('button', { type: 'button', class: 'small ghost', onclick: () => select(null) }, 'Close')),
        body);
      if (focused === 'stats-days' || focused === 'stats-event') document.getElementById(focused).focus();
      const answer = await guarded(() => api('GET', `/.hearth/links/${encodeURIComponent(selected)}/stats?days=${days}`));
      if (!answer || stopped || selected !== link.suffix) return;
      const dates = dateRange(answer.from, answer.to);
      const index = new Map(dates.map((d, i) => [d, i]));
      const series = PLATFORMS.map((p, k) => ({ key: p.key, name: p.name, color: palette[k], values: dates.map(() => 0) }));
      for (const row of answer.days) {
        if (row.event !== event || !index.has(row.date)) continue;
        const s = series.find((x) => x.key === row.platform) ?? series[3];
        s.values[index.get(row.date)] += Number(row.count);
      }
      const totals = series.map((s) => s.values.reduce((a, b) => a + b, 0));
      const total = totals.reduce((a, b) => a + b, 0);
      const eventName = EVENTS.find((e) => e.key === event)?.name ?? event;
      const summary = `${eventName} per UTC day from ${answer.from} to ${answer.to}, by platform: `
        + series.map((s, k) => `${s.name} ${totals[k]}`).join(', ') + `; ${total} in all.`;
      const rows = dates.map((d, i) => ({ date: d, values: series.map((s) => s.values[i]) })).filter((r) => r.values.some((v) => v > 0));
      body.replaceChildren(
        h('p', { class: 'muted', id: 'stats-summary', text: summary }),
        stackedBars({ labels: dates.map((d) => d.slice(5)), series, label: summary, id: 'stats-chart' }),
        legend(series.map((s, k) => ({ name: s.name, color: s.color, value: totals[k] })), 'stats-legend'),
        h('div', { class: 'table-wrap' }, h('table', { id: 'stats-table' },
          h('caption', { text: `${eventName} per day (UTC)` }),
          h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'Day' }),
            series.map((s) => h('th', { scope: 'col', class: 'num', text: s.name })), h('th', { scope: 'col', class: 'num', text: 'Total' }))),
          h('tbody', {}, rows.length === 0
            ? h('tr', {}, h('td', { colspan: series.length + 2, class: 'empty', text: `No ${eventName.toLowerCase()} in this period.` }))
            : rows.map((r) => h('tr', { dataset: { date: r.date } }, h('th', { scope: 'row', text: r.date }),
              r.values.map((v, k) => h('td', { class: 'num', dataset: { platform: series[k].key }, text: String(v) })),
              h('td', { class: 'num', text: String(r.values.reduce((a, b) => a + b, 0)) })))),
          h('tfoot', {}, h('tr', {}, h('th', { scope: 'row', text: 'Total' }),
            totals.map((v, k) => h('td', { class: 'num', dataset: { platform: series[k].key }, text: String(v) })),
            h('td', { class: 'num', id: 'stats-total', text: String(total) }))))));
    }

    await load(true);
    if (selected) showStats();
    return () => { stopped = true; };
  },
};
