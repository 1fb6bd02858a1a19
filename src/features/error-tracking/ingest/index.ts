// The collector's entry points: the instance's collector (group-commit queue, look-ups) and one request's handling.
export { collectEvents, createErrorCollector, type CollectorOutcome, type CollectorRequest, type ErrorCollector } from './service.js'
