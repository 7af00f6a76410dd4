import { useCallback, useLayoutEffect, useRef } from 'react';

/**
 * A function of one identity for the component's life that calls the latest `callback`: a memoized
 * child (the clients list) is not re-rendered only because its parent made a new closure.
 */
export function useStableCallback<Args extends unknown[], Result>(
  callback: (...args: Args) => Result,
): (...args: Args) => Result {
  const latest = useRef(callback);
  useLayoutEffect(() => {
    latest.current = callback;
  });
  return useCallback((...args: Args) => latest.current(...args), []);
}
