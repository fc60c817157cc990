package dev.baton.cli.console;

import dev.baton.cli.BatonCommand;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The console's options for being reached from other machines: the Host names it answers to, its
 * bearer token and HTTPS. Everything is checked before anything listens or connects; a console
 * bound beyond loopback without a token is refused.
 */
public final class ConsoleExposure {
  /** Shorter tokens could be guessed. */
  static final int MIN_TOKEN_LENGTH = 16;

  @Option(names = "--allowed-host", paramLabel = "NAME",
      description = "Answer to this Host name as well (repeat for more), e.g. the machine's DNS name when"
          + " listening on 0.0.0.0. Loopback names (localhost, 127.0.0.1, [::1]) and the --host address are"
          + " always allowed; any other Host is refused (403), which stops DNS rebinding.")
  List<String> allowedHosts = new ArrayList<>();

  @Option(names = "--token-file", paramLabel = "FILE",
      description = "Require the token in FILE's first line (at least " + MIN_TOKEN_LENGTH + " characters) on every"
          + " API request: Authorization: Bearer TOKEN; the page takes it from its address, .../#token=TOKEN.")
  Path tokenFile;

  @Option(names = "--generate-token",
      description = "Require a random token, made now and printed at start in the page's address.")
  boolean generateToken;

  @Option(names = "--https-keystore", paramLabel = "FILE",
      description = "Serve HTTPS only, with the key and certificate in this PKCS12 or JKS store.")
  Path keyStore;

  @Option(names = "--https-keystore-password", paramLabel = "PASSWORD",
      defaultValue = "${env:BATON_HTTPS_KEYSTORE_PASSWORD}",
      description = "The --https-keystore's password (or set BATON_HTTPS_KEYSTORE_PASSWORD).")
  String keyStorePassword;

  /** The token the console requires, or null for none; set by {@link #check}. */
  private String token;

  /**
   * Checks the options against the address to listen on, reads the token (or makes one).
   *
   * @throws ParameterException naming the option at fault
   */
  void check(String host, CommandSpec spec) {
    if (tokenFile != null && generateToken) {
      throw new ParameterException(spec.commandLine(), "--token-file and --generate-token exclude each other: choose one");
    }
    for (String name : allowedHosts) {
      if (!name.matches("[A-Za-z0-9._-]+|\\[[0-9A-Fa-f:.]+\\]|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*")) {
        throw new ParameterException(spec.commandLine(), "--allowed-host must be a host name or address, without"
            + " scheme, port or path, e.g. console.example.com, was '" + name + "'");
      }
    }
    if (tokenFile != null) {
      token = readToken(spec);
    } else if (generateToken) {
      byte[] random = new byte[32];
      new SecureRandom().nextBytes(random);
      token = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    }
    if (token == null && !isLoopback(host, spec)) {
      throw new ParameterException(spec.commandLine(), "--host " + host + " listens beyond loopback, where anyone"
          + " who reaches the port could use the console: give --token-file FILE or --generate-token");
    }
    if (keyStorePassword != null && keyStore == null) {
      throw new ParameterException(spec.commandLine(), "--https-keystore-password needs --https-keystore");
    }
  }

  /** Loopback names, the address listened on (unless it is every interface) and the --allowed-host names. */
  ConsoleAccess access(String host) throws UnknownHostException {
    List<String> extra = new ArrayList<>(allowedHosts);
    if (!InetAddress.getByName(host).isAnyLocalAddress()) {
      extra.add(host);
    }
    return ConsoleAccess.of(extra, token, keyStore != null);
  }

  /** The token, or null for none. */
  String token() {
    return token;
  }

  /** Whether the token was made here (and so must be printed for anyone to use the page). */
  boolean tokenGenerated() {
    return generateToken;
  }

  /** The HTTPS context, or null for plain HTTP. */
  SSLContext tls(CommandSpec spec) {
    if (keyStore == null) {
      return null;
    }
    if (!Files.isRegularFile(keyStore) || !Files.isReadable(keyStore)) {
      throw new ParameterException(spec.commandLine(), "--https-keystore '" + keyStore + "' is not a readable file");
    }
    if (keyStorePassword == null) {
      throw new ParameterException(spec.commandLine(),
          "--https-keystore-password is missing: give it, or set BATON_HTTPS_KEYSTORE_PASSWORD");
    }
    char[] password = keyStorePassword.toCharArray();
    try {
      KeyStore store = KeyStore.getInstance(keyStore.toFile(), password);
      KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(store, password);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys.getKeyManagers(), null, null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new ParameterException(spec.commandLine(), "--https-keystore '" + keyStore + "' cannot be read with"
          + " the --https-keystore-password given (" + BatonCommand.describe(e) + ")");
    }
  }

  private String readToken(CommandSpec spec) {
    String first;
    try {
      first = Files.readAllLines(tokenFile, StandardCharsets.UTF_8).stream().findFirst().orElse("").trim();
    } catch (IOException e) {
      throw new ParameterException(spec.commandLine(), "--token-file '" + tokenFile + "' cannot be read ("
          + BatonCommand.describe(e) + ")");
    }
    if (first.length() < MIN_TOKEN_LENGTH || !first.matches("[\\x21-\\x7e]+")) {
      throw new ParameterException(spec.commandLine(), "--token-file '" + tokenFile + "' must hold a token of at"
          + " least " + MIN_TOKEN_LENGTH + " printable characters without spaces on its first line");
    }
    return first;
  }

  private static boolean isLoopback(String host, CommandSpec spec) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      throw new ParameterException(spec.commandLine(), "--host '" + host + "' cannot be resolved");
    }
  }
}
