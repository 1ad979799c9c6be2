-- A causal factor's short title, shown in the graph and the factor list; null until one is written.
ALTER TABLE "CausalFactor" ADD COLUMN "title" TEXT;
