/**
 * State whose updates see each other at once. Keys that arrive together are applied one after another in a
 * single input callback, before React re-renders; reading the latest value from a ref (not the render's
 * closure) is what keeps "jj" two moves instead of one.
 */
import { type RefObject, useCallback, useRef, useState } from "react";

export function useStore<S>(initial: S): [S, (change: (state: S) => S) => void, RefObject<S>] {
  const [state, setState] = useState(initial);
  const ref = useRef(state);
  const update = useCallback((change: (state: S) => S) => {
    ref.current = change(ref.current);
    setState(ref.current);
  }, []);
  return [state, update, ref];
}
