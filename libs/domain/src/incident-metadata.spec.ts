import { AppError } from './app-error';
import { checkSeverity, normalizeTags, parseSeverityLevels } from './incident-metadata';
import { validateIncidentDocument } from './validate-incident-document';

describe('tags', () => {
  it('are stored lower case, words joined by one dash, distinct and sorted', () => {
    expect(normalizeTags([' Cache Stampede ', 'cache_stampede', 'CACHE--stampede', 'Ｖｉｔｅｓｓ', 'C++', '🙂'])).toEqual(['c++', 'cache-stampede', 'vitess']);
  });
});

describe('the severity scale', () => {
  it('reads comma-separated levels in order and names the variable for each problem', () => {
    expect(parseSeverityLevels(' P1, P2 ,P3 ', 'X')).toEqual({ levels: ['P1', 'P2', 'P3'], problems: [] });
    expect(parseSeverityLevels('SEV1', 'X').problems.map((p) => p.reason)).toEqual([expect.stringContaining('expected 2 to 12')]);
    expect(parseSeverityLevels('low,LOW', 'X').problems.map((p) => p.field)).toEqual(['X']);
  });

  it('accepts a listed level or none, and refuses anything else naming the field', () => {
    expect(() => checkSeverity('SEV2', ['SEV1', 'SEV2'], 'f')).not.toThrow();
    expect(() => checkSeverity(null, ['SEV1', 'SEV2'], 'f')).not.toThrow();
    expect(() => checkSeverity('sev2', ['SEV1', 'SEV2'], 'patch.severity')).toThrow(/patch\.severity: expected one of SEV1, SEV2/);
  });
});

describe('incident documents with metadata', () => {
  const doc = {
    slug: 'x',
    title: 'X',
    organization: null,
    components: [],
    summary: 's',
    narrative: '',
    impact: '',
    patterns: [],
    source: { title: 't', url: null, language: 'en' },
    keyTimes: { started: null, detected: null, mitigated: null, resolved: null },
    timeline: [],
    causalFactors: [],
    causalLinks: [],
    actionables: [],
  };

  it('stay valid without it, and come back with tags normalised', () => {
    expect(validateIncidentDocument(doc).tags).toBeUndefined();
    expect(validateIncidentDocument({ ...doc, tags: ['B tag', 'a'] }).tags).toEqual(['a', 'b-tag']);
  });

  it('report every bad value with its path', () => {
    const error = (() => {
      try {
        validateIncidentDocument({ ...doc, nearMiss: 'yes', tags: ['ok', '???'], customerImpact: { minutes: 2.5, precision: 'none' } });
      } catch (e) {
        return e as AppError;
      }
    })();
    expect((error!.details as { problems: { field: string }[] }).problems.map((p) => p.field)).toEqual([
      'nearMiss',
      'tags[1]',
      'customerImpact.minutes',
      'customerImpact.precision',
    ]);
  });
});
