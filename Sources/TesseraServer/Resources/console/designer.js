// The designer of new tasks: the document as a form and as JSON side by side, one object behind
// both. Every change is checked by the server (POST /v1/validate: each issue next to its field)
// and drawn by its renderer (POST /v1/preview) a moment after typing stops; "Start" POSTs it.
import {api} from './api.js';
import {clear, el} from './dom.js';
import {clearErrors, showErrors} from './fielderrors.js';

const TEMPLATES = ['grid', 'float', 'screen-share', 'pk', 'speaker'];
const CHECK_DELAY_MS = 400;

export function starterDocument() {
  return {
    taskId: `task-${Math.random().toString(36).slice(2, 8)}`,
    inputs: [{id: 'camera', url: 'camera.mp4', loop: true}],
    encoder: {video: {width: 1280, height: 720, fps: 30, bitrateKbps: 2500}},
    layout: {template: 'grid', backgroundColor: '#101010'},
    outputs: [{url: 'rtmp://127.0.0.1/live/stream'}],
  };
}

export function designer(view) {
  let doc = starterDocument();
  let timer = null;
  let previewURL = null;
  let generation = 0;
  const form = el('form', {id: 'designer-form', class: 'designer-form'});
  const json = el('textarea', {id: 'designer-json', spellcheck: 'false', 'aria-label': 'task document (JSON)', dataset: {path: ''}});
  const jsonError = el('p', {class: 'error', id: 'json-error'});
  const verdict = el('div', {id: 'verdict'});
  const general = el('div', {class: 'general-errors', id: 'designer-errors'});
  const preview = el('img', {id: 'designer-preview', class: 'preview no-picture', alt: 'layout preview'});
  const start = el('button', {type: 'button', id: 'start-task', class: 'primary'}, 'Start task');
  const examples = el('select', {id: 'examples', 'aria-label': 'examples'}, el('option', {value: ''}, 'Load an example…'));
  const templateButtons = TEMPLATES.map((name) => el('button', {type: 'button', class: 'small', dataset: {template: name},
    onclick: () => { doc.layout = {...(doc.layout || {}), template: name}; delete doc.layout.regions; changed(true); }}, name));

  view.append(el('section', {class: 'designer'},
    el('div', {class: 'toolbar'}, el('h1', {}, 'New task'), examples, el('span', {class: 'muted'}, 'Template:'),
      templateButtons, start),
    general,
    el('div', {class: 'designer-main'},
      el('div', {class: 'designer-column'}, form),
      el('div', {class: 'designer-column'}, json, jsonError),
      el('div', {class: 'designer-column'}, verdict, preview))));

  api.examples().then((names) => {
    for (const name of names) examples.append(el('option', {value: name}, name.replace(/\.json$/, '')));
  }).catch(() => {});
  examples.addEventListener('change', async () => {
    if (!examples.value) return;
    try { doc = await api.example(examples.value); changed(true); } catch (error) { showErrors(view, general, error); }
    examples.value = '';
  });
  json.addEventListener('input', () => {
    try {
      doc = JSON.parse(json.value);
      jsonError.textContent = '';
      drawForm();
      schedule();
    } catch (error) {
      jsonError.textContent = `JSON: ${error.message}`;
    }
  });
  start.addEventListener('click', async () => {
    clearErrors(view);
    clear(general);
    try {
      const status = await api.create(json.value);
      location.hash = `#/task/${encodeURIComponent(status.taskId)}`;
    } catch (error) {
      showErrors(view, general, error);
    }
  });

  /** The form or the document changed: redraw what shows it, then check it. */
  function changed(redrawForm) {
    json.value = JSON.stringify(doc, null, 2);
    if (redrawForm) drawForm();
    schedule();
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(askServer, CHECK_DELAY_MS);
  }

  /** Validates and draws the document as it is now; answers to older documents are dropped. */
  async function askServer() {
    const mine = ++generation;
    const documentText = json.value;
    try {
      const summary = await api.validate(documentText);
      if (mine !== generation) return;
      clearErrors(view);
      clear(general);
      clear(verdict).append(el('p', {class: 'ok', id: 'valid'}, `Valid: ${summary.inputs.length} input(s), `
        + `${summary.video ? `${summary.video.width}×${summary.video.height} at ${summary.video.fps} fps` : 'audio only'}, `
        + `${summary.layout ? summary.layout.regions.length : 0} region(s), ${summary.outputs} output(s).`));
    } catch (error) {
      if (mine !== generation) return;
      clear(verdict).append(el('p', {class: 'error', id: 'invalid'}, `${error.issues.length || 1} problem(s)`));
      showErrors(view, general, error);
    }
    try {
      const blob = await api.preview(documentText);
      if (mine !== generation) return;
      if (previewURL) URL.revokeObjectURL(previewURL);
      previewURL = URL.createObjectURL(blob);
      preview.src = previewURL;
      preview.classList.remove('no-picture');
    } catch {
      preview.classList.add('no-picture');
    }
  }

  // MARK: the form, bound field by field to the document

  function drawForm() {
    clear(form);
    const video = doc.encoder && doc.encoder.video;
    form.append(
      text('Task id', 'taskId'),
      el('fieldset', {}, el('legend', {}, 'Inputs'),
        (doc.inputs || []).map((input, i) => el('div', {class: 'row'},
          text('id', `inputs[${i}].id`), text('url', `inputs[${i}].url`), checkbox('loop', `inputs[${i}].loop`),
          el('button', {type: 'button', class: 'small', onclick: () => { doc.inputs.splice(i, 1); changed(true); }}, 'Remove'))),
        el('button', {type: 'button', class: 'small', id: 'add-input', onclick: () => {
          doc.inputs = [...(doc.inputs || []), {id: `input${(doc.inputs || []).length + 1}`, url: ''}];
          changed(true);
        }}, 'Add input')),
      el('fieldset', {}, el('legend', {}, 'Picture'),
        video ? [num('width', 'encoder.video.width'), num('height', 'encoder.video.height'), num('fps', 'encoder.video.fps'),
          num('kb/s', 'encoder.video.bitrateKbps')] : el('p', {class: 'muted'}, 'Audio only (no encoder.video).'),
        text('background', 'layout.backgroundColor'),
        el('label', {}, 'template', templateSelect())),
      el('fieldset', {}, el('legend', {}, 'Outputs'),
        (doc.outputs || []).map((_, i) => el('div', {class: 'row'}, text('url', `outputs[${i}].url`),
          el('button', {type: 'button', class: 'small', onclick: () => { doc.outputs.splice(i, 1); changed(true); }}, 'Remove'))),
        el('button', {type: 'button', class: 'small', id: 'add-output', onclick: () => {
          doc.outputs = [...(doc.outputs || []), {url: ''}];
          changed(true);
        }}, 'Add output')));
  }

  function templateSelect() {
    const current = doc.layout && doc.layout.template;
    const select = el('select', {dataset: {path: 'layout.template'}},
      el('option', {value: ''}, doc.layout && doc.layout.regions ? 'own regions' : 'none'),
      TEMPLATES.map((name) => el('option', {value: name, selected: current === name}, name)));
    select.addEventListener('change', () => {
      doc.layout = doc.layout || {};
      if (select.value) doc.layout.template = select.value; else delete doc.layout.template;
      changed(false);
    });
    return select;
  }

  function text(label, path) {
    const input = el('input', {value: get(doc, path) ?? '', dataset: {path}});
    input.addEventListener('input', () => { set(doc, path, input.value); changed(false); });
    return el('label', {}, label, input);
  }

  function num(label, path) {
    const input = el('input', {value: get(doc, path) ?? '', inputmode: 'numeric', dataset: {path}});
    input.addEventListener('input', () => {
      const value = input.value.trim();
      set(doc, path, value !== '' && !Number.isNaN(Number(value)) ? Number(value) : value);
      changed(false);
    });
    return el('label', {}, label, input);
  }

  function checkbox(label, path) {
    const input = el('input', {type: 'checkbox', checked: Boolean(get(doc, path)), dataset: {path}});
    input.addEventListener('change', () => { set(doc, path, input.checked); changed(false); });
    return el('label', {class: 'inline'}, input, label);
  }

  changed(true);
  return {stop() { clearTimeout(timer); if (previewURL) URL.revokeObjectURL(previewURL); }};
}

/** `inputs[0].url` → ['inputs', 0, 'url'] */
function steps(path) {
  return path.split(/\.|\[|\]/).filter(Boolean).map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

function get(object, path) {
  return steps(path).reduce((node, step) => (node == null ? undefined : node[step]), object);
}

function set(object, path, value) {
  const parts = steps(path);
  let node = object;
  parts.slice(0, -1).forEach((step, i) => {
    if (node[step] == null || typeof node[step] !== 'object') node[step] = typeof parts[i + 1] === 'number' ? [] : {};
    node = node[step];
  });
  node[parts[parts.length - 1]] = value;
}
