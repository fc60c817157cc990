-- Baton's lock table on PostgreSQL (baton-jdbc). Run once, or let JdbcBaton.builder().createSchema(true) do it.
-- One row per lock name, kept after release: the row is the lock's fencing counter (token only grows),
-- so do not delete rows of locks that may be used again. owner is NULL while the lock is free;
-- expires_at is judged by the database's clock (now()), never the clients'.
CREATE TABLE IF NOT EXISTS baton_lock (
  name        VARCHAR(255) NOT NULL PRIMARY KEY,
  owner       VARCHAR(128),
  token       BIGINT       NOT NULL,
  expires_at  TIMESTAMPTZ  NOT NULL,
  acquired_at TIMESTAMPTZ,
  host        VARCHAR(255),
  pid         BIGINT,
  thread      VARCHAR(255)
);
