// Quick actions in issue descriptions and comments: the commands a text holds and the changes they ask for. The
// issues feature applies them through its own update, so a command changes what the same form or API call would.
export {
  interpretQuickActions,
  mayHoldQuickActions,
  presentCommandsChanges,
  type Interpretation,
  type QuickActionTarget,
  type QuickActionUpdates,
} from './interpret.js'
