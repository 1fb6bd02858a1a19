// How GitLab's hook data writes times and e-mail addresses.

/** Ruby's `Time#xmlschema` in UTC, as the hook data builders write timestamps: '2026-11-22T08:29:20Z' (whole seconds). */
export function xmlSchema(value: string | Date): string {
  return new Date(value).toISOString().replace(/\.\d+Z$/, 'Z')
}

/**
 * A time left in hook data as a Time object, as the body is then written: `Time#to_s` in UTC, '2026-11-22 08:29:20 UTC'
 * (the hook's job arguments are serialized with JSON.generate, which calls `to_s` on times).
 */
export function rubyUtc(value: string | Date): string {
  return `${new Date(value).toISOString().slice(0, 19).replace('T', ' ')} UTC`
}

/** GL User#webhook_email: the public e-mail, else '[REDACTED]'; a hook never shows a private address of a member or owner. */
export function webhookEmail(user: { public_email: string | null }): string {
  return user.public_email ? user.public_email : '[REDACTED]'
}
