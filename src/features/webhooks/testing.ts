import http from 'node:http'
import type { AddressInfo } from 'node:net'

/** One request a receiver got. */
export interface Received {
  path: string
  headers: Record<string, string>
  body: string
}

/** How a receiver answers a request: a status and body, or `hang` to keep it waiting until the receiver closes. */
export type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'hang'

/** A real HTTP server on loopback that records what webhooks send it; `answer` decides each reply (200 `ok` unless set). */
export interface Receiver {
  url: string
  received: Received[]
  answer: (request: Received) => Answer
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>
  close(): Promise<void>
}

export async function startReceiver(): Promise<Receiver> {
  const hanging = new Set<http.ServerResponse>()
  const waiters = new Set<() => boolean>()
  const receiver: Receiver = {
    url: '',
    received: [],
    answer: () => ({ status: 200, body: 'ok' }),
    waitFor(count, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver got ${receiver.received.length} of ${count} requests`)), timeoutMs)
        const check = () => {
          if (receiver.received.length < count) return false
          clearTimeout(timer)
          resolve(receiver.received.slice(0, count))
          return true
        }
        if (!check()) waiters.add(check)
      })
    },
    async close() {
      for (const response of hanging) response.destroy()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]))
      const received = { path: request.url ?? '/', headers, body: Buffer.concat(chunks).toString('utf8') }
      receiver.received.push(received)
      for (const check of waiters) if (check()) waiters.delete(check)
      const answer = receiver.answer(received)
      if (answer === 'hang') {
        hanging.add(response)
        return
      }
      response.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers }).end(answer.body ?? '')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return receiver
}
