package dev.baton.internal.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.config.ConfigSnapshotException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A config center's snapshot file: the keys with their values and versions, and the path on the
 * ensemble they are for, as JSON.
 *
 * <pre>{@code
 * {"format":"baton-config-snapshot/1","path":"/config","savedAt":"2025-01-01T12:00:00Z",
 *  "entries":{"db/url":{"value":"jdbc:...","version":3}}}
 * }</pre>
 *
 * <p>Written whole to a temporary file in the same directory (every byte, its size checked),
 * flushed to disk, then renamed over the old one and the directory flushed, so a reader (or a
 * process restarted after a crash) sees the old file or the new one, never a mix or a short one.
 */
final class ConfigSnapshotFile {
  static final String FORMAT = "baton-config-snapshot/1";
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private ConfigSnapshotFile() {}

  /**
   * The keys the file holds, or null if there is no file.
   *
   * @throws ConfigSnapshotException naming the file if it cannot be read, is not a snapshot, or
   *     is one of another path
   */
  static Map<String, ConfigTree.Node> read(Path file, String serverPath) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      throw new ConfigSnapshotException(file, "Cannot read the config snapshot file " + file + ": " + e
          + ". Fix its permissions, or move it away to start without it.", e);
    }
    JsonNode root;
    try {
      root = JSON.readTree(bytes);
    } catch (IOException e) {
      throw corrupt(file, "it is not valid JSON (" + firstLine(e) + ")", e);
    }
    if (root == null || !root.isObject() || !FORMAT.equals(root.path("format").asText(null))) {
      throw corrupt(file, "it is not a Baton config snapshot (no \"format\":\"" + FORMAT + "\")", null);
    }
    String path = root.path("path").asText(null);
    if (!serverPath.equals(path)) {
      throw new ConfigSnapshotException(file, "The config snapshot file " + file + " holds the keys of "
          + path + ", not of " + serverPath + " (the prefix this config center is for, on the ensemble);"
          + " give each config center a file of its own", null);
    }
    JsonNode entries = root.path("entries");
    if (!entries.isObject()) {
      throw corrupt(file, "it has no \"entries\" object", null);
    }
    Map<String, ConfigTree.Node> keys = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = entries.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      JsonNode value = entry.getValue().path("value");
      JsonNode version = entry.getValue().path("version");
      if (!value.isTextual() || !version.canConvertToInt() || !version.isIntegralNumber()) {
        throw corrupt(file, "the entry '" + entry.getKey() + "' needs a text \"value\" and an int"
            + " \"version\"", null);
      }
      try {
        ConfigValues.validateKey(path, entry.getKey());
      } catch (IllegalArgumentException e) {
        throw corrupt(file, e.getMessage(), e);
      }
      keys.put(entry.getKey(), new ConfigTree.Node(value.asText(), version.intValue(), 0));
    }
    return keys;
  }

  /** One write call on a channel, as {@link FileChannel#write(ByteBuffer)}: it may write fewer bytes than remain. */
  @FunctionalInterface
  interface ChannelWrite {
    int write(FileChannel channel, ByteBuffer bytes) throws IOException;
  }

  /** Replaces the file with {@code keys}, atomically where the file system allows. */
  static void write(Path file, String serverPath, Map<String, ConfigTree.Node> keys) throws IOException {
    write(file, serverPath, keys, FileChannel::write);
  }

  /**
   * As {@link #write(Path, String, Map)}, each write call made by {@code writeCall} (tests make
   * them short, or fail).
   */
  static void write(Path file, String serverPath, Map<String, ConfigTree.Node> keys, ChannelWrite writeCall)
      throws IOException {
    ObjectNode root = JSON.createObjectNode();
    root.put("format", FORMAT);
    root.put("path", serverPath);
    root.put("savedAt", Instant.now().toString());
    ObjectNode entries = root.putObject("entries");
    keys.forEach((key, node) -> entries.putObject(key).put("value", node.value()).put("version", node.version()));
    byte[] bytes;
    try {
      bytes = JSON.writeValueAsBytes(root);
    } catch (JsonProcessingException e) {
      throw new IOException("Cannot encode the config snapshot", e);
    }
    Path directory = file.toAbsolutePath().getParent();
    Files.createDirectories(directory);
    Path temporary = Files.createTempFile(directory, "." + file.getFileName(), ".tmp");
    try {
      try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
        // A write call may write fewer bytes than it was given (the disk filling, say): loop until
        // all are written, or the call fails.
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
          writeCall.write(channel, buffer);
        }
        channel.force(true);
        // What the file system holds, not what the calls said: a file short by a byte must never
        // take the good one's place.
        long size = channel.size();
        if (size != bytes.length) {
          throw new IOException("The new config snapshot " + temporary + " holds " + size + " bytes, not the "
              + bytes.length + " bytes written; the old file " + file + " is kept");
        }
      }
      try {
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
      }
      forceDirectory(directory);
    } finally {
      Files.deleteIfExists(temporary);
    }
  }

  /**
   * Flushes the directory, so that the rename itself survives a crash of the machine; where a
   * directory cannot be opened (Windows), the rename is as durable as the file system makes it.
   */
  private static void forceDirectory(Path directory) {
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException | UnsupportedOperationException e) {
      // Not supported here: nothing more can be done.
    }
  }

  private static ConfigSnapshotException corrupt(Path file, String what, Throwable cause) {
    return new ConfigSnapshotException(file, "The config snapshot file " + file + " is corrupt: " + what
        + ". Move it away or delete it to start without it (the config center then loads from the"
        + " ensemble and writes a new one).", cause);
  }

  private static String firstLine(IOException e) {
    String message = String.valueOf(e.getMessage());
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
