-- Baton's lock table on MySQL 8 / MariaDB 10.6+ (baton-jdbc). Run once, or let JdbcBaton.builder().createSchema(true) do it.
-- One row per lock name, kept after release: the row is the lock's fencing counter (token only grows),
-- so do not delete rows of locks that may be used again. owner is NULL while the lock is free;
-- wanted is set when a client is refused the lock and cleared by the next grant: the holder's client
-- then lets that client in before taking the lock again itself;
-- times are UTC as the database's clock gives them (UTC_TIMESTAMP(6)), never the clients'.
-- name is case- and accent-sensitive (utf8mb4_bin), as lock names are on the other backends.
CREATE TABLE IF NOT EXISTS baton_lock (
  name        VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
  owner       VARCHAR(128),
  token       BIGINT       NOT NULL,
  expires_at  DATETIME(6)  NOT NULL,
  acquired_at DATETIME(6),
  host        VARCHAR(255),
  pid         BIGINT,
  thread      VARCHAR(255),
  wanted      BOOLEAN      NOT NULL DEFAULT FALSE
) ENGINE = InnoDB;
-- The semaphore (baton_semaphore) and the read-write lock (baton_rwlock): one row per lease (kind 'S', 'R' or 'W',
-- granted) or waiting reader/writer of the read-write lock (granted false), and one header row per name (owner '')
-- whose token is the fencing counter of the name, locked by every grant so that grants of one name are serialized.
-- Rows of holders and waiters expire by expires_at (UTC, the database's clock) unless their client renews them.
CREATE TABLE IF NOT EXISTS baton_semaphore (
  name        VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  owner       VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  kind        CHAR(1)      NOT NULL,
  permits     INT          NOT NULL,
  granted     BOOLEAN      NOT NULL,
  token       BIGINT       NOT NULL,
  expires_at  DATETIME(6)  NOT NULL,
  acquired_at DATETIME(6),
  host        VARCHAR(255),
  pid         BIGINT,
  thread      VARCHAR(255),
  PRIMARY KEY (name, owner)
) ENGINE = InnoDB;
CREATE TABLE IF NOT EXISTS baton_rwlock (
  name        VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  owner       VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  kind        CHAR(1)      NOT NULL,
  permits     INT          NOT NULL,
  granted     BOOLEAN      NOT NULL,
  token       BIGINT       NOT NULL,
  expires_at  DATETIME(6)  NOT NULL,
  acquired_at DATETIME(6),
  host        VARCHAR(255),
  pid         BIGINT,
  thread      VARCHAR(255),
  PRIMARY KEY (name, owner)
) ENGINE = InnoDB;
-- Counters (baton_counter): one row per name; a missing row is the value 0.
CREATE TABLE IF NOT EXISTS baton_counter (
  name        VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
  value       BIGINT       NOT NULL
) ENGINE = InnoDB;
