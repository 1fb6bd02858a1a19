import { execFileSync } from 'node:child_process'

/** Tests of the command run the built program, exactly as `npm start` does, so build it once before any test. */
export default function buildOnce() {
  execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' })
}
