import type { MatrixRow } from '../../../core/testing.ts';

/**
 * The billing plugin's rows: workspace admins only (a token needs the admin scope), on the matrix kernel whose billing is
 * on with plans that limit nothing, paid through a loopback Stripe (test/authorization/matrix.test.ts). Statuses follow
 * the callers' order: root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 */
export const plugin = 'billing';

const billing = (ws: string, path = '') => `/workspaces/${ws}/billing${path}`;
const ADMINS = (ok: number) => `404 ${ok} 403 403 403 403 403 403 403 ${ok} 404 401`;

export const rows: MatrixRow[] = [
  { route: 'GET /workspaces/{ws}/billing', expect: ADMINS(200), request: (w) => ({ path: billing(w.ws) }) },
  { route: 'GET /workspaces/{ws}/billing/usage', expect: ADMINS(200), request: (w) => ({ path: billing(w.ws, '/usage') }) },
  // A trial is once per workspace: each caller let through gets a world of its own.
  { route: 'POST /workspaces/{ws}/billing/trial', expect: ADMINS(201), fresh: 'world', request: (w) => ({ path: billing(w.ws, '/trial'), body: {} }) },
  {
    route: 'POST /workspaces/{ws}/billing/checkout-session',
    expect: ADMINS(201),
    request: (w) => ({ path: billing(w.ws, '/checkout-session'), body: { plan: 'pro', success_url: 'https://app.example.com/ok', cancel_url: 'https://app.example.com/back' } }),
  },
  { route: 'POST /workspaces/{ws}/billing/portal-session', expect: ADMINS(201), request: (w) => ({ path: billing(w.ws, '/portal-session'), body: { return_url: 'https://app.example.com/billing' } }) },
  { route: 'PUT /workspaces/{ws}/billing/ai-credits/auto-reload', expect: ADMINS(200), request: (w) => ({ path: billing(w.ws, '/ai-credits/auto-reload'), body: { enabled: false, threshold: 10, amount: 100 } }) },
  { route: 'GET /workspaces/{ws}/billing/ai-credits/ledger', expect: ADMINS(200), request: (w) => ({ path: billing(w.ws, '/ai-credits/ledger') }) },
  // No credential: an unsigned event is refused alike for everyone, and nothing is stored.
  { route: 'POST /billing/webhooks/{provider}', expect: '401 401 401 401 401 401 401 401 401 401 401 401', request: () => ({ path: '/billing/webhooks/stripe', body: { id: 'evt_unsigned', type: 'invoice.paid' } }) },
];
