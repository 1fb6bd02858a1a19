import type { FastifyReply } from 'fastify'
import { redirectBody, type WebRequest } from '../sessions/index.js'

// What the label, milestone and snippet forms share: Rails-style fields (`label[title]`) read as text, and the 303 a
// form's DELETE answers so that the browser follows it with a GET.

/** The fields of a Rails-style form (`milestone[title]`) as text; absent ones are left out. */
export function modelFields(w: WebRequest, model: string): Record<string, string> {
  const form = w.params[model]
  const values: Record<string, string> = {}
  if (!form || typeof form !== 'object' || Array.isArray(form)) return values
  for (const [key, value] of Object.entries(form as Record<string, unknown>)) {
    if (typeof value === 'string') values[key] = value
  }
  return values
}

/** 303 See Other, as GitLab answers a DELETE from a page. */
export function seeOther(w: WebRequest, location: string): FastifyReply {
  return w.reply.code(303).header('location', location).type('text/html; charset=utf-8').send(redirectBody(location))
}
