package dev.baton.examples.docs;

import dev.baton.jdbc.JdbcBaton;
import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import dev.baton.lock.MutexOptions;
import java.time.Duration;

/** docs/sql.md. */
final class SqlGuide {
  private SqlGuide() {}

  static void mutex(String secret) {
    // [mutex]
    try (JdbcBaton baton = JdbcBaton.builder()
            .url("jdbc:postgresql://db:5432/app").user("app").password(secret)   // or .dataSource(ds)
            .leaseTtl(Duration.ofSeconds(30))                                    // renewed every 10 s
            .build()) {
        try (Lease lease = baton.mutex("/locks/sku-42").acquire(Duration.ofSeconds(5))) {
            baton.guarded(lease, c -> {            // one transaction, the lock row held in share mode
                try (var ps = c.prepareStatement("UPDATE stock SET qty = qty - 1 WHERE id = 42")) {
                    return ps.executeUpdate();
                }
            });
        }
    }
    // [/mutex]
  }

  static Mutex caching(JdbcBaton baton) {
    // [caching]
    Mutex m = baton.mutex("sku-42", MutexOptions.defaults()
        .withCaching(Duration.ofMillis(100))   // keep the row up to 100 ms after a release nobody waits for
        .withLocalHandOver(8));                // pass it between this object's threads, at most 8 in a row
    // [/caching]
    return m;
  }
}
