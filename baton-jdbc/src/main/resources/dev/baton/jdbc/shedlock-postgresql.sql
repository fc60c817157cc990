-- Baton's mutex in ShedLock's table layout on PostgreSQL (baton-jdbc, JdbcBaton.builder().shedLockTable("shedlock")).
-- shedlock is ShedLock's own table, as its README creates it (leave it as it is if you have it);
-- baton_fence keeps the fencing token of each lock name, which ShedLock's layout has no column for.
-- Times in shedlock are UTC by the database's clock, as ShedLock writes them with usingDbTime().
CREATE TABLE IF NOT EXISTS shedlock (
  name       VARCHAR(64)  NOT NULL,
  lock_until TIMESTAMP    NOT NULL,
  locked_at  TIMESTAMP    NOT NULL,
  locked_by  VARCHAR(255) NOT NULL,
  PRIMARY KEY (name)
);
CREATE TABLE IF NOT EXISTS baton_fence (
  name  VARCHAR(255) NOT NULL PRIMARY KEY,
  token BIGINT       NOT NULL
);
