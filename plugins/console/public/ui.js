// Small shared pieces: the library re-exported (so modules import one path), an error line, a one-input form.
import { html, render, useState, useEffect, useRef, useCallback, useMemo } from './preact-htm.js';

export { html, render, useState, useEffect, useRef, useCallback, useMemo };

/** An API error as a line screen readers announce. */
export function ErrorNote({ error }) {
  if (!error) return null;
  return html`<p class="error" role="alert" data-testid="error">${String(error.message ?? error)}</p>`;
}

/** Runs an async action, keeping its error for display and a busy flag to disable the button meanwhile. */
export function useAction() {
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const run = async (fn) => {
    setBusy(true);
    setError(null);
    try {
      return await fn();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, run };
}

/** A labelled one-field "create" form: name in, `onSubmit(name)` out, cleared on success. */
export function CreateForm({ label, button, testid, onSubmit }) {
  const [name, setName] = useState('');
  const { error, busy, run } = useAction();
  const submit = (e) => {
    e.preventDefault();
    if (!name.trim()) return;
    run(async () => {
      await onSubmit(name.trim());
      setName('');
    });
  };
  return html`
    <form class="inline-form" onSubmit=${submit} data-testid=${testid}>
      <label>${label} <input value=${name} onInput=${(e) => setName(e.currentTarget.value)} required /></label>
      <button type="submit" disabled=${busy}>${button}</button>
      <${ErrorNote} error=${error} />
    </form>
  `;
}

/** A cell's value as text: select options by label, people by name, lists joined. */
export function display(value) {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(display).join(', ');
  if (typeof value === 'object') return value.label ?? value.name ?? value.filename ?? value.title ?? JSON.stringify(value);
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  return String(value);
}

export const when = (iso) => (iso ? new Date(iso).toLocaleString() : '');
