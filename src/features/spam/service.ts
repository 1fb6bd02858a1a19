import type { Context } from '../../core/context.js'
import { SpamDiscarded, SpamNeedsCaptcha } from '../../core/errors.js'
import { isoTimestamp } from '../../core/time.js'
import { verifyCaptchaResponse } from './captcha.js'
import { SPAM_CHECKERS } from './checkers.js'
import type { SpamRequest, Spammable } from './index.js'
import { findUserSpamLog, insertSpamLog, markSpamLogVerified } from './store.js'

/** `Issue` → `issue`: the snake-case model name GitLab puts in its spam messages. */
function entityOf(spammable: Spammable): string {
  return spammable.type.replace(/(?<!^)([A-Z])/g, '_$1').toLowerCase()
}

/**
 * A retry that carries a CAPTCHA answer and the id of one of the caller's own spam logs, with an answer the
 * verifier accepts (GL Spam::SpamActionService, Captcha::CaptchaVerificationService). GitLab lets a solved
 * CAPTCHA through whatever log id comes with it; svc also wants the log to be the caller's.
 */
async function isSolvedRetry(ctx: Context, userId: number, request: SpamRequest): Promise<number | null> {
  if (!ctx.settings.recaptcha_enabled || request.captchaResponse === null || request.spamLogId === null) return null
  const log = await findUserSpamLog(ctx.db, request.spamLogId, userId)
  if (!log) return null
  return (await verifyCaptchaResponse(ctx, request.captchaResponse, request.ip)) ? log.id : null
}

export async function runSpamCheck(ctx: Context, request: SpamRequest, spammable: Spammable): Promise<void> {
  const user = ctx.caller.user
  if (!user) return
  const checkers = SPAM_CHECKERS.filter((checker) => checker.isEnabled(ctx.settings))
  if (checkers.length === 0) return
  // GitLab lets trusted users' possible spam through (SpamVerdictService#allow_possible_spam?); svc has no trusted
  // flag, so administrators, who would grant it, are the ones trusted.
  if (user.admin === 1) return

  const verifiedLogId = await isSolvedRetry(ctx, user.id, request)
  if (verifiedLogId !== null) {
    await markSpamLogVerified(ctx.db, verifiedLogId)
    return
  }

  let isSpam = false
  for (const checker of checkers) {
    if (await checker.isSpam(ctx, spammable)) {
      isSpam = true
      break
    }
  }
  if (!isSpam) return

  // Every verdict of spam is logged, whether or not a CAPTCHA may save the write (SpamActionService#create_spam_log).
  const log = await insertSpamLog(ctx.db, {
    user_id: user.id,
    noteable_type: spammable.type,
    title: spammable.title,
    description: spammable.description,
    source_ip: request.ip,
    user_agent: request.userAgent,
    created_at: isoTimestamp(ctx.now()),
  })
  ctx.log.info({ spamLogId: log.id, userId: user.id, type: spammable.type }, 'write recognized as spam')
  const entity = entityOf(spammable)
  if (ctx.settings.recaptcha_enabled && ctx.settings.recaptcha_site_key) {
    throw new SpamNeedsCaptcha(entity, log.id, ctx.settings.recaptcha_site_key)
  }
  throw new SpamDiscarded(entity)
}
