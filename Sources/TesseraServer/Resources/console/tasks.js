// Tasks at a glance: every task in the cluster with a live thumbnail, its inputs (state, audio
// level, speaking) and outputs, filtered by state and node.
import {api} from './api.js';
import {badge, bytes, clear, duration, el} from './dom.js';
import {SnapshotFeed} from './snapshots.js';

const POLL_MS = 2000;

export function tasksPage(view) {
  const stateFilter = el('select', {id: 'filter-state', 'aria-label': 'state'},
    el('option', {value: ''}, 'every state'),
    ['starting', 'running', 'stopping', 'stopped', 'failed'].map((s) => el('option', {value: s}, s)));
  const nodeFilter = el('select', {id: 'filter-node', 'aria-label': 'node'}, el('option', {value: ''}, 'every node'));
  const list = el('div', {class: 'task-grid', id: 'task-list'});
  const empty = el('p', {class: 'muted', hidden: true}, 'No tasks. ', el('a', {href: '#/designer'}, 'Start one'), '.');
  view.append(el('section', {},
    el('div', {class: 'toolbar'}, el('h1', {}, 'Tasks'), stateFilter, nodeFilter), empty, list));

  const cards = new Map(); // taskId → {card, info, feed}
  let timer = null;
  let stopped = false;
  stateFilter.addEventListener('change', () => refresh());
  nodeFilter.addEventListener('change', () => refresh());

  async function refresh() {
    clearTimeout(timer);
    let tasks = [];
    try {
      tasks = await api.tasks();
      document.getElementById('notice').textContent = '';
    } catch (error) {
      document.getElementById('notice').textContent = `Cannot list tasks: ${error.message}`;
    }
    if (stopped) return;
    updateNodeFilter(nodeFilter, tasks);
    const shown = tasks.filter((t) => (!stateFilter.value || t.state === stateFilter.value)
      && (!nodeFilter.value || t.node === nodeFilter.value));
    const ids = new Set(shown.map((t) => t.taskId));
    for (const [id, entry] of cards) {
      if (!ids.has(id)) { entry.feed?.stop(); entry.card.remove(); cards.delete(id); }
    }
    for (const status of shown) {
      let entry = cards.get(status.taskId);
      if (!entry) {
        entry = makeCard(status);
        cards.set(status.taskId, entry);
        list.append(entry.card);
      }
      const live = status.state === 'running' || status.state === 'starting';
      if (live && !entry.feed) entry.feed = new SnapshotFeed(status.taskId, entry.img, 1500);
      if (!live && entry.feed) { entry.feed.stop(); entry.feed = null; }
      clear(entry.info).append(...summary(status));
    }
    empty.hidden = shown.length > 0;
    timer = setTimeout(refresh, POLL_MS);
  }

  refresh();
  return {stop() { stopped = true; clearTimeout(timer); for (const e of cards.values()) e.feed?.stop(); }};
}

function makeCard(status) {
  const img = el('img', {class: 'thumb no-picture', alt: 'no picture yet', width: 320, height: 180});
  const link = el('a', {href: `#/task/${encodeURIComponent(status.taskId)}`, class: 'task-id'}, status.taskId);
  const info = el('div', {class: 'task-info'});
  const card = el('article', {class: 'task-card', dataset: {taskId: status.taskId}},
    el('a', {href: link.getAttribute('href'), tabindex: '-1'}, img), el('h2', {}, link), info);
  return {card, info, img, feed: null};
}

function summary(s) {
  const parts = [
    el('p', {class: 'facts'}, badge(s.state), ` node ${s.node || '—'} · up ${duration(s.uptimeSeconds)} · `
      + `${(s.fps || 0).toFixed(1)} fps · ${Math.round(s.bitrateKbps || 0)} kb/s · late ${s.lateFrames || 0}`),
  ];
  if (s.reason) parts.push(el('p', {class: 'reason error'}, `Failed: ${s.reason}`));
  parts.push(el('ul', {class: 'inputs'}, (s.inputs || []).map(inputRow)));
  parts.push(el('ul', {class: 'outputs'}, (s.outputs || []).map(outputRow)));
  return parts;
}

export function inputRow(input) {
  const level = Math.max(0, Math.min(100, input.audioLevel || 0));
  return el('li', {class: 'input-row', dataset: {input: input.id}},
    badge(input.state), ' ', el('span', {class: 'name'}, input.id), ' ',
    el('meter', {min: 0, max: 100, value: level, title: `audio level ${level}`}),
    input.speaking ? el('span', {class: 'speaking', title: 'speaking'}, ' ● speaking') : null,
    input.lastError ? el('span', {class: 'error'}, ` ${input.lastError}`) : null);
}

export function outputRow(output) {
  return el('li', {class: 'output-row'},
    badge(output.state), ' ', el('span', {class: 'name'}, output.url),
    ` · ${bytes(output.bytes)} · reconnects ${output.reconnects || 0}`,
    output.files && output.files.length ? ` · files: ${output.files.join(', ')}` : '',
    output.lastError ? el('span', {class: 'error'}, ` ${output.lastError}`) : null);
}

function updateNodeFilter(select, tasks) {
  const nodes = [...new Set(tasks.map((t) => t.node).filter(Boolean))].sort();
  const have = [...select.options].slice(1).map((o) => o.value);
  if (have.join('\n') === nodes.join('\n')) return;
  const chosen = select.value;
  while (select.options.length > 1) select.remove(1);
  for (const node of nodes) select.append(el('option', {value: node}, node));
  select.value = nodes.includes(chosen) ? chosen : '';
}
