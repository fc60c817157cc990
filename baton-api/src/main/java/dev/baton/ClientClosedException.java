package dev.baton;

/** A method was called on a client ({@code Baton}, {@code RedisBaton}, or something one made) after the client was closed. */
public class ClientClosedException extends BatonException {
  private static final long serialVersionUID = 1L;

  public ClientClosedException(String connectString) {
    super("The Baton client for " + connectString + " is closed; create a new one with Baton.connect");
  }
}
