// A bare node:http server that replays recorded responses, as the lower bound svc is measured against.
// Usage: node bench/bare.mjs <responses.json>; prints its port on stdout once listening.
import fs from 'node:fs'
import http from 'node:http'

// { "GET /path": { status, headers: [[name, value], ...], body: base64 } }
const recorded = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))
const responses = new Map(
  Object.entries(recorded).map(([key, { status, headers, body }]) => [key, { status, headers, body: Buffer.from(body, 'base64') }]),
)

const server = http.createServer((request, response) => {
  const recording = responses.get(`${request.method} ${request.url}`)
  if (!recording) {
    response.writeHead(404).end()
    return
  }
  // Drain the request so keep-alive connections stay usable.
  request.resume()
  response.writeHead(recording.status, recording.headers.flat())
  response.end(recording.body)
})
server.keepAliveTimeout = 72_000
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`))
process.on('SIGTERM', () => server.close(() => process.exit(0)))
