package dev.baton;

/**
 * A blocking call was interrupted. The thread's interrupt flag is set again before this is
 * thrown, and whatever the call had started (a waiter's node) has been cleaned up.
 */
public class BatonInterruptedException extends BatonException {
  private static final long serialVersionUID = 1L;

  public BatonInterruptedException(String message, InterruptedException cause) {
    super(message, cause);
  }
}
