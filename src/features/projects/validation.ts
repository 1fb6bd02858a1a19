import { nameErrors, projectPathErrors } from '../namespaces/index.js'

// Project model validations (GL app/models/project.rb, project_setting.rb), in the order GitLab runs them, so the
// keys of a 400 body come out in GitLab's order.

export type ValidationErrors = Record<string, string[]>

/** The attributes the model validates, as they would be saved. */
export interface ProjectCandidate {
  name: string
  path: string
  description: string | null
  ci_config_path: string | null
  build_timeout: number
  ci_default_git_depth: number
  suggestion_commit_message: string | null
  merge_commit_template: string | null
  squash_commit_template: string | null
  issue_branch_template: string | null
  max_artifacts_size: number | null
}

export function addError(errors: ValidationErrors, key: string, message: string) {
  ;(errors[key] ??= []).push(message)
}

function tooLong(errors: ValidationErrors, key: string, value: string | null, maximum: number) {
  if (value !== null && [...value].length > maximum) addError(errors, key, `is too long (maximum is ${maximum} characters)`)
}

const MIN_BUILD_TIMEOUT_SECONDS = 600
const MAX_BUILD_TIMEOUT_SECONDS = 2_592_000

/** Errors of the attributes that changed (`changed` holds column names; name and path are checked when changed). */
export function projectValidationErrors(candidate: ProjectCandidate, changed: ReadonlySet<string>): ValidationErrors {
  const errors: ValidationErrors = {}
  if (changed.has('description')) tooLong(errors, 'description', candidate.description, 2000)
  if (changed.has('ci_config_path') && candidate.ci_config_path) {
    if (/\.\.|^\//.test(candidate.ci_config_path))
      addError(errors, 'ci_config_path', 'cannot include leading slash or directory traversal.')
    tooLong(errors, 'ci_config_path', candidate.ci_config_path, 255)
  }
  if (changed.has('name')) for (const message of nameErrors(candidate.name, 'project')) addError(errors, 'name', message)
  if (changed.has('path')) for (const message of projectPathErrors(candidate.path)) addError(errors, 'path', message)
  if (changed.has('build_timeout')) {
    const t = candidate.build_timeout
    if (t < MIN_BUILD_TIMEOUT_SECONDS || t >= MAX_BUILD_TIMEOUT_SECONDS)
      addError(errors, 'build_timeout', 'needs to be between 10 minutes and 1 month')
  }
  if (changed.has('ci_default_git_depth')) {
    if (candidate.ci_default_git_depth < 0) addError(errors, 'ci_default_git_depth', 'must be greater than or equal to 0')
    if (candidate.ci_default_git_depth > 1000) addError(errors, 'ci_default_git_depth', 'must be less than or equal to 1000')
  }
  if (changed.has('suggestion_commit_message')) tooLong(errors, 'suggestion_commit_message', candidate.suggestion_commit_message, 255)
  if (changed.has('merge_commit_template')) tooLong(errors, 'merge_commit_template', candidate.merge_commit_template, 500)
  if (changed.has('squash_commit_template')) tooLong(errors, 'squash_commit_template', candidate.squash_commit_template, 500)
  if (changed.has('issue_branch_template')) tooLong(errors, 'issue_branch_template', candidate.issue_branch_template, 255)
  if (changed.has('max_artifacts_size') && candidate.max_artifacts_size !== null && candidate.max_artifacts_size <= 0) {
    addError(errors, 'max_artifacts_size', 'must be greater than 0')
  }
  return errors
}

/** Whether a path has the format of a project path (GL `project_path_format_regex`). */
export function hasProjectPathFormat(path: string): boolean {
  return !projectPathErrors(path).some((message) => message.startsWith('can contain only'))
}

/** ActiveSupport's `parameterize`: ASCII letters, digits, `-` and `_`, lower-cased, other runs joined by one `-`. */
export function parameterize(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-zA-Z0-9\-_]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase()
}
