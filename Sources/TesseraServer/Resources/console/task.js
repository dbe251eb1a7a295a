// A task's page: the live picture large with its layout drawn over it. Drag a region to move
// it, drag its corner to resize it, or edit it in the side panel; each change is one PATCH with
// the next `sequence`, so an edit made meanwhile by someone else is refused (409) and shown
// with a reload instead of being overwritten.
import {api} from './api.js';
import {badge, clear, duration, el} from './dom.js';
import {clearErrors, showErrors} from './fielderrors.js';
import {documentRegion, editedLayout, placeRegion} from './layout-edit.js';
import {SnapshotFeed} from './snapshots.js';
import {inputRow, outputRow} from './tasks.js';

export function taskPage(view, taskId) {
  const state = {doc: null, summary: null, sequence: null, selected: null, status: null};
  const img = el('img', {class: 'picture no-picture', id: 'picture', alt: 'no picture yet'});
  const overlay = el('div', {class: 'overlay', id: 'overlay'});
  const stage = el('div', {class: 'stage'}, img, overlay);
  const header = el('div', {class: 'task-header'});
  const stale = el('div', {class: 'stale', id: 'stale', hidden: true});
  const message = el('div', {class: 'general-errors', id: 'task-errors'});
  const panel = el('div', {class: 'panel', id: 'region-panel'});
  const facts = el('div', {class: 'task-facts'});
  const outputs = el('section', {class: 'outputs-editor'});
  const sei = seiForm(taskId, message);
  view.append(el('section', {class: 'task-page'}, header, stale, message,
    el('div', {class: 'task-main'}, stage, el('aside', {}, panel, outputs, sei)), facts));

  const feed = new SnapshotFeed(taskId, img, 1000);
  let timer = null;
  let stopped = false;

  async function loadDocument() {
    try {
      const answer = await api.document(taskId);
      state.doc = answer.document;
      state.summary = answer.layout;
      state.sequence = answer.sequence ?? state.sequence;
      stale.hidden = true;
      drawOverlay();
      drawPanel();
      drawOutputs();
    } catch (error) {
      showErrors(panel, message, error);
    }
  }

  async function pollStatus() {
    clearTimeout(timer);
    try {
      state.status = await api.status(taskId);
      if (state.status.sequence != null && state.sequence != null && state.status.sequence > state.sequence) {
        showStale(`This task was changed elsewhere (sequence ${state.status.sequence}).`);
      }
      drawHeader();
    } catch (error) {
      clear(header).append(el('h1', {}, taskId), el('p', {class: 'error'}, error.message));
    }
    if (!stopped) timer = setTimeout(pollStatus, 2000);
  }

  function drawHeader() {
    const s = state.status;
    const stop = el('button', {type: 'button', id: 'stop-task', class: 'danger'}, 'Stop task');
    stop.addEventListener('click', async () => {
      if (stop.dataset.armed !== 'yes') { stop.dataset.armed = 'yes'; stop.textContent = 'Really stop?'; return; }
      try { await api.stop(taskId); pollStatus(); } catch (error) { showErrors(view, message, error); }
    });
    clear(header).append(el('h1', {}, el('span', {id: 'task-title'}, s.taskId), ' ', badge(s.state)),
      el('p', {class: 'facts'}, `node ${s.node || '—'} · up ${duration(s.uptimeSeconds)} · ${(s.fps || 0).toFixed(1)} fps · `
        + `${Math.round(s.bitrateKbps || 0)} kb/s · late frames ${s.lateFrames || 0} · sequence ${s.sequence ?? '—'}`),
      s.reason ? el('p', {class: 'error reason'}, `Failed: ${s.reason}`) : '',
      s.state === 'running' || s.state === 'starting' ? stop : '');
    clear(facts).append(el('h2', {}, 'Inputs'), el('ul', {class: 'inputs'}, (s.inputs || []).map(inputRow)),
      el('h2', {}, 'Outputs'), el('ul', {class: 'outputs'}, (s.outputs || []).map(outputRow)));
  }

  function showStale(text) {
    clear(stale).append(text, ' Your view is out of date. ',
      el('button', {type: 'button', id: 'reload', onclick: () => loadDocument()}, 'Reload'));
    stale.hidden = false;
  }

  // MARK: the overlay

  function drawOverlay() {
    clear(overlay);
    const summary = state.summary;
    if (!summary) return;
    stage.style.aspectRatio = `${summary.canvasWidth} / ${summary.canvasHeight}`;
    summary.regions.forEach((drawn, order) => {
      const box = el('div', {class: 'region', tabindex: 0, dataset: {order: String(order), label: drawn.label}},
        el('span', {class: 'region-label'}, `${order + 1}. ${drawn.label} · z${zOrderOf(drawn)}`),
        el('span', {class: 'handle', title: 'drag to resize'}));
      placeBox(box, drawn);
      if (state.selected === order) box.classList.add('selected');
      box.addEventListener('pointerdown', (event) => startDrag(event, box, drawn, order));
      overlay.append(box);
    });
  }

  function zOrderOf(drawn) {
    const region = documentRegion(state.doc, state.summary, drawn);
    return region && region.zOrder !== undefined ? region.zOrder : 0;
  }

  function placeBox(box, rect) {
    const {canvasWidth: w, canvasHeight: h} = state.summary;
    Object.assign(box.style, {left: `${100 * rect.x / w}%`, top: `${100 * rect.y / h}%`,
      width: `${100 * rect.width / w}%`, height: `${100 * rect.height / h}%`});
  }

  function startDrag(event, box, drawn, order) {
    event.preventDefault();
    state.selected = order;
    for (const other of overlay.children) other.classList.toggle('selected', other === box);
    drawPanel();
    const resizing = event.target.classList.contains('handle');
    const scale = state.summary.canvasWidth / overlay.clientWidth;
    const start = {x: event.clientX, y: event.clientY};
    const rect = {x: drawn.x, y: drawn.y, width: drawn.width, height: drawn.height};
    box.setPointerCapture(event.pointerId);
    const move = (e) => {
      const dx = (e.clientX - start.x) * scale, dy = (e.clientY - start.y) * scale;
      const next = resizing
        ? {...rect, width: Math.max(16, rect.width + dx), height: Math.max(16, rect.height + dy)}
        : {...rect, x: rect.x + dx, y: rect.y + dy};
      placeBox(box, next);
      box.dataset.pending = JSON.stringify(next);
    };
    const up = () => {
      box.removeEventListener('pointermove', move);
      box.removeEventListener('pointerup', up);
      if (!box.dataset.pending) return;
      const next = JSON.parse(box.dataset.pending);
      delete box.dataset.pending;
      send(drawn, (region) => placeRegion(region, next));
    };
    box.addEventListener('pointermove', move);
    box.addEventListener('pointerup', up);
  }

  // MARK: sending

  /** One PATCH of the layout with `change` applied to `drawn`'s region; reloads on success. */
  async function send(drawn, change) {
    const {layout} = editedLayout(state.doc, state.summary, drawn, change);
    const sequence = (state.sequence ?? 0) + 1;
    clearErrors(view);
    clear(message);
    try {
      const status = await api.update(taskId, {layout, sequence});
      state.sequence = status.sequence ?? sequence;
      message.append(el('div', {class: 'ok', id: 'saved'}, `Saved (sequence ${state.sequence}).`));
      await loadDocument();
    } catch (error) {
      if (error.code === 'StaleSequence') showStale(`Someone else changed this task: ${error.message}.`);
      showErrors(view, message, error);
      drawOverlay(); // back to what the server draws
    }
  }

  // MARK: the region panel

  function drawPanel() {
    clear(panel);
    const summary = state.summary;
    if (!summary) { panel.append(el('p', {class: 'muted'}, 'This task has no picture to lay out.')); return; }
    const drawn = summary.regions[state.selected];
    if (!drawn) { panel.append(el('p', {class: 'muted'}, 'Select a region in the picture to edit it, or drag it.')); return; }
    const region = documentRegion(state.doc, summary, drawn) || {};
    const index = drawn.documentIndex;
    const base = `layout.regions[${index}]`;
    const field = (label, key, value, attributes = {}) => el('label', {}, label,
      el('input', {name: key, value: value ?? '', dataset: {path: `${base}.${key}`}, ...attributes}));
    const mode = el('select', {name: 'renderMode', dataset: {path: `${base}.renderMode`}},
      ['crop', 'fit', 'stretch'].map((m) => el('option', {value: m, selected: drawn.renderMode === m}, m)));
    const text = region.text !== undefined
      ? el('label', {}, 'text', el('textarea', {name: 'text', rows: 2, dataset: {path: `${base}.text`}}, region.text))
      : null;
    const form = el('form', {id: 'region-form'},
      el('h2', {}, `Region ${state.selected + 1}: ${drawn.label}`),
      field('x', 'x', drawn.x, {inputmode: 'numeric'}), field('y', 'y', drawn.y, {inputmode: 'numeric'}),
      field('width', 'width', drawn.width, {inputmode: 'numeric'}), field('height', 'height', drawn.height, {inputmode: 'numeric'}),
      field('z-order', 'zOrder', region.zOrder ?? 0, {inputmode: 'numeric'}),
      field('alpha (0–1)', 'alpha', drawn.alpha, {inputmode: 'decimal'}),
      el('label', {}, 'render mode', mode), text,
      el('button', {type: 'submit', id: 'apply-region'}, 'Apply'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const values = Object.fromEntries(new FormData(form));
      send(drawn, (target) => {
        placeRegion(target, {x: number(values.x), y: number(values.y), width: number(values.width), height: number(values.height)});
        // The server is the judge of every value: what is not a number goes as typed, and is named back.
        target.zOrder = number(values.zOrder);
        target.alpha = number(values.alpha);
        target.renderMode = values.renderMode;
        if (values.text !== undefined) target.text = values.text;
      });
    });
    panel.append(form);
  }

  function drawOutputs() {
    const list = (state.doc && state.doc.outputs) || [];
    const status = (state.status && state.status.outputs) || [];
    const url = el('input', {id: 'new-output', placeholder: 'rtmp://… or recording.mp4', dataset: {path: 'outputs'}});
    const sendOutputs = async (next) => {
      const sequence = (state.sequence ?? 0) + 1;
      clearErrors(outputs);
      try {
        const answer = await api.update(taskId, {outputs: next, sequence});
        state.sequence = answer.sequence ?? sequence;
        await loadDocument();
      } catch (error) {
        if (error.code === 'StaleSequence') showStale(`Someone else changed this task: ${error.message}.`);
        showErrors(outputs, message, error);
      }
    };
    clear(outputs).append(el('h2', {}, 'Outputs'),
      el('ul', {}, list.map((output, i) => el('li', {dataset: {path: `outputs[${i}]`}},
        // The status's URL: stream keys redacted, so they never show on screen.
        (status[i] && status[i].url) || '(output)', ' ',
        el('button', {type: 'button', class: 'small', onclick: () => sendOutputs(list.filter((_, j) => j !== i))}, 'Remove')))),
      el('form', {onsubmit: (e) => { e.preventDefault(); if (url.value) sendOutputs([...list, {url: url.value}]); }},
        url, el('button', {type: 'submit'}, 'Add output')));
  }

  loadDocument();
  pollStatus();
  return {stop() { stopped = true; clearTimeout(timer); feed.stop(); }};
}

function number(value) {
  const trimmed = String(value ?? '').trim();
  return trimmed !== '' && !Number.isNaN(Number(trimmed)) ? Number(trimmed) : trimmed;
}

function seiForm(taskId, message) {
  const payload = el('input', {id: 'sei-payload', placeholder: 'message carried in the next frames', dataset: {path: 'payload'}});
  const result = el('span', {class: 'muted'});
  const form = el('form', {class: 'sei-form'}, el('h2', {}, 'SEI message'), payload,
    el('button', {type: 'submit'}, 'Send SEI'), result);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors(form);
    try {
      const answer = await api.sei(taskId, {payload: payload.value});
      result.textContent = ` sent: ${answer.bytes} bytes in ${answer.repeat} frame(s)`;
    } catch (error) {
      showErrors(form, message, error);
    }
  });
  return form;
}
