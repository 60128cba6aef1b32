import { h } from '../app.js';

export default {
  title: 'Overview',
  mount(root) {
    root.append(h('h1', { id: 'page-title', text: 'Overview' }), h('p', { class: 'muted', text: 'Not built yet.' }));
  },
};
