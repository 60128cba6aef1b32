import { h } from '../app.js';

export default {
  title: 'Data',
  mount(root) {
    root.append(h('h1', { id: 'page-title', text: 'Data' }), h('p', { class: 'muted', text: 'Not built yet.' }));
  },
};
