import type { FieldType } from './field-type.ts';
import { autonumberType } from './autonumber.ts';
import { checkboxType } from './checkbox.ts';
import { createdAtType } from './created-at.ts';
import { createdByType } from './created-by.ts';
import { currencyType } from './currency.ts';
import { dateType } from './date.ts';
import { datetimeType } from './datetime.ts';
import { durationType } from './duration.ts';
import { emailType } from './email.ts';
import { jsonType } from './json.ts';
import { longTextType } from './long-text.ts';
import { multiSelectType } from './multi-select.ts';
import { numberType } from './number.ts';
import { percentType } from './percent.ts';
import { phoneType } from './phone.ts';
import { ratingType } from './rating.ts';
import { singleSelectType } from './single-select.ts';
import { textType } from './text.ts';
import { updatedAtType } from './updated-at.ts';
import { updatedByType } from './updated-by.ts';
import { urlType } from './url.ts';
import { userType } from './user.ts';

/** The field types every instance has; plugins add link, lookup, formula, … through the registry. */
export const BUILTIN_FIELD_TYPES: readonly FieldType[] = [
  textType,
  longTextType,
  numberType,
  currencyType,
  percentType,
  ratingType,
  durationType,
  checkboxType,
  dateType,
  datetimeType,
  singleSelectType,
  multiSelectType,
  emailType,
  urlType,
  phoneType,
  userType,
  jsonType,
  autonumberType,
  createdAtType,
  updatedAtType,
  createdByType,
  updatedByType,
];
