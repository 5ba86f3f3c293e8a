// The console's entry: hash routes (so the server only ever serves `/`), the signed-in shell, the workspace pages.
import { html, render, useState, useEffect, ErrorNote, useAction, CreateForm } from './ui.js';
import { session, get, post } from './api.js';
import { DatabasePage } from './grid.js';
import { PublicForm } from './form.js';

/** `#/w/<ws>/d/<db>` → ['w', ws, 'd', db]. */
function useRoute() {
  const parse = () => location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const [route, setRoute] = useState(parse);
  useEffect(() => {
    const onHash = () => setRoute(parse());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  return route;
}

const DocsLink = () => html`<a class="docs" href="/api/v1/docs" target="_blank" rel="noopener">API reference</a>`;

function SignIn({ onSignedIn }) {
  const [mode, setMode] = useState('in');
  const [form, setForm] = useState({ email: '', name: '', password: '' });
  const { error, busy, run } = useAction();
  const set = (k) => (e) => setForm({ ...form, [k]: e.currentTarget.value });
  const submit = (e) => {
    e.preventDefault();
    run(async () => {
      const body = mode === 'up' ? form : { email: form.email, password: form.password };
      const res = await post(mode === 'up' ? '/auth/sign-up' : '/auth/sign-in', body);
      session.set(res.token);
      onSignedIn();
    });
  };
  return html`
    <main class="auth">
      <h1>Tessera</h1>
      <form onSubmit=${submit} data-testid="auth-form" aria-label=${mode === 'up' ? 'Sign up' : 'Sign in'}>
        <h2>${mode === 'up' ? 'Create an account' : 'Sign in'}</h2>
        <label>E-mail <input type="email" autocomplete="email" value=${form.email} onInput=${set('email')} required /></label>
        ${mode === 'up' && html`<label>Name <input autocomplete="name" value=${form.name} onInput=${set('name')} required /></label>`}
        <label>Password <input type="password" autocomplete=${mode === 'up' ? 'new-password' : 'current-password'} value=${form.password} onInput=${set('password')} required minlength="8" /></label>
        <button type="submit" disabled=${busy}>${mode === 'up' ? 'Sign up' : 'Sign in'}</button>
        <${ErrorNote} error=${error} />
      </form>
      <p>
        <button class="link" type="button" onClick=${() => setMode(mode === 'up' ? 'in' : 'up')}>
          ${mode === 'up' ? 'I have an account: sign in' : 'No account yet? Sign up'}
        </button>
      </p>
      <p><${DocsLink} /></p>
    </main>
  `;
}

function Workspaces() {
  const [list, setList] = useState(null);
  const { error, run } = useAction();
  const load = () => run(async () => setList((await get('/workspaces')).data));
  useEffect(() => void load(), []);
  return html`
    <section>
      <h1>Workspaces</h1>
      <${ErrorNote} error=${error} />
      <ul class="cards" data-testid="workspaces">
        ${(list ?? []).map((w) => html`<li key=${w.id}><a href=${`#/w/${w.id}`}>${w.name}</a> <span class="muted">${w.role}</span></li>`)}
      </ul>
      ${list && list.length === 0 && html`<p class="muted">No workspace yet: create one.</p>`}
      <${CreateForm} label="New workspace" button="Create workspace" testid="create-workspace"
        onSubmit=${async (name) => {
          const ws = await post('/workspaces', { name });
          location.hash = `#/w/${ws.id}`;
        }} />
    </section>
  `;
}

function Workspace({ ws }) {
  const [workspace, setWorkspace] = useState(null);
  const [spaces, setSpaces] = useState([]);
  const [databases, setDatabases] = useState([]);
  const { error, run } = useAction();
  const load = () =>
    run(async () => {
      const [w, s, d] = await Promise.all([get(`/workspaces/${ws}`), get(`/workspaces/${ws}/spaces`), get(`/workspaces/${ws}/databases`)]);
      setWorkspace(w);
      setSpaces(s.data);
      setDatabases(d.data);
    });
  useEffect(() => void load(), [ws]);
  return html`
    <section>
      <p class="crumbs"><a href="#/">Workspaces</a> /</p>
      <h1>${workspace?.name ?? '…'}</h1>
      <${ErrorNote} error=${error} />
      ${spaces.map(
        (s) => html`
          <div class="space" key=${s.id} data-testid="space">
            <h2>${s.name}</h2>
            <ul class="cards">
              ${databases.filter((d) => d.space_id === s.id).map((d) => html`<li key=${d.id}><a href=${`#/w/${ws}/d/${d.id}`}>${d.name}</a></li>`)}
            </ul>
            <${CreateForm} label=${`New database in ${s.name}`} button="Create database" testid="create-database"
              onSubmit=${async (name) => {
                const db = await post(`/workspaces/${ws}/databases`, { name, space_id: s.id });
                location.hash = `#/w/${ws}/d/${db.id}`;
              }} />
          </div>
        `,
      )}
      ${spaces.length === 0 && html`<p class="muted">No space yet: databases live in spaces.</p>`}
      <${CreateForm} label="New space" button="Create space" testid="create-space"
        onSubmit=${async (name) => {
          await post(`/workspaces/${ws}/spaces`, { name });
          await load();
        }} />
    </section>
  `;
}

