-- Baton's mutex in ShedLock's table layout on MySQL 8 / MariaDB 10.6+ (baton-jdbc, JdbcBaton.builder().shedLockTable("shedlock")).
-- shedlock is ShedLock's own table, as its README creates it for MySQL (leave it as it is if you have it);
-- baton_fence keeps the fencing token of each lock name, which ShedLock's layout has no column for.
-- Times in shedlock are UTC by the database's clock (UTC_TIMESTAMP(3)), as ShedLock writes them with usingDbTime();
-- the explicit defaults keep MySQL from updating lock_until by itself on every UPDATE of the row.
CREATE TABLE IF NOT EXISTS shedlock (
  name       VARCHAR(64)  NOT NULL,
  lock_until TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  locked_at  TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  locked_by  VARCHAR(255) NOT NULL,
  PRIMARY KEY (name)
) ENGINE = InnoDB;
-- baton_fence.name has the table's default collation, as shedlock.name has: the names of one row, one token.
CREATE TABLE IF NOT EXISTS baton_fence (
  name  VARCHAR(64)  NOT NULL PRIMARY KEY,
  token BIGINT       NOT NULL
) ENGINE = InnoDB;
