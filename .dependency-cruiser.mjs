// Dependency rules between the layers and feature folders of src (README: Architecture).
// `npm run deps` checks them; `npm run graph` draws the feature folders from the same cruise.

// Tests and test-support code may reach into any feature, so they are left out of the graph.
const TEST_CODE = ['\\.test\\.ts$', '^src/testing/', '^src/features/.+/testing\\.ts$', '^src/features/.+-fixtures\\.ts$']

// The process entry points and the composition root beside app.ts wire features together.
const COMPOSITION_ROOT = '^src/(app|build-context|main|cli|background|prepare|serve|primary)\\.ts$'

const FEATURE_INDEX = '^src/features/[^/]+/index\\.ts$'

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'feature-cycle',
      comment: 'Feature folders form a directed acyclic graph: this arrow closes a loop between features.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/features/([^/]+)$' },
      to: { path: '^src/features/', pathNot: '^src/features/$1(/|$)', circular: true },
    },
    {
      name: 'feature-past-index',
      comment: "A feature uses another feature only through that feature's index.ts.",
      severity: 'error',
      from: { path: '^src/features/([^/]+)/' },
      to: { path: '^src/features/', pathNot: ['^src/features/$1/', FEATURE_INDEX] },
    },
    {
      name: 'lower-layer-imports-feature',
      comment: 'core, config, db, http, jobs and web sit below the features and import none of them.',
      severity: 'error',
      from: { path: '^src/(core|config|db|http|jobs|web)/' },
      to: { path: '^src/features/' },
    },
    {
      name: 'past-index-outside-composition-root',
      comment: "Only app.ts, its composition root and the entry points import a feature's routes, pages or other files past its index.ts.",
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/features/', COMPOSITION_ROOT] },
      to: { path: '^src/features/', pathNot: FEATURE_INDEX },
    },
    {
      name: 'store-outside-feature',
      comment: "A feature's store is its own: everything else goes through its use cases.",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/features/' },
      to: { path: '^src/features/.*[/-]store\\.ts$' },
    },
  ],
  options: {
    includeOnly: '^src/',
    exclude: { path: TEST_CODE },
    doNotFollow: { path: 'node_modules' },
    // Type-only imports tie the design together as much as value imports do.
    tsPreCompilationDeps: true,
    skipAnalysisNotInRules: true,
  },
}
