import { spawn, type ChildProcess } from 'node:child_process'
import { EventEmitter } from 'node:events'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { PassThrough, type Readable, type Writable } from 'node:stream'

/**
 * A program svc runs (git): what callers use of Node's ChildProcess. Events as ChildProcess's: 'spawn', 'error',
 * 'exit' (code, signal) and 'close' (code, signal) once its output has ended too.
 */
export interface Process extends EventEmitter {
  readonly stdin: Writable | null
  readonly stdout: Readable | null
  readonly stderr: Readable | null
  readonly exitCode: number | null
  readonly signalCode: NodeJS.Signals | null
  /** Whether kill() was called. */
  readonly killed: boolean
  kill(signal?: NodeJS.Signals): boolean
  on(event: 'exit' | 'close', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): this
  on(event: 'spawn', listener: () => void): this
  once(event: 'exit' | 'close', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this
  once(event: 'error', listener: (error: NodeJS.ErrnoException) => void): this
  once(event: 'spawn', listener: () => void): this
}

export interface ProcessOptions {
  env: NodeJS.ProcessEnv
  cwd?: string
  /** Standard input, output and error: each a pipe (the default) or ignored. */
  stdio?: readonly ['pipe' | 'ignore', 'pipe' | 'ignore', 'pipe' | 'ignore']
}

type Stdio = NonNullable<ProcessOptions['stdio']>

/**
 * Starts `command` through a small Perl process that forks it (see STARTER), or with Node's spawn where there is no
 * Perl (Debian's git depends on it, so it is there wherever git is). Node forks the whole calling process to start a
 * program and waits until the program has started: a server process holding 100 MB spent 15 ms of CPU per git
 * process under load, its event loop blocked all that time; Perl holding 5 MB forks in about 1 ms.
 */
export function startProcess(command: string, args: readonly string[], options: ProcessOptions): Process {
  const stdio = options.stdio ?? ['pipe', 'pipe', 'pipe']
  starter ??= hasPerl() ? new Starter() : null
  if (starter?.usable) return starter.start(command, args, options.env, options.cwd ?? '', stdio)
  return spawn(command, args, { env: options.env, cwd: options.cwd, stdio: [...stdio] })
}

let starter: Starter | null | undefined

/** Whether `perl` is on the PATH. */
function hasPerl(): boolean {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    try {
      fs.accessSync(path.join(dir, 'perl'), fs.constants.X_OK)
      return true
    } catch {
      // Not in this directory.
    }
  }
  return false
}

/**
 * The Perl side. It reads requests from its standard input, each `<length>\n` then fields joined by NUL: id, working
 * directory, whether standard error is wanted (1 or 0), the argument count, the arguments, then the environment.
 * For each it forks; the child connects to the socket at the path given as its argument, writes `<id> 0\n` there and
 * makes that connection its standard input and output, does the same with `<id> 2\n` for standard error when wanted,
 * answers `C <id>` (before its exit is reported, so the connections are to be waited for then), closes every other
 * descriptor it inherited, lowers its priority (a git process must not take the CPU from the event loops that serve
 * every other request: in one series the load bench passed at 430 API requests/s with it and failed at 350 without)
 * and executes the program. Perl answers `S <id> <pid>` once forked, `F <id> <error>` when it could not fork, and
 * `X <id> <code> <signal>` when the program has ended (code -1 when a signal ended it). Ended children are reaped
 * between requests: SIGCHLD writes to a pipe the loop watches with the standard input.
 */
