import { ApiError } from '../http/api-error.js';
import { assertPublicAnswers } from './route-test.service.js';

/** The host's own addresses as forbiddenReason is told them (none: the ranges alone decide here). */
const OWN: string[] = [];

describe('assertPublicAnswers (POST /api/routing/test with a domain)', () => {
  test('public answers pass', () => {
    expect(() => assertPublicAnswers('example.com', ['203.0.113.5', '198.51.100.7'], OWN)).not.toThrow();
  });

  test.each([['10.1.2.3'], ['127.0.0.1'], ['169.254.169.254'], ['192.168.1.1'], ['100.64.0.1']])(
    'a domain resolving to %s is a 400 on destination that does not name the address',
    (address) => {
      let thrown: unknown;
      try {
        assertPublicAnswers('db.corp.example', ['203.0.113.5', address], OWN);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ApiError);
      const error = thrown as ApiError;
      expect(error.message).toMatch(/db\.corp\.example resolves to a forbidden address/);
      expect(error.message).not.toContain(address);
      expect(JSON.stringify(error)).not.toContain(address);
    },
  );
});
