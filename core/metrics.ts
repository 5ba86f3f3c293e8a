import client from 'prom-client';

/** Per-kernel registry (not prom-client's global one), so several kernels can share a process. */
export class HttpMetrics {
  readonly registry = new client.Registry();
  private readonly requests: client.Counter<'method' | 'route' | 'status'>;
  private readonly duration: client.Histogram<'method' | 'route'>;

  constructor() {
    client.collectDefaultMetrics({ register: this.registry, prefix: 'tessera_' });
    this.requests = new client.Counter({
      name: 'tessera_http_requests_total',
      help: 'HTTP requests by route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.duration = new client.Histogram({
      name: 'tessera_http_request_duration_seconds',
      help: 'HTTP request duration by route template',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [this.registry],
    });
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.duration.observe({ method, route }, seconds);
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
