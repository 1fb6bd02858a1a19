import type { FastifyInstance } from 'fastify'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

/** Prometheus metrics of one app: requests by route and status, and their durations. */
export class Metrics {
  readonly registry = new Registry()
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  })
  private readonly durations = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request durations by method and route.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  })

  private readonly series = new Map<
    string,
    { requests: ReturnType<Metrics['requests']['labels']>; durations: ReturnType<Metrics['durations']['labels']> }
  >()

  constructor() {
    collectDefaultMetrics({ register: this.registry })
  }

  register(app: FastifyInstance) {
    app.addHook('onResponse', (request, reply, done) => {
      // The route pattern, never the raw URL, keeps the label set small; each set's counters are looked up once.
      const route = request.routeOptions.url ?? 'unmatched'
      const key = `${request.method} ${route} ${reply.statusCode}`
      let series = this.series.get(key)
      if (!series) {
        const labels = { method: request.method, route, status: String(reply.statusCode) }
        series = { requests: this.requests.labels(labels), durations: this.durations.labels(labels) }
        this.series.set(key, series)
      }
      series.requests.inc()
      series.durations.observe(reply.elapsedTime / 1000)
      done()
    })
  }

  /** Reports the jobs table's counts by kind and state, read at each scrape so every node shows the whole queue. */
  trackJobs(countJobs: () => Promise<{ kind: string; state: string; count: number }[]>) {
    new Gauge({
      name: 'svc_jobs',
      help: 'Background jobs by kind and state.',
      labelNames: ['kind', 'state'] as const,
      registers: [this.registry],
      async collect() {
        // A database that does not answer leaves the gauge empty rather than failing the whole scrape.
        const counts = await countJobs().catch(() => [])
        this.reset()
        for (const { kind, state, count } of counts) this.set({ kind, state }, count)
      },
    })
  }

  text(): Promise<string> {
    return this.registry.metrics()
  }

  get contentType(): string {
    return this.registry.contentType
  }
}
