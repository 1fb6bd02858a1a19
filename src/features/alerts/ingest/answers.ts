import type { AlertIntakeOutcome } from './service.js'

/**
 * The status the webhook answers an outcome with (GL Projects::Alerting::NotifyService and its Prometheus sibling);
 * the test-alert page quotes it too.
 */
export function webhookStatusOf(result: AlertIntakeOutcome): 200 | 400 | 401 | 403 | 404 {
  switch (result.outcome) {
    case 'accepted':
      return 200
    case 'not-accepted':
      return 400
    case 'key-refused':
      return 401
    case 'integration-inactive':
      return 403
    case 'project-not-found':
      return 404
  }
}