const STARTER = String.raw`
use strict; use warnings; use Socket; use POSIX ();
my $path = $ARGV[0];
$| = 1;
pipe(my $wake_in, my $wake_out) or die "pipe: $!";
my %ids;
$SIG{CHLD} = sub { syswrite($wake_out, 'x') };
$SIG{PIPE} = 'IGNORE';
sub connected {
  my ($header) = @_;
  socket(my $socket, AF_UNIX, SOCK_STREAM, 0) or POSIX::_exit(127);
  connect($socket, pack_sockaddr_un($path)) or POSIX::_exit(127);
  syswrite($socket, $header) or POSIX::_exit(127);
  return $socket;
}
sub start {
  my ($id, $cwd, $stderr, $count, @rest) = @_;
  my @args = splice(@rest, 0, $count);
  my $pid = fork();
  if (!defined $pid) { print "F $id $!\n"; return }
  if ($pid == 0) {
    $SIG{CHLD} = 'DEFAULT'; $SIG{PIPE} = 'DEFAULT'; setpriority(0, 0, 10);
    my $io = connected("$id 0\n");
    my $errors = $stderr ? connected("$id 2\n") : undef;
    print "C $id\n";
    POSIX::dup2(fileno($io), 0); POSIX::dup2(fileno($io), 1);
    if ($errors) { POSIX::dup2(fileno($errors), 2) } else { open(STDERR, '>', '/dev/null') }
    if (length $cwd && !chdir($cwd)) { print STDERR "chdir $cwd: $!\n"; POSIX::_exit(127) }
    opendir(my $fds, '/proc/self/fd'); my @inherited = grep { /^\d+$/ && $_ > 2 } readdir($fds); closedir($fds);
    POSIX::close($_) for @inherited;
    %ENV = map { split(/=/, $_, 2) } @rest;
    { no warnings; exec { $args[0] } @args; }
    print STDERR "$args[0]: $!\n";
    POSIX::_exit(127);
  }
  $ids{$pid} = $id;
  print "S $id $pid\n";
}
my $input = '';
while (1) {
  my $watched = '';
  vec($watched, fileno(STDIN), 1) = 1; vec($watched, fileno($wake_in), 1) = 1;
  my $ready = select(my $readable = $watched, undef, undef, undef);
  next if $ready < 0;
  sysread($wake_in, my $ignored, 4096) if vec($readable, fileno($wake_in), 1);
  while ((my $pid = waitpid(-1, POSIX::WNOHANG())) > 0) {
    my $id = delete $ids{$pid};
    next unless defined $id;
    my $code = POSIX::WIFEXITED($?) ? POSIX::WEXITSTATUS($?) : -1;
    my $signal = POSIX::WIFSIGNALED($?) ? POSIX::WTERMSIG($?) : 0;
    print "X $id $code $signal\n";
  }
  next unless vec($readable, fileno(STDIN), 1);
  my $read = sysread(STDIN, $input, 65536, length $input);
  last unless $read;
  while ($input =~ /^(\d+)\n/ && length($input) >= length($1) + 1 + $1) {
    my $record = substr($input, length($1) + 1, $1);
    $input = substr($input, length($1) + 1 + $1);
    start(split(/\0/, $record, -1));
  }
}
`

/** Signal names by number, as Perl reports them. */
const SIGNALS = new Map(Object.entries(os.constants.signals).map(([name, number]) => [number, name as NodeJS.Signals]))

/** One Perl process that starts programs for this process, and the programs it started, by id. */
class Starter {
  private nextId = 1
  private readonly running = new Map<number, Started>()
  /** The socket started programs connect to, in a directory only this user may enter. */
  private readonly directory = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-processes-'))
  private readonly socketPath = path.join(this.directory, 'socket')
  private readonly server: net.Server
  private perl: ChildProcess | null = null
  private answers = ''
  /** False once Perl or the socket could not be had: Node starts the programs then. */
  usable = true

  constructor() {
    this.server = net.createServer((socket) => this.connected(socket))
    this.server.on('error', () => (this.usable = false))
    this.server.listen(this.socketPath)
    this.server.unref()
    process.once('exit', () => fs.rmSync(this.directory, { recursive: true, force: true }))
  }

  start(command: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string, stdio: Stdio): Process {
    const id = this.nextId++
    const started = new Started(stdio)
    this.running.set(id, started)
    started.once('close', () => this.finished(id))
    started.once('error', () => this.finished(id))
    const fields = [String(id), cwd, stdio[2] === 'pipe' ? '1' : '0', String(args.length + 1), command, ...args]
    for (const [key, value] of Object.entries(env)) if (value !== undefined) fields.push(`${key}=${value}`)
    const record = Buffer.from(fields.join('\0'))
    const perl = this.helper()
    perl.ref()
    ;(perl.stdout as net.Socket).ref()
    perl.stdin!.write(`${record.length}\n`)
    perl.stdin!.write(record)
    return started
  }

  /** The Perl process, started when first needed and again if it died. */
  private helper(): ChildProcess {
    if (this.perl) return this.perl
    const perl = spawn('perl', ['-e', STARTER, this.socketPath], { stdio: ['pipe', 'pipe', 'inherit'] })
    this.perl = perl
    this.answers = ''
    perl.stdin!.on('error', () => {})
    perl.stdout!.setEncoding('latin1')
    perl.stdout!.on('data', (text: string) => this.answered(text))
    // Without Perl no exit status comes: what it started is ended, and reported as killed.
    perl.once('exit', () => {
      this.perl = null
      for (const [id, started] of this.running) {
        if (started.pid === undefined) this.fail(id, 'the process starter exited')
        else {
          started.kill('SIGKILL')
          started.exited(null, 'SIGKILL')
        }
      }
    })
    perl.once('error', (error) => {
      this.perl = null
      this.usable = false
      for (const id of [...this.running.keys()]) this.fail(id, error.message)
    })
    return perl
  }

  /** Perl's answers, a line each. */
  private answered(text: string) {
    this.answers += text
    let end: number
    while ((end = this.answers.indexOf('\n')) >= 0) {
      const [kind, id, ...rest] = this.answers.slice(0, end).split(' ')
      this.answers = this.answers.slice(end + 1)
      const started = this.running.get(Number(id))
      if (!started) continue
      if (kind === 'S') started.started(Number(rest[0]))
      else if (kind === 'C') started.connecting()
      else if (kind === 'F') this.fail(Number(id), rest.join(' '))
      else if (kind === 'X') {
        const code = Number(rest[0])
        started.exited(code >= 0 ? code : null, code >= 0 ? null : (SIGNALS.get(Number(rest[1])) ?? 'SIGKILL'))
      }
    }
  }

