import { describe, expect, test } from 'vitest'
import {
  NAMESPACE_FORMAT_MESSAGE,
  PROJECT_PATH_FORMAT_MESSAGE,
  isTopLevelRoute,
  nameErrors,
  namespacePathErrors,
  projectPathErrors,
} from './paths.js'

describe('namespace paths', () => {
  test.each(['group', 'my-group', 'my.group_1', 'a', '_x', 'x-'])('%s is accepted', (path) => {
    expect(namespacePathErrors(path, { topLevel: true })).toEqual([])
  })

  test.each(['..', '.', '-group', 'group.', 'group.git', 'group.atom', 'gr oup', 'grüp', 'a/b'])('%s is malformed', (path) => {
    expect(namespacePathErrors(path, { topLevel: true })).toEqual([NAMESPACE_FORMAT_MESSAGE])
  })

  test('instance routes are reserved at the top level only; project routes below it', () => {
    expect(namespacePathErrors('API', { topLevel: true })).toEqual(['API is a reserved name'])
    expect(namespacePathErrors('api', { topLevel: false })).toEqual([])
    expect(namespacePathErrors('tree', { topLevel: false })).toEqual(['tree is a reserved name'])
  })

  // Each word was reserved by only one GitLab release's TOP_LEVEL_ROUTES; both releases' words stay refused.
  const wordsOfOneRelease = [
    'abuse_reports',
    'apple-touch-icon-precomposed.png',
    'autocomplete',
    'ci',
    'header_logo_dark.png',
    'header_logo_light.png',
    'invites',
    'koding',
    'notification_settings',
    'sent_notifications',
    'u',
    'favicon.png',
    'login',
    'sitemap',
    'sitemap.xml',
    'sitemap.xml.gz',
    'v2',
  ]

  test.each(wordsOfOneRelease)('%s is reserved at the top level, for usernames too, and free for a subgroup', (word) => {
    expect(isTopLevelRoute(word)).toBe(true)
    expect(isTopLevelRoute(word.toUpperCase())).toBe(true)
    expect(namespacePathErrors(word, { topLevel: true })).toEqual([`${word} is a reserved name`])
    expect(namespacePathErrors(word, { topLevel: false })).toEqual([])
  })

  test('blank and too long', () => {
    expect(namespacePathErrors('', { topLevel: true })).toEqual(["can't be blank"])
    expect(namespacePathErrors('a'.repeat(256), { topLevel: true })).toEqual(['is too long (maximum is 255 characters)'])
  })
})

describe('project paths and names', () => {
  test('formats', () => {
    expect(projectPathErrors('.dotfiles')).toEqual([])
    expect(projectPathErrors('..')).toEqual([PROJECT_PATH_FORMAT_MESSAGE])
    expect(projectPathErrors('-x')).toEqual([PROJECT_PATH_FORMAT_MESSAGE])
    expect(projectPathErrors('x.git')).toEqual([PROJECT_PATH_FORMAT_MESSAGE])
    expect(projectPathErrors('blob')).toEqual(['blob is a reserved name'])
  })

  test('names', () => {
    expect(nameErrors('My Project+ 1 🚀', 'project')).toEqual([])
    expect(nameErrors('Team (core)', 'group')).toEqual([])
    expect(nameErrors('-bad', 'project')).toHaveLength(1)
    expect(nameErrors('a+b', 'group')).toHaveLength(1)
    expect(nameErrors('   ', 'group')).toEqual(["can't be blank"])
  })
})
