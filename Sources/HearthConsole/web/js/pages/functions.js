import { h } from '../app.js';

export default {
  title: 'Functions',
  mount(root) {
    root.append(h('h1', { id: 'page-title', text: 'Functions' }), h('p', { class: 'muted', text: 'Not built yet.' }));
  },
};
