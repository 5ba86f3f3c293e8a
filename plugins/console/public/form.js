// Form views: publishing one (members), and the public page a visitor fills in at #/form/<token> (no sign-in).
import { html, useState, useEffect, ErrorNote, useAction } from './ui.js';
import { api, get, post } from './api.js';

/** A database's form views, and their public links once published (the token is only shown when publishing). */
export function FormViews({ base }) {
  const [views, setViews] = useState([]);
  const [links, setLinks] = useState({});
  const { error, run } = useAction();
  const load = () => run(async () => setViews((await get(`${base}/views`)).data.filter((v) => v.type === 'form')));
  useEffect(() => void load(), [base]);
  const publish = (view) =>
    run(async () => {
      const { token } = await post(`${base}/views/${view.id}/publish`);
      setLinks({ ...links, [view.id]: `${location.origin}/#/form/${encodeURIComponent(token)}` });
      await load();
    });
  const create = () =>
    run(async () => {
      const view = await post(`${base}/views`, { name: 'Form', type: 'form' });
      await load();
      await publish(view);
    });
  return html`
    <details class="panel-box" data-testid="form-views">
      <summary>Forms (${views.length})</summary>
      <${ErrorNote} error=${error} />
      <ul>
        ${views.map(
          (v) => html`<li key=${v.id}>${v.name} <span class="muted">${v.published ? 'published' : 'not published'}</span>
            <button type="button" onClick=${() => publish(v)}>${v.published ? 'New public link' : 'Publish'}</button>
            ${links[v.id] && html` <a href=${links[v.id]} data-testid="form-link" target="_blank" rel="noopener">${links[v.id]}</a>`}</li>`,
        )}
      </ul>
      <button type="button" data-testid="create-form" onClick=${create}>Create and publish a form</button>
    </details>
  `;
}

function FormInput({ field, value, onChange }) {
  const id = `form-${field.api_name}`;
  const label = html`<label for=${id}>${field.name}${field.required ? ' *' : ''}</label>`;
  const hint = field.description && html`<small>${field.description}</small>`;
  if (field.type === 'checkbox') {
    return html`<div class="form-field check">${label}<input id=${id} type="checkbox" checked=${Boolean(value)} onChange=${(e) => onChange(e.currentTarget.checked)} />${hint}</div>`;
  }
  if (field.type === 'single_select') {
    return html`<div class="form-field">${label}<select id=${id} value=${value ?? ''} required=${field.required} onChange=${(e) => onChange(e.currentTarget.value || null)}>
      <option value="">—</option>
      ${(field.options?.choices ?? []).map((c) => html`<option value=${c.id} key=${c.id}>${c.label}</option>`)}
    </select>${hint}</div>`;
  }
  if (field.type === 'long_text') {
    return html`<div class="form-field">${label}<textarea id=${id} required=${field.required} value=${value ?? ''} onInput=${(e) => onChange(e.currentTarget.value)}></textarea>${hint}</div>`;
  }
  const numeric = ['number', 'currency', 'percent', 'rating', 'duration'].includes(field.type);
  const type = numeric ? 'number' : field.type === 'date' ? 'date' : field.type === 'email' ? 'email' : field.type === 'url' ? 'url' : 'text';
  return html`<div class="form-field">${label}<input id=${id} type=${type} step="any" required=${field.required} value=${value ?? ''}
    onInput=${(e) => onChange(numeric ? (e.currentTarget.value === '' ? null : Number(e.currentTarget.value)) : e.currentTarget.value)} />${hint}</div>`;
}

/** The page a visitor sees: the form's fields, sent anonymously. */
export function PublicForm({ token }) {
  const [form, setForm] = useState(null);
  const [values, setValues] = useState({});
  const [sent, setSent] = useState(false);
  const { error, busy, run } = useAction();
  const path = `/public/forms/${encodeURIComponent(token)}`;
  useEffect(() => void run(async () => setForm(await api('GET', path, undefined, { anonymous: true }))), [token]);
  const submit = (e) => {
    e.preventDefault();
    run(async () => {
      // Only what was filled in: an untouched field is left to its default.
      const filled = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== '' && v !== null && v !== undefined));
      await api('POST', path, { values: filled }, { anonymous: true });
      setSent(true);
    });
  };
  return html`
    <main class="public-form">
      <${ErrorNote} error=${error} />
      ${sent
        ? html`<p class="done" role="status" data-testid="form-sent">Thank you, your answer was sent.</p>
            <button type="button" onClick=${() => { setValues({}); setSent(false); }}>Send another</button>`
        : form &&
          html`<form onSubmit=${submit} data-testid="public-form" aria-label=${form.title}>
            <h1>${form.title}</h1>
            ${form.description && html`<p>${form.description}</p>`}
            ${form.fields.map((f) => html`<${FormInput} key=${f.api_name} field=${f} value=${values[f.api_name]} onChange=${(v) => setValues({ ...values, [f.api_name]: v })} />`)}
            <button type="submit" disabled=${busy}>Submit</button>
          </form>`}
      <p class="muted"><a href="/api/v1/docs">API reference</a></p>
    </main>
  `;
}
