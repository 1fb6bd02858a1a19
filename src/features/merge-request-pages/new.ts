import type { Context } from '../../core/context.js'
import { DomainError, NotFound } from '../../core/errors.js'
import { errorList, refusalOf, type Refusal } from '../../web/form-errors.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { textOf, timeOf } from '../../web/list-page.js'
import {
  canCreateMergeRequest,
  canReadIssue,
  canSetMergeRequestMetadata,
  canTargetMergeRequestsAt,
  findIssueAssigneeIds,
  findIssueByIid,
  findProjectsByIds,
  withAccess,
  type LoadedProject,
} from '../access/index.js'
import { commitTitle, compareRefs, shortCommitId, type Comparison } from '../commits/index.js'
import { diffSection, diffViewModeOf } from '../diff-view/index.js'
import { createMergeRequest } from '../merge-requests/index.js'
import { inSameForkNetwork, projectPage, projectPageRoutes, renderProjectPage } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { labelChoices, milestoneChoices, peopleChoices } from '../issuable-pages/index.js'
import { branchNamesOf } from './choices.js'
import {
  allowsSeveralPeople,
  formValuesOf,
  mergeRequestFields,
  mergeRequestParams,
  newFormValues,
  serviceInputOf,
  type FormChoices,
  type MergeRequestFormValues,
} from './form.js'
import { encodeRef, mergeRequestsPath } from './paths.js'

// Creating a merge request (GL Projects::MergeRequests::CreationsController#new and #create, MergeRequests::BuildService):
// first the source and target branches, then the form with the title GitLab would suggest, and below it the commits
// and the changes that would be merged; the merge request is made through the API's own service.

/** The projects and branches a new merge request goes between. */
interface Branches {
  source: LoadedProject
  target: LoadedProject
  sourceBranch: string
  targetBranch: string
}

/** A project of the same fork network the caller may use, by the id a form sent. */
async function projectOfParam(ctx: Context, loaded: LoadedProject, value: unknown): Promise<LoadedProject | null> {
  const text = typeof value === 'number' ? String(value) : textOf(value)
  if (!/^\d{1,15}$/.test(text)) return null
  const id = Number(text)
  if (id === loaded.project.id) return loaded
  const [project] = await findProjectsByIds(ctx.db, [id])
  if (!project || project.pending_delete || !(await inSameForkNetwork(ctx.db, project, loaded.project))) return null
  return withAccess(ctx, project)
}

/**
 * GL BuildService#find_source_project and #find_target_project: the asked-for source when the caller may create
 * merge requests from it, else this project; the asked-for target when the caller may target it, else the source's
 * upstream (unless it targets itself by default), else the source.
 */
async function projectsOf(w: WebRequest, loaded: LoadedProject): Promise<{ source: LoadedProject; target: LoadedProject }> {
  const form = mergeRequestParams(w.params)
  const asked = await projectOfParam(w.ctx, loaded, form.source_project_id)
  const source = asked && canCreateMergeRequest(asked.access, asked.project) ? asked : loaded
  const mayTarget = (candidate: LoadedProject | null) =>
    candidate !== null && canTargetMergeRequestsAt(candidate.access, candidate.project) ? candidate : null
  const target =
    mayTarget(await projectOfParam(w.ctx, source, form.target_project_id)) ??
    (source.project.mr_default_target_self === 1
      ? null
      : mayTarget(await projectOfParam(w.ctx, source, source.project.forked_from_project_id))) ??
    source
  return { source, target }
}

