import v8 from 'node:v8'

/**
 * Start-up allocates in one burst (the bundle, every route), which makes V8 grow its young generation to 32 MB, and
 * an idle server would hold that until V8's memory reducer runs, half a minute later. The young generation keeps its
 * first size (2 MB) while svc starts; `endOfStartup` lets it grow again, for the throughput of a loaded server.
 * Imported first by main.ts, so that it runs before the other modules are evaluated.
 */
v8.setFlagsFromString('--semi-space-growth-factor=1')

export function endOfStartup() {
  v8.setFlagsFromString('--semi-space-growth-factor=2')
}
