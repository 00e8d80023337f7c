package io.kvstore.kvctl;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs a request with the cluster secret the way a node signs its own (docs/OPERATIONS.md, "What each
 * secret protects"): {@code X-Kv-Date} (milliseconds since the epoch), {@code X-Kv-Content-SHA256} (the
 * base64url SHA-256 of the body, here always empty) and {@code Authorization: KV-HMAC-SHA256} with the
 * base64url HMAC-SHA256 of {@code KV-HMAC-SHA256 \n METHOD \n target \n date \n digest}. The nodes check
 * the signature; the tests check that they accept this one.
 */
final class RequestSigning {
    private static final String SCHEME = "KV-HMAC-SHA256";
    private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

    private final SecretKeySpec key;
    private final String emptyBodyDigest;

    RequestSigning(String secret) {
        this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
        try {
            this.emptyBodyDigest = BASE64URL.encodeToString(MessageDigest.getInstance("SHA-256").digest(new byte[0]));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    /** The headers of a signed request without a body, as name/value pairs. */
    String[] headers(String method, String target, long dateMillis) {
        String date = Long.toString(dateMillis);
        String signed = SCHEME + '\n' + method + '\n' + target + '\n' + date + '\n' + emptyBodyDigest;
        byte[] signature;
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            signature = mac.doFinal(signed.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no HmacSHA256", e);
        }
        return new String[] {"X-Kv-Date", date, "X-Kv-Content-SHA256", emptyBodyDigest,
            "Authorization", SCHEME + " " + BASE64URL.encodeToString(signature)};
    }
}
