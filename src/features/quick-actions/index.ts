// Quick actions in issue and merge request descriptions and comments: the commands a text holds and the changes they
// ask for. The features that own issues and merge requests apply them through their own updates, so a command changes
// what the same form or API call would.
export {
  interpretQuickActions,
  mayHoldQuickActions,
  presentCommandsChanges,
  type Interpretation,
  type IssueTarget,
  type MergeRequestReviewState,
  type MergeRequestTarget,
  type QuickActionOptions,
  type QuickActionTarget,
  type QuickActionUpdates,
} from './interpret.js'
export { interpretDescription, noteCommandsOf, withCommandUpdates, type CommandInput } from './apply.js'
