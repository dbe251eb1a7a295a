// The public API, with the operator's bearer token. The token lives in sessionStorage: it lasts
// as long as the tab, is not sent anywhere but the Authorization header, and never goes into a
// URL (snapshots are fetched and shown as blob: URLs for that reason).

const KEY = 'tessera.token';

export const token = {
  get: () => sessionStorage.getItem(KEY),
  set: (value) => sessionStorage.setItem(KEY, value),
  clear: () => sessionStorage.removeItem(KEY),
};

/** A refusal of the API: {status, code, message, path, issues}. */
export class ApiError extends Error {
  constructor(status, body) {
    const detail = (body && body.error) || {};
    super(detail.message || `HTTP ${status}`);
    this.status = status;
    this.code = detail.code || 'HTTP' + status;
    this.path = detail.path;
    this.issues = detail.issues || (detail.path !== undefined ? [{path: detail.path, message: detail.message}] : []);
  }
}

/** Listeners told when the token is refused (401), so the app asks for it again. */
export const unauthorized = new EventTarget();

async function call(method, path, body, accept = 'json') {
  const headers = {};
  const saved = token.get();
  if (saved) headers.Authorization = `Bearer ${saved}`;
  let payload;
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = typeof body === 'string' ? body : JSON.stringify(body);
  }
  const response = await fetch(path, {method, headers, body: payload, cache: 'no-store', credentials: 'omit'});
  if (!response.ok) {
    let parsed = null;
    try { parsed = await response.json(); } catch { /* not JSON */ }
    const error = new ApiError(response.status, parsed);
    if (response.status === 401) unauthorized.dispatchEvent(new Event('unauthorized'));
    throw error;
  }
  if (accept === 'blob') return response.blob();
  return response.json();
}

const task = (id) => `/v1/tasks/${encodeURIComponent(id)}`;

export const api = {
  tasks: () => call('GET', '/v1/tasks').then((r) => r.tasks),
  status: (id) => call('GET', task(id)),
  document: (id) => call('GET', `${task(id)}/document`),
  snapshot: (id) => call('GET', `${task(id)}/snapshot.png`, undefined, 'blob'),
  update: (id, changes) => call('PATCH', task(id), changes),
  stop: (id) => call('DELETE', task(id)),
  sei: (id, message) => call('POST', `${task(id)}/sei`, message),
  create: (documentText) => call('POST', '/v1/tasks', documentText),
  validate: (documentText) => call('POST', '/v1/validate', documentText),
  preview: (documentText) => call('POST', '/v1/preview', documentText, 'blob'),
  nodes: () => call('GET', '/v1/nodes').then((r) => r.nodes),
  // The console's own static files: the example task documents of Layouts/examples.
  examples: () => call('GET', '/console/examples').then((r) => r.examples),
  example: (name) => call('GET', `/console/examples/${encodeURIComponent(name)}`),
};
