import v8 from 'node:v8'

/**
 * Start-up allocates in one burst (the bundle, every route), which makes V8 grow its young generation to 32 MB, and
 * an idle server would hold that until V8's memory reducer runs, half a minute later. The young generation keeps its
 * first size (2 MB) while svc starts; `endOfStartup` lets it grow again, for the throughput of a loaded server.
 * Imported first by main.ts, so that it runs before the other modules are evaluated.
 *
 * Start-up also leaves about 5 MB of old-generation pages half empty, which the memory reducer compacts after half
 * a minute idle. A full collection forced at the end of start-up returned them at once, but every request was 10 to
 * 15 % slower afterwards (measured on GET /api/v4/version, by whatever way the collection was forced), so svc leaves
 * it to V8.
 */
v8.setFlagsFromString('--semi-space-growth-factor=1')

export function endOfStartup() {
  v8.setFlagsFromString('--semi-space-growth-factor=2')
}
