// The Rules page's editor: a native <textarea> (its editing, undo and keyboard stay the browser's) laid over a <pre>
// that shows the same text highlighted, scrolled with it. Lines can be marked: `err` (a checker error) and `hit` (the
// rule that decided a simulation).
import { h } from '../app.js';

const DB_WORDS = new Set(['auth', 'data', 'newData', 'root', 'now', 'query']);
const STORAGE_WORDS = new Set(['request', 'resource', 'service', 'match', 'allow', 'if', 'function', 'return', 'let',
  'rules_version', 'true', 'false', 'null', 'in', 'is']);
const OPERATORS = /^(===|!==|==|!=|<=|>=|&&|\|\||[!<>+\-*/%?:])/;

/** Splits a database rules expression (the text inside a rule's quotes) into classed pieces. */
function expressionTokens(text, out) {
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    let m;
    if ((m = /^'(?:[^'\\]|\\.)*'?/.exec(rest)) || (m = /^\\"(?:[^"\\]|\\[^"])*(?:\\")?/.exec(rest))) out.push(['str2', m[0]]);
    else if ((m = /^\$[A-Za-z0-9_]+/.exec(rest))) out.push(['var', m[0]]);
    else if ((m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest))) out.push([m[0] === 'auth' ? 'auth' : DB_WORDS.has(m[0]) ? 'kw' : '', m[0]]);
    else if ((m = /^\d+(\.\d+)?/.exec(rest))) out.push(['num', m[0]]);
    else if ((m = OPERATORS.exec(rest))) out.push(['op', m[0]]);
    else m = [rest[0]], out.push(['', rest[0]]);
    i += m[0].length;
  }
}

