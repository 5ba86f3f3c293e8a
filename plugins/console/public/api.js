// The console's only way to the server: the public API under /api/v1, with the session token as a bearer.
const BASE = '/api/v1';
const TOKEN_KEY = 'tessera.console.token';

export const session = {
  get token() {
    return localStorage.getItem(TOKEN_KEY);
  },
  set(token) {
    localStorage.setItem(TOKEN_KEY, token);
  },
  clear() {
    localStorage.removeItem(TOKEN_KEY);
  },
};

/** An answer other than 2xx; `body` is the problem document (`title`, `detail`, `errors[]`). */
export class ApiError extends Error {
  constructor(status, body) {
    super(describe(status, body));
    this.status = status;
    this.body = body;
  }
}

function describe(status, body) {
  if (!body) return `HTTP ${status}`;
  const at = Array.isArray(body.errors) ? body.errors.map((e) => `${e.pointer ?? ''} ${e.message ?? ''}`.trim()).join('; ') : '';
  return [body.detail || body.title || `HTTP ${status}`, at].filter(Boolean).join(': ');
}

/** `anonymous` leaves the token out (public forms are for visitors, whoever is signed in). */
export async function api(method, path, body, { anonymous = false } = {}) {
  const headers = { Accept: 'application/json' };
  const token = session.token;
  if (token && !anonymous) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(BASE + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = res.status === 204 ? null : await res.json().catch(() => null);
  if (!res.ok) {
    // A token the server no longer takes (expired, signed out elsewhere): back to the sign-in page.
    if (res.status === 401 && token && !anonymous) {
      session.clear();
      window.dispatchEvent(new Event('tessera:signed-out'));
    }
    throw new ApiError(res.status, data);
  }
  return data;
}

/** Multipart upload (FormData): the browser sets the Content-Type with its boundary. */
export async function upload(path, form) {
  const headers = { Accept: 'application/json' };
  if (session.token) headers.Authorization = `Bearer ${session.token}`;
  const res = await fetch(BASE + path, { method: 'POST', headers, body: form });
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

/**
 * Bytes from the API (a full `/api/v1/...` path, as attachments' `thumbnail_url`) as a `blob:` URL: an `<img>` cannot
 * send the Authorization header, so the image is fetched with the token. Kept per path (an attachment's bytes never
 * change), so re-renders do not fetch again; a failure is forgotten so a later render can try again.
 */
const blobUrls = new Map();
export function blobUrl(fullPath) {
  if (!blobUrls.has(fullPath)) {
    const p = (async () => {
      const res = await fetch(fullPath, { headers: { Authorization: `Bearer ${session.token}` } });
      if (!res.ok) throw new ApiError(res.status, null);
      return URL.createObjectURL(await res.blob());
    })();
    p.catch(() => blobUrls.delete(fullPath));
    blobUrls.set(fullPath, p);
  }
  return blobUrls.get(fullPath);
}

export const get = (path) => api('GET', path);
export const post = (path, body = {}) => api('POST', path, body);
export const patch = (path, body) => api('PATCH', path, body);
export const del = (path) => api('DELETE', path);

/**
 * Follows the workspace's event stream. EventSource cannot send an Authorization header, so the stream is read with
 * fetch and parsed here (the text/event-stream format: `field: value` lines, a blank line ends an event, `:` lines
 * are comments). On a drop it reconnects after `retry` ms with Last-Event-ID, so the server replays what was missed.
 * Returns a function that closes it for good.
 */
export function followEvents(ws, topics, { onEvent, onStatus = () => {} }) {
  const abort = new AbortController();
  let lastId = null;
  let retry = 3000;

  const dispatch = (ev) => {
    if (ev.data.length === 0) return;
    try {
      onEvent(ev.type || 'message', JSON.parse(ev.data.join('\n')));
    } catch (err) {
      console.warn('console: unreadable event', err);
    }
  };

  async function readOnce() {
    const headers = { Accept: 'text/event-stream', Authorization: `Bearer ${session.token}` };
    if (lastId) headers['Last-Event-ID'] = lastId;
    const res = await fetch(`${BASE}/workspaces/${ws}/events?topics=${encodeURIComponent(topics)}`, { headers, signal: abort.signal });
    if (!res.ok || !res.body) throw new ApiError(res.status, await res.json().catch(() => null));
    onStatus('live');
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    let ev = { type: '', data: [] };
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        if (line === '') {
          dispatch(ev);
          ev = { type: '', data: [] };
          continue;
        }
        if (line.startsWith(':')) continue; // a heartbeat
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') lastId = val;
        else if (field === 'event') ev.type = val;
        else if (field === 'data') ev.data.push(val);
        else if (field === 'retry' && /^\d+$/.test(val)) retry = Number(val);
      }
    }
  }

  (async () => {
    while (!abort.signal.aborted) {
      try {
        await readOnce();
      } catch (err) {
        if (abort.signal.aborted) return;
        // Refused (signed out, no longer a member, no such database): retrying would not help.
        if (err instanceof ApiError && err.status >= 400 && err.status < 500) {
          onStatus('closed');
          return;
        }
      }
      if (abort.signal.aborted) return;
      onStatus('reconnecting');
      await new Promise((r) => setTimeout(r, retry));
    }
  })();
  return () => abort.abort();
}
