package dev.baton.internal.session;

import dev.baton.Baton;
import java.util.Objects;
import java.util.function.Function;

/**
 * The session of a {@link Baton} client, for Baton's recipes that live in modules of their own
 * (the config center, the service registry): they are opened with the client, as {@code
 * ConfigCenter.open(baton, prefix)}, and stand on its session. The client grants this access once,
 * when its class is initialised, so the session needs no public accessor on the client.
 */
public final class Sessions {
  private static volatile Function<Baton, Session> access;

  private Sessions() {}

  /** Called by {@link Baton} alone, once. */
  public static void grantAccess(Function<Baton, Session> sessionOf) {
    if (access != null) {
      throw new IllegalStateException("access to Baton's sessions was granted already");
    }
    access = Objects.requireNonNull(sessionOf, "sessionOf");
  }

  /**
   * The session of {@code baton}, checked to be open.
   *
   * @throws NullPointerException naming {@code baton} if it is null
   * @throws dev.baton.ClientClosedException if the client was closed
   */
  public static Session of(Baton baton) {
    Objects.requireNonNull(baton, "baton must not be null");
    // A Baton instance exists, so its class, and with it the access, is initialised.
    Session session = access.apply(baton);
    session.checkOpen();
    return session;
  }
}
