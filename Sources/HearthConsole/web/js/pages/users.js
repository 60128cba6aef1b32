import { h } from '../app.js';

export default {
  title: 'Users',
  mount(root) {
    root.append(h('h1', { id: 'page-title', text: 'Users' }), h('p', { class: 'muted', text: 'Not built yet.' }));
  },
};
