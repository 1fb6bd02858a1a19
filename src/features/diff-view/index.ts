// The one diff renderer of the pages: merge request changes, a commit, a comparison.
export {
  diffLinesOf,
  diffSection,
  diffViewModeOf,
  fileHashOf,
  type DiffLineRef,
  type DiffSectionOptions,
  type DiffViewMode,
  type LineExtras,
  type LineExtrasOf,
} from './diffs.js'
