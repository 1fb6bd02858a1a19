import { html, type Html } from '../../web/html.js'
import { textOf, timeOf } from '../../web/list-page.js'
import { listBranches, type BranchView } from '../branches/index.js'
import { commitTitle, shortCommitId } from '../commits/index.js'
import { projectPath, renderProjectPage } from '../projects/index.js'
import { listTags, type TagView } from '../tags/index.js'
import { codeCrumbs, commitUrl, encodePath, pageNumberOf, pagerLinks, refUrl, type CodePage } from './shared.js'

// GL Projects::BranchesController#index and Projects::TagsController#index.

const REFS_PER_PAGE = 20

function searchForm(action: string, search: string, label: string): Html {
  return html`<form class="ref-search" method="get" action="${action}" role="search">
    <input type="search" name="search" value="${search}" aria-label="${label}" placeholder="${label}" />
    <button type="submit" class="button">Search</button>
  </form>`
}

function branchRow(page: CodePage, branch: BranchView): Html {
  const { loaded } = page
  const { commit } = branch
  const defaultBranch = loaded.project.default_branch ?? 'main'
  return html`<li class="branch-row">
    <div class="grow">
      <a class="title ref-name" href="${refUrl(loaded, 'tree', branch.name)}">${branch.name}</a>
      ${branch.isDefault ? html`<span class="badge">default</span>` : ''}
      ${branch.isProtected ? html`<span class="badge">protected</span>` : ''}
      ${branch.merged ? html`<span class="badge status-merged">merged</span>` : ''}
      <div class="meta">
        <a href="${commitUrl(loaded, commit.oid)}"><code>${shortCommitId(commit.oid)}</code></a> ·
        <a class="commit-title" href="${commitUrl(loaded, commit.oid)}">${commitTitle(commit.message)}</a> · ${timeOf(commit.committer.date)}
      </div>
    </div>
    <div class="button-row">
      <a class="button small" href="${refUrl(loaded, 'commits', branch.name)}">Commits</a>
      ${
        branch.isDefault
          ? ''
          : html`<a class="button small" href="${projectPath(loaded, `/-/compare/${encodePath(defaultBranch)}...${encodePath(branch.name)}`)}"
            >Compare</a
          >`
      }
    </div>
  </li>`
}

/** GET /-/branches: every branch, the last updated first, searchable by name. */
export async function showBranches(page: CodePage) {
  const { w, loaded } = page
  const search = textOf(w.params.search).trim()
  const number = pageNumberOf(w.params)
  const list = await listBranches(w.ctx, loaded, {
    search: search || undefined,
    sort: 'updated_desc',
    keyset: false,
    page: number,
    perPage: REFS_PER_PAGE,
  })
  const branches = list.branches.slice(0, REFS_PER_PAGE)
  const hasNext = number * REFS_PER_PAGE < list.matchCount
  const base = projectPath(loaded, '/-/branches')
  const body = html`<div class="header-row">
      <h1>Branches</h1>
      <div class="actions">${searchForm(base, search, 'Filter by branch name')}</div>
    </div>
    ${
      branches.length === 0
        ? html`<div class="empty-state"><p>${search ? 'No branches match this search.' : 'This repository has no branches yet.'}</p></div>`
        : html`<ul class="list ref-list">
          ${branches.map((branch) => branchRow(page, branch))}
        </ul>`
    }
    ${pagerLinks(base, search ? { search } : {}, number, hasNext)}`
  return renderProjectPage(w, loaded, { title: 'Branches', section: 'branches', crumbs: codeCrumbs(loaded, { text: 'Branches' }) }, body)
}

function tagRow(page: CodePage, tag: TagView): Html {
  const { loaded } = page
  const name = `${loaded.project.path}-${tag.name.replaceAll('/', '-')}`
  return html`<li class="tag-row">
    <div class="grow">
      <a class="title ref-name" href="${refUrl(loaded, 'tree', tag.name)}">${tag.name}</a>
      ${tag.isProtected ? html`<span class="badge">protected</span>` : ''}
      ${tag.message ? html`<div class="tag-message">${tag.message}</div>` : ''}
      ${
        tag.commit
          ? html`<div class="meta">
            <a href="${commitUrl(loaded, tag.commit.oid)}"><code>${shortCommitId(tag.commit.oid)}</code></a> ·
            <a class="commit-title" href="${commitUrl(loaded, tag.commit.oid)}">${commitTitle(tag.commit.message)}</a> ·
            ${timeOf(tag.createdAt ?? tag.commit.committer.date)}
          </div>`
          : ''
      }
    </div>
    <div class="button-row">
      <a class="button small" href="${refUrl(loaded, 'commits', tag.name)}">Commits</a>
      <a class="button small" href="${projectPath(loaded, `/-/archive/${encodePath(tag.name)}/${encodeURIComponent(name)}.zip`)}"
        >Download zip</a
      >
    </div>
  </li>`
}

/** GET /-/tags: every tag, the last updated first, searchable by name. */
export async function showTags(page: CodePage) {
  const { w, loaded } = page
  const search = textOf(w.params.search).trim()
  const number = pageNumberOf(w.params)
  const list = await listTags(w.ctx, loaded, {
    orderBy: 'updated',
    sort: 'desc',
    search: search || undefined,
    page: number,
    perPage: REFS_PER_PAGE,
  })
  const base = projectPath(loaded, '/-/tags')
  const body = html`<div class="header-row">
      <h1>Tags</h1>
      <div class="actions">${searchForm(base, search, 'Filter by tag name')}</div>
    </div>
    ${
      list.rows.length === 0
        ? html`<div class="empty-state"><p>${search ? 'No tags match this search.' : 'This repository has no tags yet.'}</p></div>`
        : html`<ul class="list ref-list">
          ${list.rows.map((tag) => tagRow(page, tag))}
        </ul>`
    }
    ${pagerLinks(base, search ? { search } : {}, number, list.hasNext)}`
  return renderProjectPage(w, loaded, { title: 'Tags', section: 'tags', crumbs: codeCrumbs(loaded, { text: 'Tags' }) }, body)
}
