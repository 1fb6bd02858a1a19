import { NotFound } from '../../core/errors.js'
import { textOf } from '../../web/list-page.js'
import { openArchive } from '../repository-browse/index.js'
import { destroyOnClose } from '../repositories/index.js'
import { readRefNames, splitRefAndPath, wildcardOf, type CodePage } from './shared.js'

// GL Projects::RepositoriesController#archive: `/-/archive/<ref>/<project>-<ref>.<format>`, sent by Workhorse.

/** The extensions GL `archive_formats_regex` takes, longest first, and the format git writes for each. */
const EXTENSIONS: [string, string][] = [
  ['.tar.bz2', 'tar.bz2'],
  ['.tar.gz', 'tar.gz'],
  ['.tbz2', 'tar.bz2'],
  ['.tbz', 'tar.bz2'],
  ['.tb2', 'tar.bz2'],
  ['.bz2', 'tar.bz2'],
  ['.tgz', 'tar.gz'],
  ['.gz', 'tar.gz'],
  ['.zip', 'zip'],
  ['.tar', 'tar'],
]

/** GET /-/archive/<ref>/<file name>.<format>[?path=<folder>]: the repository (or a folder) at the ref, as an archive. */
export async function sendArchive(page: CodePage) {
  const { w, loaded } = page
  const wildcard = wildcardOf(w)
  const extension = EXTENSIONS.find(([suffix]) => wildcard.endsWith(suffix))
  if (!extension) throw new NotFound('Archive')
  const withoutExtension = wildcard.slice(0, -extension[0].length)
  // GL extract_ref_and_filename: the last segment is the file's name when there is a ref before it; else all is the ref.
  const slash = withoutExtension.lastIndexOf('/')
  const refText = slash < 0 ? withoutExtension : withoutExtension.slice(0, slash)
  const { ref } = splitRefAndPath(refText, await readRefNames(page.directory))
  const path = textOf(w.params.path).replace(/^\/+|\/+$/g, '')
  const archive = await openArchive(w.ctx, loaded, { sha: ref, format: extension[1], path: path || undefined, excludePaths: [] })
  // Workhorse's setArchiveHeaders.
  w.reply
    .header('content-disposition', `attachment; filename="${archive.fileName.replace(/["\\]/g, '\\$&')}"`)
    .header('content-type', archive.contentType)
    .header('content-transfer-encoding', 'binary')
    .header('cache-control', 'private')
  destroyOnClose(archive.body, w.reply.raw)
  return w.reply.send(archive.body)
}
