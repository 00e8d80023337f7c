package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.File;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The web console in a real headless browser (the system's chromium, through its chromedriver): the page
 * loads with no console error under its Content-Security-Policy, lists the cluster's nodes, and its rate
 * chart moves under load. Skipped when chromium or chromedriver is missing, unless
 * {@code KV_REQUIRE_BROWSER=1} (as CI sets), which makes their absence a failure.
 */
@Tag("slow")
class ConsoleBrowserTest {
    private static final String CLIENT_TOKEN = "console-browser-client-token";
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;
    private TestCluster cluster;
    private ChromeDriver browser;

    @BeforeEach
    void needsABrowser() {
        Path chromium = onPath("chromium");
        Path driver = onPath("chromedriver");
        String missing = chromium == null ? "chromium" : driver == null ? "chromedriver" : null;
        if ("1".equals(System.getenv("KV_REQUIRE_BROWSER"))) {
            assertNull(missing, "KV_REQUIRE_BROWSER=1 but " + missing + " is not on the PATH");
        } else {
            assumeTrue(missing == null, missing + " is not on the PATH (apt-get install chromium chromium-driver)");
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1400,1500", "--no-first-run", "--disable-extensions");
        options.setAcceptInsecureCerts(true);
        options.setCapability("goog:loggingPrefs", Map.of(LogType.BROWSER, "ALL"));
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(driver.toFile())
                .usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
    }

    @AfterEach
    void stop() throws Exception {
        if (browser != null) {
            browser.quit();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void showsThreeNodesAndTheirRateUnderLoad() throws Exception {
        cluster = new TestCluster(dir, 3);
        browser.get(cluster.url(0) + "/ui");
        // The page redraws its tables and charts on every refresh: an element found may be gone when read.
        WebDriverWait wait = new WebDriverWait(browser, WAIT);
        wait.ignoring(StaleElementReferenceException.class);
        wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#nodes tbody tr"), 3));
        List<String> shown = wait.until(page -> browser.findElements(By.cssSelector("#nodes tbody tr")).stream()
                .map(row -> row.getDomAttribute("data-node")).collect(Collectors.toList()));
        assertEquals(List.of(cluster.url(0), cluster.url(1), cluster.url(2)), shown);
        wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#share-chart rect"), 3));
        String idleChart = wait.until(page -> chartPoints());
        AtomicBoolean loading = new AtomicBoolean(true);
        Thread load = new Thread(() -> {
            for (int i = 0; loading.get(); i++) {
                try {
                    // Half the writes through the first node, a third through the second: three rates.
                    cluster.put(i % 6 < 3 ? 0 : i % 6 < 5 ? 1 : 2, "id=browser" + (i % 500), "v" + i);
                } catch (Exception e) {
                    return;
                }
            }
        }, "console-load");
        load.start();
        try {
            wait.until(page -> browser.findElements(By.cssSelector("#nodes td.rate")).stream()
                    .anyMatch(cell -> rate(cell) > 0));
            wait.until(page -> !chartPoints().equals(idleChart));
            // A few more refreshes, so the chart shows a line, and the operations table the writes.
            wait.until(page -> browser.findElements(By.cssSelector("#rate-chart polyline")).stream()
                    .allMatch(line -> line.getDomAttribute("points").split(" ").length >= 6));
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("operations"), "PUT /v0/entity"));
            File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
            Files.copy(shot.toPath(), Path.of("target", "console.png"), StandardCopyOption.REPLACE_EXISTING);
        } finally {
            loading.set(false);
            load.join();
        }
        // A member replaced by a server answering markup: shown unreachable, its answer shown as text.
        cluster.stop(2);
        String markup = "<img src=x onerror=\"document.title='injected'\"><b id=injected>bold</b>";
        HttpServer impostor = HttpServer.create(new InetSocketAddress("127.0.0.1", URI.create(cluster.url(2)).getPort()), 0);
        impostor.createContext("/", exchange -> {
            byte[] body = markup.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/html");
            exchange.sendResponseHeaders(500, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        impostor.start();
        try {
            String title = browser.getTitle();
            By third = By.cssSelector("#nodes tbody tr:nth-child(3) td:first-child");
            wait.until(page -> browser.findElement(third).getDomAttribute("title").contains(markup));
            assertTrue(browser.findElement(By.id("nodes")).getText().contains("unreachable"));
            assertEquals(title, browser.getTitle());
            assertEquals(0, browser.findElements(By.cssSelector("main img, #injected")).size());
        } finally {
            impostor.stop(0);
        }
        assertNoSevereLog();
    }

    @Test
    void asksForTheTokenKeepsItForTheTabAndRunsAnAdminActionAfterConfirmation() throws Exception {
        TestCertificates pki = TestCertificates.shared();
        Path secret = SecurityTest.secretFile(dir, "secret", "0123456789abcdef0123456789abcdef");
        Path client = SecurityTest.secretFile(dir, "client", CLIENT_TOKEN);
        Path admin = SecurityTest.secretFile(dir, "admin", SecurityTest.ADMIN_TOKEN);
        cluster = new TestCluster(dir, 2, b -> b.security(s -> s.tls(pki.nodeCert, pki.nodeKey).tlsCa(pki.caPem).clusterSecretFile(secret)
                .clientTokenFile(client).adminTokenFile(admin)), pki.trustingClient());
        assertTrue(cluster.url(0).startsWith("https://"));
        browser.get(cluster.url(0) + "/ui");
        WebDriverWait wait = new WebDriverWait(browser, WAIT);
        wait.ignoring(StaleElementReferenceException.class);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "access token"));
        browser.findElement(By.id("client-token")).sendKeys(CLIENT_TOKEN);
        browser.findElement(By.id("admin-token")).sendKeys(SecurityTest.ADMIN_TOKEN);
        browser.findElement(By.cssSelector("#tokens button[type=submit]")).click();
        wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#nodes tbody tr"), 2));
        wait.until(page -> !browser.findElement(By.id("nodes")).getText().contains("unreachable"));
        JavascriptExecutor js = browser;
        assertEquals(CLIENT_TOKEN, js.executeScript("return sessionStorage.getItem('kv-console-client-token')"));
        assertEquals(0L, js.executeScript("return localStorage.length"));
        browser.findElement(By.id("repair")).click();
        wait.until(ExpectedConditions.alertIsPresent()).dismiss();
        assertTrue(!browser.findElement(By.id("message")).getText().contains("/v0/admin/repair"), "dismissed: nothing sent");
        browser.findElement(By.id("repair")).click();
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "POST /v0/admin/repair: 200"));
        assertNotEquals("", browser.findElement(By.id("summary")).getText());
        // The browser reports the 401 that made the page ask for the token; nothing else.
        assertNoSevereLog("/v0/console - Failed to load resource: the server responded with a status of 401");
    }

    private String chartPoints() {
        return browser.findElements(By.cssSelector("#rate-chart polyline")).stream()
                .map(line -> line.getDomAttribute("points")).collect(Collectors.joining("|"));
    }

    private static double rate(WebElement cell) {
        String rate = cell.getDomAttribute("data-rate");
        return rate == null || rate.isEmpty() ? 0 : Double.parseDouble(rate);
    }

    /** Fails on any error the page's console logged, but those containing one of {@code expected}. */
    private void assertNoSevereLog(String... expected) {
        List<LogEntry> severe = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(entry -> entry.getLevel().intValue() >= Level.SEVERE.intValue())
                .filter(entry -> Arrays.stream(expected).noneMatch(entry.getMessage()::contains))
                .collect(Collectors.toList());
        assertEquals(List.of(), severe.stream().map(LogEntry::getMessage).collect(Collectors.toList()));
    }

    /** The executable {@code name} on the PATH, or null. */
    private static Path onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String directory : path.split(File.pathSeparator)) {
            Path candidate = Path.of(directory, name);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }
}
