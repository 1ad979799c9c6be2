import { classifyHeading } from './section.classifier';

describe('classifyHeading', () => {
  it.each([
    ['Timeline', 'timeline'],
    ['Chronology', 'timeline'],
    ['Sequence of events', 'timeline'],
    ['What happened', 'timeline'],
    ['Timeline of events (UTC)', 'timeline'],
    ['Timeline for March 31st:', 'timeline'],
    ['Root cause', 'causes'],
    ['Analysis', 'causes'],
    ['Contributing factors', 'causes'],
    ['Why', 'causes'],
    ['Causes', 'causes'],
    ['Action items', 'actionables'],
    ['Actionables', 'actionables'],
    ['Follow-ups', 'actionables'],
    ['Remediation', 'actionables'],
    ['Next steps', 'actionables'],
    ['Summary', 'summary'],
    ['Overview', 'summary'],
    ['TL;DR', 'summary'],
    ['Impact', 'impact'],
    ['Dòng thời gian', 'timeline'],
    ['Diễn biến', 'timeline'],
    ['Thay đổi chính (diễn biến)', 'timeline'],
    ['Nguyên nhân', 'causes'],
    ['Vì sao', 'causes'],
    ['Khắc phục', 'actionables'],
    ['Hành động', 'actionables'],
    ['Zeitlicher Ablauf (MEZ)', 'timeline'],
    ['Ursachen', 'causes'],
    ['Maßnahmen', 'actionables'],
    ['Zusammenfassung', 'summary'],
    ['Chronologie', 'timeline'],
    ['Actions correctives', 'actionables'],
    ['Résumé', 'summary'],
    ['Cronología', 'timeline'],
    ['Causa raíz', 'causes'],
    ['Próximos pasos', 'actionables'],
    ['## 3. Root Cause', 'causes'],
  ])('reads %j as %s', (heading, kind) => {
    const c = classifyHeading(heading);
    expect(c.kind).toBe(kind);
    expect(c.confidence).toBeGreaterThanOrEqual(0.5);
  });

  it('reads "Lessons" as action items with low confidence', () => {
    expect(classifyHeading('Lessons learned')).toEqual({ kind: 'actionables', confidence: 0.4 });
    expect(classifyHeading('Bài học').confidence).toBeLessThan(0.5);
  });

  it('gives exact headings full confidence and longer ones less', () => {
    expect(classifyHeading('Timeline').confidence).toBe(1);
    expect(classifyHeading('Timeline for the first day').confidence).toBe(0.9);
    expect(classifyHeading('Detailed analysis of the database failover').confidence).toBeLessThan(0.9);
  });

  it('leaves headings with no known meaning as "other"', () => {
    expect(classifyHeading('RESTBase')).toEqual({ kind: 'other', confidence: 0 });
    expect(classifyHeading('Alerts')).toEqual({ kind: 'other', confidence: 0 });
  });
});
