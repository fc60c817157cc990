package dev.baton.cli.command;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Properties;

/**
 * The optional defaults file {@code ~/.baton/config} (or the file {@code BATON_CONFIG} names), in
 * Java properties format: {@code connect=zk1:2181,zk2:2181}. An option on the command line wins,
 * then the environment variable ({@code BATON_CONNECT}), then this file.
 */
public final class ConfigFile {
  private ConfigFile() {}

  /** Where the file is looked for. */
  public static Path location() {
    String named = System.getenv("BATON_CONFIG");
    return named != null && !named.isBlank() ? Path.of(named)
        : Path.of(System.getProperty("user.home"), ".baton", "config");
  }

  /** The value of {@code key}, if the file exists and has it. */
  static Optional<String> value(String key) {
    Path file = location();
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    Properties properties = new Properties();
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      properties.load(in);
    } catch (IOException | IllegalArgumentException e) {
      throw new CliException("Cannot read the defaults file " + file + ": " + e.getMessage(), e);
    }
    return Optional.ofNullable(properties.getProperty(key)).map(String::strip).filter(v -> !v.isEmpty());
  }
}
