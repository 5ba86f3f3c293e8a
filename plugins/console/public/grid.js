// A database: its fields, a filter/sort builder, the records grid with inline editing, live updates, the record panel.
import { html, useState, useEffect, useRef, ErrorNote, useAction, display } from './ui.js';
import { get, post, patch, del, upload, blobUrl, followEvents } from './api.js';
import { RecordPanel } from './record.js';
import { FormViews } from './form.js';

/** Types written by the server (who and when): shown in the record panel, not as grid columns. */
const SYSTEM = new Set(['created_at', 'updated_at', 'created_by', 'updated_by', 'autonumber']);
/** Types the grid edits in place; others are shown read-only (the API still takes them). */
const EDITABLE = new Set(['text', 'long_text', 'email', 'url', 'phone', 'number', 'currency', 'percent', 'rating', 'duration', 'checkbox', 'single_select', 'multi_select', 'date', 'datetime', 'attachment']);
const NUMERIC = new Set(['number', 'currency', 'percent', 'rating', 'duration']);
const TEXTUAL = new Set(['text', 'long_text', 'email', 'url', 'phone']);
/** What the "add field" form offers; the API knows more types (see the reference). */
const NEW_FIELD_TYPES = ['text', 'long_text', 'number', 'currency', 'percent', 'rating', 'duration', 'checkbox', 'single_select', 'multi_select', 'date', 'datetime', 'email', 'url', 'phone', 'attachment'];
const WITH_CHOICES = new Set(['single_select', 'multi_select']);

/** Filter operators per type, from plugins/records/README.md (the common subset). */
function opsFor(type) {
  if (TEXTUAL.has(type)) return ['contains', 'not_contains', 'eq', 'neq', 'starts_with', 'is_empty', 'is_not_empty'];
  if (NUMERIC.has(type)) return ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'is_empty', 'is_not_empty'];
  if (type === 'checkbox') return ['eq', 'neq'];
  if (type === 'date' || type === 'datetime' || type === 'created_at' || type === 'updated_at') return ['eq', 'before', 'after', 'on_or_before', 'on_or_after', 'is_empty', 'is_not_empty'];
  if (type === 'single_select') return ['is_any_of', 'is_none_of', 'eq', 'neq', 'is_empty', 'is_not_empty'];
  if (type === 'multi_select') return ['has_any_of', 'has_all_of', 'has_none_of', 'is_empty', 'is_not_empty'];
  return ['is_empty', 'is_not_empty'];
}

const NO_VALUE = new Set(['is_empty', 'is_not_empty']);

/** Numbers without float noise (0.29 * 100 is 28.999999999999996). */
const tidy = (n) => Number(n.toPrecision(12));
const pad = (n) => String(n).padStart(2, '0');

