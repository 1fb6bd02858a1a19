// A bare node:http server that replays recorded responses, as the lower bound svc is measured against. A recording
// that names a git `object` instead of a body reads that object's content from one warm `git cat-file --batch` over
// `--git-dir` for every request: the least any server must do to send an object of a repository.
// Usage: node bench/bare.mjs <responses.json> [git-dir]; prints its port on stdout once listening.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import { onCatFileAnswers } from './common.mjs'

// { "GET /path": { status, headers: [[name, value], ...], body: base64 } or { status, headers, object } }
const recorded = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))
const responses = new Map(
  Object.entries(recorded).map(([key, { status, headers, body, object }]) => [
    key,
    object
      ? { status, headers: headers.filter(([name]) => name.toLowerCase() !== 'content-length').flat(), object }
      : { status, headers: headers.flat(), body: Buffer.from(body, 'base64') },
  ]),
)

/** Answers each `read(object)` in order from one long-lived `git cat-file --batch`. */
function catFile(gitDir) {
  const child = spawn('git', ['--git-dir', gitDir, 'cat-file', '--batch'], { stdio: ['pipe', 'pipe', 'ignore'] })
  const waiting = []
  onCatFileAnswers(child.stdout, (content) => waiting.shift()(content))
  return (object) =>
    new Promise((resolve) => {
      waiting.push(resolve)
      child.stdin.write(`${object}\n`)
    })
}
const read = process.argv[3] ? catFile(process.argv[3]) : null

const server = http.createServer((request, response) => {
  const recording = responses.get(`${request.method} ${request.url}`)
  if (!recording) {
    response.writeHead(404).end()
    return
  }
  // Drain the request so keep-alive connections stay usable.
  request.resume()
  if (!recording.object) {
    response.writeHead(recording.status, recording.headers)
    response.end(recording.body)
    return
  }
  read(recording.object).then((content) => {
    response.writeHead(recording.status, [...recording.headers, 'Content-Length', String(content.length)])
    response.end(content)
  })
})
server.keepAliveTimeout = 72_000
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`))
process.on('SIGTERM', () => server.close(() => process.exit(0)))
