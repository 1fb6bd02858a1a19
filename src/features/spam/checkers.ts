import type { Context } from '../../core/context.js'
import { SPAM_CHECK_PATTERN_FLAGS, spamCheckPatternLines, type Settings } from '../../core/settings.js'
import type { Spammable } from './index.js'

/** One way of telling spam from the text of a write; the spam check asks every enabled checker. */
export interface SpamChecker {
  name: string
  /** Whether the instance's settings turn this checker on; with none on, nothing is checked. */
  isEnabled(settings: Settings): boolean
  isSpam(ctx: Context, spammable: Spammable): boolean | Promise<boolean>
}

// Compiled once per distinct setting value; the setting is validated on PUT, so a line that no longer compiles is skipped.
let compiled: { text: string | null; patterns: RegExp[] } = { text: null, patterns: [] }

function patternsOf(text: string | null): RegExp[] {
  if (compiled.text === text) return compiled.patterns
  const patterns: RegExp[] = []
  for (const line of spamCheckPatternLines(text)) {
    try {
      patterns.push(new RegExp(line, SPAM_CHECK_PATTERN_FLAGS))
    } catch {
      continue
    }
  }
  compiled = { text, patterns }
  return patterns
}

/** The `spam_check_patterns` setting: spam when any pattern matches the title or the description. */
export const patternChecker: SpamChecker = {
  name: 'patterns',
  isEnabled: (settings) => patternsOf(settings.spam_check_patterns).length > 0,
  isSpam(ctx, spammable) {
    const texts = [spammable.title, spammable.description].filter((text): text is string => typeof text === 'string' && text !== '')
    return patternsOf(ctx.settings.spam_check_patterns).some((pattern) => texts.some((text) => pattern.test(text)))
  },
}

/** Every checker svc has, in the order they are asked. */
export const SPAM_CHECKERS: readonly SpamChecker[] = [patternChecker]