function Admin() {
  const [plugins, setPlugins] = useState(null);
  const { error, run } = useAction();
  useEffect(() => void run(async () => setPlugins((await get('/admin/plugins')).data)), []);
  return html`
    <section>
      <h1>Plugins</h1>
      <${ErrorNote} error=${error} />
      ${plugins &&
      html`<table class="list" data-testid="plugins">
        <thead><tr><th scope="col">Plugin</th><th scope="col">Version</th><th scope="col">State</th></tr></thead>
        <tbody>${plugins.map((p) => html`<tr key=${p.id}><td>${p.id}</td><td>${p.version}</td><td>${p.state}${p.failure ? `: ${p.failure}` : ''}</td></tr>`)}</tbody>
      </table>`}
    </section>
  `;
}

function Shell({ me, route, onSignOut }) {
  let page;
  if (route[0] === 'w' && route[2] === 'd' && route[3]) page = html`<${DatabasePage} ws=${route[1]} db=${route[3]} me=${me} key=${route[3]} />`;
  else if (route[0] === 'w' && route[1]) page = html`<${Workspace} ws=${route[1]} key=${route[1]} />`;
  else if (route[0] === 'admin') page = html`<${Admin} />`;
  else page = html`<${Workspaces} />`;
  return html`
    <header class="top">
      <a class="brand" href="#/">Tessera</a>
      <nav aria-label="Main">
        <a href="#/">Workspaces</a>
        <a href="#/admin">Plugins</a>
        <${DocsLink} />
      </nav>
      <span class="me" data-testid="me">${me.name}</span>
      <button type="button" onClick=${onSignOut}>Sign out</button>
    </header>
    <main class="page">${page}</main>
  `;
}

function App() {
  const route = useRoute();
  const [me, setMe] = useState(undefined); // undefined: asking; null: signed out
  const loadMe = async () => {
    if (!session.token) return setMe(null);
    try {
      setMe(await get('/me'));
    } catch {
      setMe(null);
    }
  };
  useEffect(() => {
    void loadMe();
    const out = () => setMe(null);
    window.addEventListener('tessera:signed-out', out);
    return () => window.removeEventListener('tessera:signed-out', out);
  }, []);
  const signOut = async () => {
    await post('/auth/sign-out').catch(() => {});
    session.clear();
    setMe(null);
  };
  // A published form is for anyone: no session needed.
  if (route[0] === 'form' && route[1]) return html`<${PublicForm} token=${route[1]} />`;
  if (me === undefined) return html`<p class="loading">Loading…</p>`;
  if (me === null) return html`<${SignIn} onSignedIn=${loadMe} />`;
  return html`<${Shell} me=${me} route=${route} onSignOut=${signOut} />`;
}

const root = document.getElementById('app');
// Preact adds to what the container holds: the "Loading" placeholder of index.html goes first.
root.textContent = '';
render(html`<${App} />`, root);
