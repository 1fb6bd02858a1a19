export {
  applyMetadata,
  assigneeChangeNote,
  detachMilestoneFromIssuables,
  touchIssuable,
  userFilterOf,
  dueDateChangeNote,
  issuableFilterConditions,
  issuableFiltersOf,
  issuableSortColumn,
  labelChangeNote,
  labelTitlesOf,
  milestoneChangeNote,
  peopleChangeNote,
  recordCreation,
  recordStateChange,
  resolveMetadata,
  type IssuableFilters,
  type IssuableLinks,
  type MetadataChange,
  type MetadataInput,
} from './service.js'
export type { IssuableType } from './store.js'
export {
  issuableEditChanges,
  issueCreationChanges,
  issueWire,
  mergeRequestCreationChanges,
  mergeRequestWire,
  stateChanges,
  STATE_IDS,
  type IssuableLinkIds,
} from './changes.js'
export { currentLabelsAndAssignees, hasCommented, issuablePartsOf, type IssuableParts } from './views.js'
export { NO_TIME_STATS, presentLabels, referencesOf, taskCompletionOf } from './present.js'
export {
  issuableFilterParams,
  IdListParam,
  LabelListParam,
  LabelsJson,
  ReferencesJson,
  TaskCompletionJson,
  TimeStatsJson,
  UserFilterParam,
} from './schemas.js'
