import type { Context } from '../../core/context.js'
import { html, type Html } from '../../web/html.js'

// Mail clients ignore stylesheets and most of CSS: the layout is tables and inline styles, 600 px wide at most.

const FONT = "-apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, 'Noto Sans', Ubuntu, Helvetica, Arial, sans-serif"

/** A link drawn as GitLab's confirm button, for the one action a message asks for. */
export function mailButton(href: string, text: string): Html {
  return html`<a
    href="${href}"
    style="display:inline-block;padding:10px 16px;background-color:#1f75cb;color:#ffffff;border-radius:4px;font-weight:600;text-decoration:none;"
    >${text}</a
  >`
}

/**
 * A whole HTML message: `body` in a white box, and a footer naming the instance the reader has an account on (or
 * `footer`, which says why they got it in its own words).
 */
export function mailLayout(ctx: Context, title: string, body: Html, footer?: Html): string {
  const url = ctx.config.externalUrl
  return html`<!DOCTYPE html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title}</title>
      </head>
      <body style="margin:0;padding:0;background-color:#fafafa;color:#333238;font-family:${FONT};">
        <table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background-color:#fafafa;">
          <tr>
            <td align="center" style="padding:24px 12px;">
              <table
                role="presentation"
                width="100%"
                cellpadding="0"
                cellspacing="0"
                style="max-width:600px;background-color:#ffffff;border:1px solid #dcdcde;border-radius:4px;"
              >
                <tr>
                  <td style="padding:24px 32px;font-size:15px;line-height:1.5;">${body}</td>
                </tr>
              </table>
              <p style="max-width:600px;margin:16px 0 0;font-size:13px;color:#737278;">
                ${
                  footer ??
                  html`You're receiving this email because of your account on <a href="${url}" style="color:#1f75cb;">${new URL(url).host}</a>.`
                }
              </p>
            </td>
          </tr>
        </table>
      </body>
    </html>`.text
}
