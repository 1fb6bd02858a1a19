#!/usr/bin/env node
// Checks the dependency rules in .dependency-cruiser.mjs and that docs/architecture.md still draws the feature graph
// the code has. `--write` regenerates docs/architecture.md instead of comparing it.
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { cruise, format } from 'dependency-cruiser'
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const PICTURE = 'docs/architecture.md'
const FEATURE = /^src\/features\/([^/]+)/

/** Cruises src of the repository at baseDir with this repository's rules. */
export async function cruiseSource(baseDir = ROOT) {
  const options = await extractDepcruiseOptions(join(ROOT, '.dependency-cruiser.mjs'))
  const { output } = await cruise(['src'], { ...options, baseDir })
  return output
}

/** One node per feature folder, one arrow per pair of features with at least one import between them. */
export function featureGraph(result) {
  const features = new Set()
  const edges = new Map()
  for (const module of result.modules) {
    const from = FEATURE.exec(module.source)?.[1]
    if (!from) continue
    features.add(from)
    for (const dependency of module.dependencies) {
      const to = FEATURE.exec(dependency.resolved)?.[1]
      if (to && to !== from) edges.set(`${from} ${to}`, { from, to, inCycle: false })
    }
  }
  for (const violation of result.summary.violations) {
    if (violation.rule.name !== 'feature-cycle') continue
    const edge = edges.get(`${FEATURE.exec(violation.from)?.[1]} ${FEATURE.exec(violation.to)?.[1]}`)
    if (edge) edge.inCycle = true
  }
  const byName = (a, b) => (a < b ? -1 : a > b ? 1 : 0)
  return {
    features: [...features].sort(byName),
    edges: [...edges.values()].sort((a, b) => byName(a.from, b.from) || byName(a.to, b.to)),
  }
}

const nodeId = (feature) => feature.replaceAll('-', '_')

/** Each feature's layer: one above the highest feature it imports (0 for those that import none); null while a loop remains. */
export function featureLayers({ features, edges }) {
  if (edges.some((edge) => edge.inCycle)) return null
  const imports = new Map(features.map((feature) => [feature, edges.filter((edge) => edge.from === feature).map((edge) => edge.to)]))
  const layer = new Map()
  const layerOf = (feature) => {
    if (!layer.has(feature)) layer.set(feature, 1 + Math.max(-1, ...imports.get(feature).map(layerOf)))
    return layer.get(feature)
  }
  const layers = []
  for (const feature of features) (layers[layerOf(feature)] ??= []).push(feature)
  return layers
}

function renderLayers(layers) {
  if (layers === null) return []
  return [
    '## Layers',
    '',
    'Each feature imports only features on lower rows; the bottom row imports none.',
    '',
    '| layer | features |',
    '| ----- | -------- |',
    ...layers.map((features, index) => `| ${index} | ${features.join(', ')} |`).reverse(),
    '',
  ]
}

export function renderPicture({ features, edges }) {
  const cyclic = edges.map((edge, index) => (edge.inCycle ? index : -1)).filter((index) => index >= 0)
  return [
    '# Dependencies between features',
    '',
    '<!-- Generated from the imports in src/features by `npm run graph`; `npm run deps` fails when this file is out of date. -->',
    '',
    'One box per folder in `src/features`; an arrow points from a feature to a feature it imports (type-only imports',
    'included, tests left out). `core`, `config`, `db`, `http`, `jobs` and `web` sit below every feature and are not',
    'drawn. Red arrows close a loop between features and are still to be removed.',
    '',
    '```mermaid',
    'graph TD',
    ...features.map((feature) => `  ${nodeId(feature)}["${feature}"]`),
    ...edges.map(({ from, to }) => `  ${nodeId(from)} --> ${nodeId(to)}`),
    ...(cyclic.length > 0 ? [`  linkStyle ${cyclic.join(',')} stroke:#d73a49,stroke-width:2px`] : []),
    '```',
    '',
    ...renderLayers(featureLayers({ features, edges })),
  ].join('\n')
}

async function main(args) {
  const result = await cruiseSource()
  const picture = renderPicture(featureGraph(result))
  if (args.includes('--write')) {
    writeFileSync(join(ROOT, PICTURE), picture)
    console.log(`wrote ${PICTURE}`)
    return 0
  }
  const { output, exitCode } = await format(result, { outputType: 'err', ruleSet: result.summary.ruleSetUsed })
  process.stdout.write(output)
  let committed = ''
  try {
    committed = readFileSync(join(ROOT, PICTURE), 'utf8')
  } catch {
    // A missing picture is out of date like any other.
  }
  if (committed !== picture) {
    console.log(`\n  error ${PICTURE} no longer matches the imports in src/features: run \`npm run graph\` and commit it.\n`)
    return 1
  }
  return exitCode === 0 ? 0 : 1
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2))
}
