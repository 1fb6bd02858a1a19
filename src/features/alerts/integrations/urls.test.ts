import { describe, expect, it } from 'vitest'
import { integrationUrl, slugify } from './urls.js'

describe('integrationUrl', () => {
  const base = 'https://svc.example.com'

  it('names an HTTP integration by the slug of its name and its identifier', () => {
    expect(integrationUrl(base, 'group/sub/project', { name: 'My Endpoint!', endpoint_identifier: 'abcdef0123456789' })).toBe(
      'https://svc.example.com/group/sub/project/alerts/notify/my-endpoint/abcdef0123456789.json',
    )
  })

  it('uses http-endpoint when the name gives no slug', () => {
    expect(integrationUrl(base, 'g/p', { name: '!!!', endpoint_identifier: 'abc' })).toBe(
      'https://svc.example.com/g/p/alerts/notify/http-endpoint/abc.json',
    )
  })

  it('gives the legacy and Prometheus endpoints their fixed URLs', () => {
    expect(integrationUrl(base + '/', 'g/p', { name: 'x', endpoint_identifier: 'legacy' })).toBe(
      'https://svc.example.com/g/p/alerts/notify.json',
    )
    expect(integrationUrl(base, 'g/p', { name: 'Prometheus', endpoint_identifier: 'legacy-prometheus' })).toBe(
      'https://svc.example.com/g/p/prometheus/alerts/notify.json',
    )
  })
})

describe('slugify', () => {
  it('lower-cases, replaces other characters by dashes, cuts at 63 and trims dashes', () => {
    expect(slugify('--Hello World__')).toBe('hello-world')
    expect(slugify('Ünïcode 😀 name')).toBe('n-code---name')
    expect(slugify('a'.repeat(62) + '-b')).toBe('a'.repeat(62))
    expect(slugify('x'.repeat(70))).toBe('x'.repeat(63))
  })
})
