package dev.baton.spring.boot;

import java.nio.file.Path;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the config center that {@link BatonConfigAutoConfiguration} opens, under {@code
 * baton.config.*}; opened only when {@code baton-config} is on the classpath and {@code
 * baton.config.root} is set.
 */
@ConfigurationProperties(prefix = "baton.config")
public class BatonConfigProperties {
  /** The config center's root path, such as /config/shop: every key lives below it. */
  private String root;

  /** A local snapshot file, so the application starts and reads its config while ZooKeeper is down. */
  private Path snapshotFile;

  /** Earlier values kept per key for history and rollback (0, the default, keeps none). */
  private int historyVersions;

  public String getRoot() {
    return root;
  }

  public void setRoot(String root) {
    this.root = root;
  }

  public Path getSnapshotFile() {
    return snapshotFile;
  }

  public void setSnapshotFile(Path snapshotFile) {
    this.snapshotFile = snapshotFile;
  }

  public int getHistoryVersions() {
    return historyVersions;
  }

  public void setHistoryVersions(int historyVersions) {
    this.historyVersions = historyVersions;
  }
}
