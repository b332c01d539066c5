-- First-start initialisation of the PostgreSQL server in docker-compose.yml.
-- The official postgres image runs every *.sql file in
-- /docker-entrypoint-initdb.d once, as the superuser, when the data volume is
-- empty. Later starts skip it, so changing this file needs a fresh volume.
--
-- The passwords below are development values matching docker-compose.yml;
-- replace them (and DQS_DATABASE_URL) for anything real.

-- DQS: its own login role owning its own database. `dqs migrate` creates the
-- tables, the audit-log triggers and the function they call inside it, so the
-- role needs no privileges beyond owning the database.
CREATE ROLE dqs WITH LOGIN PASSWORD 'dqs';
CREATE DATABASE dqs OWNER dqs ENCODING 'UTF8' TEMPLATE template0;
-- Only the owner may connect; nobody else needs to.
REVOKE ALL ON DATABASE dqs FROM PUBLIC;

-- Temporal: temporalio/auto-setup creates and migrates its own databases
-- (temporal and temporal_visibility) on first start, so its role needs
-- CREATEDB but no database is made here.
CREATE ROLE temporal WITH LOGIN CREATEDB PASSWORD 'temporal';
