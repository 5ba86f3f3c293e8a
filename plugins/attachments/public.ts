/** What other plugins may use from the attachments plugin: its service's type and the attachment's shape. */
export type { AttachmentService, DatabaseFile, Located, On, StoredFile } from './attachments.service.ts';
export { Attachment, CellAttachment } from './schemas.ts';
