// Small SVG charts for the console's pages (no dependencies): a stacked bar chart and a line chart.
// Both scale with their container (viewBox), describe themselves in an aria-label, and leave the numbers to a
// text table next to them, which the page builds.
import { h } from '../app.js';

/** Colours that stay apart for the common kinds of colour blindness (Okabe–Ito). */
export const palette = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#7a7a7a'];

const svg = (tag, attrs = {}, ...children) => h(`svg:${tag}`, attrs, ...children);

/** A round upper bound for an axis: 1, 2, 5 × 10^n at or above `max` (at least 1). */
export function niceMax(max) {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

function shortNumber(n) {
  if (n >= 1e6) return `${+(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${+(n / 1e3).toFixed(1)}k`;
  return `${+n.toFixed(2)}`;
}

function frame(width, height, label, id) {
  return svg('svg', { viewBox: `0 0 ${width} ${height}`, width: '100%', role: 'img', 'aria-label': label, id,
    class: 'chart', preserveAspectRatio: 'xMidYMid meet', focusable: 'false' });
}

function yAxis(root, { left, top, plotWidth, plotHeight, max }) {
  for (let i = 0; i <= 4; i++) {
    const value = (max * i) / 4;
    const y = top + plotHeight - (plotHeight * i) / 4;
    root.append(svg('line', { x1: left, x2: left + plotWidth, y1: y, y2: y, stroke: '#d9dce1', 'stroke-width': 1 }));
    root.append(svg('text', { x: left - 6, y: y + 4, 'text-anchor': 'end', 'font-size': 11, fill: '#5f6368' }, shortNumber(value)));
  }
}

/**
 * A stacked bar chart: one bar per category (e.g. a day), one coloured segment per series.
 * series: [{ name, color?, values: [number per category] }]; labels: the categories' names (every few is drawn).
 * Each segment has a <title> with its numbers, for a mouse; the page shows the same numbers as a table.
 */
export function stackedBars({ labels, series, label, id, width = 720, height = 260 }) {
  const left = 44; const top = 12; const bottom = 40; const right = 8;
  const plotWidth = width - left - right; const plotHeight = height - top - bottom;
  const totals = labels.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] || 0), 0));
  // Counts: whole numbers on the four grid lines.
  const max = Math.max(4, Math.ceil(niceMax(Math.max(0, ...totals)) / 4) * 4);
  const root = frame(width, height, label, id);
  yAxis(root, { left, top, plotWidth, plotHeight, max });
  const slot = plotWidth / Math.max(1, labels.length);
  const barWidth = Math.max(2, Math.min(40, slot * 0.7));
  const every = Math.max(1, Math.ceil(labels.length / 8));
  labels.forEach((name, i) => {
    const x = left + slot * i + (slot - barWidth) / 2;
    let y = top + plotHeight;
    series.forEach((s, k) => {
      const v = s.values[i] || 0;
      if (v <= 0) return;
      const barHeight = (plotHeight * v) / max;
      y -= barHeight;
      root.append(svg('rect', { x, y, width: barWidth, height: barHeight, fill: s.color ?? palette[k % palette.length],
        class: 'bar', 'data-series': s.name, 'data-label': name, 'data-value': v },
      svg('title', {}, `${name} · ${s.name}: ${v}`)));
    });
    if (i % every === 0 || i === labels.length - 1) {
      root.append(svg('text', { x: left + slot * i + slot / 2, y: height - bottom + 16, 'text-anchor': 'middle', 'font-size': 11,
        fill: '#5f6368' }, name));
    }
  });
  root.append(svg('line', { x1: left, x2: left + plotWidth, y1: top + plotHeight, y2: top + plotHeight, stroke: '#5f6368' }));
  return root;
}

/**
 * A line chart over time: points [{ t (ms), [key]: number }], series [{ key, name, color? }].
 * The x axis runs from `from` to `to` (ms; default: the points' span) with local clock times.
 */
export function lineChart({ points, series, label, id, from, to, width = 720, height = 240 }) {
  const left = 44; const top = 12; const bottom = 28; const right = 10;
  const plotWidth = width - left - right; const plotHeight = height - top - bottom;
  const start = from ?? (points.length ? points[0].t : 0);
  const end = Math.max(start + 1, to ?? (points.length ? points[points.length - 1].t : 1));
  const max = niceMax(Math.max(0, ...points.flatMap((p) => series.map((s) => p[s.key] || 0))));
  const root = frame(width, height, label, id);
  yAxis(root, { left, top, plotWidth, plotHeight, max });
  const x = (t) => left + (plotWidth * (t - start)) / (end - start);
  const y = (v) => top + plotHeight - (plotHeight * v) / max;
  for (let i = 0; i <= 4; i++) {
    const t = start + ((end - start) * i) / 4;
    const time = new Date(t).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    root.append(svg('text', { x: x(t), y: height - 8, 'text-anchor': i === 0 ? 'start' : i === 4 ? 'end' : 'middle', 'font-size': 11,
      fill: '#5f6368' }, time));
  }
  root.append(svg('line', { x1: left, x2: left + plotWidth, y1: top + plotHeight, y2: top + plotHeight, stroke: '#5f6368' }));
  series.forEach((s, k) => {
    const visible = points.filter((p) => p.t >= start && p.t <= end);
    if (!visible.length) return;
    const d = visible.map((p, i) => `${i ? 'L' : 'M'}${x(p.t).toFixed(1)},${y(p[s.key] || 0).toFixed(1)}`).join(' ');
    const color = s.color ?? palette[k % palette.length];
    root.append(svg('path', { d, fill: 'none', stroke: color, 'stroke-width': 2, 'stroke-linejoin': 'round', class: 'line',
      'data-series': s.key }));
    // The newest point as a dot: a single point draws no line.
    const last = visible[visible.length - 1];
    root.append(svg('circle', { cx: x(last.t).toFixed(1), cy: y(last[s.key] || 0).toFixed(1), r: 3, fill: color }));
  });
  return root;
}

/** A legend: a list of coloured swatches with names (and optional values). items: [{ name, color, value? }]. */
export function legend(items, id) {
  return h('ul', { class: 'chart-legend', id }, items.map((item) =>
    h('li', { dataset: { series: item.name } },
      svg('svg', { viewBox: '0 0 12 12', width: 12, height: 12, 'aria-hidden': 'true' },
        svg('rect', { x: 0, y: 0, width: 12, height: 12, rx: 2, fill: item.color })),
      h('span', { text: item.value === undefined ? item.name : `${item.name}: ${item.value}` }))));
}
