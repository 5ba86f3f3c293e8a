/** What other plugins may use from the notifications plugin: the one door every sender goes through, and what it takes. */
export type { NotificationInput, NotificationSubject, NotificationService } from './notifications.service.ts';
