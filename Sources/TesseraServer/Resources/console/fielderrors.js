// Puts each refusal of the API next to the control that caused it: controls carry the field
// path they edit (`data-path="layout.regions[1].alpha"`); an issue whose path no control has
// goes to the form's general message, path included.
import {clear, el} from './dom.js';

export function clearErrors(root) {
  for (const node of root.querySelectorAll('.field-error')) node.remove();
  for (const node of root.querySelectorAll('.invalid')) node.classList.remove('invalid');
}

/** Shows `error.issues` (or the error's own message) under `root`; `general` gets the rest. */
export function showErrors(root, general, error) {
  clearErrors(root);
  clear(general);
  const issues = error.issues && error.issues.length ? error.issues : [{path: error.path, message: error.message}];
  for (const issue of issues) {
    const text = issue.path ? `${issue.path}: ${issue.message}` : issue.message;
    const control = issue.path ? findControl(root, issue.path) : null;
    if (control) {
      control.classList.add('invalid');
      control.insertAdjacentElement('afterend', el('span', {class: 'field-error', role: 'alert'}, text));
    } else {
      general.append(el('div', {class: 'error', role: 'alert'}, `${error.code || 'Error'} — ${text}`));
    }
  }
}

/** The control for `path`, or for the closest field that contains it (`inputs[0]` for `inputs[0].url.host`). */
function findControl(root, path) {
  let candidate = path;
  while (candidate) {
    for (const node of root.querySelectorAll('[data-path]')) {
      if (node.dataset.path === candidate) return node;
    }
    const cut = Math.max(candidate.lastIndexOf('.'), candidate.lastIndexOf('['));
    candidate = cut > 0 ? candidate.slice(0, cut) : '';
  }
  return null;
}
