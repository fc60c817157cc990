package dev.baton.cli.command;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the libraries' log lines go (ZooKeeper's, Lettuce's, Baton's own recipes'): into a file,
 * so that they never land in the middle of a table, a JSON document or the demo's report; on
 * stderr with {@code --verbose}. Must run before the first logger is made: slf4j-simple reads its
 * settings once.
 */
public final class LibraryLog {
  /** slf4j-simple's setting; a value given on the command line (JAVA_OPTS) is kept. */
  static final String FILE_PROPERTY = "org.slf4j.simpleLogger.logFile";

  private LibraryLog() {}

  /** Chooses the destination for this run and returns it: {@code System.err} or a file's path. */
  public static String configure(boolean verbose) {
    String chosen = System.getProperty(FILE_PROPERTY);
    if (chosen == null) {
      chosen = verbose ? "System.err" : file().toString();
      System.setProperty(FILE_PROPERTY, chosen);
    }
    return chosen;
  }

  /** {@code ~/.baton/baton.log}, this run's only (slf4j-simple starts it afresh); the temporary folder if home cannot have it. */
  static Path file() {
    Path folder = Path.of(System.getProperty("user.home"), ".baton");
    try {
      Files.createDirectories(folder);
      if (Files.isWritable(folder)) {
        return folder.resolve("baton.log");
      }
    } catch (IOException | SecurityException e) {
      // Below: the temporary folder.
    }
    return Path.of(System.getProperty("java.io.tmpdir"), "baton-" + System.getProperty("user.name") + ".log");
  }
}
