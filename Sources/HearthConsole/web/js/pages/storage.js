import { h } from '../app.js';

export default {
  title: 'Storage',
  mount(root) {
    root.append(h('h1', { id: 'page-title', text: 'Storage' }), h('p', { class: 'muted', text: 'Not built yet.' }));
  },
};
