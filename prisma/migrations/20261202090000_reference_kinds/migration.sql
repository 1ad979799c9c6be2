-- Gerrit changes, GitLab issues and merge requests, and Linear issues become references of their own kind.
ALTER TYPE "ReferenceKind" ADD VALUE IF NOT EXISTS 'gerrit';
ALTER TYPE "ReferenceKind" ADD VALUE IF NOT EXISTS 'gitlab_issue';
ALTER TYPE "ReferenceKind" ADD VALUE IF NOT EXISTS 'gitlab_merge_request';
ALTER TYPE "ReferenceKind" ADD VALUE IF NOT EXISTS 'linear';
