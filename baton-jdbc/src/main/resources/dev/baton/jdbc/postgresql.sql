-- Baton's lock table on PostgreSQL (baton-jdbc). Run once, or let JdbcBaton.builder().createSchema(true) do it.
-- One row per lock name, kept after release: the row is the lock's fencing counter (token only grows),
-- so do not delete rows of locks that may be used again. owner is NULL while the lock is free;
-- wanted is set when a client is refused the lock and cleared by the next grant: the holder's client
-- then lets that client in before taking the lock again itself;
-- expires_at is judged by the database's clock (now()), never the clients'.
CREATE TABLE IF NOT EXISTS baton_lock (
  name        VARCHAR(255) NOT NULL PRIMARY KEY,
  owner       VARCHAR(128),
  token       BIGINT       NOT NULL,
  expires_at  TIMESTAMPTZ  NOT NULL,
  acquired_at TIMESTAMPTZ,
  host        VARCHAR(255),
  pid         BIGINT,
  thread      VARCHAR(255),
  wanted      BOOLEAN      NOT NULL DEFAULT FALSE
);
-- The semaphore (baton_semaphore) and the read-write lock (baton_rwlock): one row per lease (kind 'S', 'R' or 'W',
-- granted) or waiting reader/writer of the read-write lock (granted false), and one header row per name (owner '')
-- whose token is the fencing counter of the name, locked by every grant so that grants of one name are serialized.
-- Rows of holders and waiters expire by expires_at (the database's clock) unless their client renews them.
CREATE TABLE IF NOT EXISTS baton_semaphore (
  name        VARCHAR(255) NOT NULL,
  owner       VARCHAR(128) NOT NULL,
  kind        CHAR(1)      NOT NULL,
  permits     INTEGER      NOT NULL,
  granted     BOOLEAN      NOT NULL,
  token       BIGINT       NOT NULL,
  expires_at  TIMESTAMPTZ  NOT NULL,
  acquired_at TIMESTAMPTZ,
  host        VARCHAR(255),
  pid         BIGINT,
  thread      VARCHAR(255),
  PRIMARY KEY (name, owner)
);
CREATE TABLE IF NOT EXISTS baton_rwlock (
  name        VARCHAR(255) NOT NULL,
  owner       VARCHAR(128) NOT NULL,
  kind        CHAR(1)      NOT NULL,
  permits     INTEGER      NOT NULL,
  granted     BOOLEAN      NOT NULL,
  token       BIGINT       NOT NULL,
  expires_at  TIMESTAMPTZ  NOT NULL,
  acquired_at TIMESTAMPTZ,
  host        VARCHAR(255),
  pid         BIGINT,
  thread      VARCHAR(255),
  PRIMARY KEY (name, owner)
);
-- Counters (baton_counter): one row per name; a missing row is the value 0.
CREATE TABLE IF NOT EXISTS baton_counter (
  name        VARCHAR(255) NOT NULL PRIMARY KEY,
  value       BIGINT       NOT NULL
);
