import { BadRequest } from '../../core/errors.js'
import type { FileChange } from '../repositories/index.js'
import type { LastCommitCheck } from './service.js'

// GL commits.rb `validate_commits_attrs!` and `validate_commit_action!`: each action checked in order, the first problem
// answered as 400 "400 Bad request - <problem>".

const ACTIONS = ['create', 'update', 'move', 'delete', 'chmod'] as const
type ActionName = (typeof ACTIONS)[number]

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
}

function textOf(value: unknown, name: string): string {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  throw new BadRequest(`${name} is invalid`)
}

/** Strict base64 (whitespace between groups allowed, as encoders wrap lines); null when the text is not base64. */
export function decodeBase64(text: string): Buffer | null {
  const compact = text.replace(/[\r\n\t ]/g, '')
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return null
  return Buffer.from(compact, 'base64')
}

/** Content as the action's encoding says; base64 that is not base64 is refused rather than guessed at. */
export function contentOf(value: unknown, encoding: string, name: string): Buffer {
  const text = textOf(value ?? '', name)
  if (encoding !== 'base64') return Buffer.from(text, 'utf8')
  const decoded = decodeBase64(text)
  if (decoded === null) throw new BadRequest(`${name} is not valid base64`)
  return decoded
}

const BOOLEANS = new Map<unknown, boolean>([
  [true, true],
  [false, false],
  ['true', true],
  ['false', false],
])

export interface DecodedActions {
  changes: FileChange[]
  checks: LastCommitCheck[]
}

/** The actions of POST /repository/commits as file changes, and the `last_commit_id`s to check (GL Files::MultiService). */
export function decodeActions(actions: readonly unknown[]): DecodedActions {
  const changes: FileChange[] = []
  const checks: LastCommitCheck[] = []
  actions.forEach((raw, index) => {
    const at = (field: string) => `actions[${index}][${field}]`
    const action = (raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>
    if (isBlank(action.action)) throw new BadRequest(`${at('action')} is required`)
    if (isBlank(action.file_path)) throw new BadRequest(`${at('file_path')} is required`)
    const name = textOf(action.action, at('action'))
    if (!ACTIONS.includes(name as ActionName)) throw new BadRequest(`${at('action')} must be one of: ${ACTIONS.join(', ')}`)
    let encoding = 'text'
    if ('encoding' in action) {
      encoding = typeof action.encoding === 'string' ? action.encoding : ''
      if (encoding !== 'text' && encoding !== 'base64') throw new BadRequest(`${at('encoding')} must be text or base64`)
    }
    const filePath = textOf(action.file_path, at('file_path'))
    const hasContent = 'content' in action && action.content !== null
    let executable = false
    switch (name as ActionName) {
      case 'update':
        if (!('content' in action)) throw new BadRequest(`${at('content')} is required for update action`)
        break
      case 'move':
        if (isBlank(action.previous_path)) throw new BadRequest(`${at('previous_path')} is required for move action`)
        break
      case 'chmod': {
        if (!('execute_filemode' in action)) throw new BadRequest(`${at('execute_filemode')} is required for chmod action`)
        const flag = BOOLEANS.get(action.execute_filemode)
        if (flag === undefined) throw new BadRequest(`${at('execute_filemode')} must be a boolean`)
        executable = flag
        break
      }
      case 'create':
        executable = BOOLEANS.get(action.execute_filemode) ?? false
        break
      case 'delete':
        break
    }
    const content = () => contentOf(action.content, encoding, at('content'))
    switch (name as ActionName) {
      case 'create':
        changes.push({ kind: 'create', path: filePath, content: content(), executable })
        break
      case 'update':
        changes.push({ kind: 'update', path: filePath, content: content() })
        break
      case 'move':
        changes.push({
          kind: 'move',
          path: filePath,
          previousPath: textOf(action.previous_path, at('previous_path')),
          content: hasContent ? content() : null,
        })
        break
      case 'delete':
        changes.push({ kind: 'delete', path: filePath })
        break
      case 'chmod':
        changes.push({ kind: 'chmod', path: filePath, executable })
        break
    }
    const lastCommitId = action.last_commit_id
    if (name !== 'create' && typeof lastCommitId === 'string' && lastCommitId !== '') {
      const checked = name === 'move' ? textOf(action.previous_path, at('previous_path')) : filePath
      checks.push({ path: checked, lastCommitId, message: `The file has changed since you started editing it: ${checked}` })
    }
  })
  return { changes, checks }
}