  /** A connection from a started program: `<id> <fd>\n`, then its output. */
  private connected(socket: net.Socket) {
    socket.on('error', () => {})
    let header = Buffer.alloc(0)
    const onData = (chunk: Buffer) => {
      header = Buffer.concat([header, chunk])
      const end = header.indexOf(0x0a)
      if (end < 0) {
        if (header.length > 64) socket.destroy()
        return
      }
      socket.off('data', onData)
      socket.pause()
      const [id, fd] = header.toString('latin1', 0, end).split(' ')
      const rest = header.subarray(end + 1)
      if (rest.length > 0) socket.unshift(rest)
      const started = this.running.get(Number(id))
      if (started && fd === '0') started.attachIo(socket)
      else if (started && fd === '2') started.attachErrors(socket)
      else socket.destroy()
    }
    socket.on('data', onData)
  }

  private fail(id: number, message: string) {
    this.running.get(id)?.failed(message)
  }

  private finished(id: number) {
    this.running.delete(id)
    // An idle starter does not keep this process alive.
    if (this.running.size === 0 && this.perl) {
      this.perl.unref()
      ;(this.perl.stdout as net.Socket).unref()
    }
  }
}

/**
 * A program Perl started. Its standard input and output are one socket, its standard error another; the streams
 * here lead to them once they are connected, what is written before waits.
 */
class Started extends EventEmitter implements Process {
  readonly stdin: PassThrough | null
  readonly stdout: PassThrough | null
  readonly stderr: PassThrough | null
  pid: number | undefined
  exitCode: number | null = null
  signalCode: NodeJS.Signals | null = null
  killed = false
  private io: net.Socket | null = null
  private errors: net.Socket | null = null
  private ended = false
  private closed = false
  /** A kill asked for before the program's pid is known, sent once it is. */
  private killWith: NodeJS.Signals | null = null
  /** Whether the program connected its output: only then are the connections waited for once it has ended. */
  private connected = false

  constructor(private readonly stdio: Stdio) {
    super()
    this.stdin = stdio[0] === 'pipe' ? new PassThrough() : null
    this.stdout = stdio[1] === 'pipe' ? new PassThrough() : null
    this.stderr = stdio[2] === 'pipe' ? new PassThrough() : null
    // A caller done reading ends the program's output, as closing a pipe's reading end does.
    this.stdout?.once('close', () => {
      if (!this.stdout?.readableEnded) this.io?.destroy()
      this.closeWhenDone()
    })
    this.stderr?.once('close', () => this.closeWhenDone())
  }

  connecting() {
    this.connected = true
  }

  started(pid: number) {
    this.pid = pid
    this.emit('spawn')
    if (this.killWith) this.kill(this.killWith)
  }

  attachIo(socket: net.Socket) {
    this.io = socket
    socket.once('close', () => this.closeWhenDone())
    if (this.stdin) this.stdin.pipe(socket)
    else socket.end()
    if (this.stdout && !this.stdout.destroyed) socket.pipe(this.stdout)
    else socket.resume()
  }

  attachErrors(socket: net.Socket) {
    this.errors = socket
    socket.once('close', () => this.closeWhenDone())
    if (this.stderr) socket.pipe(this.stderr)
    else socket.resume()
  }

  failed(message: string) {
    this.ended = true
    this.stdout?.destroy()
    this.stderr?.destroy()
    this.emit('error', Object.assign(new Error(message), { code: 'ESTART' }))
  }

  exited(code: number | null, signal: NodeJS.Signals | null) {
    this.exitCode = code
    this.signalCode = signal
    this.ended = true
    this.emit('exit', code, signal)
    // Output nobody ever read is let go, as Node does for a ChildProcess, so that 'close' comes.
    for (const stream of [this.stdout, this.stderr]) if (stream?.readableFlowing === null) stream.resume()
    // A program that ended before it connected (it could not, or was killed first) has no output to wait for.
    if (!this.connected) {
      this.stdout?.end()
      this.stderr?.end()
    }
    this.closeWhenDone()
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (this.ended) return false
    this.killed = true
    if (this.pid === undefined) {
      this.killWith = signal
      return true
    }
    try {
      process.kill(this.pid, signal)
      return true
    } catch {
      return false
    }
  }

  /** 'close' comes once the program has ended and its output has all been read (or thrown away). */
  private closeWhenDone() {
    if (this.closed || !this.ended || (this.exitCode === null && this.signalCode === null)) return
    const open = (socket: net.Socket | null, wanted: boolean) => (socket ? !socket.destroyed : wanted && this.connected)
    if (open(this.io, true) || open(this.errors, this.stdio[2] === 'pipe')) return
    if ((this.stdout && !this.stdout.destroyed) || (this.stderr && !this.stderr.destroyed)) return
    this.closed = true
    this.emit('close', this.exitCode, this.signalCode)
  }
}
