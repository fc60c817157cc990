package dev.baton.testkit;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.StressOptions;

/**
 * The budget of a Lincheck model check in the build, and the scenarios written for the races it is
 * for. A check runs its written scenarios (each line of {@link #scenario} is one thread) with the
 * interleavings budgeted per scenario, then as many random scenarios.
 *
 * <p>The build's budget is small, for time; a longer run is asked for with system properties
 * (passed on by Maven's {@code -D}): {@code baton.lincheck.scenarios} (random scenarios per
 * check) and {@code baton.lincheck.invocations} (interleavings per scenario), for example
 * {@code -Dbaton.lincheck.scenarios=50 -Dbaton.lincheck.invocations=2000}.
 */
public final class ModelCheck {
  private ModelCheck() {}

  /**
   * Model checking of 3 threads x 2 operations with {@code scenarios} random scenarios and
   * {@code invocations} interleavings per scenario (each overridden by its system property), and
   * {@code written} run first.
   */
  public static ModelCheckingOptions options(int scenarios, int invocations, ExecutionScenario... written) {
    ModelCheckingOptions options = new ModelCheckingOptions()
        .iterations(Integer.getInteger("baton.lincheck.scenarios", scenarios))
        .invocationsPerIteration(Integer.getInteger("baton.lincheck.invocations", invocations))
        .threads(3)
        .actorsPerThread(2)
        // Lincheck takes an invocation past this for a hang. The first ones instrument the classes
        // they reach, which took more than its default 30 s on a loaded machine (internal in 3.7).
        .invocationTimeout$lincheck(180_000);
    for (ExecutionScenario scenario : written) {
      options.addCustomScenario(scenario);
    }
    return options;
  }

  /**
   * Stress mode of 3 threads x 2 operations: {@code scenarios} random scenarios, each run {@code
   * invocations} times on real threads, whose interleaving nothing controls (each overridden by
   * {@code baton.lincheck.stress.scenarios} and {@code baton.lincheck.stress.invocations}). It
   * finds less than model checking for the time, but runs the classes as compiled, on the JVM's
   * own memory model and monitors, where the model checker runs its instrumented copies.
   */
  public static StressOptions stress(int scenarios, int invocations) {
    return new StressOptions()
        .iterations(Integer.getInteger("baton.lincheck.stress.scenarios", scenarios))
        .invocationsPerIteration(Integer.getInteger("baton.lincheck.stress.invocations", invocations))
        .threads(3)
        .actorsPerThread(2);
  }

  /**
   * A written scenario of {@code test}'s operations: {@code threads[i]} is what thread i runs, in
   * order, each an operation's name with its int arguments after it ({@code "add 1"}). No
   * operations run before or after the threads; the check's validation runs after them.
   */
  public static ExecutionScenario scenario(Class<?> test, String[]... threads) {
    List<List<Actor>> parallel = new ArrayList<>();
    for (String[] thread : threads) {
      List<Actor> actors = new ArrayList<>();
      for (String operation : thread) {
        actors.add(actor(test, operation));
      }
      parallel.add(actors);
    }
    return new ExecutionScenario(List.of(), parallel, List.of(), null);
  }

  private static Actor actor(Class<?> test, String operation) {
    String[] words = operation.trim().split("\\s+");
    List<Object> arguments = new ArrayList<>();
    for (String word : Arrays.asList(words).subList(1, words.length)) {
      arguments.add(Integer.parseInt(word));
    }
    for (Method method : test.getMethods()) {
      if (method.getName().equals(words[0]) && method.getParameterCount() == arguments.size()) {
        return new Actor(method, arguments);
      }
    }
    throw new IllegalArgumentException("operation: " + test.getSimpleName() + " has no public " + words[0]
        + " taking " + arguments.size() + " int argument(s)");
  }
}
