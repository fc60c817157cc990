package dev.baton.cli;

/**
 * A failure the command line expected and can explain in one line (a server that cannot be
 * reached, a check that did not hold). Printed without the hint to rerun with {@code --verbose}.
 */
final class CliException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  CliException(String message) {
    super(message);
  }

  CliException(String message, Throwable cause) {
    super(message, cause);
  }
}
