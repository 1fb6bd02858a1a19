import { parseArgs } from 'node:util'
import type { Config } from '../../config/index.js'
import { DumpError } from '../../db/dump.js'
import { createBackup } from './create.js'
import { formatBytes, Progress } from './progress.js'
import { restoreBackup, RestoreRefused } from './restore.js'

class UsageError extends Error {}

async function create(args: string[], config: Config) {
  const { values, positionals } = parseArgs({ args, strict: true, allowPositionals: true, options: { to: { type: 'string' } } })
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`)
  const summary = await createBackup(config, values.to ?? null, new Progress())
  const details = [`${summary.repositories} repositories`]
  if (summary.emptyRepositories > 0) details.push(`${summary.emptyRepositories} of them empty`)
  if (summary.vanished > 0) details.push(`${summary.vanished} more gone or still being created when read`)
  process.stdout.write(`Backup written to ${summary.file} (${formatBytes(summary.bytes)}; ${details.join(', ')})\n`)
}

async function restore(args: string[], config: Config) {
  const { positionals } = parseArgs({ args, strict: true, allowPositionals: true, options: {} })
  if (positionals.length !== 1) throw new UsageError('expected restore FILE')
  const summary = await restoreBackup(config, positionals[0], new Progress())
  process.stdout.write(
    `Restored the backup of ${summary.manifest.createdAt} (svc ${summary.manifest.svcVersion}): the database and ${summary.repositories} repositories\n`,
  )
}

/**
 * `svc backup create [--to FILE]` and `svc backup restore FILE` (GL gitlab-backup create/restore). Reports a failure
 * as one line on stderr: exit code 2 for a wrong command line, 1 for anything else.
 */
export async function runBackupCommand(args: string[], config: Config): Promise<void> {
  const [action, ...rest] = args
  try {
    if (action === 'create') await create(rest, config)
    else if (action === 'restore') await restore(rest, config)
    else throw new UsageError('expected create [--to FILE] or restore FILE')
  } catch (error) {
    const isUsage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    const isKnown = isUsage || error instanceof RestoreRefused || error instanceof DumpError
    const message = error instanceof Error ? error.message : String(error)
    process.stderr.write(`svc backup: ${isKnown ? message : `failed: ${message}`}\n`)
    process.exitCode = isUsage ? 2 : 1
  }
}
