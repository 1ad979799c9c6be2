-- An imported draft whose source names no organization, or a causal factor naming no component,
-- keeps the value empty (NULL) instead of a placeholder; pages and the API show it as not stated.
ALTER TABLE "Incident" ALTER COLUMN "organization" DROP NOT NULL;
ALTER TABLE "CausalFactor" ALTER COLUMN "component" DROP NOT NULL;