/** An instant as a `datetime-local` input's value, in the browser's time zone. */
function toLocalInput(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A `datetime-local` value (a wall time here) as ISO 8601 with the browser's offset, e.g. `2024-07-01T09:30:00+02:00`. */
function fromLocalInput(raw) {
  const d = new Date(raw);
  if (Number.isNaN(d.getTime())) return raw; // the API says what is wrong with it
  const off = -d.getTimezoneOffset();
  const sign = off >= 0 ? '+' : '-';
  const abs = Math.abs(off);
  return `${raw.length === 16 ? `${raw}:00` : raw}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** The value the API takes for what an input holds. */
function toApi(field, raw) {
  if (field.type === 'checkbox') return Boolean(raw);
  if (field.type === 'multi_select') return Array.isArray(raw) && raw.length ? raw : null;
  if (raw === '' || raw === null || raw === undefined) return null;
  // A percent is edited as the percentage shown (12.5) and stored as the fraction (0.125).
  if (field.type === 'percent') return tidy(Number(raw) / 100);
  if (NUMERIC.has(field.type)) return Number(raw);
  if (field.type === 'datetime') return fromLocalInput(raw);
  return raw;
}

/** A cell as text in the grid. */
function cellText(field, value) {
  if (value === null || value === undefined) return '';
  if (field.type === 'percent' && typeof value === 'number') return `${tidy(value * 100)}%`;
  if (field.type === 'rating' && typeof value === 'number') return value > 0 ? `${'★'.repeat(value)} ${value}` : '';
  if (field.type === 'currency' && typeof value === 'number') return `${field.options?.symbol ?? ''}${value}`;
  if (field.type === 'datetime' && typeof value === 'string') return new Date(value).toLocaleString();
  return display(value);
}

/** A condition's value as the filter language wants it. */
function conditionValue(field, op, raw) {
  if (field.type === 'checkbox') return raw === 'true';
  if (NUMERIC.has(field.type)) return Number(raw);
  if (['is_any_of', 'is_none_of', 'has_any_of', 'has_all_of', 'has_none_of'].includes(op)) return [raw];
  return raw;
}

/** What an editor starts from: select by choice id(s), a percent as shown, a datetime as local wall time, the rest as text. */
function editValue(field, value) {
  if (field.type === 'multi_select') return Array.isArray(value) ? value.map((c) => c.id) : [];
  if (value === null || value === undefined) return '';
  if (field.type === 'single_select') return value.id ?? '';
  if (field.type === 'percent' && typeof value === 'number') return String(tidy(value * 100));
  if (field.type === 'datetime') return toLocalInput(value);
  return String(value);
}

function CellEditor({ field, value, onSave, onCancel }) {
  const [draft, setDraftState] = useState(editValue(field, value));
  // The latest draft for handlers that run before a re-render (a multi select's change, then Enter at once).
  const draftRef = useRef(draft);
  const setDraft = (v) => {
    draftRef.current = v;
    setDraftState(v);
  };
  const ref = useRef(null);
  // Enter, Escape and the blur that follows either must act once only.
  const done = useRef(false);
  useEffect(() => ref.current?.focus(), []);
  const finish = (save, v = draftRef.current) => {
    if (done.current) return;
    done.current = true;
    save ? onSave(toApi(field, v)) : onCancel();
  };
  const onKeyDown = (e) => {
    // In a long text Enter is a new line: Ctrl/Cmd+Enter saves.
    if (e.key === 'Enter' && (field.type !== 'long_text' || e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      finish(true);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      finish(false);
    }
  };
  const common = { ref, onKeyDown, onBlur: () => finish(true), 'aria-label': field.name, 'data-testid': 'cell-editor' };
  if (field.type === 'single_select') {
    return html`<select ...${common} value=${draft} onChange=${(e) => { setDraft(e.currentTarget.value); finish(true, e.currentTarget.value); }}>
      <option value="">—</option>
      ${(field.options.choices ?? []).map((c) => html`<option value=${c.id} key=${c.id}>${c.label}</option>`)}
    </select>`;
  }
  if (field.type === 'multi_select') {
    // Ctrl/Cmd-click picks several; Enter or leaving the list saves.
    const choices = field.options.choices ?? [];
    return html`<select ...${common} multiple size=${Math.min(Math.max(choices.length, 2), 6)}
      onChange=${(e) => setDraft(Array.from(e.currentTarget.selectedOptions, (o) => o.value))}>
      ${choices.map((c) => html`<option value=${c.id} key=${c.id} selected=${draft.includes(c.id)}>${c.label}</option>`)}
    </select>`;
  }
  if (field.type === 'long_text') {
    return html`<textarea ...${common} rows="4" title="Ctrl+Enter saves, Escape cancels" value=${draft} onInput=${(e) => setDraft(e.currentTarget.value)}></textarea>`;
  }
  const type = NUMERIC.has(field.type) ? 'number' : field.type === 'date' ? 'date' : field.type === 'datetime' ? 'datetime-local' : field.type === 'phone' ? 'tel' : 'text';
  const extra = field.type === 'rating' ? { min: 0, max: field.options?.max ?? 5, step: 1 } : field.type === 'duration' ? { step: 'any', placeholder: 'seconds' } : { step: 'any' };
  return html`<input ...${common} ...${extra} type=${type} value=${draft} onInput=${(e) => setDraft(e.currentTarget.value)} />`;
}

/** One attachment's thumbnail, fetched with the token as a blob: URL; its name until (or unless) there is one. */
function Thumb({ file }) {
  const [src, setSrc] = useState(null);
  useEffect(() => {
    let live = true;
    if (file.thumbnail_url) blobUrl(file.thumbnail_url).then((u) => live && setSrc(u), () => {});
    return () => { live = false; };
  }, [file.thumbnail_url]);
  if (!src) return html`<span class="file-name" data-testid="attachment-name">${file.name}</span>`;
  return html`<img class="thumb" src=${src} alt=${file.name} title=${file.name} data-testid="attachment-thumb" />`;
}

/** An attachment cell's editor: its files (each removable) and a file input that uploads and appends. */
function AttachmentEditor({ field, record, base, files, onChanged, onClose }) {
  const { error, busy, run } = useAction();
  const input = useRef(null);
  useEffect(() => input.current?.focus(), []);
  const uploadFiles = (list) =>
    run(async () => {
      for (const file of list) {
        const form = new FormData();
        form.append('field', field.api_name);
        form.append('file', file, file.name);
        await upload(`${base}/records/${record.id}/attachments`, form);
      }
      if (input.current) input.current.value = '';
      await onChanged();
    });
  const remove = (file) =>
    run(async () => {
      await del(`${base}/records/${record.id}/attachments/${file.id}`);
      await onChanged();
    });
  return html`<div class="attachment-editor" data-testid="attachment-editor">
    <ul class="attachments">
      ${files.map((f) => html`<li key=${f.id}><${Thumb} file=${f} /> <button type="button" class="link" aria-label=${`Remove ${f.name}`} disabled=${busy} onClick=${() => remove(f)}>×</button></li>`)}
    </ul>
    <label>Add a file <input ref=${input} type="file" multiple data-testid="attachment-input" disabled=${busy} onChange=${(e) => uploadFiles(Array.from(e.currentTarget.files ?? []))} /></label>
    ${busy && html`<span class="muted" data-testid="uploading">Uploading…</span>`}
    <button type="button" onClick=${onClose}>Done</button>
    <${ErrorNote} error=${error} />
  </div>`;
}

function Cell({ field, record, editing, setEditing, save, base, reload, cellError }) {
  const value = record.values[field.api_name];
  const title = `${field.name} of record ${record.number}`;
  const note = cellError ? html`<p class="error cell-error" role="alert" data-testid="cell-error">${cellError}</p>` : null;
  if (field.type === 'checkbox' && !field.read_only) {
    return html`<td class="check"><input type="checkbox" aria-label=${title} data-testid=${`cell-${field.api_name}`} checked=${Boolean(value)} onChange=${(e) => save(record, field, e.currentTarget.checked)} />${note}</td>`;
  }
  if (field.type === 'attachment') {
    const files = Array.isArray(value) ? value : [];
    if (editing && !field.read_only) {
      return html`<td class="editing"><${AttachmentEditor} field=${field} record=${record} base=${base} files=${files} onChanged=${() => reload(record)} onClose=${() => setEditing(null)} /></td>`;
    }
    const thumbs = html`<span class="thumbs">${files.map((f) => html`<${Thumb} key=${f.id} file=${f} />`)}</span>`;
    if (field.read_only) return html`<td data-testid=${`cell-${field.api_name}`}>${thumbs}</td>`;
    return html`<td>
      <button type="button" class="cell" aria-label=${`Edit ${title}`} data-testid=${`cell-${field.api_name}`} onClick=${() => setEditing({ id: record.id, field: field.api_name })}>${thumbs}</button>
    </td>`;
  }
  if (field.read_only || !EDITABLE.has(field.type)) return html`<td data-testid=${`cell-${field.api_name}`}>${cellText(field, value)}</td>`;
  if (editing) {
    return html`<td class="editing"><${CellEditor} field=${field} value=${value}
      onSave=${(v) => { setEditing(null); save(record, field, v); }} onCancel=${() => setEditing(null)} />${note}</td>`;
  }
  let shown = html`<span>${cellText(field, value)}</span>`;
  if (field.type === 'single_select' && value) shown = html`<span class=${`chip chip-${value.color ?? 'gray'}`}>${value.label}</span>`;
  if (field.type === 'multi_select' && Array.isArray(value)) shown = value.map((c) => html`<span key=${c.id} class=${`chip chip-${c.color ?? 'gray'}`}>${c.label}</span> `);
  return html`<td class=${field.type === 'long_text' ? 'long' : ''}>
    <button type="button" class="cell" aria-label=${`Edit ${title}`} data-testid=${`cell-${field.api_name}`} onClick=${() => setEditing({ id: record.id, field: field.api_name })}>
      ${shown}
    </button>
    ${note}
  </td>`;
}

function AddField({ base, onAdded }) {
  const [name, setName] = useState('');
  const [type, setType] = useState('text');
  const [choices, setChoices] = useState('');
  const { error, busy, run } = useAction();
  const submit = (e) => {
    e.preventDefault();
    run(async () => {
      const body = { name: name.trim(), type };
      if (WITH_CHOICES.has(type)) body.options = { choices: choices.split(',').map((s) => s.trim()).filter(Boolean).map((label) => ({ label })) };
      await post(`${base}/fields`, body);
      setName('');
      setChoices('');
      onAdded();
    });
  };
  return html`
    <form class="inline-form" onSubmit=${submit} data-testid="add-field" aria-label="Add a field">
      <label>Field name <input value=${name} onInput=${(e) => setName(e.currentTarget.value)} required /></label>
      <label>Type <select value=${type} onChange=${(e) => setType(e.currentTarget.value)}>
        ${NEW_FIELD_TYPES.map((t) => html`<option value=${t} key=${t}>${t}</option>`)}
      </select></label>
      ${WITH_CHOICES.has(type) && html`<label>Choices (comma separated) <input value=${choices} onInput=${(e) => setChoices(e.currentTarget.value)} required /></label>`}
      <button type="submit" disabled=${busy}>Add field</button>
      <${ErrorNote} error=${error} />
    </form>
  `;
}

/** Builds `{ filter: { and: [...] }, sorts: [...] }`; nothing is sent until Apply. */
function QueryBuilder({ fields, onApply }) {
  const [conds, setConds] = useState([]);
  const [sorts, setSorts] = useState([]);
  const byName = (n) => fields.find((f) => f.api_name === n) ?? fields[0];
  const setCond = (i, patchIt) => setConds(conds.map((c, j) => (j === i ? { ...c, ...patchIt } : c)));
  const setSort = (i, patchIt) => setSorts(sorts.map((s, j) => (j === i ? { ...s, ...patchIt } : s)));
  const apply = (e) => {
    e.preventDefault();
    const and = conds.map((c) => {
      const f = byName(c.field);
      return NO_VALUE.has(c.op) ? { field: f.api_name, op: c.op } : { field: f.api_name, op: c.op, value: conditionValue(f, c.op, c.value) };
    });
    onApply({ filter: and.length ? { and } : undefined, sorts: sorts.length ? sorts : undefined });
  };
  const valueInput = (c, i) => {
    const f = byName(c.field);
    if (NO_VALUE.has(c.op)) return null;
    const label = `Value of condition ${i + 1}`;
    if (WITH_CHOICES.has(f.type)) {
      return html`<select aria-label=${label} data-testid="filter-value" value=${c.value} onChange=${(e) => setCond(i, { value: e.currentTarget.value })}>
        <option value="">—</option>
        ${(f.options.choices ?? []).map((ch) => html`<option value=${ch.id} key=${ch.id}>${ch.label}</option>`)}
      </select>`;
    }
    if (f.type === 'checkbox') {
      return html`<select aria-label=${label} data-testid="filter-value" value=${c.value} onChange=${(e) => setCond(i, { value: e.currentTarget.value })}>
        <option value="true">checked</option><option value="false">unchecked</option>
      </select>`;
    }
    const type = NUMERIC.has(f.type) ? 'number' : f.type === 'date' ? 'date' : 'text';
    return html`<input aria-label=${label} data-testid="filter-value" type=${type} step="any" value=${c.value} onInput=${(e) => setCond(i, { value: e.currentTarget.value })} required />`;
  };
  const first = fields[0];
  return html`
    <form class="query" onSubmit=${apply} data-testid="query-builder" aria-label="Filter and sort">
      <fieldset>
        <legend>Filter (all must match)</legend>
        ${conds.map(
          (c, i) => html`<div class="row" key=${i} data-testid="filter-condition">
            <select aria-label=${`Field of condition ${i + 1}`} data-testid="filter-field" value=${c.field}
              onChange=${(e) => { const f = byName(e.currentTarget.value); setCond(i, { field: f.api_name, op: opsFor(f.type)[0], value: f.type === 'checkbox' ? 'true' : '' }); }}>
              ${fields.map((f) => html`<option value=${f.api_name} key=${f.id}>${f.name}</option>`)}
            </select>
            <select aria-label=${`Operator of condition ${i + 1}`} data-testid="filter-op" value=${c.op} onChange=${(e) => setCond(i, { op: e.currentTarget.value })}>
              ${opsFor(byName(c.field).type).map((op) => html`<option value=${op} key=${op}>${op.replaceAll('_', ' ')}</option>`)}
            </select>
            ${valueInput(c, i)}
            <button type="button" onClick=${() => setConds(conds.filter((_, j) => j !== i))}>Remove condition</button>
          </div>`,
        )}
        <button type="button" data-testid="add-condition" onClick=${() => setConds([...conds, { field: first.api_name, op: opsFor(first.type)[0], value: '' }])}>Add condition</button>
      </fieldset>
      <fieldset>
        <legend>Sort</legend>
        ${sorts.map(
          (s, i) => html`<div class="row" key=${i}>
            <select aria-label=${`Sort ${i + 1} field`} value=${s.field} onChange=${(e) => setSort(i, { field: e.currentTarget.value })}>
              ${fields.map((f) => html`<option value=${f.api_name} key=${f.id}>${f.name}</option>`)}
            </select>
            <select aria-label=${`Sort ${i + 1} direction`} value=${s.direction} onChange=${(e) => setSort(i, { direction: e.currentTarget.value })}>
              <option value="asc">ascending</option><option value="desc">descending</option>
            </select>
            <button type="button" onClick=${() => setSorts(sorts.filter((_, j) => j !== i))}>Remove sort</button>
          </div>`,
        )}
        <button type="button" onClick=${() => setSorts([...sorts, { field: first.api_name, direction: 'asc' }])}>Add sort</button>
      </fieldset>
      <div class="actions">
        <button type="submit" data-testid="apply-query">Apply</button>
        <button type="button" onClick=${() => { setConds([]); setSorts([]); onApply({}); }}>Clear</button>
      </div>
    </form>
  `;
}

export function DatabasePage({ ws, db, me }) {
  const base = `/workspaces/${ws}/databases/${db}`;
  const [database, setDatabase] = useState(null);
  const [records, setRecords] = useState([]);
  const [cursor, setCursor] = useState(null);
  const [query, setQuery] = useState({});
  const [editing, setEditing] = useState(null);
  const [openId, setOpenId] = useState(null);
  const [commentsTick, setCommentsTick] = useState(0);
  const [live, setLive] = useState('connecting');
  const [newTitle, setNewTitle] = useState('');
  const { error, run } = useAction();
  // The latest query, for the event handler (which is set up once per database).
  const queryRef = useRef(query);
  queryRef.current = query;

  const loadDatabase = () => run(async () => setDatabase(await get(base)));
  const loadRecords = (q = query, after = null) =>
    run(async () => {
      const page = await post(`${base}/records/query`, { limit: 100, ...q, ...(after ? { cursor: after } : {}) });
      setRecords((prev) => (after ? [...prev, ...page.data] : page.data));
      setCursor(page.next_cursor);
    });

  useEffect(() => {
    void loadDatabase();
    void loadRecords();
  }, [db]);

  // Live: rows change in place as anyone edits; comments of the open record refresh.
  useEffect(
    () =>
      followEvents(ws, `database:${db}`, {
        onStatus: setLive,
        onEvent: (name, event) => {
          const p = event.payload ?? {};
          if (name === 'record.updated' && p.after) setRecords((rs) => rs.map((r) => (r.id === p.after.id ? p.after : r)));
          else if (name === 'record.deleted' && p.record) setRecords((rs) => rs.filter((r) => r.id !== p.record.id));
          else if ((name === 'record.created' || name === 'record.restored') && p.record) {
            // A filtered grid cannot tell whether the new record matches: it asks again instead.
            if (queryRef.current.filter) void loadRecords(queryRef.current);
            else setRecords((rs) => (rs.some((r) => r.id === p.record.id) ? rs : [...rs, p.record]));
          } else if (name.startsWith('comment.')) setCommentsTick((n) => n + 1);
          else if (name.startsWith('field.')) void loadDatabase();
        },
      }),
    [ws, db],
  );

  // A refused write shows its problem next to the cell (keyed `record:field`), until the next write of that cell.
  const [cellErrors, setCellErrors] = useState({});
  const save = async (record, field, value) => {
    const key = `${record.id}:${field.api_name}`;
    setCellErrors(({ [key]: _, ...rest }) => rest);
    try {
      const updated = await patch(`${base}/records/${record.id}`, { values: { [field.api_name]: value } });
      setRecords((rs) => rs.map((r) => (r.id === updated.id ? updated : r)));
    } catch (err) {
      setCellErrors((all) => ({ ...all, [key]: String(err.message ?? err) }));
    }
  };
  /** One record read again (after an upload, which answers the attachment, not the record). */
  const reload = async (record) => {
    const fresh = await get(`${base}/records/${record.id}`);
    setRecords((rs) => rs.map((r) => (r.id === fresh.id ? fresh : r)));
  };
  const addRecord = (e) => {
    e.preventDefault();
    const titleField = database.fields.find((f) => f.is_title);
    run(async () => {
      const created = await post(`${base}/records`, { values: titleField && newTitle ? { [titleField.api_name]: newTitle } : {} });
      setNewTitle('');
      setRecords((rs) => (rs.some((r) => r.id === created.id) ? rs : [...rs, created]));
    });
  };
  const remove = (record) =>
    run(async () => {
      if (!confirm(`Delete record ${record.number}?`)) return;
      await del(`${base}/records/${record.id}`);
      setRecords((rs) => rs.filter((r) => r.id !== record.id));
      if (openId === record.id) setOpenId(null);
    });

  if (!database) return html`<${ErrorNote} error=${error} /><p class="loading">Loading…</p>`;
  const columns = database.fields.filter((f) => !SYSTEM.has(f.type));
  const open = records.find((r) => r.id === openId);
  return html`
    <div class=${open ? 'database with-panel' : 'database'}>
      <div class="main-col">
        <p class="crumbs"><a href="#/">Workspaces</a> / <a href=${`#/w/${ws}`}>Workspace</a> /</p>
        <h1>${database.name} <span class=${`live live-${live}`} data-testid="live-status" title="Live updates">${live}</span></h1>
        <${ErrorNote} error=${error} />
        <details class="panel-box">
          <summary>Fields (${database.fields.length})</summary>
          <ul class="fields" data-testid="fields">
            ${database.fields.map((f) => html`<li key=${f.id}><strong>${f.name}</strong> <code>${f.api_name}</code> <span class="muted">${f.type}</span></li>`)}
          </ul>
          <${AddField} base=${base} onAdded=${loadDatabase} />
        </details>
        <details class="panel-box">
          <summary>Filter and sort</summary>
          <${QueryBuilder} fields=${database.fields} onApply=${(q) => { setQuery(q); void loadRecords(q); }} />
        </details>
        <${FormViews} base=${base} />
        <div class="grid-wrap">
          <table class="grid" data-testid="grid">
            <thead><tr>
              <th scope="col"><span class="sr-only">Open</span>#</th>
              ${columns.map((f) => html`<th scope="col" key=${f.id}>${f.name}</th>`)}
              <th scope="col"><span class="sr-only">Actions</span></th>
            </tr></thead>
            <tbody>
              ${records.map(
                (r) => html`<tr key=${r.id} data-testid="row" data-record-id=${r.id} class=${r.id === openId ? 'selected' : ''}>
                  <td><button type="button" class="open" data-testid="open-record" aria-label=${`Open record ${r.number}`} onClick=${() => setOpenId(r.id)}>${r.number}</button></td>
                  ${columns.map((f) => html`<${Cell} key=${f.id} field=${f} record=${r} editing=${editing?.id === r.id && editing.field === f.api_name} setEditing=${setEditing} save=${save} base=${base} reload=${reload} cellError=${cellErrors[`${r.id}:${f.api_name}`]} />`)}
                  <td><button type="button" class="danger" aria-label=${`Delete record ${r.number}`} onClick=${() => remove(r)}>Delete</button></td>
                </tr>`,
              )}
            </tbody>
          </table>
        </div>
        ${records.length === 0 && html`<p class="muted" data-testid="no-records">No records${query.filter ? ' match' : ' yet'}.</p>`}
        ${cursor && html`<button type="button" onClick=${() => loadRecords(query, cursor)}>Next page</button>`}
        <form class="inline-form" onSubmit=${addRecord} data-testid="add-record" aria-label="Add a record">
          <label>New record <input value=${newTitle} onInput=${(e) => setNewTitle(e.currentTarget.value)} placeholder="Title" /></label>
          <button type="submit">Add record</button>
        </form>
      </div>
      ${open && html`<${RecordPanel} key=${open.id} ws=${ws} base=${base} record=${open} fields=${database.fields} me=${me} commentsTick=${commentsTick} onClose=${() => setOpenId(null)} />`}
    </div>
  `;
}
