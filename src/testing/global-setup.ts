import { execFileSync } from 'node:child_process'

/** Tests of the CLI run the built program, so build it once before any test. */
export default function buildOnce() {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' })
}
