// Builds elements. Text always goes in as text (a text node or textContent), never as HTML:
// task ids, text regions and error messages come from documents anyone with the token wrote.

/** el('div', {class: 'x', onclick: f}, 'text', child) */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') node.addEventListener(name.slice(2), value);
    else if (name === 'dataset') Object.assign(node.dataset, value);
    else if (name === 'value') node.value = value;
    else if (value === true) node.setAttribute(name, '');
    else node.setAttribute(name, String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

/** Seconds as "1h 02m", "3m 05s" or "12s". */
export function duration(seconds) {
  const s = Math.floor(seconds || 0);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  if (h) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m) return `${m}m ${String(r).padStart(2, '0')}s`;
  return `${r}s`;
}

export function bytes(n) {
  if (!n) return '0 B';
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  const i = Math.min(units.length - 1, Math.floor(Math.log10(n) / 3));
  return `${(n / 1000 ** i).toFixed(i ? 1 : 0)} ${units[i]}`;
}

/** A state as a coloured badge; the class is one of a fixed set, never the text itself. */
export function badge(state) {
  const known = ['starting', 'running', 'stopping', 'stopped', 'failed', 'waiting', 'live', 'ended',
    'connecting', 'reconnecting', 'ready', 'draining', 'lost'];
  return el('span', {class: `badge ${known.includes(state) ? 'state-' + state : ''}`}, state);
}
