-- Trigram operators for browse's substring search on resource names (a GIN index on name_fold).
-- pg_trgm is a trusted extension: the database's owner may create it without superuser rights.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