/** GL String#titleize then #humanize of a branch name: `fix-login_page` is "Fix login page". */
export function titleFromBranch(branch: string): string {
  const words = branch
    .replace(/([A-Z\d]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/([a-z\d])([A-Z])/g, '$1_$2')
    .replace(/-/g, '_')
    .toLowerCase()
    .replace(/_id$/, '')
    .replace(/^_+/, '')
    .replace(/_/g, ' ')
    .trim()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/**
 * GL BuildService#assign_title_and_description: one commit gives its title and description; otherwise the title
 * comes from the issue the branch starts with (`12-fix-it`: "Resolve \"<issue title>\"") or from the branch name. The
 * issue's reference closes it ("Closes #12", or "Related to #12" where issues are not closed automatically).
 */
async function suggestedText(
  w: WebRequest,
  branches: Branches,
  comparison: Comparison | null,
): Promise<{ title: string; description: string }> {
  const commits = comparison?.commits ?? []
  let title = ''
  let description = ''
  if (commits.length === 1) {
    const message = commits[0].message
    title = commitTitle(message)
    description = message.split('\n').slice(1).join('\n').trim()
  }
  const iid = /^(\d+)-/.exec(branches.sourceBranch)?.[1]
  const { target } = branches
  const issue =
    iid && Number(iid) > 0 && Number(iid) <= 2147483647 ? await findIssueByIid(w.ctx.db, target.project.id, Number(iid)) : undefined
  const readable =
    issue && canReadIssue(target.access, target.project, issue, issue.confidential ? await findIssueAssigneeIds(w.ctx.db, issue.id) : [])
  if (title === '') title = readable ? `Resolve "${issue.title}"` : titleFromBranch(branches.sourceBranch)
  if (readable) {
    const closes = `${target.project.autoclose_referenced_issues === 1 ? 'Closes' : 'Related to'} #${issue.iid}`
    description = description ? `${description}\n\n${closes}` : closes
  }
  return { title, description }
}

function newPath(loaded: LoadedProject, branches: Partial<Branches>): string {
  const query = new URLSearchParams()
  if (branches.source && branches.source.project.id !== loaded.project.id)
    query.set('merge_request[source_project_id]', String(branches.source.project.id))
  if (branches.sourceBranch) query.set('merge_request[source_branch]', branches.sourceBranch)
  if (branches.target && branches.target.project.id !== loaded.project.id)
    query.set('merge_request[target_project_id]', String(branches.target.project.id))
  if (branches.targetBranch) query.set('merge_request[target_branch]', branches.targetBranch)
  const text = query.toString()
  return mergeRequestsPath(loaded, `/new${text ? `?${text}` : ''}`)
}

function branchSelect(id: string, name: string, branches: string[], chosen: string, placeholder: string): Html {
  return html`<select id="${id}" name="${name}" required>
    <option value="" ${chosen === '' ? html`selected` : ''}>${placeholder}</option>
    ${branches.map((branch) => html`<option value="${branch}" ${branch === chosen ? html`selected` : ''}>${branch}</option>`)}
  </select>`
}

/** Step one: the source and target branches (each with its project when there is a choice), then Compare. */
async function chooseBranches(
  w: WebRequest,
  loaded: LoadedProject,
  source: LoadedProject,
  target: LoadedProject,
  chosen: { sourceBranch: string; targetBranch: string },
  errors: string[],
) {
  const [sourceBranches, targetBranches] = await Promise.all([
    branchNamesOf(w.ctx, source),
    target.project.id === source.project.id ? null : branchNamesOf(w.ctx, target),
  ])
  const projectField = (id: string, name: string, projects: LoadedProject[], current: LoadedProject) =>
    projects.length < 2
      ? html`<input type="hidden" name="${name}" value="${current.project.id}" /><p class="mr-project-name">${current.project.full_path}</p>`
      : html`<label for="${id}">Project</label>
          <select id="${id}" name="${name}">
            ${projects.map(
              (candidate) =>
                html`<option value="${candidate.project.id}" ${candidate.project.id === current.project.id ? html`selected` : ''}>
                  ${candidate.project.full_path}
                </option>`,
            )}
          </select>`
  const targetProjects = [target, ...(target.project.id === source.project.id ? [] : [source])]
  const body = html`<h1>New merge request</h1>
    ${errorList(errors)}
    <form method="get" action="${mergeRequestsPath(loaded, '/new')}" class="mr-compare-form">
      <div class="mr-compare-fields">
        <fieldset class="mr-choices">
          <legend>Source branch</legend>
          ${projectField('merge_request_source_project_id', 'merge_request[source_project_id]', [source], source)}
          <label for="merge_request_source_branch">Branch</label>
          ${branchSelect('merge_request_source_branch', 'merge_request[source_branch]', sourceBranches, chosen.sourceBranch, 'Select source branch')}
        </fieldset>
        <fieldset class="mr-choices">
          <legend>Target branch</legend>
          ${projectField('merge_request_target_project_id', 'merge_request[target_project_id]', targetProjects, target)}
          <label for="merge_request_target_branch">Branch</label>
          ${branchSelect('merge_request_target_branch', 'merge_request[target_branch]', targetBranches ?? sourceBranches, chosen.targetBranch, 'Select target branch')}
        </fieldset>
      </div>
      <div class="button-row">
        <button type="submit" class="primary">Compare branches and continue</button>
        <a class="button" href="${mergeRequestsPath(loaded)}">Cancel</a>
      </div>
    </form>`
  return renderProjectPage(
    w,
    loaded,
    {
      title: 'New merge request',
      section: 'merge_requests',
      crumbs: [{ text: 'Merge requests', href: mergeRequestsPath(loaded) }, { text: 'New' }],
      status: errors.length > 0 ? 422 : 200,
    },
    body,
  )
}

/** GL BuildService's validation of the branches; the messages it adds to the merge request. */
async function branchErrors(w: WebRequest, branches: Branches): Promise<string[]> {
  const { source, target, sourceBranch, targetBranch } = branches
  if (sourceBranch === '' || targetBranch === '') return ['You must select source and target branch']
  if (source.project.id === target.project.id && sourceBranch === targetBranch)
    return ["You can't use same project/branch for source and target"]
  const [sourceNames, targetNames] = await Promise.all([branchNamesOf(w.ctx, source), branchNamesOf(w.ctx, target)])
  const errors: string[] = []
  if (!sourceNames.includes(sourceBranch)) errors.push(`Source branch "${sourceBranch}" does not exist`)
  if (!targetNames.includes(targetBranch)) errors.push(`Target branch "${targetBranch}" does not exist`)
  return errors
}

async function formChoicesOf(w: WebRequest, target: LoadedProject): Promise<FormChoices> {
  const mayAdmin = canSetMergeRequestMetadata(target.access, target.project)
  const [people, labels, milestones] = mayAdmin
    ? await Promise.all([peopleChoices(w.ctx, target), labelChoices(w.ctx, target), milestoneChoices(w.ctx, target)])
    : [[], [], []]
  return { mayAdmin, people, labels, milestones, multiplePeople: allowsSeveralPeople(w.ctx), targetBranches: null, project: target.project }
}

function compareAgainst(branches: Branches) {
  return branches.source.project.id === branches.target.project.id ? undefined : String(branches.target.project.id)
}

/** Step two: the form, then the commits and the changes that the merge request would merge. */
async function creationForm(
  w: WebRequest,
  loaded: LoadedProject,
  branches: Branches,
  values: MergeRequestFormValues | null,
  refusal: Refusal | null,
) {
  const { source, target } = branches
  const comparison = await compareRefs(w.ctx, source, {
    from: branches.targetBranch,
    to: branches.sourceBranch,
    fromProjectId: compareAgainst(branches),
    idParam: String(source.project.id),
    straight: false,
  })
  const suggested = values ? null : await suggestedText(w, branches, comparison)
  const shown = values ?? newFormValues(target.project, suggested!.title, suggested!.description)
  const choices = await formChoicesOf(w, target)
  const token = await w.csrfToken()
  const hidden = (name: string, value: string | number) =>
    html`<input type="hidden" name="merge_request[${name}]" value="${String(value)}" />`
  const sourceName =
    source.project.id === target.project.id ? branches.sourceBranch : `${source.project.full_path}:${branches.sourceBranch}`
  const commits = [...comparison.commits].reverse()
  const changes = await diffSection(comparison.diff, {
    mode: diffViewModeOf(textOf(w.params.view)),
    pageUrl: newPath(loaded, branches),
    blobUrlOf: (file) => (file.deletedFile ? null : `/${source.project.full_path}/-/blob/${comparison.headSha}/${encodeRef(file.newPath)}`),
    emptyText: 'No changes between the source and target branches.',
  })
  const body = html`<h1>New merge request</h1>
    <p class="mr-compare-line">
      From <code class="ref-name">${sourceName}</code> into
      <code class="ref-name">${target.project.id === source.project.id ? branches.targetBranch : `${target.project.full_path}:${branches.targetBranch}`}</code>
      <a class="button small" href="${newPath(loaded, { source, target })}">Change branches</a>
    </p>
    ${errorList(refusal?.messages ?? [])}
    ${
      comparison.commits.length === 0
        ? html`<p class="flash alert" role="status">There are no commits in <code>${branches.sourceBranch}</code> that <code>${branches.targetBranch}</code> lacks yet.</p>`
        : ''
    }
    <form method="post" action="${mergeRequestsPath(loaded)}" class="mr-form">
      ${csrfField(token)} ${hidden('source_project_id', source.project.id)} ${hidden('source_branch', branches.sourceBranch)}
      ${hidden('target_project_id', target.project.id)} ${hidden('target_branch', branches.targetBranch)}
      ${mergeRequestFields(shown, choices, refusal)}
      <div class="button-row">
        <button type="submit" class="primary">Create merge request</button>
        <a class="button" href="${mergeRequestsPath(loaded)}">Cancel</a>
      </div>
    </form>
    <section class="mr-new-commits" aria-labelledby="new-commits-heading">
      <h2 id="new-commits-heading">Commits <span class="badge count">${comparison.commits.length}</span></h2>
      ${
        commits.length === 0
          ? html`<p class="muted">No commits yet.</p>`
          : html`<ul class="list commit-list">
              ${commits.map(
                (commit) => html`<li class="commit-row" id="commit_${commit.oid}">
                  <div class="grow">
                    <a class="title" href="/${source.project.full_path}/-/commit/${commit.oid}">${commitTitle(commit.message)}</a>
                    <div class="meta">${commit.author.name} authored ${timeOf(new Date(commit.author.date).toISOString())}</div>
                  </div>
                  <code class="commit-sha">${shortCommitId(commit.oid)}</code>
                </li>`,
              )}
            </ul>`
      }
    </section>
    <section class="mr-new-changes" aria-labelledby="new-changes-heading">
      <h2 id="new-changes-heading">Changes</h2>
      ${changes}
    </section>`
  return renderProjectPage(
    w,
    loaded,
    {
      title: 'New merge request',
      section: 'merge_requests',
      crumbs: [{ text: 'Merge requests', href: mergeRequestsPath(loaded) }, { text: 'New' }],
      status: refusal ? 422 : 200,
    },
    body,
  )
}

/** GL `authorize_create_merge_request_from!`: a signed-in caller who may create merge requests from the source. */
async function refused(w: WebRequest, source: LoadedProject) {
  if (!w.ctx.caller.user) return w.redirectToSignIn()
  if (!canCreateMergeRequest(source.access, source.project)) return w.notFound()
  return null
}

/** GET /-/merge_requests/new: the branches first; with both, the form and what would be merged. */
async function showNew(w: WebRequest, loaded: LoadedProject) {
  const { source, target } = await projectsOf(w, loaded)
  const stop = await refused(w, source)
  if (stop) return stop
  const form = mergeRequestParams(w.params)
  const given = form.source_branch !== undefined || form.target_branch !== undefined
  const branches: Branches = {
    source,
    target,
    sourceBranch: textOf(form.source_branch).trim(),
    targetBranch: given ? textOf(form.target_branch).trim() : (target.project.default_branch ?? ''),
  }
  if (!given || branches.sourceBranch === '') {
    return chooseBranches(w, loaded, source, target, branches, given ? ['You must select source and target branch'] : [])
  }
  const errors = await branchErrors(w, branches)
  if (errors.length > 0) return chooseBranches(w, loaded, source, target, branches, errors)
  return creationForm(w, loaded, branches, null, null)
}

/** POST /-/merge_requests: creates it through the API's service and opens it; a refusal keeps what was typed. */
async function create(w: WebRequest, loaded: LoadedProject) {
  const { source, target } = await projectsOf(w, loaded)
  const stop = await refused(w, source)
  if (stop) return stop
  const form = mergeRequestParams(w.params)
  const branches: Branches = {
    source,
    target,
    sourceBranch: textOf(form.source_branch),
    targetBranch: textOf(form.target_branch),
  }
  const errors = await branchErrors(w, branches)
  if (errors.length > 0) return chooseBranches(w, loaded, source, target, branches, errors)
  const values = formValuesOf(w.params)
  const choices = await formChoicesOf(w, target)
  try {
    const view = await createMergeRequest(w.ctx, source, {
      ...serviceInputOf(values, choices),
      title: values.title,
      sourceBranch: branches.sourceBranch,
      targetBranch: branches.targetBranch,
      targetProjectId: target.project.id,
    })
    return w.redirect(`/${view.project.full_path}/-/merge_requests/${view.mergeRequest.iid}`)
  } catch (error) {
    if (!(error instanceof DomainError) || error instanceof NotFound) throw error
    return creationForm(w, loaded, branches, values, refusalOf(error))
  }
}

export function registerNewMergeRequestPages(web: WebRouter) {
  for (const url of projectPageRoutes('/-/merge_requests/new')) web.get(url, projectPage(showNew))
  for (const url of projectPageRoutes('/-/merge_requests')) web.post(url, projectPage(create))
}
