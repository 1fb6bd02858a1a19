import type { WebRouter } from '../sessions/index.js'
import { registerIssuePages } from './issues.js'
import { registerLabelPages } from './labels.js'
import { registerMilestonePages } from './milestones.js'
import { registerSnippetPages } from './snippets.js'

/** The pages behind the web_url of issues, milestones and snippets, and the project's issue, label and milestone lists. */
export function registerIssuablePages(web: WebRouter) {
  registerIssuePages(web)
  registerLabelPages(web)
  registerMilestonePages(web)
  registerSnippetPages(web)
}

// What the merge request pages share with these.
export { labelChoices, milestoneChoices, peopleChoices } from './choices.js'
export {
  filteredListOf,
  finderFiltersOf,
  isFiltered,
  listFilters,
  type FilteredList,
  type ListFilterSpec,
  type SortOption,
} from './list-filters.js'
export {
  avatar,
  descriptionOf,
  discussionOf,
  iidOf,
  labelBadge,
  labelIssuesPath,
  listPager,
  loadDiscussion,
  metadataFields,
  previewBodyOf,
  previewSection,
  stateBadge,
  stateTabs,
  userLink,
} from './shared.js'
