import net from 'node:net'

/** Sends bytes exactly as given over a new connection and returns the raw response head and body. */
export function sendRaw(url: string, bytes: string | Buffer): Promise<{ status: number; head: string; body: string }> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname)
    const chunks: Buffer[] = []
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // The server may close while we are still writing an oversized request; what it answered counts.
      if (error.code === 'EPIPE' || error.code === 'ECONNRESET') return
      reject(error)
    })
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const split = text.indexOf('\r\n\r\n')
      const head = split === -1 ? text : text.slice(0, split)
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head, body: split === -1 ? '' : text.slice(split + 4) })
    })
    socket.write(bytes)
    socket.end()
  })
}
