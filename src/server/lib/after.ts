/**
 * `then` that stays synchronous: the hot reads are answered from memory (a cached session or token, a
 * cached row), and each step that may have to wait returns its value itself when it need not. Chaining
 * with `after` keeps such a request synchronous from the credential to the answer (an `await`, or a
 * `.then`, would always give way to the event loop); a step that does wait makes the rest a promise.
 * `next` may take one more argument, `arg`: a step declared once (not a closure made per request) then
 * gets what it needs besides the value.
 */
export function after<T, U>(value: T | Promise<T>, next: (value: T) => U | Promise<U>): U | Promise<U>;
export function after<T, U, A>(
  value: T | Promise<T>,
  next: (value: T, arg: A) => U | Promise<U>,
  arg: A,
): U | Promise<U>;
export function after<T, U, A>(
  value: T | Promise<T>,
  next: (value: T, arg?: A) => U | Promise<U>,
  arg?: A,
): U | Promise<U> {
  return value instanceof Promise ? value.then((settled) => next(settled, arg)) : next(value, arg);
}
