package dev.baton.internal.session;

import dev.baton.ConnectionState;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.concurrent.Executor;

/**
 * A {@link Session} with no ZooKeeper client behind it, connected on a handle of its own: for
 * model-checking the structures that stand on a session (a cohort and its holders) with no
 * network, no ZooKeeper threads and no ensemble. Nothing may send a request on it ({@code
 * handle().zk()} is {@code null}); its executors start no thread until a task is given to them.
 *
 * <p>Built by reflection rather than with a factory in {@code Session}, so that the main code
 * gets no door for tests; a renamed field fails every test that uses this at once.
 */
public final class DetachedSession {
  private DetachedSession() {}

  /** A fresh session, CONNECTED on a handle that never expires unless a test says so. */
  public static Session connected() {
    try {
      Constructor<Session> constructor = Session.class.getDeclaredConstructor(ClientSettings.class, Executor.class);
      constructor.setAccessible(true);
      ClientSettings settings = new ClientSettings("detached:2181", Duration.ofSeconds(30), Duration.ofSeconds(5),
          null, "", null, null);
      Executor direct = Runnable::run; // else the session makes an events executor of its own
      Session session = constructor.newInstance(settings, direct);
      set(session, "handle", new Session.Handle(1));
      set(session, "state", ConnectionState.CONNECTED);
      return session;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Session changed: update DetachedSession", e);
    }
  }

  private static void set(Session session, String name, Object value) throws ReflectiveOperationException {
    Field field = Session.class.getDeclaredField(name);
    field.setAccessible(true);
    field.set(session, value);
  }
}
