/** How people sign in: password hashing cost and session lifetimes. */
export interface AccessOptions {
  /** bcrypt cost factor (2^n rounds). */
  passwordHashRounds: number;
  /** A session unused for this long is over. */
  sessionIdleSeconds: number;
  /** A session is over this long after sign-in, however busy. */
  sessionMaxAgeSeconds: number;
}

export const ACCESS_OPTIONS = Symbol('ACCESS_OPTIONS');

export const DEFAULT_ACCESS_OPTIONS: AccessOptions = { passwordHashRounds: 12, sessionIdleSeconds: 3_600, sessionMaxAgeSeconds: 43_200 };
