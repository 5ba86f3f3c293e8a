import type { ErrorDetail } from '../../core/errors.ts';
import { escapePointer } from '../../core/schema.ts';
import type { RecordService } from '../records/public.ts';
import type { PublicationService, PublishedForm } from '../views/public.ts';
import { PublicErrors, SubmissionDetails } from './errors.ts';
import { formOf, type FormDefinition } from './form-definition.ts';
import type { Form, SubmitBody } from './schemas.ts';
import type { SubmissionLimiter } from './submission-limiter.ts';

/** A required field left empty: nothing, blank text, no choice, an unchecked checkbox. */
const empty = (value: unknown): boolean =>
  value === undefined || value === null || value === false || (typeof value === 'string' && value.trim() === '') || (Array.isArray(value) && value.length === 0);

/**
 * Published form views, as anyone holding their link sees them. The link is looked up at every request
 * (`views.publications.resolve`), so one unpublished or replaced stops at once; a submission creates one record
 * through `records.createUnattributed`, with no user and origin `public_form`.
 */
export class FormService {
  constructor(
    private readonly publications: PublicationService,
    private readonly records: RecordService,
    private readonly limiter: SubmissionLimiter,
  ) {}

  async describe(token: string): Promise<Form> {
    return (await this.definition(await this.published(token))).form;
  }

  /**
   * Every attempt counts against the address's limit, first, whatever follows: an unknown link, a filled honeypot and
   * a refused submission included. A filled honeypot is dropped without a look at its values, answered like a success.
   */
  async submit(token: string, body: SubmitBody, address: string): Promise<{ submitted: true }> {
    // Counted and looked up side by side (two connections): the limit is answered first whatever the link.
    const [counted, found] = await Promise.allSettled([this.limiter.hit(address), this.published(token)]);
    if (counted.status === 'rejected') throw counted.reason;
    if (found.status === 'rejected') throw found.reason;
    const published = found.value;
    if (body.hp) return { submitted: true };
    const { fields, required } = await this.definition(published);
    const errors: ErrorDetail[] = [];
    const values: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(body.values)) {
      if (fields.has(name)) values[name] = value;
      else errors.push({ pointer: `/values/${escapePointer(name)}`, detail: SubmissionDetails.notOnForm(name) });
    }
    for (const name of required) {
      if (empty(values[name])) errors.push({ pointer: `/values/${escapePointer(name)}`, detail: SubmissionDetails.required });
    }
    // The cells' own checks run too, so one answer names every problem; pointers are under `/values` as in a signed-in write.
    await this.records.createUnattributed(published.workspaceId, published.databaseId, values, { type: 'public_form', id: published.view.id }, errors);
    return { submitted: true };
  }

  private async published(token: string): Promise<PublishedForm> {
    const published = await this.publications.resolve(token);
    if (!published) throw PublicErrors.formNotFound();
    return published;
  }

  private async definition(published: PublishedForm): Promise<FormDefinition> {
    return formOf(published.view, await this.records.readTable(published.workspaceId, published.databaseId));
  }
}
