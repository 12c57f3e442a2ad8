// Tiny launcher for a real, embedded Neo4j 5.26 (community) with a Bolt port on 127.0.0.1.
//
// Run in Java source-file mode (no build step), jars fetched by pom.xml into lib/:
//
//   NEO4J_PASSWORD=... java $(cat tools/neo4j/jvm.flags) -cp 'tools/neo4j/lib/*' tools/neo4j/Launcher.java \
//        [--port N] [--data DIR] [--password-file FILE] [--ignore-stdin]
//
//   --port N              Bolt port on 127.0.0.1; 0 or absent = a free port chosen by the OS.
//   --data DIR            Neo4j home/data directory (mode 0700), kept after exit. Absent = a fresh
//                         temp dir, deleted on exit.
//   --password-file FILE  read the password of user "neo4j" from FILE (first line), which only
//                         its owner may read (mode 0600 or 0400). Without it the password comes
//                         from $NEO4J_PASSWORD. Never a command-line value: `ps` shows those, and
//                         Neo4j's debug.log records the command line. >= 8 characters.
//   --ignore-stdin        do not shut down when stdin reaches EOF (for manual/background runs
//                         with stdin=/dev/null). Default: EOF on stdin => clean shutdown.
//
// The page cache is the system property kg.neo4j.pagecache (e.g. -Dkg.neo4j.pagecache=1g in a
// profile's flags file, see start.sh), 64m if unset: small for tests, sized to the graph for loads.
//
// LOAD CSV can read no file (file URLs are off, the import directory is an empty folder of the
// home) and fetch no URL (every address is blocked).
//
// Protocol: when the server accepts Bolt connections, exactly one line
//   BOLT bolt://127.0.0.1:PORT
// is printed on stdout (everything else goes to stderr). It then blocks until SIGTERM/SIGINT
// or EOF on stdin, shuts the DBMS down and removes the temp dir. Exit code 0 on a clean stop,
// 2 on bad arguments, 1 on a startup failure.

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.SettingValueParsers;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.connectors.ConnectorPortRegister;
import org.neo4j.configuration.connectors.ConnectorType;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.kernel.internal.GraphDatabaseAPI;

import inet.ipaddr.IPAddressString;

public class Launcher {
    private static final PrintStream OUT = System.out; // reserved for the single BOLT line
    private static final Object LOCK = new Object();
    private static DatabaseManagementService dbms;
    private static Path tempHome;
    private static volatile boolean stopped;
    private static final String USAGE =
            "usage: NEO4J_PASSWORD=... Launcher [--port N] [--data DIR] [--password-file FILE] [--ignore-stdin]";

    public static void main(String[] args) throws Exception {
        // Neo4j (and its deps) must never write to our stdout: the parent parses it.
        System.setOut(System.err);

        int port = 0;
        Path data = null;
        Path passwordFile = null;
        boolean watchStdin = true;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            try {
                switch (a) {
                    case "--port": port = Integer.parseInt(args[++i]); break;
                    case "--data": data = Path.of(args[++i]); break;
                    case "--password-file": passwordFile = Path.of(args[++i]); break;
                    case "--password":
                        usage("--password is gone (a command line is public): set NEO4J_PASSWORD or use --password-file");
                        break;
                    case "--ignore-stdin": watchStdin = false; break;
                    case "-h": case "--help":
                        System.err.println(USAGE);
                        System.exit(0);
                    default: usage("unknown argument: " + a);
                }
            } catch (ArrayIndexOutOfBoundsException | NumberFormatException e) {
                usage("bad or missing value for " + a);
            }
        }
        if (port < 0 || port > 65535) usage("port out of range: " + port);
        String password = readPassword(passwordFile);
        if (password.length() < 8) usage("password must be at least 8 characters");

        Path home;
        if (data == null) {
            tempHome = Files.createTempDirectory("kg-neo4j-");  // mode 0700
            home = tempHome;
        } else {
            Files.createDirectories(data);
            home = data.toAbsolutePath();
            // Neo4j's logs and store are for the server's owner only
            Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx------"));
        }
        Path importDir = Files.createDirectories(home.resolve("import"));

        Runtime.getRuntime().addShutdownHook(new Thread(Launcher::stop, "kg-neo4j-shutdown"));

        long pageCache = SettingValueParsers.BYTES.parse(System.getProperty("kg.neo4j.pagecache", "64m"));

