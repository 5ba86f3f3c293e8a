// A database: its fields, a filter/sort builder, the records grid with inline editing, live updates, the record panel.
import { html, useState, useEffect, useRef, ErrorNote, useAction, display } from './ui.js';
import { get, post, patch, del, followEvents } from './api.js';
import { RecordPanel } from './record.js';
import { FormViews } from './form.js';

/** Types written by the server (who and when): shown in the record panel, not as grid columns. */
const SYSTEM = new Set(['created_at', 'updated_at', 'created_by', 'updated_by', 'autonumber']);
/** Types the grid edits in place; others are shown read-only (the API still takes them). */
const EDITABLE = new Set(['text', 'long_text', 'email', 'url', 'phone', 'number', 'currency', 'percent', 'rating', 'checkbox', 'single_select', 'date']);
const NUMERIC = new Set(['number', 'currency', 'percent', 'rating', 'duration']);
const TEXTUAL = new Set(['text', 'long_text', 'email', 'url', 'phone']);
/** What the "add field" form offers; the API knows more types (see the reference). */
const NEW_FIELD_TYPES = ['text', 'long_text', 'number', 'checkbox', 'single_select', 'date', 'email', 'url'];

/** Filter operators per type, from plugins/records/README.md (the common subset). */
function opsFor(type) {
  if (TEXTUAL.has(type)) return ['contains', 'not_contains', 'eq', 'neq', 'starts_with', 'is_empty', 'is_not_empty'];
  if (NUMERIC.has(type)) return ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'is_empty', 'is_not_empty'];
  if (type === 'checkbox') return ['eq', 'neq'];
  if (type === 'date' || type === 'datetime' || type === 'created_at' || type === 'updated_at') return ['eq', 'before', 'after', 'on_or_before', 'on_or_after', 'is_empty', 'is_not_empty'];
  if (type === 'single_select') return ['is_any_of', 'is_none_of', 'eq', 'neq', 'is_empty', 'is_not_empty'];
  return ['is_empty', 'is_not_empty'];
}

const NO_VALUE = new Set(['is_empty', 'is_not_empty']);

/** The value the API takes for what an input holds. */
function toApi(field, raw) {
  if (field.type === 'checkbox') return Boolean(raw);
  if (raw === '' || raw === null || raw === undefined) return null;
  if (NUMERIC.has(field.type)) return Number(raw);
  return raw;
}

/** A condition's value as the filter language wants it. */
function conditionValue(field, op, raw) {
  if (field.type === 'checkbox') return raw === 'true';
  if (NUMERIC.has(field.type)) return Number(raw);
  if (op === 'is_any_of' || op === 'is_none_of') return [raw];
  return raw;
}

/** What an editor starts from: select by choice id, the rest as text. */
function editValue(field, value) {
  if (value === null || value === undefined) return '';
  if (field.type === 'single_select') return value.id ?? '';
  return String(value);
}

function CellEditor({ field, value, onSave, onCancel }) {
  const [draft, setDraft] = useState(editValue(field, value));
  const ref = useRef(null);
  // Enter, Escape and the blur that follows either must act once only.
  const done = useRef(false);
  useEffect(() => ref.current?.focus(), []);
  const finish = (save, v = draft) => {
    if (done.current) return;
    done.current = true;
    save ? onSave(toApi(field, v)) : onCancel();
  };
  const onKeyDown = (e) => {
    if (e.key === 'Enter') {
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
  const type = NUMERIC.has(field.type) ? 'number' : field.type === 'date' ? 'date' : 'text';
  return html`<input ...${common} type=${type} step="any" value=${draft} onInput=${(e) => setDraft(e.currentTarget.value)} />`;
}

function Cell({ field, record, editing, setEditing, save }) {
  const value = record.values[field.api_name];
  const title = `${field.name} of record ${record.number}`;
  if (field.type === 'checkbox' && !field.read_only) {
    return html`<td class="check"><input type="checkbox" aria-label=${title} data-testid=${`cell-${field.api_name}`} checked=${Boolean(value)} onChange=${(e) => save(record, field, e.currentTarget.checked)} /></td>`;
  }
  if (field.read_only || !EDITABLE.has(field.type)) return html`<td data-testid=${`cell-${field.api_name}`}>${display(value)}</td>`;
  if (editing) {
    return html`<td class="editing"><${CellEditor} field=${field} value=${value}
      onSave=${(v) => { setEditing(null); save(record, field, v); }} onCancel=${() => setEditing(null)} /></td>`;
  }
  const color = field.type === 'single_select' && value ? `chip chip-${value.color ?? 'gray'}` : '';
  return html`<td>
    <button type="button" class="cell" aria-label=${`Edit ${title}`} data-testid=${`cell-${field.api_name}`} onClick=${() => setEditing({ id: record.id, field: field.api_name })}>
      <span class=${color}>${display(value)}</span>
    </button>
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
      if (type === 'single_select') body.options = { choices: choices.split(',').map((s) => s.trim()).filter(Boolean).map((label) => ({ label })) };
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
      ${type === 'single_select' && html`<label>Choices (comma separated) <input value=${choices} onInput=${(e) => setChoices(e.currentTarget.value)} required /></label>`}
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
    if (f.type === 'single_select') {
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

  const save = (record, field, value) =>
    run(async () => {
      const updated = await patch(`${base}/records/${record.id}`, { values: { [field.api_name]: value } });
      setRecords((rs) => rs.map((r) => (r.id === updated.id ? updated : r)));
    });
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
                  ${columns.map((f) => html`<${Cell} key=${f.id} field=${f} record=${r} editing=${editing?.id === r.id && editing.field === f.api_name} setEditing=${setEditing} save=${save} />`)}
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
