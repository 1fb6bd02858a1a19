import type { Context } from '../../core/context.js'
import { runSpamCheck } from './service.js'

/** What a retried write carries after a CAPTCHA (spec: Spam handling on write requests), and who sent it. */
export interface SpamRequest {
  /** `X-Svc-Captcha-Response` (or GitLab's `X-GitLab-Captcha-Response`). */
  captchaResponse: string | null
  /** `X-Svc-Spam-Log-Id` (or `X-GitLab-Spam-Log-Id`). */
  spamLogId: number | null
  ip: string | null
  userAgent: string | null
}

/** The text of a write that may be spam. */
export interface Spammable {
  type: 'Issue' | 'Note' | 'Snippet'
  title: string | null
  description: string | null
}

/** The spam fields of a request's headers. */
export function spamRequestOf(headers: Record<string, string | string[] | undefined>, ip: string | null): SpamRequest {
  const header = (name: string) => {
    const value = headers[name]
    return typeof value === 'string' && value !== '' ? value : null
  }
  const logId = header('x-svc-spam-log-id') ?? header('x-gitlab-spam-log-id')
  return {
    captchaResponse: header('x-svc-captcha-response') ?? header('x-gitlab-captcha-response'),
    spamLogId: logId !== null && /^\d+$/.test(logId) ? Number(logId) : null,
    ip,
    userAgent: header('user-agent'),
  }
}

/**
 * Refuses a write the spam check flags (spec: Spam handling; Errors): throws the discarded-as-spam error, or the
 * needs-CAPTCHA error when a CAPTCHA is configured and the request does not carry a solved one. Call it before
 * the write's transaction, once the caller may make the write.
 */
export async function checkSpam(ctx: Context, request: SpamRequest, spammable: Spammable): Promise<void> {
  await runSpamCheck(ctx, request, spammable)
}

export { SPAM_CHECKERS, type SpamChecker } from './checkers.js'
