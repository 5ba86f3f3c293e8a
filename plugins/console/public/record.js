// The side panel of one record: its values, comments (with @mentions of members), its activity and versions.
import { html, useState, useEffect, useRef, ErrorNote, useAction, display, when } from './ui.js';
import { get, post } from './api.js';

/**
 * The comment text as the rich-text document comments take: a paragraph per line, and each `@Name` of a member
 * picked from the suggestions as a mention node (`{ type: 'mention', attrs: { user_id } }`, see plugins/documents).
 */
export function toDoc(text, picked) {
  const paragraphs = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const content = [];
      let rest = line;
      for (;;) {
        let hit = null;
        for (const m of picked) {
          const at = rest.indexOf(`@${m.name}`);
          if (at >= 0 && (!hit || at < hit.at || (at === hit.at && m.name.length > hit.m.name.length))) hit = { at, m };
        }
        if (!hit) break;
        if (hit.at > 0) content.push({ type: 'text', text: rest.slice(0, hit.at) });
        content.push({ type: 'mention', attrs: { user_id: hit.m.user_id } });
        rest = rest.slice(hit.at + hit.m.name.length + 1);
      }
      if (rest) content.push({ type: 'text', text: rest });
      return { type: 'paragraph', content };
    });
  return { type: 'doc', content: paragraphs };
}

function Inline({ node, names }) {
  if (node.type === 'text') return node.text;
  if (node.type === 'mention') return html`<span class="mention">@${names.get(node.attrs?.user_id) ?? 'someone'}</span>`;
  if (node.type === 'hard_break') return html`<br />`;
  return (node.content ?? []).map((n) => html`<${Inline} node=${n} names=${names} />`);
}

function CommentBody({ comment, names }) {
  const blocks = comment.content?.content ?? [];
  if (blocks.length === 0) return html`<p>${comment.text}</p>`;
  return blocks.map((b) => html`<p>${(b.content ?? []).map((n) => html`<${Inline} node=${n} names=${names} />`)}</p>`);
}

/** A textarea where `@` + letters suggests members; Enter/Tab or a click picks one. */
function Composer({ members, onPost }) {
  const [text, setText] = useState('');
  const [picked, setPicked] = useState([]);
  const [suggest, setSuggest] = useState(null); // { start, query, active }
  const { error, busy, run } = useAction();
  const ref = useRef(null);

  const matches = suggest ? members.filter((m) => m.name.toLowerCase().startsWith(suggest.query.toLowerCase())).slice(0, 6) : [];
  const onInput = (e) => {
    const value = e.currentTarget.value;
    setText(value);
    const caret = e.currentTarget.selectionStart ?? value.length;
    const m = /(^|\s)@([^\s@]*)$/.exec(value.slice(0, caret));
    setSuggest(m ? { start: caret - m[2].length - 1, query: m[2], active: 0 } : null);
  };
  const pick = (member) => {
    const caret = ref.current?.selectionStart ?? text.length;
    const next = `${text.slice(0, suggest.start)}@${member.name} ${text.slice(caret)}`;
    setText(next);
    setPicked((ps) => (ps.some((p) => p.user_id === member.user_id) ? ps : [...ps, member]));
    setSuggest(null);
    ref.current?.focus();
  };
  const onKeyDown = (e) => {
    if (!suggest || matches.length === 0) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const d = e.key === 'ArrowDown' ? 1 : -1;
      setSuggest({ ...suggest, active: (suggest.active + d + matches.length) % matches.length });
    } else if (e.key === 'Enter' || e.key === 'Tab') {
      e.preventDefault();
      pick(matches[Math.min(suggest.active, matches.length - 1)]);
    } else if (e.key === 'Escape') setSuggest(null);
  };
  const submit = (e) => {
    e.preventDefault();
    if (!text.trim()) return;
    run(async () => {
      await onPost(toDoc(text, picked.filter((m) => text.includes(`@${m.name}`))));
      setText('');
      setPicked([]);
    });
  };
  return html`
    <form class="composer" onSubmit=${submit} data-testid="comment-form">
      <label>Comment (type @ to mention someone)
        <textarea ref=${ref} rows="3" value=${text} onInput=${onInput} onKeyDown=${onKeyDown} data-testid="comment-input"
          aria-autocomplete="list" aria-expanded=${matches.length > 0} aria-controls="mention-list"></textarea>
      </label>
      ${matches.length > 0 &&
      html`<ul id="mention-list" class="suggestions" role="listbox" aria-label="Members" data-testid="mention-suggestions">
        ${matches.map(
          (m, i) => html`<li key=${m.user_id} role="option" aria-selected=${i === suggest.active} class=${i === suggest.active ? 'active' : ''}
            onMouseDown=${(e) => { e.preventDefault(); pick(m); }}>${m.name} <span class="muted">${m.email ?? ''}</span></li>`,
        )}
      </ul>`}
      <button type="submit" disabled=${busy}>Post comment</button>
      <${ErrorNote} error=${error} />
    </form>
  `;
}

