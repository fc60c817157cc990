package dev.baton.internal.redis.semaphore;

import dev.baton.internal.redis.QueuedAcquisition;
import dev.baton.internal.redis.RedisSession;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One acquisition of {@code n} permits, all or nothing (see {@link QueuedAcquisition} for the
 * waiting). Once queued, it is served by whoever frees permits: a release (or a withdrawal, or an
 * attempt that finds permits free) grants them to the first in line in the same script and tells
 * it on the semaphore's grant channel, so the waiter takes its grant from the notice, with no round
 * trip of its own. Its member carries what the scripts need to grant it (its permits, its TTL).
 *
 * <p>It also listens for the count Redisson's channel publishes (Redisson's releases, and permits
 * left over after the queue was served). A count wakes one waiter per client, the client's first
 * (see {@link dev.baton.internal.redis.ReleaseNotices}); one that cannot use it passes it on, so
 * that the first in line is woken whichever client's waiter the notice reached: refused while
 * another is first, with permits free, it wakes that one if it is of this client; granted meanwhile
 * (the notice came while its granting attempt was under way, or before it left the channel), it
 * wakes the client's next waiter.
 *
 * <p>A grant told on the channel carries the permits' expiry in the server's time. The lease counts
 * from a local time no later than the grant, found from the server's time read by this waiter's
 * last answered attempt, which the server read after that attempt was sent. A grant made before
 * that reading (told late: the notice was held up, and the permits may have expired since) counts
 * from the attempt's send time less the server time between, and 1% more for clocks running at
 * different rates; a grant made after it counts from the attempt's send time itself, so a server
 * clock stepped forward cannot stretch the lease. Before any answer, it counts from the send time
 * of the first attempt (no grant can come before the waiter queued). A waiter re-checks every third
 * of its waiter lease, so what this gives up is at most that; a lease told a renewal period late or
 * more is renewed at once, and one told after its validity ran out (a frozen link holds the notice
 * back past the TTL; its permits may be another's by then) is renewed before it is handed over, or
 * not handed over at all (see {@link QueuedAcquisition}).
 */
final class SemAcquisition extends QueuedAcquisition<SemHold> {
  private final RedisSemaphore semaphore;
  private final String[] ids;
  private final long ttlMillis;
  private final String[] firstArgs;
  private final String[] againArgs;
  /** The send time of the first attempt, before which nothing can have granted this waiter. */
  private volatile long firstSentAt;
  private volatile boolean sent;
  /** The last reply's server time and the send time of its attempt (null before any reply). */
  private volatile ServerTime lastSeen;

  SemAcquisition(RedisSemaphore semaphore, RedisSession session, Thread thread, int permits, boolean queue) {
    super(session, semaphore.path(), semaphore.keys()[2], true, queue ? semaphore.keys()[7] : null,
        "\"permits\":" + permits + ",\"ttl\":" + session.leaseTtlArg(), thread, queue);
    this.semaphore = semaphore;
    this.ttlMillis = session.settings().leaseTtl().toMillis();
    this.ids = new String[permits];
    for (int i = 0; i < permits; i++) {
      ids[i] = ownerId() + ":" + (i + 1); // one id per permit, as Redisson keeps them: each expires on its own
    }
    this.firstArgs = new String[] {member(), session.leaseTtlArg(), queue ? "queue" : "try",
        session.waiterLeaseArg(), Integer.toString(semaphore.permits()), Integer.toString(permits), ownerId()};
    this.againArgs = firstArgs.clone();
    againArgs[2] = "again"; // queued before: a release may have granted it meanwhile
  }

  @Override
  protected CompletableFuture<List<?>> sendAttempt() {
    if (!sent) {
      firstSentAt = System.nanoTime();
      sent = true;
      return semaphore.run(SemScripts.ACQUIRE, firstArgs);
    }
    return semaphore.run(SemScripts.ACQUIRE, againArgs);
  }

  @Override
  protected void replied(List<?> reply, long sentAt) {
    int at = ((Long) reply.get(0)) == 1L ? 3 : 2;
    lastSeen = new ServerTime(sentAt, (Long) reply.get(at));
  }

  /** A reply {1, token, expiry, server time}: by this attempt, or found made by a release. */
  @Override
  protected SemHold hold(List<?> reply, long sentAt) {
    long expiry = (Long) reply.get(2);
    long serverNow = (Long) reply.get(3);
    return new SemHold(semaphore, session(), ids, (Long) reply.get(1), grantedAt(sentAt, serverNow, expiry));
  }

  /**
   * A local time no later than the server's {@code expiry - ttl}: the server read {@code serverNow}
   * after {@code sentAt}; not before the first attempt was sent either.
   */
  private long grantedAt(long sentAt, long serverNow, long expiry) {
    long leadMillis = expiry - ttlMillis - serverNow;
    if (leadMillis > 0) {
      leadMillis = 0; // granted after the reading: no later than the attempt's send, whatever the clocks say
    } else if (leadMillis < 0) {
      leadMillis -= -leadMillis / 100 + 1; // clocks may run at different rates, by 1% at most
    }
    return Math.max(sentAt + leadMillis * 1_000_000, firstSentAt);
  }

  /** The send time ({@link System#nanoTime()}) of the last attempt the server answered; 0 before any. */
  long lastAnsweredSentAt() {
    ServerTime seen = lastSeen;
    return seen == null ? 0 : seen.sentAt();
  }

  /** A grant told on the grant channel: {@code "<token> <expiry ms>"}. */
  @Override
  public void notified(String message) {
    int space = message.indexOf(' ');
    long token;
    long expiry;
    try {
      token = Long.parseLong(message.substring(0, space));
      expiry = Long.parseLong(message.substring(space + 1));
    } catch (RuntimeException e) {
      wake(); // not a grant this version knows: an attempt finds out what it is
      return;
    }
    ServerTime seen = lastSeen;
    long sentAt = seen == null ? firstSentAt : seen.sentAt();
    long serverNow = seen == null ? expiry - ttlMillis : seen.serverNow();
    grantedByNotice(List.of(1L, token, expiry, serverNow), sentAt);
  }

  @Override
  protected long refused(List<?> reply) {
    Object head = reply.size() > 3 ? reply.get(3) : null;
    if (listening() && head instanceof String first && !first.isEmpty() && !first.equals(member())
        && ((Long) reply.get(1)) > 0) {
      // Permits are free but another is first in line and was not served (it wants more): if it is
      // one of ours, it may be waiting for the notice this attempt took (the client wakes its first
      // waiter, not its first in line).
      session().notices().wakeMember(semaphore.keys()[2], first);
    }
    return recheckEvery();
  }

  /** A wake-up this acquisition needs no more goes to the client's next waiter, for whom it may be. */
  @Override
  protected void passOn() {
    session().notices().wakeNext(semaphore.keys()[2], this);
  }

  /** Out of the queue, and the permits given back if a script granted them (a reply or notice lost or too late). */
  @Override
  protected CompletableFuture<?> sendWithdraw() {
    String[] args = new String[ids.length + 1];
    args[0] = member();
    System.arraycopy(ids, 0, args, 1, ids.length);
    return semaphore.run(SemScripts.RELEASE, args);
  }

  private record ServerTime(long sentAt, long serverNow) {}
}
