import { readFileSync } from 'node:fs'

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }

/** The version of this build, from package.json. */
export const SVC_VERSION = pkg.version
/** The commit, when the build environment says it (SVC_REVISION); GitLab reports a short SHA here. */
export const SVC_REVISION = process.env.SVC_REVISION ?? 'unknown'