export function RecordPanel({ ws, base, record, fields, commentsTick, onClose }) {
  const url = `${base}/records/${record.id}`;
  const [comments, setComments] = useState([]);
  const [members, setMembers] = useState([]);
  const [activity, setActivity] = useState(null);
  const [versions, setVersions] = useState(null);
  const { error, run } = useAction();
  const names = new Map(members.map((m) => [m.user_id, m.name]));

  const loadComments = () => run(async () => setComments((await get(`${url}/comments`)).data));
  useEffect(() => void run(async () => setMembers((await get(`/workspaces/${ws}/members`)).data)), [ws]);
  useEffect(() => void loadComments(), [record.id, commentsTick]);
  // Activity and versions are asked for when opened, and again as the record changes.
  useEffect(() => {
    if (activity) void run(async () => setActivity((await get(`${url}/activity`)).data));
    if (versions) void run(async () => setVersions((await get(`${url}/versions`)).data));
  }, [record.version]);

  const title = record.values[fields.find((f) => f.is_title)?.api_name] || `Record ${record.number}`;
  return html`
    <aside class="record-panel" aria-label=${`Record ${title}`} data-testid="record-panel">
      <div class="panel-head">
        <h2>${title}</h2>
        <button type="button" onClick=${onClose} aria-label="Close the record">Close</button>
      </div>
      <${ErrorNote} error=${error} />
      <dl class="values">
        ${fields.map((f) => html`<div key=${f.id}><dt>${f.name}</dt><dd data-testid=${`value-${f.api_name}`}>${display(record.values[f.api_name])}</dd></div>`)}
      </dl>
      <h3>Comments</h3>
      <ol class="comments" data-testid="comments">
        ${comments.map(
          (c) => html`<li key=${c.id} data-testid="comment">
            <div class="meta"><strong>${c.author?.name ?? 'Former member'}</strong> <span class="muted">${when(c.created_at)}${c.edited ? ' (edited)' : ''}</span></div>
            <${CommentBody} comment=${c} names=${names} />
          </li>`,
        )}
      </ol>
      <${Composer} members=${members} onPost=${async (content) => {
        await post(`${url}/comments`, { content });
        await loadComments();
      }} />
      <details onToggle=${(e) => e.currentTarget.open && !activity && run(async () => setActivity((await get(`${url}/activity`)).data))}>
        <summary>Activity</summary>
        <ul class="activity" data-testid="activity">
          ${(activity ?? []).map(
            (a) => html`<li key=${a.id}><strong>${a.actor?.name ?? 'Someone'}</strong> ${a.type.replace('.', ' ')} <span class="muted">${when(a.created_at)}</span>
              ${(a.changes ?? []).map((ch) => html`<div class="change">${ch.name}: ${display(ch.before)} → ${display(ch.after)}</div>`)}</li>`,
          )}
        </ul>
      </details>
      <details onToggle=${(e) => e.currentTarget.open && !versions && run(async () => setVersions((await get(`${url}/versions`)).data))}>
        <summary>Versions</summary>
        <ul class="versions" data-testid="versions">
          ${(versions ?? []).map((v) => html`<li key=${v.version}>v${v.version} <span class="muted">${when(v.created_at)}</span> — ${(v.changed_fields ?? []).join(', ')}</li>`)}
        </ul>
      </details>
    </aside>
  `;
}
