package dev.baton.cli.command;

/**
 * A failure the command line expected and can explain in one line (a server that cannot be
 * reached, a check that did not hold). Printed without the hint to rerun with {@code --verbose}.
 */
public final class CliException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CliException(String message) {
    super(message);
  }

  public CliException(String message, Throwable cause) {
    super(message, cause);
  }
}
