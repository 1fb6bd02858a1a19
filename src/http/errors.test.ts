import { describe, expect, test } from 'vitest'
import {
  BadRequest,
  Conflict,
  Forbidden,
  InsufficientScope,
  Invalid,
  InvalidToken,
  MissingParam,
  NotAllowed,
  NotFound,
  ParamError,
  Unauthorized,
  Unprocessable,
} from '../core/errors.js'
import { renderError } from './errors.js'

describe('renderError', () => {
  test('renders each error kind in its GitLab shape', () => {
    expect(renderError(new NotFound('User'))).toEqual({ status: 404, body: { message: '404 User Not Found' } })
    expect(renderError(new NotFound())).toEqual({ status: 404, body: { message: '404 Not Found' } })
    expect(renderError(new Unauthorized())).toEqual({ status: 401, body: { message: '401 Unauthorized' } })
    expect(renderError(new Forbidden())).toEqual({ status: 403, body: { message: '403 Forbidden' } })
    expect(renderError(new Forbidden('Must be admin to use sudo'))).toEqual({
      status: 403,
      body: { message: '403 Forbidden - Must be admin to use sudo' },
    })
    expect(renderError(new BadRequest('Invalid cursor parameter'))).toEqual({
      status: 400,
      body: { message: '400 Bad request - Invalid cursor parameter' },
    })
    expect(renderError(new MissingParam('name'))).toEqual({ status: 400, body: { message: '400 (Bad request) "name" not given' } })
    expect(renderError(new Invalid({ color: ['is invalid'] }))).toEqual({ status: 400, body: { message: { color: ['is invalid'] } } })
    expect(renderError(new ParamError('page is invalid'))).toEqual({ status: 400, body: { error: 'page is invalid' } })
    expect(renderError(new Conflict('Email has already been taken'))).toEqual({
      status: 409,
      body: { message: 'Email has already been taken' },
    })
    expect(renderError(new Unprocessable())).toEqual({ status: 422, body: { message: '422 Unprocessable Entity' } })
    expect(renderError(new NotAllowed('nope'))).toEqual({ status: 405, body: { error: 'nope' } })
    expect(renderError(new InsufficientScope(['api', 'read_api']))).toEqual({
      status: 403,
      body: {
        error: 'insufficient_scope',
        error_description: 'The request requires higher privileges than provided by the access token.',
        scope: 'api read_api',
      },
    })
    expect(renderError(new InvalidToken('Token was revoked. You have to re-authorize from the user.'))).toEqual({
      status: 401,
      body: { error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' },
      headers: {
        'www-authenticate':
          'Bearer realm="Protected by OAuth 2.0", error="invalid_token", error_description="Token was revoked. You have to re-authorize from the user."',
      },
    })
  })

  test('an unexpected error is a bare 500 with no internals', () => {
    const rendered = renderError(new TypeError('secret internals at /src/db.ts:12'))
    expect(rendered).toEqual({ status: 500, body: { message: '500 Internal Server Error' } })
  })
})
