/** Bumped whenever a change to the engine can change a run's output; part of every run hash. */
export const ENGINE_VERSION = '1.7.0';
