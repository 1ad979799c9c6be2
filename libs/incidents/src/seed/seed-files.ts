import fs from 'node:fs';
import path from 'node:path';
import { AppError, validateIncidentDocument, type IncidentDocument, type PatternDocument } from '@hindsight/domain';

export interface SeedSet {
  patterns: PatternDocument[];
  incidents: IncidentDocument[];
}

/**
 * Reads `seeds/patterns.json` and every `seeds/incidents/<slug>.json` with its `<slug>.md`
 * narrative. Files are validated as a whole before anything is written.
 */
export function readSeedFiles(seedsDir: string): SeedSet {
  const patterns = JSON.parse(fs.readFileSync(path.join(seedsDir, 'patterns.json'), 'utf8')) as PatternDocument[];
  patterns.forEach((p, i) => {
    if (typeof p.key !== 'string' || typeof p.name !== 'string' || typeof p.description !== 'string') {
      throw AppError.badField(`patterns.json[${i}]`, 'expected {key, name, description}');
    }
  });
  const incidentsDir = path.join(seedsDir, 'incidents');
  const incidents = fs
    .readdirSync(incidentsDir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => {
      const file = path.join(incidentsDir, name);
      const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
      const narrativeFile = file.replace(/\.json$/, '.md');
      raw.narrative = fs.existsSync(narrativeFile) ? fs.readFileSync(narrativeFile, 'utf8') : '';
      const doc = validateIncidentDocument(raw, `incidents/${name}`);
      if (`${doc.slug}.json` !== name) throw AppError.badField(`incidents/${name}.slug`, `must match the file name (${doc.slug})`);
      const unknown = doc.patterns.filter((key) => !patterns.some((p) => p.key === key));
      if (unknown.length > 0) throw AppError.badField(`incidents/${name}.patterns`, `unknown pattern ${unknown.join(', ')}`);
      return doc;
    });
  return { patterns, incidents };
}
