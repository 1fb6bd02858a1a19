import type { Migration } from 'kysely'
import * as m20261123T0800 from './20261123T0800_create_users_tokens_settings.js'
import * as m20261123T1130 from './20261123T1130_create_namespaces_projects_members.js'
import * as m20261123T1347 from './20261123T1347_project_settings_and_list_indexes.js'
import * as m20261123T1440 from './20261123T1440_create_sessions_and_oauth.js'
import * as m20261123T1730 from './20261123T1730_create_issues_labels_events.js'
import * as m20261123T1847 from './20261123T1847_create_label_counts.js'
import * as m20261123T1900 from './20261123T1900_create_jobs.js'
import * as m20261123T1905 from './20261123T1905_project_readme_path.js'
import * as m20261123T1930 from './20261123T1930_create_push_event_payloads.js'
import * as m20261123T2020 from './20261123T2020_repository_containers_and_moves.js'
import * as m20261123T2330 from './20261123T2330_create_alerts_environments_clusters.js'
import * as m20261124T0000 from './20261124T0000_create_error_tracking.js'
import * as m20261127T1000 from './20261127T1000_create_protected_refs.js'
import * as m20261127T1100 from './20261127T1100_create_merge_request_diffs.js'
import * as m20261128T0000 from './20261128T0000_create_merge_request_reviewers.js'
import * as m20261128T0100 from './20261128T0100_session_flash.js'
import * as m20261129T0900 from './20261129T0900_diff_notes.js'
import * as m20261129T1000 from './20261129T1000_session_impersonator.js'
import * as m20261130T0000 from './20261130T0000_create_merge_request_approvals.js'
import * as m20261201T0000 from './20261201T0000_create_web_hooks.js'
import * as m20261201T0001 from './20261201T0001_web_hook_delivery_schedule.js'
import * as m20261201T0100 from './20261201T0100_create_mail_outbox_and_account_tokens.js'
import * as m20261201T0200 from './20261201T0200_create_subscriptions_and_sent_notifications.js'
import * as m20261201T0300 from './20261201T0300_merge_request_rebase.js'

/** Every migration, by name; names sort in the order they run. */
export const migrations: Record<string, Migration> = {
  '20261123T0800_create_users_tokens_settings': m20261123T0800,
  '20261123T1130_create_namespaces_projects_members': m20261123T1130,
  '20261123T1347_project_settings_and_list_indexes': m20261123T1347,
  '20261123T1440_create_sessions_and_oauth': m20261123T1440,
  '20261123T1730_create_issues_labels_events': m20261123T1730,
  '20261123T1847_create_label_counts': m20261123T1847,
  '20261123T1900_create_jobs': m20261123T1900,
  '20261123T1905_project_readme_path': m20261123T1905,
  '20261123T1930_create_push_event_payloads': m20261123T1930,
  '20261123T2020_repository_containers_and_moves': m20261123T2020,
  '20261123T2330_create_alerts_environments_clusters': m20261123T2330,
  '20261124T0000_create_error_tracking': m20261124T0000,
  '20261127T1000_create_protected_refs': m20261127T1000,
  '20261127T1100_create_merge_request_diffs': m20261127T1100,
  '20261128T0000_create_merge_request_reviewers': m20261128T0000,
  '20261128T0100_session_flash': m20261128T0100,
  '20261129T0900_diff_notes': m20261129T0900,
  '20261129T1000_session_impersonator': m20261129T1000,
  '20261130T0000_create_merge_request_approvals': m20261130T0000,
  '20261201T0000_create_web_hooks': m20261201T0000,
  '20261201T0001_web_hook_delivery_schedule': m20261201T0001,
  '20261201T0100_create_mail_outbox_and_account_tokens': m20261201T0100,
  '20261201T0200_create_subscriptions_and_sent_notifications': m20261201T0200,
  '20261201T0300_merge_request_rebase': m20261201T0300,
}
