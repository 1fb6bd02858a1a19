import { describe, expect, test } from 'vitest'
import { normalizeScopes, redirectUriErrors, scopeErrors, splitRedirectUris } from './validation.js'

describe('redirect URIs (Doorkeeper RedirectUriValidator)', () => {
  test.each([
    'https://example.com/callback',
    'http://localhost:3000/auth/callback?x=1',
    'http://127.0.0.1:8080/cb',
    'http://[::1]:8080/cb',
    'https://user:pass@example.com/cb',
    'com.example.app:/oauth2redirect',
    'myapp://callback',
    'urn:ietf:wg:oauth:2.0:oob',
    'https://example.com/cb/%7Euser',
  ])('accepts %s', (uri) => {
    expect(redirectUriErrors(uri)).toEqual([])
  })

  test.each([
    ['', ["can't be blank"]],
    [' \n\t', ["can't be blank"]],
    ['/callback', ['must be an absolute URI.']],
    ['example.com/callback', ['must be an absolute URI.']],
    ['//example.com/callback', ['must be an absolute URI.']],
    ['https://example.com/cb#frag', ['cannot contain a fragment.']],
    ['https://example.com/cb#', ['cannot contain a fragment.']],
    ['javascript://alert()', ['is forbidden by the server.']],
    ['JavaScript://alert()', ['is forbidden by the server.']],
    ['data://text', ['is forbidden by the server.']],
    ['vbscript://x', ['is forbidden by the server.']],
    ['javascript:alert(1)', ['is forbidden by the server.', 'must specify a scheme.']],
    ['localhost:3000', ['must specify a scheme.']],
    ['http://', ['must be a valid URI.']],
    ['http:/path', ['must be a valid URI.']],
    ['https://exa mple.com', ['must be an absolute URI.']],
    ['https://example.com/<script>', ['must be a valid URI.']],
    ['https://example.com/a%zz', ['must be a valid URI.']],
    ['https://example.com:80a/', ['must be a valid URI.']],
    ['https://exämple.com/', ['must be a valid URI.']],
    ['1abc:foo', ['must be a valid URI.']],
  ])('refuses %j with %j', (uri, errors) => {
    expect(redirectUriErrors(uri)).toEqual(errors)
  })

  test('checks every URI of the list, one message per problem, and stops at the first unparsable one', () => {
    expect(redirectUriErrors('https://a.example/cb\n/relative\r\nhttps://b.example/#x')).toEqual([
      'must be an absolute URI.',
      'cannot contain a fragment.',
    ])
    expect(redirectUriErrors('/one /two')).toEqual(['must be an absolute URI.', 'must be an absolute URI.'])
    expect(redirectUriErrors('/one http://x/<> /two')).toEqual(['must be an absolute URI.', 'must be a valid URI.'])
  })

  test('splits on any whitespace', () => {
    expect(splitRedirectUris(' https://a.example/cb\r\n\r\nhttps://b.example/cb\thttps://c.example ')).toEqual([
      'https://a.example/cb',
      'https://b.example/cb',
      'https://c.example',
    ])
  })
})

describe('scopes', () => {
  test('split on whitespace, each once, in the order given', () => {
    expect(normalizeScopes(' api  read_user\napi ')).toEqual(['api', 'read_user'])
    expect(normalizeScopes(['read_user', 'api', 'read_user', ''])).toEqual(['read_user', 'api'])
  })

  test('must all be configured on the server; none at all is allowed', () => {
    expect(scopeErrors(['api', 'read_user', 'openid', 'profile', 'email'])).toEqual([])
    expect(scopeErrors([])).toEqual([])
    expect(scopeErrors(['api', 'nope'])).toEqual(["doesn't match configured on the server."])
  })
})
