-- Baton's lock table on MySQL 8 / MariaDB 10.6+ (baton-jdbc). Run once, or let JdbcBaton.builder().createSchema(true) do it.
-- One row per lock name, kept after release: the row is the lock's fencing counter (token only grows),
-- so do not delete rows of locks that may be used again. owner is NULL while the lock is free;
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
  thread      VARCHAR(255)
) ENGINE = InnoDB;
