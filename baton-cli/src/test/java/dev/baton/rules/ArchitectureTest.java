package dev.baton.rules;

import static com.tngtech.archunit.base.DescribedPredicate.alwaysTrue;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layout rules of Baton, checked on the compiled classes of every library module and the
 * command line (this module sees them all), and on the benchmark's sources:
 *
 * <ul>
 *   <li>API packages ({@code dev.baton}, {@code dev.baton.lock}, {@code .leader}, {@code
 *       .barrier}, {@code .queue}, {@code .atomic}, {@code .cache}, {@code .config}, {@code .discovery}) hold
 *       interfaces, options and exceptions; implementation lives under {@code dev.baton.internal}.
 *   <li>Underneath: the session layer ({@code internal.session}), then the ordered-queue engine
 *       ({@code internal.engine}) and the watched copy of nodes ({@code internal.cache}, which the
 *       public caches, the config center and the registry share), then one implementation package
 *       per recipe. A recipe depends on the engine, the cache layer and the session layer, never on
 *       another recipe; the engine and the cache layer never on a recipe nor on each other; the
 *       session layer on none of them.
 *   <li>No package cycles. The only edges allowed to close one are those of the entry points, the
 *       classes a user starts from ({@code Baton}, {@code ConfigCenter.open}, {@code
 *       ServiceRegistry.open}): they construct implementations, which in turn implement the API.
 *       That is the price of {@code baton.mutex(path)}; no other class pays it.
 *   <li>{@code dev.baton.lock} names no ZooKeeper type, so every backend implements it.
 *   <li>The Redis backend ({@code dev.baton.redis}, {@code internal.redis..}) stands beside the
 *       ZooKeeper side, not on it: no ZooKeeper type, nothing of its session layer, engine or recipes.
 *       It is laid out the same way: its connection and script layer ({@code internal.redis}) knows
 *       none of its recipes ({@code internal.redis.mutex}, {@code .rwlock}, ...: every sub-package), and
 *       no Redis recipe reaches into another.
 *   <li>The command line, the benchmark and the integrations (Spring, ShedLock, Micrometer) use the public
 *       API only.
 * </ul>
 */
