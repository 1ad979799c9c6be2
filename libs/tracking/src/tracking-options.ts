/**
 * Base URLs that turn tracker references into links. They belong to an organization: Wikimedia's
 * `T123` is a Phabricator task on its Phabricator, another team's `T123` is not. A null base
 * means "this organization does not use that tracker": its references are still recognised, but
 * get no link.
 */
export interface TrackerBases {
  /** e.g. `https://phabricator.wikimedia.org`; `T123` links to `<base>/T123`. */
  phabricator: string | null;
  /** e.g. `https://jira.example.com`; `OPS-1` links to `<base>/browse/OPS-1`. */
  jira: string | null;
  /** `https://github.com`, or a GitHub Enterprise host; `owner/repo#12` links there. */
  github: string | null;
  /** e.g. `https://gerrit.wikimedia.org/r`; `gerrit:419090` links to `<base>/419090`. */
  gerrit: string | null;
  /** `https://gitlab.com` or a self-hosted GitLab; `group/project!12` links there. */
  gitlab: string | null;
  /** A Linear workspace, e.g. `https://linear.app/acme`; with it (and no Jira) `ENG-12` is a Linear issue. */
  linear: string | null;
}

export const TRACKER_NAMES = ['phabricator', 'jira', 'github', 'gerrit', 'gitlab', 'linear'] as const satisfies readonly (keyof TrackerBases)[];

/** The installation's trackers: the bases every organization gets, and each organization's own. */
export interface TrackerDirectory {
  defaults: TrackerBases;
  /** Keyed by organization name, compared without case; a listed tracker replaces the default (null removes it). */
  organizations: Readonly<Record<string, Partial<TrackerBases>>>;
}

export interface TrackingOptions {
  trackers: TrackerDirectory;
  /** The incident severity scale, most severe first; writes refuse any other level. */
  severityLevels: readonly string[];
}

export const TRACKING_OPTIONS = Symbol('TRACKING_OPTIONS');

export const DEFAULT_TRACKERS: TrackerBases = {
  phabricator: null,
  jira: null,
  github: 'https://github.com',
  gerrit: null,
  gitlab: 'https://gitlab.com',
  linear: null,
};

/** The shipped incidents' own trackers; `TRACKERS_BY_ORGANIZATION` replaces this map. */
export const DEFAULT_ORGANIZATION_TRACKERS: Readonly<Record<string, Partial<TrackerBases>>> = {
  'Wikimedia Foundation': { phabricator: 'https://phabricator.wikimedia.org', gerrit: 'https://gerrit.wikimedia.org/r' },
};

export const DEFAULT_TRACKER_DIRECTORY: TrackerDirectory = { defaults: DEFAULT_TRACKERS, organizations: DEFAULT_ORGANIZATION_TRACKERS };

/** The bases that apply to one organization's references. */
export function trackersFor(directory: TrackerDirectory, organization: string | null | undefined): TrackerBases {
  const name = (organization ?? '').trim().toLowerCase();
  const own = Object.entries(directory.organizations).find(([org]) => org.trim().toLowerCase() === name)?.[1];
  return own ? { ...directory.defaults, ...own } : directory.defaults;
}
