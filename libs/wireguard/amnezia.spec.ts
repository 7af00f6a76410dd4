import { type AmneziaParams, generateAmneziaParams, validateAmneziaParams } from './amnezia.js';

const valid: AmneziaParams = {
  jc: 4,
  jmin: 40,
  jmax: 90,
  s1: 15,
  s2: 150,
  h1: 100_000,
  h2: 5_000_000,
  h3: 12_345_678,
  h4: 500_000_000,
};

describe('generateAmneziaParams', () => {
  test('stays within bounds over 1,000 generations', () => {
    const seen = { jc: new Set<number>(), s1: new Set<number>() };
    for (let i = 0; i < 1000; i++) {
      const p = generateAmneziaParams();
      expect(validateAmneziaParams(p)).toBeNull();
      expect(p.jc).toBeGreaterThanOrEqual(3);
      expect(p.jc).toBeLessThanOrEqual(6);
      expect(p.jmin).toBeGreaterThanOrEqual(40);
      expect(p.jmin).toBeLessThanOrEqual(89);
      expect(p.jmax).toBeGreaterThanOrEqual(p.jmin + 50);
      expect(p.jmax).toBeLessThanOrEqual(250);
      for (const s of [p.s1, p.s2]) {
        expect(s).toBeGreaterThanOrEqual(15);
        expect(s).toBeLessThanOrEqual(150);
      }
      expect(p.s2 - p.s1).not.toBe(56);
      expect(p.h1).toBeGreaterThanOrEqual(1e5);
      expect(p.h1).toBeLessThanOrEqual(5e5);
      expect(p.h2).toBeGreaterThanOrEqual(1e6);
      expect(p.h2).toBeLessThanOrEqual(5e6);
      expect(p.h3).toBeGreaterThanOrEqual(1e7);
      expect(p.h3).toBeLessThanOrEqual(5e7);
      expect(p.h4).toBeGreaterThanOrEqual(1e8);
      expect(p.h4).toBeLessThanOrEqual(5e8);
      expect(new Set([p.h1, p.h2, p.h3, p.h4]).size).toBe(4);
      for (const v of Object.values(p)) expect(Number.isInteger(v)).toBe(true);
      seen.jc.add(p.jc);
      seen.s1.add(p.s1);
    }
    // Every Jc value turns up, and S1 is spread rather than stuck: the bounds are really used.
    expect(seen.jc.size).toBe(4);
    expect(seen.s1.size).toBeGreaterThan(100);
  });
});

describe('validateAmneziaParams', () => {
  test('accepts the boundary values', () => {
    expect(validateAmneziaParams(valid)).toBeNull();
  });

  test.each<[string, Partial<Record<keyof AmneziaParams, unknown>>, keyof AmneziaParams]>([
    ['Jc too small', { jc: 2 }, 'jc'],
    ['Jc not a number', { jc: '4' }, 'jc'],
    ['Jmin too large', { jmin: 90, jmax: 200 }, 'jmin'],
    ['Jmax too close to Jmin', { jmin: 60, jmax: 109 }, 'jmax'],
    ['Jmax too large', { jmax: 251 }, 'jmax'],
    ['S1 too small', { s1: 14 }, 's1'],
    ['S1 fractional', { s1: 15.5 }, 's1'],
    ['S2 exactly S1 + 56', { s1: 20, s2: 76 }, 's2'],
    ['S2 too large', { s2: 151 }, 's2'],
    ['H1 outside its range', { h1: 99_999 }, 'h1'],
    ['H2 missing', { h2: undefined }, 'h2'],
    ['H3 outside its range', { h3: 50_000_001 }, 'h3'],
    ['H4 outside its range', { h4: 1 }, 'h4'],
  ])('%s -> %s', (_why, patch, field) => {
    expect(validateAmneziaParams({ ...valid, ...patch })).toBe(field);
  });

  test('reports the first offending field', () => {
    expect(validateAmneziaParams({ ...valid, jc: 0, h4: 0 })).toBe('jc');
  });

  test('S2 - S1 = -56 is allowed (only S2 = S1 + 56 collides)', () => {
    expect(validateAmneziaParams({ ...valid, s1: 76, s2: 20 })).toBeNull();
  });

  test('rejects non-objects', () => {
    expect(validateAmneziaParams(null)).toBe('jc');
    expect(validateAmneziaParams('x')).toBe('jc');
  });
});
