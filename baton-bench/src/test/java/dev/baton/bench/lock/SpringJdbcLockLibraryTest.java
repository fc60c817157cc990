package dev.baton.bench.lock;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SpringJdbcLockLibraryTest {

  @Test
  void theIntLockTableComesFromSpringIntegrationsOwnScriptMadeIdempotent() {
    String ddl = SpringJdbcLockLibrary.intLockDdl();
    assertTrue(ddl.startsWith("CREATE TABLE IF NOT EXISTS INT_LOCK"), ddl);
    assertTrue(ddl.contains("LOCK_KEY") && ddl.contains("REGION") && ddl.contains("CLIENT_ID"), ddl);
    assertTrue(!ddl.contains("INT_MESSAGE"), "only the lock table: " + ddl);
  }
}
