import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { cruise, type ICruiseResult } from 'dependency-cruiser'
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options'
import { afterAll, describe, expect, test } from 'vitest'

// The rules of .dependency-cruiser.mjs (run by `npm run deps`), tried on small source trees.

const trees: string[] = []
afterAll(() => trees.forEach((tree) => rmSync(tree, { recursive: true, force: true })))

async function violationsIn(files: Record<string, string>) {
  const tree = mkdtempSync(join(tmpdir(), 'svc-deps-'))
  trees.push(tree)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(tree, path)), { recursive: true })
    writeFileSync(join(tree, path), text)
  }
  const options = await extractDepcruiseOptions(resolve('.dependency-cruiser.mjs'))
  const { output } = await cruise(['src'], { ...options, baseDir: tree })
  return (output as ICruiseResult).summary.violations.map(({ rule, from, to, cycle }) => ({
    rule: rule.name,
    from,
    to,
    ...(cycle ? { cycle: cycle.map((step) => step.name) } : {}),
  }))
}

const twoFeatures = {
  'src/core/ids.ts': 'export type Id = number\n',
  'src/features/alpha/index.ts': "import type { Id } from '../../core/ids.js'\nexport const alphaIds: Id[] = []\n",
  'src/features/alpha/store.ts': 'export const alphaRows = []\n',
  'src/features/alpha/routes.ts': "import { alphaIds } from './index.js'\nexport const alphaRoutes = alphaIds\n",
  'src/features/beta/index.ts': "import { alphaIds } from '../alpha/index.js'\nexport const betaIds = [...alphaIds]\n",
}

describe('feature folders', () => {
  test('a feature may use another through its index.ts', async () => {
    expect(await violationsIn(twoFeatures)).toEqual([])
  })

  test('two features importing each other through their index.ts files are a cycle, even with no cycle between files', async () => {
    const violations = await violationsIn({
      ...twoFeatures,
      // alpha/present.ts -> beta/index.ts -> alpha/index.ts: the folders form a loop, the files do not.
      'src/features/alpha/present.ts': "import type { betaIds } from '../beta/index.js'\nexport type Beta = typeof betaIds\n",
    })
    expect(violations).toEqual(
      expect.arrayContaining([
        { rule: 'feature-cycle', from: 'src/features/alpha', to: 'src/features/beta', cycle: ['src/features/beta', 'src/features/alpha'] },
        { rule: 'feature-cycle', from: 'src/features/beta', to: 'src/features/alpha', cycle: ['src/features/alpha', 'src/features/beta'] },
      ]),
    )
    expect(violations).toHaveLength(2)
  })

  test('importing past another feature’s index.ts fails, type-only imports included', async () => {
    expect(
      await violationsIn({
        ...twoFeatures,
        'src/features/beta/service.ts': "import type { alphaRows } from '../alpha/store.js'\nexport type Rows = typeof alphaRows\n",
      }),
    ).toEqual([{ rule: 'feature-past-index', from: 'src/features/beta/service.ts', to: 'src/features/alpha/store.ts' }])
  })

  test('folders nested in a feature belong to it', async () => {
    expect(
      await violationsIn({
        ...twoFeatures,
        'src/features/beta/ingest/parse.ts':
          "import { betaIds } from '../index.js'\nimport { alphaIds } from '../../alpha/index.js'\n" +
          'export const ids = [...betaIds, ...alphaIds]\n',
        'src/features/alpha/ingest/parse.ts': "import { ids } from '../../beta/ingest/parse.js'\nexport const parsed = ids\n",
      }),
    ).toEqual(
      expect.arrayContaining([
        { rule: 'feature-past-index', from: 'src/features/alpha/ingest/parse.ts', to: 'src/features/beta/ingest/parse.ts' },
        expect.objectContaining({ rule: 'feature-cycle', from: 'src/features/alpha', to: 'src/features/beta/ingest' }),
      ]),
    )
  })
})

describe('outside the feature folders', () => {
  test('the composition root wires routes and stores nothing', async () => {
    expect(
      await violationsIn({
        ...twoFeatures,
        'src/app.ts': "import { alphaRoutes } from './features/alpha/routes.js'\nexport const routes = [alphaRoutes]\n",
        'src/main.ts':
          "import { routes } from './app.js'\nimport { betaIds } from './features/beta/index.js'\nexport { routes, betaIds }\n",
      }),
    ).toEqual([])
  })

  test('lower layers import no feature, other files no routes, and nothing a store', async () => {
    expect(
      await violationsIn({
        ...twoFeatures,
        'src/http/pipeline.ts': "import { alphaIds } from '../features/alpha/index.js'\nexport const ids = alphaIds\n",
        'src/version.ts': "import { alphaRoutes } from './features/alpha/routes.js'\nexport const routes = alphaRoutes\n",
        'src/app.ts': "import { alphaRows } from './features/alpha/store.js'\nexport const rows = alphaRows\n",
      }),
    ).toEqual(
      expect.arrayContaining([
        { rule: 'lower-layer-imports-feature', from: 'src/http/pipeline.ts', to: 'src/features/alpha/index.ts' },
        { rule: 'past-index-outside-composition-root', from: 'src/version.ts', to: 'src/features/alpha/routes.ts' },
        { rule: 'store-outside-feature', from: 'src/app.ts', to: 'src/features/alpha/store.ts' },
      ]),
    )
  })

  test('tests and test helpers may reach into any feature', async () => {
    expect(
      await violationsIn({
        ...twoFeatures,
        'src/features/alpha/routes.test.ts': "import { betaIds } from '../beta/index.js'\nimport { alphaRows } from './store.js'\n",
        'src/features/beta/service.test.ts': "import { alphaRows } from '../alpha/store.js'\n",
        'src/testing/factories.ts': "import { alphaRows } from '../features/alpha/store.js'\nexport const rows = alphaRows\n",
      }),
    ).toEqual([])
  })
})

describe('the generated picture', () => {
  test('lists each feature one layer above the highest feature it imports, and no layers while a loop remains', async () => {
    // @ts-expect-error: the script is plain JavaScript without type declarations.
    const { featureLayers } = await import('../scripts/dependencies.mjs')
    const edge = (from: string, to: string, inCycle = false) => ({ from, to, inCycle })
    const features = ['alpha', 'beta', 'gamma', 'delta']
    expect(featureLayers({ features, edges: [edge('alpha', 'beta'), edge('beta', 'gamma'), edge('alpha', 'gamma')] })).toEqual([
      ['gamma', 'delta'],
      ['beta'],
      ['alpha'],
    ])
    expect(featureLayers({ features, edges: [edge('alpha', 'beta', true), edge('beta', 'alpha', true)] })).toBeNull()
  })
})
