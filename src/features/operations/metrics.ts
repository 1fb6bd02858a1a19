import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify'
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client'

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

type Labels = { method: string; route: string; status: string }

/** One line of a metric as prom-client's registry prints it: `metricName{labels,sharedLabels} value`. */
interface Sample {
  labels: Record<string, string | number>
  sharedLabels?: Labels
  value: number
  metricName?: string
}

/** The requests of one method, route and status: a count, and their durations in buckets. */
interface Series {
  labels: Labels
  count: number
  sum: number
  /** How many fell in each bucket of DURATION_BUCKETS, the last for those above them all. */
  buckets: number[]
}

/**
 * A metric of the series, made when the registry is read: prom-client's own counters validate and hash their labels
 * on every increment, which cost more than the rest of a small request's bookkeeping.
 */
class SeriesMetric {
  readonly aggregator = 'sum' as const

  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'histogram',
    private readonly values: (series: Series) => Sample[],
    private readonly series: () => Iterable<Series>,
  ) {}

  get() {
    const values = [...this.series()].flatMap(this.values)
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator }
  }
}

/** Prometheus metrics of one app: requests by route and status, and their durations. */
export class Metrics {
  readonly registry = new Registry()
  private readonly series = new Map<string, Series>()

  constructor() {
    collectDefaultMetrics({ register: this.registry })
    const all = () => this.series.values()
    this.registry.registerMetric(
      new SeriesMetric(
        'http_requests_total',
        'HTTP requests by method, route and status.',
        'counter',
        (s) => [{ labels: s.labels, value: s.count }],
        all,
      ) as never,
    )
    const name = 'http_request_duration_seconds'
    this.registry.registerMetric(
      new SeriesMetric(
        name,
        'HTTP request durations by method and route.',
        'histogram',
        (s): Sample[] => {
          let total = 0
          // Labelled as prom-client's own histograms are: `le` first, then the series' labels.
          const buckets = DURATION_BUCKETS.map((le, n): Sample => ({
            labels: { le },
            sharedLabels: s.labels,
            value: (total += s.buckets[n]),
            metricName: `${name}_bucket`,
          }))
          return [
            ...buckets,
            { labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: `${name}_bucket` },
            { labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${name}_sum` },
            { labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${name}_count` },
          ]
        },
        all,
      ) as never,
    )
  }

  /**
   * Counts every answer by its route pattern (never the raw URL, which keeps the label set small). Each route gets a
   * hook of its own that knows its pattern: reading it from the request (`routeOptions`) builds an object each time.
   */
  register(app: FastifyInstance) {
    app.addHook('onRoute', (route) => {
      const observe = this.observer(route.url)
      const own = route.onResponse
      route.onResponse = own ? [...(Array.isArray(own) ? own : [own]), observe] : [observe]
    })
    const unmatched = this.observer('unmatched')
    app.addHook('onResponse', (request, reply, done) => {
      if (request.is404) return unmatched.call(app, request, reply, done)
      done()
    })
  }

  private observer(route: string): onResponseHookHandler {
    // Series by status (and method, for routes of several); the route's own few.
    const known = new Map<string, Series>()
    return (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      const key = `${request.method} ${reply.statusCode}`
      let series = known.get(key)
      if (!series) {
        const labels = { method: request.method, route, status: String(reply.statusCode) }
        const id = `${labels.method} ${route} ${labels.status}`
        series = this.series.get(id) ?? { labels, count: 0, sum: 0, buckets: DURATION_BUCKETS.map(() => 0).concat(0) }
        this.series.set(id, series)
        known.set(key, series)
      }
      const seconds = reply.elapsedTime / 1000
      let bucket = 0
      while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]) bucket++
      series.count += 1
      series.sum += seconds
      series.buckets[bucket] += 1
      done()
    }
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
