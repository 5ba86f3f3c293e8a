import assert from 'node:assert/strict';
import { queryProblem } from '../../../plugins/integration-postgres/query-guard.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';

describe('integration-postgres: what a source query may be', () => {
  storageIndependent();

  it('takes one SELECT or WITH statement, whatever its literals, quoted names and comments hold', () => {
    for (const query of [
      'select 1 as id',
      'SELECT * FROM t WHERE name = \'a;b\'',
      "select 'it''s; fine' as x",
      "select E'a\\';b' as x",
      "select E'a\\'; drop table t; --' as x",
      'select $$;$$ as x, $tag$ ; $$ ; $tag$ as y',
      'select "odd;""name" from t',
      'select 1 -- a comment; with a semicolon',
      'select 1 /* a /* nested; */ comment; */',
      'with x as (select 1 as id) select * from x',
      '  (select 1 as id) union (select 2)',
      'select a$1 from t',
    ]) {
      assert.equal(queryProblem(query), undefined, query);
    }
  });

  it('refuses a second statement, parameters, broken quoting and what is not a SELECT, saying which', () => {
    const cases: Array<[string, RegExp]> = [
      ['select 1; delete from t', /semicolon/],
      ['select 1;', /semicolon/],
      ["select 'a' ; drop table t", /semicolon/],
      // Without E, a backslash escapes nothing (standard_conforming_strings): the string ends before the semicolon.
      ["select 'a\\'; drop table t; --'", /semicolon/],
      ['select * from t where id = $1', /parameters/],
      ["select 'open", /string is not closed/],
      ['select "open', /quoted identifier is not closed/],
      ['select $x$ open', /\$x\$ string is not closed/],
      ['select 1 /* open', /comment is not closed/],
      ['select 1) as src, (select 2', /closes a parenthesis/],
      ['select (1', /parenthesis open/],
      ['delete from t returning *', /SELECT/],
      ['update t set a = 1', /SELECT/],
      ['selectx from t', /SELECT/],
      ['values (1)', /SELECT/],
    ];
    for (const [query, why] of cases) assert.match(queryProblem(query) ?? 'accepted', why, query);
  });
});
