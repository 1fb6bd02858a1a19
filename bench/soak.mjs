// The load of bench/load.mjs held at SOAK_RATE API requests/s (default 80 % of the highest rate that passes, found
// first) for SOAK_SECONDS (default 600) on a fresh svc brought up to it in steps, printing svc's memory every 30 s: what
// its process tree holds (common.mjs treeMemory), its RSS summed and the largest process. Ends with the start, min, max
// and end of what the tree holds and whether it stayed within ±10 % of its level at one minute. Figures only. Run alone with `node bench/soak.mjs` after `npm run build`.
import { format, percentile, printTable, treeMemory } from './common.mjs'
import { benchLoad, createLoad, printClasses, runLoad, startLoadTarget, summaryColumns, summaryRow } from './load.mjs'

const PRINT_EVERY = 30
const BAND = 0.1
/** The fresh svc is brought up to the rate in steps, as a load test's ramp-up stage does: 10 s at each share of it. */
const RAMP = [0.25, 0.5, 0.75]
const RAMP_SECONDS = 10

/** Soaks svc at SOAK_RATE, else at 80 % of `highest` passing rate (searched for first when not given). */
export async function benchSoak(highest) {
  const seconds = Number(process.env.SOAK_SECONDS ?? 600)
  const rate = process.env.SOAK_RATE ? Number(process.env.SOAK_RATE) : Math.round((0.8 * (highest ?? (await benchLoad()))) / 10) * 10
  if (!(rate > 0)) {
    console.log('\nsoak: no rate to soak at')
    return
  }
  const target = await startLoadTarget()
  try {
    const load = createLoad(target)
    const pid = target.svc.pid
    for (const share of RAMP) await runLoad(load, Math.round(rate * share), RAMP_SECONDS)
    const startRss = treeMemory(pid)
    console.log(
      `\nsoak: R = ${rate} API requests/s for ${seconds} s on a fresh svc, after ${RAMP.length * RAMP_SECONDS} s of ramp-up ` +
        `(${RAMP.map((share) => `${share * 100} %`).join(', ')} of R); memory of svc's process tree`,
    )
    const columns = ['t s', 'holds MB', 'RSS MB', 'largest MB', 'processes', 'p99 ms (last 30 s)', 'ok', 'failed']
    // Rows come one at a time, so each column is as wide as its heading (the first one left-aligned).
    const line = (cells) =>
      console.log(
        cells
          .map((cell, index) => (index ? String(cell).padStart(Math.max(columns[index].length, 8) + 2) : String(cell).padEnd(5)))
          .join(''),
      )
    line(columns)
    line(['0', format(startRss.held, 1), format(startRss.total, 1), format(startRss.largest, 1), startRss.processes, '-', '-', '-'])
    const samples = []
    let elapsed = 0
    const result = await runLoad(load, rate, seconds, {
      onSecond(run) {
        elapsed += 1
        const rss = treeMemory(pid)
        samples.push({ at: elapsed, ...rss })
        if (elapsed % PRINT_EVERY !== 0) return
        const window = run.window.sort((a, b) => a - b)
        line([
          elapsed,
          format(rss.held, 1),
          format(rss.total, 1),
          format(rss.largest, 1),
          rss.processes,
          format(percentile(window, 0.99), 1),
          run.windowOk,
          run.windowFailed,
        ])
        run.window = []
        run.windowOk = 0
        run.windowFailed = 0
      },
    })
    result.rss = treeMemory(pid)
    samples.push({ at: seconds, ...result.rss })
    const held = samples.map((sample) => sample.held)
    const totals = samples.map((sample) => sample.total)
    const level = samples.find((sample) => sample.at >= 60)?.held ?? NaN
    const later = samples.filter((sample) => sample.at >= 60).map((sample) => sample.held)
    const steady = later.every((total) => Math.abs(total - level) <= BAND * level)
    console.log('')
    printTable([summaryColumns, summaryRow(result)])
    printClasses(result)
    console.log(
      `soak memory (MB, what the process tree holds): start ${format(startRss.held, 1)}, min ${format(Math.min(...held), 1)}, ` +
        `max ${format(Math.max(...held), 1)}, end ${format(result.rss.held, 1)}; level at 1 min ${format(level, 1)}, after it ${format(Math.min(...later), 1)}–${format(Math.max(...later), 1)}: ` +
        `${Number.isFinite(level) ? (steady ? 'within' : 'NOT within') : 'no minute to compare with, not'} ±${BAND * 100} %; ` +
        `RSS summed ${format(Math.min(...totals), 1)}–${format(Math.max(...totals), 1)}, largest process at the end ${format(result.rss.largest, 1)} MB`,
    )
    load.agent.destroy()
  } finally {
    await target.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchSoak()
