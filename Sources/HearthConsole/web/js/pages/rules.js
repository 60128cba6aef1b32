import { h } from '../app.js';

export default {
  title: 'Rules',
  mount(root) {
    root.append(h('h1', { id: 'page-title', text: 'Rules' }), h('p', { class: 'muted', text: 'Not built yet.' }));
  },
};
