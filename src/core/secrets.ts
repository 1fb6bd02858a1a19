import { createHash, randomBytes, scrypt, timingSafeEqual, type BinaryLike } from 'node:crypto'

/** Personal, impersonation and other access tokens start with this (GitLab: glpat-). */
export const ACCESS_TOKEN_PREFIX = 'svcpat-'

/** A new random token: the prefix and 20 URL-safe characters (GitLab's length). */
export function generateToken(prefix: string = ACCESS_TOKEN_PREFIX): string {
  return prefix + randomBytes(15).toString('base64url')
}

/** Tokens are stored and looked up by this digest only. */
export function digestToken(value: string): string {
  return createHash('sha256').update(value).digest('hex')
}

const SCRYPT_KEY_LENGTH = 32

function scryptAsync(password: BinaryLike, salt: BinaryLike, n: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, SCRYPT_KEY_LENGTH, { N: n, r: 8, p: 1 }, (error, key) => (error ? reject(error) : resolve(key))),
  )
}

/** A slow, salted digest for passwords: `scrypt$N$salt$key` with cost N (`config.passwordHashCost`); verifying reads N back. */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const salt = randomBytes(16)
  const key = await scryptAsync(password, salt, cost)
  return `scrypt$${cost}$${salt.toString('base64url')}$${key.toString('base64url')}`
}

export async function verifyPassword(password: string, digest: string): Promise<boolean> {
  const [scheme, n, salt, key] = digest.split('$')
  if (scheme !== 'scrypt' || !n || !salt || !key) return false
  const expected = Buffer.from(key, 'base64url')
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64url'), Number(n))
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}

/** Compares two secrets without leaking where they differ. */
export function secretsEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest()
  const right = createHash('sha256').update(b).digest()
  return timingSafeEqual(left, right)
}
