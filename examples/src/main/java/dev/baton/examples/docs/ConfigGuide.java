package dev.baton.examples.docs;

import dev.baton.Baton;
import dev.baton.config.ConfigBinding;
import dev.baton.config.ConfigCenter;
import dev.baton.config.ConfigEntry;
import dev.baton.config.ConfigInstance;
import dev.baton.config.ConfigOptions;
import dev.baton.config.ConfigRevision;
import dev.baton.config.GrayRule;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;

/** docs/config.md. */
abstract class ConfigGuide {
  Baton baton;
  Executor executor;
  ConfigCenter ops;

  abstract void reconfigure(String key, String value);

  abstract void reconnect();

  void basics() {
    // [basics]
    Baton baton = Baton.builder().connectString("zk1:2181,zk2:2181")
        .connectInBackground()                     // start even while the ensemble is down
        .build();
    ConfigCenter config = ConfigCenter.open(baton, "/config",
        ConfigOptions.defaults().withSnapshotFile(Path.of("/var/lib/shop/config.json")));

    String url = config.get("db/url", "jdbc:h2:mem:dev");   // local copy: no request, never blocks
    int pool = config.getInt("db/pool-size", 10);           // ConfigValueException if malformed
    Duration timeout = config.getDuration("http/timeout", Duration.ofSeconds(5)); // "PT5S", "250ms"

    config.create("feature/checkout-v2", "off");   // ConfigKeyExistsException if it exists
    config.update("db/pool-size", "20");           // ConfigKeyMissingException if it does not
    ConfigEntry stock = config.entry("stock").orElseThrow();
    config.compareAndSet("stock", stock.version(), "41");   // false if someone wrote first
    config.addListener((key, oldValue, newValue) -> reconfigure(key, newValue), executor);
    config.addPrefixListener("db", (key, oldValue, newValue) -> reconnect(), executor);  // db, db/url, not db2
    List<String> hosts = config.getList("hosts", List.of());          // "a, b, c"
    Map<String, String> weights = config.getMap("weights", Map.of()); // "eu=3, us=1"
    record Db(String url, int poolSize, Duration timeout, Optional<String> user) {}
    ConfigBinding<Db> db = config.bind("db", Db.class);  // db/url, db/pool-size...; stays current
    // [/basics]
  }

  void history() {
    // [history]
    ConfigCenter config = ConfigCenter.open(baton, "/config", ConfigOptions.defaults().withHistory(20));
    config.set("db/pool-size", "20");
    List<ConfigRevision> revisions = config.history("db/pool-size");  // newest first
    config.rollback("db/pool-size", revisions.get(1).version());     // itself a write, with history
    // [/history]
  }

  void gray() {
    // [gray]
    ConfigCenter config = ConfigCenter.open(baton, "/config",
        ConfigOptions.defaults().withInstance("orders-7", Map.of("zone", "eu-1", "version", "2.3")));
    ops.grayRelease("db/pool-size", "40", GrayRule.forLabels(Map.of("zone", "eu-1")));  // or forIds, forPercent
    ops.promote("db/pool-size");   // the candidate becomes the released value; or ops.abort("db/pool-size")
    List<ConfigInstance> reached = ops.grayReach("db/pool-size");  // the live instances that see it now
    // [/gray]
  }
}
