package dev.baton.testkit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * Records the critical sections of lock holders and checks afterwards that the lock kept its
 * promise. Meant for tests that hammer a lock from many threads or processes while faults are
 * injected.
 *
 * <p>Usage: call {@link #enter} right after the lock is acquired, {@link Section#lost()} as soon
 * as the holder is told its lease is lost or in doubt, and {@link Section#exit()} right before
 * releasing, so each recorded section lies inside the real one. A section is <em>valid</em> from
 * its entry until the earlier of its exit and its loss; a section with neither counts as valid
 * until the check. Times come from {@link System#nanoTime()}, so every holder must run in this
 * JVM.
 *
 * <p>Rules checked by {@link #violations()}:
 * <ul>
 *   <li>{@link #exclusive()}: no two valid exclusive sections overlap, and no valid exclusive
 *       section overlaps a valid shared one ({@link #enterShared}); shared sections may overlap
 *       each other. Fencing tokens of exclusive sections strictly increase in order of entry
 *       (shared sections' tokens are not checked).</li>
 *   <li>{@link #withCapacity(int) withCapacity(n)}: at most {@code n} valid sections overlap at
 *       any instant, shared or not; tokens are not checked, since permits are not ordered.</li>
 * </ul>
 * Valid intervals are half-open, so a section entered at the very nanosecond another ended does
 * not overlap it.
 *
 * <p>Recording is thread-safe and cheap (one lock-free append per section); checking sorts the
 * history once and sweeps it, O(n log n), and may run while sections are still being recorded.
 */
public final class MutualExclusionChecker {

    private static final int MAX_LISTED = 20;
    private static final int MAX_NAMED_PER_VIOLATION = 3;

    /** Capacity, or 0 for exclusive/shared (read-write) semantics with token checks. */
    private final int capacity;
    private final Queue<Section> sections = new ConcurrentLinkedQueue<>();
    private final AtomicLong sequence = new AtomicLong();

    private MutualExclusionChecker(int capacity) {
        this.capacity = capacity;
    }

    /** A checker for a mutual-exclusion lock, optionally with shared (read) sections. */
    public static MutualExclusionChecker exclusive() {
        return new MutualExclusionChecker(0);
    }

    /**
     * A checker for a semaphore: at most {@code permits} valid sections at once. Every section,
     * exclusive or shared, takes one permit, and fencing tokens are not checked.
     */
    public static MutualExclusionChecker withCapacity(int permits) {
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1, got " + permits);
        }
        return new MutualExclusionChecker(permits);
    }

    /**
     * Records that {@code client} entered an exclusive section with {@code fencingToken}, now.
     *
     * @return the section, to mark as lost or exited
     */
    public Section enter(String client, long fencingToken) {
        return record(client, fencingToken, false);
    }

    /** Records that {@code client} entered a shared (read) section with {@code fencingToken}, now. */
    public Section enterShared(String client, long fencingToken) {
        return record(client, fencingToken, true);
    }

    private Section record(String client, long fencingToken, boolean shared) {
        Objects.requireNonNull(client, "client");
        // Time first, then the sequence number that breaks ties between equal timestamps.
        long now = System.nanoTime();
        Section section = new Section(sequence.getAndIncrement(), client, fencingToken, shared, now);
        sections.add(section);
        return section;
    }

    /** Number of sections entered so far. */
    public long sectionCount() {
        return sequence.get();
    }

    /** Number of sections entered so far by each client, sorted by client name. */
    public Map<String, Long> sectionsByClient() {
        return sections.stream()
                .collect(Collectors.groupingBy(s -> s.client, TreeMap::new, Collectors.counting()));
    }

    /**
     * Every violation of the rules in the history recorded so far, as readable sentences ordered
     * by time, with times in milliseconds relative to the first entry. Empty if the history is
     * correct.
     */
    public List<String> violations() {
        return timedViolations().stream().map(TimedViolation::text).collect(Collectors.toList());
    }

    /**
     * A violation of {@link #violations()} with the {@link System#nanoTime()} at which its
     * offending section was entered, for a caller that ties it to what happened then (a fault).
     */
    public record TimedViolation(long enteredAtNanos, String text) {}

    /** {@link #violations()}, each with the time its offending section was entered. */
    public List<TimedViolation> timedViolations() {
        long checkedAt = System.nanoTime();
        List<Interval> history = new ArrayList<>();
        for (Section section : sections) {
            history.add(section.interval(checkedAt));
        }
        history.sort(Comparator.comparingLong((Interval i) -> i.start)
                .thenComparingLong(i -> i.section.sequence));
        if (history.isEmpty()) {
            return List.of();
        }
        long origin = history.get(0).start;
        List<Violation> found = new ArrayList<>();
        if (capacity == 0) {
            findOverlapsReadWrite(history, origin, found);
            findTokenRegressions(history, origin, found);
        } else {
            findCapacityExcess(history, origin, found);
        }
        found.sort(Comparator.comparingLong((Violation v) -> v.at).thenComparingLong(v -> v.order));
        return found.stream().map(v -> new TimedViolation(v.at, v.text)).collect(Collectors.toList());
    }

    /**
     * Throws if {@link #violations()} finds any; the message names the clients, tokens and times
     * of the first {@value #MAX_LISTED} and counts the rest.
     *
     * @throws AssertionError if the recorded history breaks the rules
     */
    public void assertNoViolations() {
        List<String> violations = violations();
        if (violations.isEmpty()) {
            return;
        }
        StringBuilder message = new StringBuilder()
                .append(violations.size()).append(" mutual exclusion violation(s) in ")
                .append(sectionCount()).append(" sections")
                .append(capacity == 0 ? "" : " (capacity " + capacity + ")")
                .append("; times are relative to the first entry:");
        for (int i = 0; i < Math.min(MAX_LISTED, violations.size()); i++) {
            message.append("\n  ").append(i + 1).append(". ").append(violations.get(i));
        }
        if (violations.size() > MAX_LISTED) {
            message.append("\n  ... and ").append(violations.size() - MAX_LISTED).append(" more");
        }
        throw new AssertionError(message.toString());
    }

    @Override
    public String toString() {
        return (capacity == 0 ? "exclusive" : "capacity " + capacity) + " checker with "
                + sectionCount() + " sections";
    }

    /*
     * The sweeps walk the intervals in order of entry and keep the ones still valid in heaps
     * ordered by end, dropping those that ended before the next entry: O(n log n) overall, and
     * each report names only a few of the conflicting sections.
     */

    private void findOverlapsReadWrite(List<Interval> history, long origin, List<Violation> out) {
        PriorityQueue<Interval> exclusive = new PriorityQueue<>(Interval.BY_END);
        PriorityQueue<Interval> shared = new PriorityQueue<>(Interval.BY_END);
        for (Interval entering : history) {
            dropEnded(exclusive, entering.start);
            dropEnded(shared, entering.start);
            boolean isShared = entering.section.shared;
            int conflicts = exclusive.size() + (isShared ? 0 : shared.size());
            if (conflicts > 0) {
                List<Interval> named = new ArrayList<>();
                take(exclusive, named);
                if (!isShared) {
                    take(shared, named);
                }
                out.add(new Violation(entering, (isShared ? "shared" : "exclusive")
                        + " section " + entering.describe(origin) + " entered while " + conflicts
                        + " conflicting section(s) were valid: " + describe(named, conflicts, origin)));
            }
            (isShared ? shared : exclusive).add(entering);
        }
    }

    private void findCapacityExcess(List<Interval> history, long origin, List<Violation> out) {
        PriorityQueue<Interval> holders = new PriorityQueue<>(Interval.BY_END);
        for (Interval entering : history) {
            dropEnded(holders, entering.start);
            if (holders.size() >= capacity) {
                List<Interval> named = new ArrayList<>();
                take(holders, named);
                out.add(new Violation(entering, "section " + entering.describe(origin)
                        + " entered while all " + capacity + " permit(s) were held by valid sections: "
                        + describe(named, holders.size(), origin)));
            }
            holders.add(entering);
        }
    }

    private static void findTokenRegressions(List<Interval> history, long origin, List<Violation> out) {
        Interval highest = null;
        for (Interval entering : history) {
            if (entering.section.shared) {
                continue;
            }
            if (highest != null && entering.section.token <= highest.section.token) {
                out.add(new Violation(entering, "fencing token did not increase: "
                        + entering.describe(origin) + " entered after "
                        + highest.describe(origin)));
            }
            if (highest == null || entering.section.token > highest.section.token) {
                highest = entering;
            }
        }
    }

    private static void dropEnded(PriorityQueue<Interval> valid, long now) {
        while (!valid.isEmpty() && valid.peek().end <= now) {
            valid.poll();
        }
    }

    private static void take(PriorityQueue<Interval> from, List<Interval> into) {
        Iterator<Interval> it = from.iterator();
        while (it.hasNext() && into.size() < MAX_NAMED_PER_VIOLATION) {
            into.add(it.next());
        }
    }

    private static String describe(List<Interval> named, int total, long origin) {
        String list = named.stream().map(i -> i.describe(origin)).collect(Collectors.joining(", "));
        return total > named.size() ? list + " and " + (total - named.size()) + " more" : list;
    }

    private static String millis(long nanos, long origin) {
        return String.format(Locale.ROOT, "+%.3f ms", (nanos - origin) / 1e6);
    }

    /**
     * One recorded critical section. {@link #lost()} and {@link #exit()} may each be called any
     * number of times, from any thread; only the first call of each counts. {@link #close()} is
     * {@link #exit()}, for try-with-resources.
     */
    public static final class Section implements AutoCloseable {
        private final long sequence;
        private final String client;
        private final long token;
        private final boolean shared;
        private final long enteredAt;
        private boolean lost; // guarded by this
        private long lostAt; // guarded by this
        private boolean exited; // guarded by this
        private long exitedAt; // guarded by this

        private Section(long sequence, String client, long token, boolean shared, long enteredAt) {
            this.sequence = sequence;
            this.client = client;
            this.token = token;
            this.shared = shared;
            this.enteredAt = enteredAt;
        }

        /** The client name given on entry. */
        public String client() {
            return client;
        }

        /** The fencing token given on entry. */
        public long fencingToken() {
            return token;
        }

        /** Whether this is a shared (read) section. */
        public boolean isShared() {
            return shared;
        }

        /**
         * Records that the holder was told, now, that its lease is lost or suspect: the section
         * stops being valid at this instant even if the holder exits later.
         */
        public synchronized void lost() {
            if (!lost) {
                lost = true;
                lostAt = System.nanoTime();
            }
        }

        /** Records that the holder left the critical section, now. */
        public synchronized void exit() {
            if (!exited) {
                exited = true;
                exitedAt = System.nanoTime();
            }
        }

        /** Same as {@link #exit()}. */
        @Override
        public void close() {
            exit();
        }

        private synchronized Interval interval(long checkedAt) {
            // Exits and losses recorded after the check began are ignored, so a check is a
            // consistent snapshot even while holders keep running.
            long end = checkedAt;
            String how = "still inside";
            if (exited && exitedAt < end) {
                end = exitedAt;
                how = "exited";
            }
            if (lost && lostAt < end) {
                end = lostAt;
                how = "lost";
            }
            return new Interval(this, enteredAt, Math.max(end, enteredAt), how);
        }

        @Override
        public String toString() {
            return client + " (token " + token + (shared ? ", shared" : "") + ")";
        }
    }

    /** A section's valid time, frozen at check time. */
    private static final class Interval {
        static final Comparator<Interval> BY_END = Comparator.comparingLong(i -> i.end);

        final Section section;
        final long start;
        final long end;
        final String how;

        Interval(Section section, long start, long end, String how) {
            this.section = section;
            this.start = start;
            this.end = end;
            this.how = how;
        }

        String describe(long origin) {
            return section.client + " (token " + section.token + ", valid " + millis(start, origin)
                    + " to " + millis(end, origin) + ", " + how + ")";
        }
    }

    private static final class Violation {
        final long at;
        final long order;
        final String text;

        Violation(Interval entering, String text) {
            this.at = entering.start;
            this.order = entering.section.sequence;
            this.text = text;
        }
    }
}
