import { Type } from '@sinclair/typebox'
import { ParamError } from '../../core/errors.js'
import { adminOnly, type ApiRouter } from '../../http/route.js'
import { presentApplication, presentApplicationWithSecret } from './present.js'
import { ApplicationIdParams, ApplicationJson, ApplicationWithSecretJson, CreateApplicationParams } from './schemas.js'
import { createInstanceApplication, deleteAnyApplication, listInstanceApplications, renewAnyApplicationSecret } from './service.js'
import { isBlank } from './validation.js'

/** The administrators' REST API of OAuth applications (GL lib/api/applications.rb; spec gitlab-behaviour-auth.md 3.10). */
export function registerApplicationRoutes(api: ApiRouter) {
  api.post(
    '/applications',
    { params: CreateApplicationParams, before: adminOnly, response: { 201: ApplicationWithSecretJson } },
    async (request, reply) => {
      const { name, redirect_uri, scopes, confidential } = request.input
      if (isBlank(scopes)) throw new ParamError('scopes is empty')
      const created = await createInstanceApplication(request.ctx, { name, redirectUri: redirect_uri, scopes, confidential })
      return reply.code(201).send(presentApplicationWithSecret(created.application, created.secret))
    },
  )

  api.get('/applications', { before: adminOnly, response: { 200: Type.Array(ApplicationJson) } }, async (request) => {
    const applications = await listInstanceApplications(request.ctx)
    return applications.map(presentApplication)
  })

  api.delete('/applications/:id', { params: ApplicationIdParams, before: adminOnly }, async (request, reply) => {
    await deleteAnyApplication(request.ctx, request.input.id)
    return reply.code(204).send()
  })

  // A POST, so Grape answers 201 (GL spec/requests/api/applications_spec.rb expects :created).
  api.post(
    '/applications/:id/renew-secret',
    { params: ApplicationIdParams, before: adminOnly, response: { 201: ApplicationWithSecretJson } },
    async (request, reply) => {
      const renewed = await renewAnyApplicationSecret(request.ctx, request.input.id)
      return reply.code(201).send(presentApplicationWithSecret(renewed.application, renewed.secret))
    },
  )
}
