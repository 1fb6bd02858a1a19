import { checkOutboundUrl, OutboundRefused } from '../../core/outbound-http.js'
import type { BranchFilterStrategy } from '../../db/schema.js'
import { isValidRefName } from '../repositories/index.js'
import { interpolatedUrl, InterpolationError, urlVariableNames } from './urls.js'

// GL WebHooks::Hook validations (and its before_validation callbacks), each error under the attribute GitLab files it.

/** GL web_hooks_url_variables.json and web_hooks_custom_headers.json: at most 20, names of this form. */
const MAX_KEYS = 20
const URL_VARIABLE_NAME = /^[A-Za-z]+[0-9]*(?:[._-][A-Za-z0-9]+)*$/
const HEADER_NAME = /^[A-Za-z]+[0-9]*(?:[._-][A-Za-z0-9]+)*$/
const MAX_VALUE_LENGTH = 2048
export const MAX_TEMPLATE_LENGTH = 4096
const MAX_BRANCH_FILTER_LENGTH = 4000
// The text limits of GitLab's columns (add_text_limit), checked here rather than failing in the database.
const MAX_NAME_LENGTH = 255
const MAX_DESCRIPTION_LENGTH = 2048

/** What a hook is made of, as validation sees it. */
export interface HookAttributes {
  url: string
  token: string | null
  urlVariables: Record<string, string>
  customHeaders: Record<string, string>
  name: string | null
  description: string | null
  pushEventsBranchFilter: string | null
  branchFilterStrategy: BranchFilterStrategy
  customWebhookTemplate: string | null
}

export type HookErrors = Record<string, string[]>

function add(errors: HookErrors, attribute: string, message: string) {
  ;(errors[attribute] ??= []).push(message)
}

function isValidKeyValues(values: Record<string, string>, names: RegExp): boolean {
  const entries = Object.entries(values)
  if (entries.length > MAX_KEYS) return false
  return entries.every(
    ([key, value]) => names.test(key) && typeof value === 'string' && value.length >= 1 && value.length <= MAX_VALUE_LENGTH,
  )
}

/** GL WildcardBranchFilterValidator's squish: runs of whitespace become one space, none at either end. */
export function squish(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

/** GL UntrustedRegexpValidator (RE2 there; JavaScript's syntax here). */
function regexProblem(source: string): string | null {
  try {
    new RegExp(source, 'u')
    return null
  } catch (error) {
    return `not valid RE2 syntax: ${(error as Error).message}`
  }
}

function branchFilterProblems(filter: string | null, strategy: BranchFilterStrategy): string[] {
  if (filter === null || filter.trim() === '') return []
  if (strategy === 'regex') {
    const problem = regexProblem(filter)
    return problem ? [problem] : []
  }
  if (strategy !== 'wildcard') return []
  const problems: string[] = []
  if (!isValidRefName(filter.replaceAll('*', 'x'))) problems.push('is not a valid branch name')
  if (filter.length > MAX_BRANCH_FILTER_LENGTH) problems.push('is longer than the allowed length of 4000 characters.')
  return problems
}

/** Ruby's `Array#inspect` of strings, as GitLab's missing-keys message shows them. */
function inspect(names: string[]): string {
  return `[${names.map((name) => JSON.stringify(name)).join(', ')}]`
}

async function urlProblem(url: string, options: { allowLocal: boolean; allowlist: string[] }): Promise<string | null> {
  try {
    await checkOutboundUrl(url, options)
    return null
  } catch (error) {
    if (error instanceof OutboundRefused) return `is blocked: ${error.message}`
    throw error
  }
}

/**
 * The hook's errors in the order GitLab's validations find them; none when it may be saved. The URL is checked as it
 * would be sent (`allowLocal` from the instance settings for this kind of hook): with URL variables, once they are
 * filled in (`interpolated_url`).
 */
export async function validateHook(hook: HookAttributes, options: { allowLocal: boolean; allowlist: string[] }): Promise<HookErrors> {
  const errors: HookErrors = {}
  const hasVariables = Object.keys(hook.urlVariables).length > 0
  if (hook.url.trim() === '') add(errors, 'url', "can't be blank")
  else if (!hasVariables) {
    const problem = await urlProblem(hook.url, options)
    if (problem) add(errors, 'url', problem)
  }
  if (hook.token?.includes('\n')) add(errors, 'token', 'is invalid')
  for (const problem of branchFilterProblems(hook.pushEventsBranchFilter, hook.branchFilterStrategy)) {
    add(errors, 'push_events_branch_filter', problem)
  }
  if (!isValidKeyValues(hook.urlVariables, URL_VARIABLE_NAME)) add(errors, 'url_variables', 'must be a valid json schema')
  const missing = urlVariableNames(hook.url).filter((name) => !Object.hasOwn(hook.urlVariables, name))
  if (missing.length > 0) add(errors, 'url', `Invalid URL template. Missing keys: ${inspect([...new Set(missing)])}`)
  if (hasVariables && Object.keys(errors).length === 0) {
    try {
      const problem = await urlProblem(interpolatedUrl(hook.url, hook.urlVariables), options)
      if (problem) add(errors, 'interpolated_url', problem)
    } catch (error) {
      if (!(error instanceof InterpolationError)) throw error
      add(errors, 'url', error.message)
    }
  }
  if (!isValidKeyValues(hook.customHeaders, HEADER_NAME)) add(errors, 'custom_headers', 'must be a valid json schema')
  if (hook.customWebhookTemplate !== null && hook.customWebhookTemplate.length > MAX_TEMPLATE_LENGTH) {
    add(errors, 'custom_webhook_template', `is too long (maximum is ${MAX_TEMPLATE_LENGTH} characters)`)
  }
  if (hook.name !== null && hook.name.length > MAX_NAME_LENGTH)
    add(errors, 'name', `is too long (maximum is ${MAX_NAME_LENGTH} characters)`)
  if (hook.description !== null && hook.description.length > MAX_DESCRIPTION_LENGTH) {
    add(errors, 'description', `is too long (maximum is ${MAX_DESCRIPTION_LENGTH} characters)`)
  }
  return errors
}

/** Rails' `full_messages`: the attribute humanized, then the message (`Token is invalid`). */
export function fullMessages(errors: HookErrors): string[] {
  return Object.entries(errors).flatMap(([attribute, messages]) => {
    const name = attribute.replaceAll('_', ' ')
    const humanized = name.charAt(0).toUpperCase() + name.slice(1)
    return messages.map((message) => `${humanized} ${message}`)
  })
}
