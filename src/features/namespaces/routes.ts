import { offsetWindow, setOffsetHeaders } from '../../http/pagination.js'
import type { ApiRouter } from '../../http/route.js'
import { presentNamespace } from './present.js'
import {
  ListNamespacesParams,
  NamespaceExistenceJson,
  NamespaceExistsParams,
  NamespaceIdParams,
  NamespaceJson,
  NamespaceListResponse,
} from './schemas.js'
import { listNamespaces, namespaceExists, showNamespace } from './service.js'

export function registerNamespaceRoutes(api: ApiRouter) {
  api.get('/namespaces', { params: ListNamespacesParams, response: { 200: NamespaceListResponse } }, async (request, reply) => {
    const { ctx, input } = request
    const { page, perPage } = offsetWindow(input, ctx.settings)
    const list = await listNamespaces(ctx, {
      search: input.search,
      ownedOnly: input.owned_only === true,
      topLevelOnly: input.top_level_only,
      fullPathSearch: input.full_path_search,
      page,
      perPage,
    })
    setOffsetHeaders(request, reply, ctx.config.externalUrl, list.page)
    return list.page.rows.map((namespace) => presentNamespace(namespace, ctx.config.externalUrl, list.counts.get(namespace.id)))
  })

  api.get('/namespaces/:id', { params: NamespaceIdParams, response: { 200: NamespaceJson } }, async (request) => {
    const { ctx, input } = request
    const { namespace, counts } = await showNamespace(ctx, input.id)
    return presentNamespace(namespace, ctx.config.externalUrl, counts)
  })

  api.get('/namespaces/:id/exists', { params: NamespaceExistsParams, response: { 200: NamespaceExistenceJson } }, async (request) => {
    const { ctx, input } = request
    return namespaceExists(ctx, input.id, input.parent_id ?? null)
  })
}
