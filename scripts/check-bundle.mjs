#!/usr/bin/env node
// Fails the build when dist/svc.mjs holds a character above U+00FF (esbuild keeps the text of tagged templates as
// written). V8 keeps the source of every script in memory, as one byte a character when it can: a single `…` would
// double the 2.7 MB it takes (without whitespace: the bundle is built with --minify-whitespace, names kept as written).
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const bundle = join(dirname(fileURLToPath(import.meta.url)), '../dist/svc.mjs')
const lines = readFileSync(bundle, 'utf8').split('\n')
const wide = lines.flatMap((line, index) => (/[\u0100-\uffff]/.test(line) ? [`  dist/svc.mjs:${index + 1}: ${line.trim()}`] : []))
if (wide.length > 0) {
  process.stderr.write(`dist/svc.mjs must stay Latin-1 (spell these characters in ASCII, or escape them):\n${wide.join('\n')}\n`)
  process.exit(1)
}
