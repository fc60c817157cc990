package dev.baton.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Self-signed certificates for TLS tests, made with the JDK's own {@code keytool} (no extra
 * dependency): each identity is a PKCS#12 key store ({@code .p12}, so ZooKeeper tells its type
 * from the name) holding an EC key and a certificate valid for {@code 127.0.0.1} and {@code
 * localhost}, as ZooKeeper's hostname verification wants when clients connect to the loopback
 * address. Trust stores are written in this JVM from the identities they trust.
 */
public final class TestCertificates {
    private static final long KEYTOOL_TIMEOUT_SECONDS = 60;

    private TestCertificates() {
    }

    /** A key store with one key and its self-signed certificate, subject {@code CN=<name>}. */
    public record Identity(String name, Path keyStore, String password) {
        /** The certificate's subject, which ZooKeeper's x509 provider uses as the session's identity. */
        public String subject() {
            return "CN=" + name;
        }

        Certificate certificate() {
            try {
                return load(keyStore, password).getCertificate(name);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("cannot read the certificate in " + keyStore, e);
            }
        }
    }

    /**
     * Creates {@code <folder>/<name>.p12}, protected by {@code password} (keytool wants at least
     * 6 characters).
     *
     * @throws IllegalStateException with keytool's output if it fails
     */
    public static Identity selfSigned(Path folder, String name, String password) {
        if (password.length() < 6) {
            throw new IllegalArgumentException("keytool wants a password of at least 6 characters");
        }
        Path keyStore = folder.resolve(name + ".p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        List<String> command = List.of(keytool.toString(), "-genkeypair", "-alias", name,
                "-keyalg", "EC", "-groupname", "secp256r1", "-sigalg", "SHA256withECDSA",
                "-dname", "CN=" + name, "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2",
                "-storetype", "PKCS12", "-keystore", keyStore.toString(),
                "-storepass", password, "-keypass", password);
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getOutputStream().close();
            String output;
            try (InputStream out = process.getInputStream()) {
                output = new String(out.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (!process.waitFor(KEYTOOL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("keytool did not finish within " + KEYTOOL_TIMEOUT_SECONDS + " s");
            }
            if (process.exitValue() != 0 || !Files.isRegularFile(keyStore)) {
                throw new IllegalStateException("keytool failed (exit " + process.exitValue() + "): " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + keytool, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running keytool", e);
        }
        return new Identity(name, keyStore, password);
    }

    /** Writes a PKCS#12 trust store at {@code file} holding the certificates of {@code trusted}. */
    public static Path trustStore(Path file, String password, Identity... trusted) {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            for (Identity identity : trusted) {
                store.setCertificateEntry(identity.name(), identity.certificate());
            }
            try (OutputStream out = Files.newOutputStream(file)) {
                store.store(out, password.toCharArray());
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the trust store " + file, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot build the trust store " + file, e);
        }
    }

    /** An identity's certificate and private key as PEM files, as servers outside the JVM (redis-server) read them. */
    public record PemFiles(Path certificate, Path privateKey) {}

    /** Writes {@code identity}'s certificate and key to {@code <folder>/<name>.crt} and {@code .key}. */
    public static PemFiles pem(Identity identity, Path folder) {
        try {
            KeyStore store = load(identity.keyStore(), identity.password());
            java.security.Key key = store.getKey(identity.name(), identity.password().toCharArray());
            Path certificate = folder.resolve(identity.name() + ".crt");
            Path privateKey = folder.resolve(identity.name() + ".key");
            Files.writeString(certificate, pemBlock("CERTIFICATE", identity.certificate().getEncoded()));
            Files.writeString(privateKey, pemBlock("PRIVATE KEY", key.getEncoded()));
            return new PemFiles(certificate, privateKey);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the PEM files of " + identity.name(), e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot read the key of " + identity.name(), e);
        }
    }

    private static String pemBlock(String type, byte[] der) {
        String body = java.util.Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
    }

    private static KeyStore load(Path file, String password) {
        try (InputStream in = Files.newInputStream(file)) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(in, password.toCharArray());
            return store;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the key store " + file, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot read the key store " + file, e);
        }
    }
}
