package dev.baton.cli.command;

import dev.baton.cli.BatonCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs the command line in this JVM and captures what it prints. */
public final class Cli {
  private Cli() {}

  public record Run(int exitCode, String out, String err) {}

  public static Run run(String... args) {
    return run(CommandLine.defaultFactory(), args);
  }

  /** As {@link #run(String...)}, with {@code factory} making the command objects (a test can keep one to stop it). */
  public static Run run(CommandLine.IFactory factory, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = BatonCommand.newCommandLine(factory);
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int exitCode = commandLine.execute(args);
    return new Run(exitCode, out.toString(), err.toString());
  }
}
