package dev.baton.internal.config;

import dev.baton.internal.cache.TreeSync;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a config center's snapshot file ({@link ConfigSnapshotFile}) equal to its local copy
 * while that copy is synced: changes in a burst join one write, done off ZooKeeper's event thread.
 */
final class ConfigSnapshotWriter {
  private static final Logger log = LoggerFactory.getLogger(ConfigSnapshotWriter.class);

  private final Path file;
  private final String serverPrefix;
  private final ConfigTree tree;
  private final TreeSync<ConfigTree.Node> sync;
  private final Executor executor;
  private final AtomicBoolean queued = new AtomicBoolean();
  private final Object fileLock = new Object();
  private long copiesTaken; // guarded by the sync's lock
  private long written; // guarded by fileLock
  private volatile boolean closed;

  ConfigSnapshotWriter(Path file, String serverPrefix, ConfigTree tree, TreeSync<ConfigTree.Node> sync, Executor executor) {
    this.file = file;
    this.serverPrefix = serverPrefix;
    this.tree = tree;
    this.sync = sync;
    this.executor = executor;
  }

  /** Writes the snapshot file soon, on the event executor; changes meanwhile join the same write. */
  void queue() {
    if (closed || !queued.compareAndSet(false, true)) {
      return;
    }
    try {
      executor.execute(this::write);
    } catch (RejectedExecutionException e) {
      queued.set(false);
    }
  }

  /**
   * Writes the copy as it is now. The copy is taken under the sync's lock and written under the
   * file's, never holding both (an executor that runs tasks at once runs this under the sync's
   * lock); a copy older than the one last written is dropped.
   */
  void write() {
    queued.set(false); // a change from now on queues another write
    Map<String, ConfigTree.Node> keys;
    long taken;
    synchronized (sync) {
      if (!sync.isSynced()) {
        return; // loading again: the end of the load writes
      }
      keys = tree.keys();
      taken = ++copiesTaken;
    }
    synchronized (fileLock) {
      if (taken < written) {
        return;
      }
      try {
        ConfigSnapshotFile.write(file, serverPrefix, keys);
        written = taken;
      } catch (IOException | RuntimeException e) {
        log.warn("Cannot write the config snapshot file {}: {}; the file keeps older values", file,
            e.toString());
      }
    }
  }

  /** Writes the latest state if synced, even if a queued write has not run yet; queues no more. */
  void close() {
    if (sync.isSynced()) {
      write();
    }
    closed = true;
  }
}
