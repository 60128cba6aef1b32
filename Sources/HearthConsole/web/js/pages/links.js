import { h } from '../app.js';

export default {
  title: 'Links',
  mount(root) {
    root.append(h('h1', { id: 'page-title', text: 'Links' }), h('p', { class: 'muted', text: 'Not built yet.' }));
  },
};
