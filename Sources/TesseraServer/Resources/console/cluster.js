// The cluster: each node's state and load against its --max-tasks, and the tasks it runs. A
// drained or lost node's tasks are seen moving as the page refreshes.
import {api} from './api.js';
import {badge, clear, el} from './dom.js';

export function clusterPage(view) {
  const body = el('div', {id: 'cluster'});
  view.append(el('section', {}, el('h1', {}, 'Cluster'), body));
  let timer = null;
  let stopped = false;

  async function refresh() {
    clearTimeout(timer);
    try {
      const [nodes, tasks] = await Promise.all([api.nodes(), api.tasks()]);
      if (stopped) return;
      const live = tasks.filter((t) => !['stopped', 'failed'].includes(t.state));
      const names = new Set(nodes.map((n) => n.nodeId));
      const unplaced = live.filter((t) => !t.node || !names.has(t.node));
      clear(body).append(el('table', {class: 'nodes'},
        el('thead', {}, el('tr', {}, ['node', 'state', 'tasks / max', 'running here', 'last heartbeat'].map((h) => el('th', {}, h)))),
        el('tbody', {}, nodes.map((node) => {
          const here = live.filter((t) => t.node === node.nodeId);
          return el('tr', {dataset: {node: node.nodeId}},
            el('td', {}, node.nodeId, node.this ? el('span', {class: 'muted'}, ' (this node)') : ''),
            el('td', {}, badge(node.state)),
            el('td', {}, el('meter', {min: 0, max: node.maxTasks, value: node.running}), ` ${node.running} / ${node.maxTasks}`),
            el('td', {}, here.length ? here.map((t) => el('a', {href: `#/task/${encodeURIComponent(t.taskId)}`, class: 'chip'}, t.taskId)) : '—'),
            el('td', {}, new Date(node.heartbeatAt).toLocaleTimeString()));
        }))),
      unplaced.length ? el('p', {}, 'Waiting for a node: ',
        unplaced.map((t) => el('a', {href: `#/task/${encodeURIComponent(t.taskId)}`, class: 'chip'}, t.taskId))) : '');
    } catch (error) {
      clear(body).append(el('p', {class: 'error'}, `Cannot read the cluster: ${error.message}`));
    }
    if (!stopped) timer = setTimeout(refresh, 2000);
  }

  refresh();
  return {stop() { stopped = true; clearTimeout(timer); }};
}
