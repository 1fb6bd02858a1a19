import { expect, test } from 'vitest'
import { payloadString, stackTraceOf } from './stacktrace.js'

const frame = { filename: 'a.go', function: 'main', lineno: 4 }
const entry = { function: 'main', col: null, line: 4, file_name: 'a.go', abs_path: null, trace_context: [] }

test('frames of the first exception with a stack trace, in array or values form, else of the first thread with one', () => {
  expect(stackTraceOf(JSON.stringify({ exception: [{ type: 'E' }, { type: 'F', stacktrace: { frames: [frame] } }] }))).toEqual([entry])
  expect(
    stackTraceOf(JSON.stringify({ exception: { values: [{ type: 'E' }] }, threads: { values: [{ stacktrace: { frames: [frame] } }] } })),
  ).toEqual([entry])
  expect(stackTraceOf(JSON.stringify({ message: 'only a message' }))).toEqual([])
})

test('malformed payloads and frames give what can be read, never an exception', () => {
  expect(stackTraceOf('not json')).toEqual([])
  expect(stackTraceOf('[1]')).toEqual([])
  expect(
    stackTraceOf(JSON.stringify({ exception: { values: [{ stacktrace: { frames: [7, { lineno: 'x', context_line: 'y' }] } }] } })),
  ).toEqual([{ function: null, col: null, line: null, file_name: null, abs_path: null, trace_context: [] }])
  expect(payloadString('{"release":1}', 'release')).toBeNull()
  expect(payloadString('{"release":"v1"}', 'release')).toBe('v1')
})
