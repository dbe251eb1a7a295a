// The console's entry: asks for the token once per browser tab, then shows the view the URL's
// fragment names (#/tasks, #/task/<id>, #/designer, #/cluster).
import {api, token, unauthorized} from './api.js';
import {clear} from './dom.js';
import {clusterPage} from './cluster.js';
import {designer} from './designer.js';
import {taskPage} from './task.js';
import {tasksPage} from './tasks.js';

let current = null;
const view = () => document.getElementById('view');

function route() {
  current?.stop();
  current = null;
  clear(view());
  document.getElementById('notice').textContent = '';
  if (token.get() === null) { askToken(); return; }
  document.getElementById('token-form').hidden = true;
  document.getElementById('forget-token').hidden = false;
  const [, name = 'tasks', ...rest] = (location.hash || '#/tasks').split('/');
  for (const link of document.querySelectorAll('nav a')) link.classList.toggle('active', link.id === `nav-${name}`);
  if (name === 'task' && rest.length) current = taskPage(view(), decodeURIComponent(rest.join('/')));
  else if (name === 'designer') current = designer(view());
  else if (name === 'cluster') current = clusterPage(view());
  else current = tasksPage(view());
}

function askToken(message = '') {
  current?.stop();
  current = null;
  clear(view());
  const form = document.getElementById('token-form');
  form.hidden = false;
  document.getElementById('forget-token').hidden = true;
  document.getElementById('token-error').textContent = message;
  document.getElementById('token-input').focus();
}

document.getElementById('token-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = document.getElementById('token-input');
  token.set(input.value);
  try {
    await api.tasks();
    input.value = '';
    route();
  } catch (error) {
    token.clear();
    askToken(error.status === 401 ? 'That token is not accepted.' : error.message);
  }
});

document.getElementById('forget-token').addEventListener('click', () => { token.clear(); askToken(); });
unauthorized.addEventListener('unauthorized', () => { token.clear(); askToken('The token was refused: type it again.'); });
window.addEventListener('hashchange', route);

// A server without --api-token answers without one: then there is nothing to ask.
if (token.get() === null) {
  api.tasks().then(() => token.set('')).catch(() => {}).finally(route);
} else {
  route();
}