/** The database rules document (JSON with comments) as [class, text] pieces. */
export function databaseTokens(source) {
  const out = [];
  let i = 0;
  while (i < source.length) {
    const rest = source.slice(i);
    let m;
    if ((m = /^\/\/[^\n]*/.exec(rest)) || (m = /^\/\*[\s\S]*?(\*\/|$)/.exec(rest))) out.push(['com', m[0]]);
    else if ((m = /^"(?:[^"\\\n]|\\.)*"?/.exec(rest))) {
      const isKey = /^\s*:/.test(source.slice(i + m[0].length));
      const inner = m[0].slice(1, m[0].endsWith('"') && m[0].length > 1 ? -1 : undefined);
      if (isKey) out.push([inner.startsWith('.') ? 'rule' : inner.startsWith('$') ? 'var' : 'key', m[0]]);
      else {
        out.push(['str', '"']);
        expressionTokens(inner, out);
        if (m[0].length > 1 && m[0].endsWith('"')) out.push(['str', '"']);
      }
    } else if ((m = /^(true|false|null)\b/.exec(rest))) out.push(['lit', m[0]]);
    else if ((m = /^-?\d[\d.eE+-]*/.exec(rest))) out.push(['num', m[0]]);
    else if ((m = /^[{}[\]:,]/.exec(rest))) out.push(['punct', m[0]]);
    else if ((m = /^[^"/{}[\]:,tfn\d-]+/.exec(rest))) out.push(['', m[0]]);
    else m = [rest[0]], out.push(['', rest[0]]);
    i += m[0].length;
  }
  return out;
}

/** A storage rules file as [class, text] pieces. */
export function storageTokens(source) {
  const out = [];
  let i = 0;
  while (i < source.length) {
    const rest = source.slice(i);
    let m;
    if ((m = /^\/\/[^\n]*/.exec(rest)) || (m = /^\/\*[\s\S]*?(\*\/|$)/.exec(rest))) out.push(['com', m[0]]);
    else if ((m = /^'(?:[^'\\\n]|\\.)*'?/.exec(rest)) || (m = /^"(?:[^"\\\n]|\\.)*"?/.exec(rest))) out.push(['str', m[0]]);
    else if ((m = /^\{[A-Za-z_][A-Za-z0-9_]*(=\*\*)?\}/.exec(rest))) out.push(['var', m[0]]);
    else if ((m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest))) {
      const word = m[0];
      out.push([word === 'auth' ? 'auth' : STORAGE_WORDS.has(word) ? 'kw' : '', word]);
    } else if ((m = /^\d+(\.\d+)?/.exec(rest))) out.push(['num', m[0]]);
    else if ((m = OPERATORS.exec(rest))) out.push(['op', m[0]]);
    else m = [rest[0]], out.push(['', rest[0]]);
    i += m[0].length;
  }
  return out;
}

/**
 * Builds the editor. `kind` is 'database' or 'storage'; `onInput(text)` runs on every edit.
 * Returns { element, textarea, value(), setValue(text), mark({ errors: [line], hit: line }), focusAt(line, column) }.
 */
export function createEditor({ kind, id, label, onInput }) {
  const tokenize = kind === 'storage' ? storageTokens : databaseTokens;
  const code = h('code', { class: 'hl-code' });
  const pre = h('pre', { class: 'hl', 'aria-hidden': 'true' }, code);
  const textarea = h('textarea', { id, class: 'code', spellcheck: 'false', autocapitalize: 'off', autocomplete: 'off',
    wrap: 'off', 'aria-label': label, 'aria-describedby': `${id}-errors` });
  let marks = { errors: new Set(), hit: null };

  function render() {
    const lines = [[]];
    for (const [cls, text] of tokenize(textarea.value)) {
      const parts = text.split('\n');
      parts.forEach((part, n) => {
        if (n > 0) lines.push([]);
        if (part) lines[lines.length - 1].push(cls ? h('span', { class: `t-${cls}` }, part) : part);
      });
    }
    code.replaceChildren(...lines.map((pieces, n) => {
      const classes = ['line'];
      if (marks.errors.has(n + 1)) classes.push('err');
      if (marks.hit === n + 1) classes.push('hit');
      return h('span', { class: classes.join(' '), dataset: { line: String(n + 1) } }, pieces);
    }));
    sync();
  }

  function sync() {
    pre.scrollTop = textarea.scrollTop;
    pre.scrollLeft = textarea.scrollLeft;
  }

  textarea.addEventListener('input', () => {
    marks.hit = null;
    render();
    onInput?.(textarea.value);
  });
  textarea.addEventListener('scroll', sync);

  const element = h('div', { class: 'rules-editor' }, pre, textarea);
  return {
    element,
    textarea,
    value: () => textarea.value,
    setValue(text) {
      textarea.value = text;
      marks = { errors: new Set(), hit: null };
      render();
    },
    mark({ errors, hit } = {}) {
      if (errors !== undefined) marks.errors = new Set(errors);
      if (hit !== undefined) marks.hit = hit;
      render();
    },
    /** Puts the caret at a 1-based line and column and scrolls there. */
    focusAt(line, column) {
      const lines = textarea.value.split('\n');
      let offset = 0;
      for (let n = 0; n < line - 1 && n < lines.length; n++) offset += lines[n].length + 1;
      offset += Math.max(0, Math.min(column - 1, (lines[line - 1] ?? '').length));
      textarea.focus();
      textarea.setSelectionRange(offset, offset);
      const lineHeight = parseFloat(getComputedStyle(textarea).lineHeight) || 20;
      textarea.scrollTop = Math.max(0, (line - 3) * lineHeight);
      sync();
    },
    /** Scrolls so that a 1-based line shows, without moving focus. */
    reveal(line) {
      const lineHeight = parseFloat(getComputedStyle(textarea).lineHeight) || 20;
      const top = (line - 1) * lineHeight;
      if (top < textarea.scrollTop || top > textarea.scrollTop + textarea.clientHeight - 2 * lineHeight) {
        textarea.scrollTop = Math.max(0, top - 2 * lineHeight);
      }
      sync();
    },
  };
}
