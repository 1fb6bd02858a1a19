// The one diff renderer of the pages: merge request changes, a commit, a comparison.
export { diffSection, diffViewModeOf, type DiffSectionOptions, type DiffViewMode } from './diffs.js'
