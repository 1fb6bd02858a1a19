import type { FastifyReply } from 'fastify'
import type { Context } from '../../core/context.js'
import { readSnippetContent, type LoadedSnippet } from './service.js'

// A snippet's raw content as the API and the pages send it.

/** Rails' ActionDispatch::Http::ContentDisposition.format. */
function contentDisposition(disposition: string, fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '?').replace(/[^ A-Za-z0-9!#$+.^_`|~-]/g, (char) => `\\${char}`)
  const utf8 = Array.from(new TextEncoder().encode(fileName))
    .map((byte) => {
      const char = String.fromCharCode(byte)
      return /[A-Za-z0-9!#$&+.^_`|~-]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
    })
    .join('')
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${utf8}`
}

/** GL `send_git_blob`: the file as plain text, inline, named. */
export function sendSnippetFile(reply: FastifyReply, fileName: string, content: string) {
  return reply.type('text/plain; charset=utf-8').header('content-disposition', contentDisposition('inline', fileName)).send(content)
}

/** GL SnippetsHelpers#content_for: the first file, or the row's content as an attachment when the repository is empty. */
export async function sendSnippetContent(ctx: Context, reply: FastifyReply, loaded: LoadedSnippet) {
  const { content, fileName } = await readSnippetContent(ctx, loaded)
  if (fileName !== null) return sendSnippetFile(reply, fileName, content)
  return reply.type('text/plain; charset=utf-8').header('content-disposition', 'attachment').send(content)
}