class ArchitectureTest {
  private static final String[] API = {
      "dev.baton", "dev.baton.lock", "dev.baton.leader", "dev.baton.barrier", "dev.baton.queue",
      "dev.baton.atomic", "dev.baton.cache", "dev.baton.config", "dev.baton.discovery", "dev.baton.redis"};
  /** The Redis backend's connection and script layer; each package below it is one Redis recipe. */
  private static final String REDIS_SESSION = "dev.baton.internal.redis";
  private static final List<String> RECIPES = List.of(
      "lock", "semaphore", "leader", "barrier", "queue", "atomic", "config", "discovery");
  private static final List<String> ENTRY_POINTS = List.of(
      "dev.baton.Coordinator", "dev.baton.Baton", "dev.baton.config.ConfigCenter", "dev.baton.discovery.ServiceRegistry",
      "dev.baton.redis.RedisBaton",
      // The command line's root command names every subcommand, the demo's and the console's too.
      "dev.baton.cli.BatonCommand");

  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("dev.baton");
    // Every module must be in: they come from the classpath, as folders or jars.
    assertThat(classes.stream().map(JavaClass::getPackageName).distinct())
        .as("packages imported")
        .contains("dev.baton", "dev.baton.lock", "dev.baton.internal.session", "dev.baton.internal.engine",
            "dev.baton.config", "dev.baton.internal.discovery", "dev.baton.embedded", "dev.baton.cli",
            "dev.baton.cli.command", "dev.baton.cli.demo", "dev.baton.cli.console",
            "dev.baton.cache", "dev.baton.internal.cache",
            "dev.baton.redis", "dev.baton.internal.redis", "dev.baton.internal.redis.mutex");
  }

  private static final DescribedPredicate<JavaClass> ENTRY_POINT = new DescribedPredicate<>("an entry point") {
    @Override
    public boolean test(JavaClass c) {
      String name = c.getName();
      return ENTRY_POINTS.stream().anyMatch(e -> name.equals(e) || name.startsWith(e + "$"));
    }
  };

  @Test
  void packages_haveNoCycles_butThroughTheEntryPoints() {
    SliceAssignment byPackage = new SliceAssignment() {
      @Override
      public SliceIdentifier getIdentifierOf(JavaClass c) {
        return c.getPackageName().startsWith("dev.baton")
            ? SliceIdentifier.of(c.getPackageName()) : SliceIdentifier.ignore();
      }

      @Override
      public String getDescription() {
        return "Baton's packages";
      }
    };
    slices().assignedFrom(byPackage).should().beFreeOfCycles()
        .ignoreDependency(ENTRY_POINT, alwaysTrue())
        .check(classes);
  }

  @Test
  void apiPackages_doNotReachIntoTheImplementation_butThroughTheEntryPoints() {
    noClasses().that().resideInAnyPackage(API).and(DescribedPredicate.not(ENTRY_POINT))
        .should().dependOnClassesThat().resideInAPackage("dev.baton.internal..")
        .check(classes);
  }

  @Test
  void lockApi_namesNoZooKeeperType() {
    noClasses().that().resideInAPackage("dev.baton.lock")
        .should().dependOnClassesThat().resideInAPackage("org.apache.zookeeper..")
        .check(classes);
  }

  @Test
  void apiPackages_ofOneCapability_doNotUseAnother() {
    // The lease (dev.baton.lock) is the shared vocabulary: leadership is a lease too.
    for (String capability : List.of("leader", "barrier", "queue", "atomic", "cache", "config", "discovery")) {
      String[] others = Stream.of("leader", "barrier", "queue", "atomic", "cache", "config", "discovery")
          .filter(other -> !other.equals(capability)).map(other -> "dev.baton." + other).toArray(String[]::new);
      noClasses().that().resideInAPackage("dev.baton." + capability)
          .should().dependOnClassesThat().resideInAnyPackage(others)
          .check(classes);
    }
    noClasses().that().resideInAPackage("dev.baton.lock")
        .should().dependOnClassesThat().resideInAnyPackage(
            "dev.baton.leader", "dev.baton.barrier", "dev.baton.queue", "dev.baton.atomic",
            "dev.baton.cache", "dev.baton.config", "dev.baton.discovery")
        .check(classes);
  }

  @Test
  void recipes_dependOnTheEngineAndTheSessionLayer_neverOnAnotherRecipe() {
    for (String recipe : RECIPES) {
      String[] others = RECIPES.stream().filter(other -> !other.equals(recipe))
          .map(other -> "dev.baton.internal." + other).toArray(String[]::new);
      noClasses().that().resideInAPackage("dev.baton.internal." + recipe)
          .should().dependOnClassesThat().resideInAnyPackage(others)
          .check(classes);
    }
  }

  @Test
  void engineAndCacheLayer_dependOnNoRecipe_andSessionLayer_onNoneOfThem() {
    String[] recipes = RECIPES.stream().map(r -> "dev.baton.internal." + r).toArray(String[]::new);
    noClasses().that().resideInAPackage("dev.baton.internal.engine")
        .should().dependOnClassesThat().resideInAnyPackage(recipes)
        .check(classes);
    noClasses().that().resideInAPackage("dev.baton.internal.cache")
        .should().dependOnClassesThat().resideInAnyPackage(recipes)
        .orShould().dependOnClassesThat().resideInAPackage("dev.baton.internal.engine")
        .check(classes);
    noClasses().that().resideInAPackage("dev.baton.internal.engine")
        .should().dependOnClassesThat().resideInAPackage("dev.baton.internal.cache")
        .check(classes);
    noClasses().that().resideInAPackage("dev.baton.internal.session")
        .should().dependOnClassesThat().resideInAnyPackage(recipes)
        .orShould().dependOnClassesThat().resideInAPackage("dev.baton.internal.engine")
        .orShould().dependOnClassesThat().resideInAPackage("dev.baton.internal.cache")
        .check(classes);
  }

  @Test
  void configAndDiscoveryModules_standOnTheSessionAndCacheLayersOnly() {
    noClasses().that().resideInAnyPackage("dev.baton.internal.config", "dev.baton.internal.discovery")
        .should().dependOnClassesThat().resideInAPackage("dev.baton.internal.engine")
        .check(classes);
  }

  @Test
  void redisBackend_standsBesideZooKeeper_notOnIt() {
    String[] zooKeeperSide = Stream.concat(Stream.of("session", "engine", "cache"), RECIPES.stream())
        .map(p -> "dev.baton.internal." + p).toArray(String[]::new);
    noClasses().that().resideInAnyPackage("dev.baton.redis", "dev.baton.internal.redis..")
        .should().dependOnClassesThat().resideInAnyPackage(zooKeeperSide)
        .orShould().dependOnClassesThat().resideInAPackage("org.apache.zookeeper..")
        .check(classes);
  }

  @Test
  void redisSessionLayer_dependsOnNoRedisRecipe() {
    noClasses().that().resideInAPackage(REDIS_SESSION)
        .should().dependOnClassesThat().resideInAPackage(REDIS_SESSION + ".(*)..")
        .check(classes);
  }

  @Test
  void redisRecipes_doNotDependOnEachOther() {
    List<String> recipes = redisRecipes();
    assertThat(recipes).as("Redis recipe packages").contains("mutex", "rwlock", "semaphore", "fence");
    for (String recipe : recipes) {
      String[] others = recipes.stream().filter(other -> !other.equals(recipe))
          .map(other -> REDIS_SESSION + "." + other + "..").toArray(String[]::new);
      noClasses().that().resideInAPackage(REDIS_SESSION + "." + recipe + "..")
          .should().dependOnClassesThat().resideInAnyPackage(others)
          .check(classes);
    }
  }

  /** Every package under the Redis session layer is a recipe's: new ones are covered without editing this test. */
  private static List<String> redisRecipes() {
    return classes.stream().map(JavaClass::getPackageName)
        .filter(p -> p.startsWith(REDIS_SESSION + "."))
        .map(p -> p.substring(REDIS_SESSION.length() + 1).split("\\.")[0])
        .distinct().sorted().toList();
  }

  @Test
  void commandLine_commandsPackage_knowsNeitherTheDemoNorTheConsole() {
    // The root command alone names them all; the commands are the layer demo and console stand on.
    noClasses().that().resideInAPackage("dev.baton.cli.command")
        .should().dependOnClassesThat().resideInAnyPackage("dev.baton.cli.demo", "dev.baton.cli.console")
        .check(classes);
  }

  @Test
  void commandLine_demoAndConsole_standOnTheCommandsPackage_notOnEachOther() {
    noClasses().that().resideInAPackage("dev.baton.cli.demo")
        .should().dependOnClassesThat().resideInAPackage("dev.baton.cli.console")
        .check(classes);
    noClasses().that().resideInAPackage("dev.baton.cli.console")
        .should().dependOnClassesThat().resideInAPackage("dev.baton.cli.demo")
        .check(classes);
  }

  @Test
  void commandLine_usesThePublicApiOnly() {
    noClasses().that().resideInAPackage("dev.baton.cli..")
        .should().dependOnClassesThat().resideInAPackage("dev.baton.internal..")
        .check(classes);
  }

  @Test
  void benchmark_importsNoInternalClass() throws IOException {
    // The benchmark module is built after this one, so its sources are read, not its classes.
    assertImportsNoInternalClass("baton-bench");
  }

  @Test
  void integrations_importNoInternalClass() throws IOException {
    // The Spring and ShedLock modules are users of the public API like any application; this
    // module does not depend on them (no Spring in the command line), so their sources are read.
    assertImportsNoInternalClass("baton-spring-boot-starter");
    assertImportsNoInternalClass("baton-shedlock");
    assertImportsNoInternalClass("baton-micrometer");
  }

  private static void assertImportsNoInternalClass(String module) throws IOException {
    Path sources = Path.of("..", module, "src", "main", "java");
    assertThat(sources).isDirectory();
    try (Stream<Path> files = Files.walk(sources)) {
      List<String> offenders = files.filter(f -> f.toString().endsWith(".java"))
          .filter(f -> read(f).lines().anyMatch(line -> line.matches("import (static )?dev\\.baton\\.internal\\..*")))
          .map(Path::toString).toList();
      assertThat(offenders).as(module + " sources that import dev.baton.internal").isEmpty();
    }
  }

  @Test
  void onlyTheEntryPoints_andTheImplementation_seeInternalPackages() {
    // A sanity check of the predicate the cycle rule relies on: it must name real classes.
    assertThat(ENTRY_POINTS).allSatisfy(name ->
        assertThat(classes.contain(name)).as(name + " is imported").isTrue());
    assertThat(resideInAPackage("dev.baton.internal..").test(classes.get("dev.baton.Baton"))).isFalse();
    assertThat(resideInAnyPackage(API).test(classes.get("dev.baton.internal.session.Session"))).isFalse();
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
