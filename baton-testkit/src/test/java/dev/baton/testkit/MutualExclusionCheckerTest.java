package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

class MutualExclusionCheckerTest {

    @Test
    void exclusive_sequentialHistory_hasNoViolations() {
        MutualExclusionChecker checker = MutualExclusionChecker.exclusive();

        checker.enter("a", 1).exit();
        checker.enter("b", 2).exit();
        checker.enter("a", 3).exit();

        assertThat(checker.violations()).isEmpty();
        checker.assertNoViolations();
        assertThat(checker.sectionCount()).isEqualTo(3);
        assertThat(checker.sectionsByClient()).containsExactly(
                entry("a", 2L),
                entry("b", 1L));
    }

    @Test
    void exclusive_overlappingSections_areReportedWithClientsAndTokens() {
        MutualExclusionChecker checker = MutualExclusionChecker.exclusive();

        MutualExclusionChecker.Section first = checker.enter("alpha", 7);
        MutualExclusionChecker.Section second = checker.enter("beta", 8);
        second.exit();
        first.exit();

        assertThat(checker.violations()).singleElement().asString()
                .contains("beta (token 8", "alpha (token 7", "+0.000 ms");
        assertThatThrownBy(checker::assertNoViolations)
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("1 mutual exclusion violation(s) in 2 sections")
                .hasMessageContaining("beta")
                .hasMessageContaining("alpha");
    }

    @Test
    void exclusive_unfinishedSection_countsAsValidUntilTheCheck() {
        MutualExclusionChecker checker = MutualExclusionChecker.exclusive();

        checker.enter("stuck", 1);
        checker.enter("next", 2).exit();

        assertThat(checker.violations()).singleElement().asString().contains("still inside");
    }

    @Test
    void exclusive_holderToldItLostLeaseBeforeNextEntered_hasNoViolations() {
        MutualExclusionChecker checker = MutualExclusionChecker.exclusive();

        MutualExclusionChecker.Section stale = checker.enter("stale", 1);
        stale.lost();
        MutualExclusionChecker.Section next = checker.enter("next", 2);
        stale.exit(); // the stale holder leaves late, but it knew it was no longer safe
        next.exit();

        checker.assertNoViolations();
    }

    @Test
    void exclusive_holderToldItLostLeaseAfterNextEntered_isViolation() {
        MutualExclusionChecker checker = MutualExclusionChecker.exclusive();

        MutualExclusionChecker.Section stale = checker.enter("stale", 1);
        MutualExclusionChecker.Section next = checker.enter("next", 2);
        stale.lost();
        stale.exit();
        next.exit();

        assertThat(checker.violations()).singleElement().asString().contains("stale", "lost");
    }

    @Test
    void exclusive_nonIncreasingToken_isViolation() {
        MutualExclusionChecker checker = MutualExclusionChecker.exclusive();

        checker.enter("a", 5).exit();
        checker.enter("b", 5).exit();
        checker.enter("c", 4).exit();
        checker.enter("d", 6).exit();

        assertThat(checker.violations()).hasSize(2)
                .allSatisfy(v -> assertThat(v).startsWith("fencing token did not increase"))
                .anySatisfy(v -> assertThat(v).contains("b (token 5", "a (token 5"))
                .anySatisfy(v -> assertThat(v).contains("c (token 4", "a (token 5"));
    }

    @Test
    void lostAndExit_calledTwice_onlyFirstCallCounts() {
        MutualExclusionChecker checker = MutualExclusionChecker.exclusive();

        MutualExclusionChecker.Section first = checker.enter("a", 1);
        first.exit();
        MutualExclusionChecker.Section second = checker.enter("b", 2);
        first.exit();
        first.lost();
        second.close();

        checker.assertNoViolations();
    }

    @Test
    void withCapacity_allowsNHoldersButNotNPlusOne() {
        MutualExclusionChecker two = MutualExclusionChecker.withCapacity(2);
        MutualExclusionChecker.Section a = two.enter("a", 1);
        MutualExclusionChecker.Section b = two.enter("b", 1); // tokens are not checked
        a.exit();
        two.enter("c", 0).exit(); // a's permit was free again
        b.exit();
        two.assertNoViolations();

        MutualExclusionChecker.Section x = two.enter("x", 10);
        MutualExclusionChecker.Section y = two.enterShared("y", 11);
        MutualExclusionChecker.Section z = two.enter("z", 12);
        x.exit();
        y.exit();
        z.exit();

        assertThat(two.violations()).singleElement().asString()
                .contains("z (token 12", "all 2 permit(s)", "x (token 10", "y (token 11");
    }

    @Test
    void exclusive_sharedSectionsOverlapEachOtherButNotAnExclusiveOne() {
        MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
        MutualExclusionChecker.Section r1 = checker.enterShared("r1", 1);
        MutualExclusionChecker.Section r2 = checker.enterShared("r2", 1);
        r1.exit();
        r2.exit();
        checker.enter("w", 2).exit();
        checker.assertNoViolations();

        MutualExclusionChecker.Section reader = checker.enterShared("reader", 3);
        MutualExclusionChecker.Section writer = checker.enter("writer", 4);
        MutualExclusionChecker.Section lateReader = checker.enterShared("late-reader", 5);
        reader.exit();
        writer.exit();
        lateReader.exit();

        assertThat(checker.violations()).hasSize(2)
                .anySatisfy(v -> assertThat(v).startsWith("exclusive section writer").contains("reader"))
                .anySatisfy(v -> assertThat(v).startsWith("shared section late-reader").contains("writer"));
    }

    @Test
    void assertNoViolations_manyViolations_listsTwentyAndCountsTheRest() {
        MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
        checker.enter("holder", 0);
        for (int i = 1; i <= 25; i++) {
            checker.enter("intruder-" + i, i).exit();
        }

        assertThat(checker.violations()).hasSize(25);
        assertThatThrownBy(checker::assertNoViolations)
                .hasMessageContaining("25 mutual exclusion violation(s) in 26 sections")
                .hasMessageContaining("20. ")
                .hasMessageNotContaining("21. ")
                .hasMessageContaining("... and 5 more");
    }

    @Test
    void enter_fromSixteenThreadsUnderRealLock_recordsEverySectionWithoutViolations() throws Exception {
        MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
        ReentrantLock lock = new ReentrantLock();
        AtomicLong tokens = new AtomicLong();
        int threads = 16;
        int rounds = 500;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String client = "client-" + t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < rounds; i++) {
                        lock.lock();
                        try (MutualExclusionChecker.Section ignored =
                                checker.enter(client, tokens.incrementAndGet())) {
                            Thread.onSpinWait();
                        } finally {
                            lock.unlock();
                        }
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        checker.assertNoViolations();
        assertThat(checker.sectionCount()).isEqualTo((long) threads * rounds);
        assertThat(checker.sectionsByClient()).hasSize(threads).allSatisfy((client, n) ->
                assertThat(n).isEqualTo(rounds));
    }
}
