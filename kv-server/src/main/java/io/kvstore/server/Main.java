package io.kvstore.server;

import io.kvstore.server.config.KvServerConfig;
import io.kvstore.server.config.ServerCommand;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * The standalone server: {@code java -jar kv-server/target/kv-server.jar [options]}, the options being
 * those of {@link ServerCommand} ({@code --help} lists them). A usage error exits with status 2, a
 * start that fails (port taken, data directory locked) with 1. SIGTERM (or Ctrl-C) stops accepting,
 * finishes requests in flight, flushes and closes the store.
 */
public final class Main {
    private static final Logger LOG = LoggerFactory.getLogger(Main.class);

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        KvServerConfig config;
        try {
            config = ServerCommand.parse(args);
        } catch (ParameterException e) {
            System.err.println("error: " + e.getMessage());
            CommandLine.UnmatchedArgumentException.printSuggestions(e, System.err);
            System.err.println("run with --help for the options");
            System.exit(CommandLine.ExitCode.USAGE);
            return;
        }
        if (config == null) {
            System.out.print(ServerCommand.usage());
            return;
        }
        KvServer server;
        try {
            server = KvServer.start(config).toCompletableFuture().get();
        } catch (Exception e) {
            LOG.error("could not start: {}", e.getCause() != null ? e.getCause().toString() : e.toString());
            System.exit(1);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            LOG.info("shutting down: finishing requests in flight, then closing the store");
            try {
                server.stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                LOG.error("clean shutdown failed", e);
            } finally {
                stopped.countDown();
            }
        }, "kv-shutdown"));
        stopped.await();
    }
}
