import type { Context } from '../../core/context.js'
import { html, type Html, type HtmlValue } from '../../web/html.js'
import { mailLayout } from '../mail/index.js'
import type { NotificationReason } from './recipients.js'

// What a notification e-mail says and how it threads, as GitLab's Notify and its notify/*.text.erb and *.html.haml
// views do: subjects `<project> | <title> (#<iid>)`, `Re: ` on every answer to the thread, the text part and a plain
// HTML part with the same words, and the layout's footer.

/** The issue or merge request a thread of e-mails is about. */
export interface MailThread {
  kind: 'issue' | 'merge_request'
  id: number
  iid: number
  title: string
  confidential: boolean
  project: { id: number; name: string; fullPath: string }
  url: string
}

export interface MailPerson {
  name: string
  username: string
}

/** GitLab's `#12` and `!12`. */
export function referenceOf(thread: Pick<MailThread, 'kind' | 'iid'>): string {
  return `${thread.kind === 'issue' ? '#' : '!'}${thread.iid}`
}

/** Notify#subject: the project's name, then the parts, joined by ` | `. */
export function subjectOf(projectName: string | null, ...parts: string[]): string {
  return [...(projectName === null ? [] : [projectName]), ...parts].join(' | ')
}

export function threadSubject(thread: MailThread): string {
  return subjectOf(thread.project.name, `${thread.title} (${referenceOf(thread)})`)
}

/** EmailsHelper#sanitize_name: a name that reads as an address loses its dots, so mail clients do not link it. */
export function sanitizeName(name: string): string {
  return /^\S+\.\S+$/.test(name) ? name.replaceAll('.', '_') : name
}

/** Notify#sender: the actor's name and username before the instance's own address. */
export function senderAddress(person: MailPerson, address: string): string {
  const name = `${person.name} (@${person.username})`.replace(/[\r\n]+/g, ' ')
  return `"${name.replace(/(["\\])/g, '\\$1')}" <${address}>`
}

/** Notify#message_id: the thread's first message is named after the issue, merge request or note. */
export function messageIdOf(model: 'issue' | 'merge_request' | 'note', id: number, host: string): string {
  return `<${model}_${id}@${host}>`
}

/** EmailsHelper#create_list_id_string: `<id>.<path reversed, dotted>.<host>`, at most 255 characters. */
export function listIdOf(project: { id: number; fullPath: string }, host: string): string {
  const maxLength = 255
  let domain = project.fullPath
    .toLowerCase()
    .split('/')
    .reverse()
    .join('/')
    .replace(/[^a-z0-9/]/g, '-')
    .replace(/\/+/g, '.')
    .replace(/^\.+|\.+$/g, '')
  const maxDomainLength = maxLength - host.length - String(project.id).length - 2
  if (maxDomainLength < 3) return `${project.id}...${host}`
  if (domain.length > maxDomainLength) {
    domain = domain.slice(0, maxDomainLength)
    const lastDot = domain.slice(0, -1).lastIndexOf('.')
    domain = `${domain.slice(0, lastDot === -1 ? maxDomainLength - 2 : lastDot)}..`
  }
  return `${project.id}.${domain}.${host}`
}

/** Notify#add_project_headers. */
export function projectHeaders(project: { id: number; name: string; fullPath: string }, host: string): Record<string, string> {
  return {
    'X-GitLab-Project': project.name,
    'X-GitLab-Project-Id': String(project.id),
    'X-GitLab-Project-Path': project.fullPath,
    'List-Id': `${project.fullPath} <${listIdOf(project, host)}>`,
  }
}

/** `Name`, `A and B`, `A, B and C` (Rails' to_sentence). */
export function sentenceOf(words: readonly string[]): string {
  if (words.length <= 2) return words.join(' and ')
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`
}

/** A body in both parts: text lines, and the same as HTML paragraphs. */
export interface Body {
  text: string
  html: Html
}

export function paragraph(text: string, markup: HtmlValue = text): Body {
  return { text, html: html`<p>${markup}</p>` }
}

/** A link in the mail layout's colour. */
export function link(url: string, text: string = url): Html {
  return html`<a href="${url}" style="color:#1f75cb;">${text}</a>`
}

export function joinBodies(bodies: readonly (Body | null)[]): Body {
  const present = bodies.filter((body): body is Body => body !== null && body.text !== '')
  return { text: present.map((body) => body.text).join('\n\n'), html: html`${present.map((body) => body.html)}` }
}

/** A description or comment: its Markdown as written in the text part, rendered in the HTML part. */
export function markdownBody(text: string, rendered: Html): Body {
  return { text, html: html`<div class="md">${rendered}</div>` }
}

/** Where the footer points and why the recipient hears of it. */
export interface Footer {
  host: string
  reason: NotificationReason | null
  targetUrl: string | null
  unsubscribeUrl: string | null
}

/** EmailsHelper#notification_reason_text. */
function reasonText(reason: NotificationReason | null, host: string): string {
  if (reason === 'own_activity') return `You're receiving this email because of your activity on ${host}.`
  if (reason === 'assigned') return `You're receiving this email because you have been assigned an item on ${host}.`
  if (reason === 'mentioned') return `You're receiving this email because you have been mentioned on ${host}.`
  return `You're receiving this email because of your account on ${host}.`
}

/**
 * The notify layout in both parts: the body, where to see it, then why this mail came with the unsubscribe and
 * notification settings links (in the mail feature's HTML layout).
 */
export function renderMail(ctx: Context, title: string, body: Body, footer: Footer): { text: string; html: string } {
  const manageUrl = `${ctx.config.externalUrl}/-/profile/notifications`
  const helpUrl = `${ctx.config.externalUrl}/help`
  const reason = reasonText(footer.reason, footer.host)
  const textLines = [body.text, '', '-- ']
  if (footer.targetUrl) textLines.push(`View it on svc: ${footer.targetUrl}`)
  textLines.push(reason)
  if (footer.unsubscribeUrl) textLines.push(`Unsubscribe from this thread: ${footer.unsubscribeUrl}`)
  textLines.push(`Manage all notifications: ${manageUrl}`, '')
  const reasonHtml = html`${reason.slice(0, reason.length - footer.host.length - 1)}${link(ctx.config.externalUrl, footer.host)}.`
  const unsubscribe = footer.unsubscribeUrl ? html`${link(footer.unsubscribeUrl, 'Unsubscribe')} from this thread &middot;` : ''
  const page = mailLayout(
    ctx,
    title,
    html`<div style="overflow-wrap:anywhere;word-break:break-word;">
      ${body.html}${footer.targetUrl ? html`<p>${link(footer.targetUrl, 'View it on svc')}.</p>` : ''}
    </div>`,
    html`${reasonHtml} ${unsubscribe} ${link(manageUrl, 'Manage all notifications')} &middot; ${link(helpUrl, 'Help')}`,
  )
  return { text: textLines.join('\n'), html: page }
}
