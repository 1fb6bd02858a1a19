import { describe, expect, test } from 'vitest'
import { COLOR_NAME_TO_HEX, normalizeColor, textColorFor } from './color.js'
import { renderDescriptionHtml, sanitizeLabelText } from './text.js'

describe('label colours (GL lib/gitlab/color.rb)', () => {
  test('the 146 CSS names, without cyan, magenta and transparent', () => {
    expect(COLOR_NAME_TO_HEX.size).toBe(146)
    expect(['cyan', 'magenta', 'transparent'].filter((name) => COLOR_NAME_TO_HEX.has(name))).toEqual([])
    expect([normalizeColor('RebeccaPurple'), normalizeColor(' grey '), normalizeColor('#abc'), normalizeColor('nonsense')]).toEqual([
      '#663399',
      '#808080',
      '#abc',
      'nonsense',
    ])
  })

  test('text colour: #333333 when R+G+B is above 500, else #FFFFFF (also for invalid colours)', () => {
    expect([textColorFor('#FFFFFF'), textColorFor('#FFF600'), textColorFor('#FFF500'), textColorFor('#ddd'), textColorFor('red')]).toEqual([
      '#333333',
      '#333333',
      '#FFFFFF',
      '#333333',
      '#FFFFFF',
    ])
  })
})

describe('label text', () => {
  test('markup is sanitised out of titles and descriptions, entities decoded', () => {
    expect(sanitizeLabelText('<script>x()</script>Fix <em>now</em> &amp; later<br>ok')).toBe('Fix now & later ok')
  })

  test('description_html is the escaped text with autolinked URLs, no paragraph', () => {
    expect(renderDescriptionHtml('Plain text')).toBe('Plain text')
    expect(renderDescriptionHtml(null)).toBe('')
    expect(renderDescriptionHtml('See (https://example.com/x_(y)), then <stop>.')).toBe(
      'See (<a href="https://example.com/x_(y)" rel="nofollow noreferrer noopener" target="_blank">https://example.com/x_(y)</a>), then &lt;stop&gt;.',
    )
  })
})
