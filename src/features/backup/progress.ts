/**
 * Progress for a person at a terminal: lines on standard error when it is a TTY (a counter rewritten in place),
 * nothing otherwise, where only the command's summary is wanted.
 */
export class Progress {
  private readonly isTerminal: boolean
  private counting = false

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {
    this.isTerminal = stream.isTTY === true
  }

  line(text: string): void {
    if (!this.isTerminal) return
    this.endCount()
    this.stream.write(`${new Date().toISOString()} -- ${text}\n`)
  }

  count(label: string, done: number, total: number): void {
    if (!this.isTerminal) return
    this.counting = true
    this.stream.write(`\r${new Date().toISOString()} -- ${label} ${done}/${total}`)
  }

  endCount(): void {
    if (this.counting) this.stream.write('\n')
    this.counting = false
  }
}

/** Bytes as people read them: 1.5 MB. */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'kB', 'MB', 'GB', 'TB']
  let value = bytes
  let unit = 0
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000
    unit += 1
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(1)} ${units[unit]}`
}

/** Runs `work` on every item, at most `limit` at once, in order of start; the first failure is thrown once all settle. */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0
  let failure: { error: unknown } | null = null
  async function lane() {
    while (next < items.length && !failure) {
      const index = next++
      try {
        await work(items[index], index)
      } catch (error) {
        failure ??= { error }
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane))
  if (failure) throw (failure as { error: unknown }).error
}