        long t0 = System.nanoTime();
        int boltPort;
        try {
            synchronized (LOCK) {
                if (stopped) return;
                dbms = new DatabaseManagementServiceBuilder(home)
                        .setConfig(Map.of(
                                BoltConnector.enabled, true,
                                BoltConnector.listen_address, new SocketAddress("127.0.0.1", port),
                                BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED,
                                HttpConnector.enabled, false,
                                HttpsConnector.enabled, false,
                                GraphDatabaseSettings.auth_enabled, true,
                                GraphDatabaseSettings.udc_enabled, false))
                        // LOAD CSV: no file URLs (and an empty import dir), no address to fetch from
                        .setConfig(Map.of(
                                GraphDatabaseSettings.allow_file_urls, false,
                                GraphDatabaseSettings.load_csv_file_url_root, importDir,
                                GraphDatabaseInternalSettings.cypher_ip_blocklist,
                                List.of(new IPAddressString("0.0.0.0/0"), new IPAddressString("::/0"))))
                        // no preallocated files: tests run beside it on a 2-core machine
                        .setConfig(Map.of(
                                GraphDatabaseSettings.pagecache_memory, pageCache,
                                GraphDatabaseSettings.pagecache_warmup_enabled, false,
                                GraphDatabaseSettings.preallocate_logical_logs, false,
                                GraphDatabaseSettings.preallocate_store_files, false,
                                GraphDatabaseSettings.keep_logical_logs, "false",
                                BoltConnector.thread_pool_max_size, 32))
                        // fast stop: defaults wait a 5 s netty quiet period + 5 s for the
                        // Bolt worker pool (~10 s per shutdown)
                        .setConfig(Map.of(
                                GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, 0,
                                GraphDatabaseInternalSettings.netty_server_shutdown_timeout, Duration.ofSeconds(2),
                                BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ofSeconds(1)))
                        .build();
            }
            // Initial password (auth on): embedded transactions run with full rights, so the
            // built-in admin command works on the system database.
            // (A reused --data dir may already have this password: Neo4j refuses "same as old".)
            try {
                dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME).executeTransactionally(
                        "ALTER USER neo4j SET PASSWORD $pw CHANGE NOT REQUIRED", Map.of("pw", password));
            } catch (RuntimeException e) {
                if (String.valueOf(e.getMessage()).contains("Old password and new password cannot be the same")) {
                    System.err.println("kg-neo4j: password unchanged (data dir reused)");
                } else {
                    throw e;
                }
            }
            GraphDatabaseAPI db = (GraphDatabaseAPI) dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
            boltPort = db.getDependencyResolver().resolveDependency(ConnectorPortRegister.class)
                    .getLocalAddress(ConnectorType.BOLT).getPort();
        } catch (Throwable e) {
            System.err.println("kg-neo4j: startup failed: " + e);
            e.printStackTrace(System.err);
            System.exit(1);
            return;
        }
        System.err.printf("kg-neo4j: ready in %d ms, home %s%n",
                Duration.ofNanos(System.nanoTime() - t0).toMillis(), home);
        OUT.println("BOLT bolt://127.0.0.1:" + boltPort);
        OUT.flush();

        if (watchStdin) {
            Thread t = new Thread(() -> {
                InputStream in = System.in;
                byte[] buf = new byte[256];
                try {
                    while (in.read(buf) >= 0) { /* discard */ }
                } catch (IOException ignored) {
                    // treat a broken stdin like EOF
                }
                System.err.println("kg-neo4j: stdin closed, shutting down");
                System.exit(0); // runs the shutdown hook
            }, "kg-neo4j-stdin-watch");
            t.setDaemon(true);
            t.start();
        }
        new CountDownLatch(1).await(); // block forever; exit via signal or stdin EOF
    }

    private static void stop() {
        synchronized (LOCK) {
            if (stopped) return;
            stopped = true;
            if (dbms != null) {
                try {
                    dbms.shutdown();
                } catch (Throwable e) {
                    System.err.println("kg-neo4j: shutdown error: " + e);
                }
            }
            if (tempHome != null) deleteTree(tempHome);
            System.err.println("kg-neo4j: stopped");
        }
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> s = Files.walk(root)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> {
                try { Files.deleteIfExists(p); } catch (IOException ignored) { }
            });
        } catch (IOException e) {
            System.err.println("kg-neo4j: could not remove " + root + ": " + e);
        }
    }

    /** The password from FILE (first line; only its owner may read it) or else $NEO4J_PASSWORD. */
    private static String readPassword(Path file) throws IOException {
        if (file == null) {
            String env = System.getenv("NEO4J_PASSWORD");
            if (env == null || env.isEmpty()) usage("set NEO4J_PASSWORD or give --password-file FILE");
            return env;
        }
        if (!Files.isRegularFile(file)) usage("no password file at " + file);
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
        for (PosixFilePermission p : perms) {
            if (p.name().startsWith("GROUP_") || p.name().startsWith("OTHERS_")) {
                usage("password file " + file + " is readable by others (mode "
                        + PosixFilePermissions.toString(perms) + "): chmod 600 it");
            }
        }
        List<String> lines = Files.readAllLines(file);
        return lines.isEmpty() ? "" : lines.get(0).strip();
    }

    private static void usage(String msg) {
        System.err.println("kg-neo4j: " + msg);
        System.err.println(USAGE);
        System.exit(2);
    }
}
