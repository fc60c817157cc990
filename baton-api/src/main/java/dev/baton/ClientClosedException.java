package dev.baton;

/** A method was called on a client ({@code Baton}, {@code RedisBaton}, or something one made) after the client was closed. */
public class ClientClosedException extends BatonException {
  private static final long serialVersionUID = 1L;

  /** A closed ZooKeeper client ({@code Baton}) for {@code connectString}. */
  public ClientClosedException(String connectString) {
    this(connectString, "Baton.connect");
  }

  /**
   * A closed client for {@code target}; {@code factory} names how to make a new one (for example
   * {@code "RedisBaton.connect"}), since the message tells the reader what to do next.
   */
  public ClientClosedException(String target, String factory) {
    super("The Baton client for " + target + " is closed; create a new one with " + factory);
  }
}
