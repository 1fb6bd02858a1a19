import v8 from 'node:v8'
import vm from 'node:vm'

/**
 * Start-up allocates in one burst (the bundle, every route), which makes V8 grow its young generation to 32 MB, and
 * an idle server would hold that until V8's memory reducer runs, half a minute later. The young generation keeps its
 * first size (2 MB) while svc starts; `endOfStartup` lets it grow again, for the throughput of a loaded server.
 * Imported first by main.ts, so that it runs before the other modules are evaluated.
 */
v8.setFlagsFromString('--semi-space-growth-factor=1')

export function endOfStartup() {
  v8.setFlagsFromString('--semi-space-growth-factor=2')
  compactHeap()
}

/**
 * Start-up leaves its garbage spread thin over the old generation's pages (about 5 MB of them), which V8's memory
 * reducer compacts only after half a minute idle. One compacting collection (some 30 ms) returns them at once.
 * `gc` is only given to contexts made after --expose-gc, hence the new context.
 */
function compactHeap() {
  v8.setFlagsFromString('--expose-gc')
  v8.setFlagsFromString('--compact-on-every-full-gc')
  const gc = vm.runInNewContext('gc') as () => void
  gc()
  v8.setFlagsFromString('--no-compact-on-every-full-gc')
  v8.setFlagsFromString('--no-expose-gc')
}
