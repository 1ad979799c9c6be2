/** Base URLs that turn bare tracker references into links; they differ per installation. */
export interface TrackerBases {
  /** e.g. `https://phabricator.wikimedia.org`; `T123` links to `<base>/T123`. */
  phabricator: string;
  /** e.g. `https://jira.example.com`; without it Jira keys are recognised but get no URL. */
  jira: string | null;
  /** `https://github.com`, or a GitHub Enterprise host. */
  github: string;
}

export interface TrackingOptions {
  trackers: TrackerBases;
}

export const TRACKING_OPTIONS = Symbol('TRACKING_OPTIONS');

export const DEFAULT_TRACKERS: TrackerBases = {
  phabricator: 'https://phabricator.wikimedia.org',
  jira: null,
  github: 'https://github.com',
};
