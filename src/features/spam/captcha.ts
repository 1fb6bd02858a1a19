import type { Context } from '../../core/context.js'

// The recaptcha gem's default timeout (Recaptcha::Configuration), after which the answer counts as wrong.
const VERIFY_TIMEOUT_MS = 3000

/**
 * Asks the reCAPTCHA v2 verifier whether `response` solves the CAPTCHA: POST `secret`, `response` and `remoteip`
 * form-encoded, answered with JSON `{"success": true|false, …}`. Any failure to get a clear yes is a no.
 */
export async function verifyCaptchaResponse(ctx: Context, response: string, ip: string | null): Promise<boolean> {
  const form = new URLSearchParams({ secret: ctx.settings.recaptcha_private_key ?? '', response })
  if (ip) form.set('remoteip', ip)
  try {
    const answer = await fetch(ctx.config.recaptchaVerifyUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
      signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS),
    })
    if (!answer.ok) return false
    const json: unknown = await answer.json()
    return typeof json === 'object' && json !== null && (json as { success?: unknown }).success === true
  } catch (error) {
    ctx.log.warn({ err: error }, 'reCAPTCHA verification failed')
    return false
  }
}
