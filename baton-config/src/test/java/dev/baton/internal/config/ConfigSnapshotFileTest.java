package dev.baton.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The snapshot file is replaced only by a whole new one: a write call may write fewer bytes than
 * it was given (the disk filling, a signal), and a file written short must never take the good
 * one's place, or the next start without the ensemble has nothing to serve.
 */
class ConfigSnapshotFileTest {
  private static final String PATH = "/snap";

  @TempDir
  Path dir;

  private static Map<String, ConfigTree.Node> keys(String value) {
    Map<String, ConfigTree.Node> keys = new TreeMap<>();
    for (int i = 0; i < 50; i++) {
      keys.put("key-" + i, new ConfigTree.Node(value + i, i, 0));
    }
    return keys;
  }

  @Test
  void shortWriteCalls_stillWriteTheWholeFile() throws Exception {
    Path file = dir.resolve("config.json");

    ConfigSnapshotFile.write(file, PATH, keys("v"), (channel, bytes) -> {
      ByteBuffer some = bytes.slice().limit(Math.min(100, bytes.remaining()));
      int written = channel.write(some);
      bytes.position(bytes.position() + written);
      return written;
    });

    assertThat(ConfigSnapshotFile.read(file, PATH)).isEqualTo(keys("v"));
  }

  @Test
  void diskFullMidWrite_keepsTheGoodFile() throws Exception {
    Path file = dir.resolve("config.json");
    ConfigSnapshotFile.write(file, PATH, keys("good"));
    AtomicInteger calls = new AtomicInteger();

    assertThatThrownBy(() -> ConfigSnapshotFile.write(file, PATH, keys("new"), (channel, bytes) -> {
      if (calls.incrementAndGet() > 1) {
        throw new IOException("No space left on device");
      }
      ByteBuffer half = bytes.slice().limit(bytes.remaining() / 2);
      int written = channel.write(half);
      bytes.position(bytes.position() + written);
      return written;
    })).isInstanceOf(IOException.class);

    assertThat(ConfigSnapshotFile.read(file, PATH)).isEqualTo(keys("good"));
    try (var left = Files.list(dir)) {
      assertThat(left).as("no temporary file left behind").containsExactly(file);
    }
  }

  @Test
  void aWriteThatClaimsBytesItDidNotWrite_isCaughtByTheSizeCheck_andKeepsTheGoodFile() throws Exception {
    Path file = dir.resolve("config.json");
    ConfigSnapshotFile.write(file, PATH, keys("good"));

    assertThatThrownBy(() -> ConfigSnapshotFile.write(file, PATH, keys("new"), (channel, bytes) -> {
      int claimed = bytes.remaining();
      bytes.position(bytes.limit()); // nothing reaches the file
      return claimed;
    })).isInstanceOf(IOException.class).hasMessageContaining("bytes");

    assertThat(ConfigSnapshotFile.read(file, PATH)).isEqualTo(keys("good"));
  }
}
