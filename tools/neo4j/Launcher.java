// Tiny launcher for a real, embedded Neo4j 5.26 (community) with a Bolt port on 127.0.0.1.
//
// Run in Java source-file mode (no build step), jars fetched by pom.xml into lib/:
//
//   java $(cat tools/neo4j/jvm.flags) -cp 'tools/neo4j/lib/*' tools/neo4j/Launcher.java \
//        [--port N] [--data DIR] [--password PW] [--ignore-stdin]
//
//   --port N        Bolt port on 127.0.0.1; 0 or absent = a free port chosen by the OS.
//   --data DIR      Neo4j home/data directory, kept after exit. Absent = a fresh temp dir,
//                   deleted on exit.
//   --password PW   password of user "neo4j" (auth is enabled); >= 8 chars, default kgtestpass.
//   --ignore-stdin  do not shut down when stdin reaches EOF (for manual/background runs
//                   with stdin=/dev/null). Default: EOF on stdin => clean shutdown.
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
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
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

public class Launcher {
    private static final PrintStream OUT = System.out; // reserved for the single BOLT line
    private static final Object LOCK = new Object();
    private static DatabaseManagementService dbms;
    private static Path tempHome;
    private static volatile boolean stopped;

    public static void main(String[] args) throws Exception {
        // Neo4j (and its deps) must never write to our stdout: the parent parses it.
        System.setOut(System.err);

        int port = 0;
        Path data = null;
        String password = "kgtestpass";
        boolean watchStdin = true;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            try {
                switch (a) {
                    case "--port": port = Integer.parseInt(args[++i]); break;
                    case "--data": data = Path.of(args[++i]); break;
                    case "--password": password = args[++i]; break;
                    case "--ignore-stdin": watchStdin = false; break;
                    case "-h": case "--help":
                        System.err.println("usage: Launcher [--port N] [--data DIR] [--password PW] [--ignore-stdin]");
                        System.exit(0);
                    default: usage("unknown argument: " + a);
                }
            } catch (ArrayIndexOutOfBoundsException | NumberFormatException e) {
                usage("bad or missing value for " + a);
            }
        }
        if (port < 0 || port > 65535) usage("port out of range: " + port);
        if (password.length() < 8) usage("password must be at least 8 characters");

        Path home;
        if (data == null) {
            tempHome = Files.createTempDirectory("kg-neo4j-");
            home = tempHome;
        } else {
            Files.createDirectories(data);
            home = data.toAbsolutePath();
        }

        Runtime.getRuntime().addShutdownHook(new Thread(Launcher::stop, "kg-neo4j-shutdown"));

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
                        // small footprint: tests run beside it on a 2-core machine
                        .setConfig(Map.of(
                                GraphDatabaseSettings.pagecache_memory, 64L << 20,
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

    private static void usage(String msg) {
        System.err.println("kg-neo4j: " + msg);
        System.err.println("usage: Launcher [--port N] [--data DIR] [--password PW] [--ignore-stdin]");
        System.exit(2);
    }
}
