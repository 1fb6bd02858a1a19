// E-mail notifications of changes (GL NotificationService): the teller change-notices hands every change to, and the
// unsubscribe links the e-mails carry.
export {
  explicitSubscription,
  findUnsubscribeTarget,
  setSubscription,
  tellNotifications,
  unsubscribeByReplyKey,
  type UnsubscribeTarget,
} from './service.js'
