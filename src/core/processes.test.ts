import fs from 'node:fs'
import os from 'node:os'
import { describe, expect, test } from 'vitest'
import { startProcess, type Process } from './processes.js'

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', GREETING: 'hello there' }

/** Everything a process writes, and how it ended. */
function outcome(child: Process): Promise<{ stdout: string; stderr: string; code: number | null; signal: NodeJS.Signals | null }> {
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ stdout, stderr, code, signal })))
}

/** The parent of process `pid`. */
function parentOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
}

describe('startProcess', () => {
  test('a program reads its standard input and writes its output, in its directory and environment', async () => {
    const child = startProcess('sh', ['-c', 'cat; pwd; echo "$GREETING"; echo "to stderr" >&2'], { env, cwd: os.tmpdir() })
    const ended = outcome(child)
    child.stdin!.write('first line\n')
    child.stdin!.end('second line\n')
    expect(await ended).toEqual({
      stdout: `first line\nsecond line\n${fs.realpathSync(os.tmpdir())}\nhello there\n`,
      stderr: 'to stderr\n',
      code: 0,
      signal: null,
    })
  })

  test('Perl starts it at a lower priority with only its standard streams open; it answers the exit code and standard error', async () => {
    const script = 'echo "$PPID"; cut -d " " -f 19 /proc/$$/stat; echo oops >&2; exit 3'
    const child = startProcess('sh', ['-c', script], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    const spawned = new Promise<void>((resolve) => child.once('spawn', resolve))
    const ended = await outcome(child)
    await spawned
    const [parent, niceness] = ended.stdout.trim().split('\n')
    expect(niceness).toBe('10')
    // ls run directly lists its own descriptors: the standard three and the one it reads the list through (a shell
    // would show its own pipes and saved descriptors as well).
    const listed = await outcome(startProcess('ls', ['/proc/self/fd'], { env, stdio: ['ignore', 'pipe', 'pipe'] }))
    expect(listed.stdout.trim().split('\n')).toEqual(['0', '1', '2', '3'])
    const starter = Number(parent)
    expect(starter).not.toBe(process.pid)
    expect(parentOf(starter)).toBe(process.pid)
    expect(fs.readFileSync(`/proc/${starter}/cmdline`, 'utf8').split('\0').slice(0, 2)).toEqual(['perl', '-e'])
    expect([ended.stderr, ended.code, ended.signal]).toEqual(['oops\n', 3, null])
    expect([child.exitCode, child.signalCode]).toEqual([3, null])
  })

  test('kill ends it with a signal, even when asked before it has started', async () => {
    const child = startProcess('sleep', ['30'], { env })
    expect(child.kill()).toBe(true)
    expect(await outcome(child)).toEqual({ stdout: '', stderr: '', code: null, signal: 'SIGTERM' })
    const later = startProcess('sleep', ['30'], { env })
    await new Promise<void>((resolve) => later.once('spawn', resolve))
    later.kill('SIGKILL')
    expect(await outcome(later)).toEqual({ stdout: '', stderr: '', code: null, signal: 'SIGKILL' })
    expect(later.kill()).toBe(false)
  })

  test('a reader that stops reading ends a program that writes on', async () => {
    const child = startProcess('yes', [], { env, stdio: ['ignore', 'pipe', 'ignore'] })
    const first = await new Promise<string>((resolve) =>
      child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1', 0, 4))),
    )
    expect(first).toBe('y\ny\n')
    const closed = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('close', (code, signal) => resolve([code, signal])),
    )
    child.stdout!.destroy()
    // Writing to a socket whose reader has closed fails: a reset (yes says so and exits 1) or a broken pipe.
    expect([
      [1, null],
      [null, 'SIGPIPE'],
    ]).toContainEqual(await closed)
  })

  test('a program that does not exist, or a directory that does not, ends with code 127 and says why', async () => {
    expect(await outcome(startProcess('no-such-program-here', ['x'], { env }))).toEqual({
      stdout: '',
      stderr: 'no-such-program-here: No such file or directory\n',
      code: 127,
      signal: null,
    })
    expect(await outcome(startProcess('true', [], { env, cwd: '/no/such/dir' }))).toEqual({
      stdout: '',
      stderr: 'chdir /no/such/dir: No such file or directory\n',
      code: 127,
      signal: null,
    })
  })

  test('many at once each get their own input and output', async () => {
    const children = Array.from({ length: 40 }, (_, n) => {
      const child = startProcess('cat', [], { env })
      const ended = outcome(child)
      child.stdin!.end(`process ${n}\n`.repeat(1000))
      return ended
    })
    const answers = await Promise.all(children)
    expect(answers.map((answer) => [answer.stdout === `process ${answers.indexOf(answer)}\n`.repeat(1000), answer.code])).toEqual(
      Array.from({ length: 40 }, () => [true, 0]),
    )
  })

  test('when the Perl starter dies, what it started is ended and reported killed, and the next start has a new one', async () => {
    const child = startProcess('sh', ['-c', 'echo "$PPID"; exec sleep 30'], { env })
    const starter = await new Promise<number>((resolve) => child.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString()))))
    const ended = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('close', (code, signal) => resolve([code, signal])),
    )
    process.kill(starter, 'SIGKILL')
    expect(await ended).toEqual([null, 'SIGKILL'])
    const next = await outcome(startProcess('sh', ['-c', 'echo "$PPID"'], { env }))
    expect(Number(next.stdout.trim())).not.toBe(starter)
    expect(next.code).toBe(0)
  })

  test('output is all delivered however late this process gets to it after the program has ended', async () => {
    for (let n = 0; n < 10; n++) {
      const child = startProcess('sh', ['-c', `echo ${n}`], { env, stdio: ['ignore', 'pipe', 'pipe'] })
      // A busy event loop: the end is known here before the output's connection may have been read.
      child.once('exit', () => {
        const until = Date.now() + 150
        while (Date.now() < until);
      })
      expect(await outcome(child)).toEqual({ stdout: `${n}\n`, stderr: '', code: 0, signal: null })
    }
  })
})
