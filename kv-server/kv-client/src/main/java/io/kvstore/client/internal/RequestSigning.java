package io.kvstore.client.internal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The one computation of the cluster's request signature, shared by the nodes (which make and check it),
 * the Java client and kvctl (which make it): an HMAC-SHA256, keyed with the cluster secret, over
 * {@code KV-HMAC-SHA256 \n METHOD \n target \n date \n digest}, where the target is the path and query
 * as sent, the date milliseconds since the epoch ({@value #DATE_HEADER}) and the digest the base64url
 * SHA-256 of the body ({@value #CONTENT_HEADER}, of no bytes for none); the header
 * {@code Authorization: KV-HMAC-SHA256 <base64url HMAC>} carries it (docs/OPERATIONS.md#security).
 * An instance signs with one secret; it is thread-safe.
 */
public final class RequestSigning {
    public static final String SCHEME = "KV-HMAC-SHA256";
    public static final String DATE_HEADER = "X-Kv-Date";
    public static final String CONTENT_HEADER = "X-Kv-Content-SHA256";
    private static final String HMAC = "HmacSHA256";
    private static final MessageDigest SHA256 = sha256();
    public static final String EMPTY_BODY_DIGEST = digest(new byte[0]);

    private final ThreadLocal<Mac> mac;

    /** Signs with {@code secret}, the bytes of one line of the cluster's secret file. */
    public RequestSigning(byte[] secret) {
        byte[] key = secret.clone();
        this.mac = ThreadLocal.withInitial(() -> mac(key));
    }

    /** The headers of a request signed at {@code dateMillis}, as name/value pairs; {@code digest} is its body's. */
    public String[] headers(String method, String target, long dateMillis, String digest) {
        String date = Long.toString(dateMillis);
        return new String[] {DATE_HEADER, date, CONTENT_HEADER, digest, "Authorization", authorization(method, target, date, digest)};
    }

    /** The value of the Authorization header of this request. */
    public String authorization(String method, String target, String date, String digest) {
        return SCHEME + " " + encode(hmac(mac.get(), method, target, date, digest));
    }

    /** The HMAC of a request with {@code mac} (keyed with a secret by {@link #mac}), for a node to compare. */
    public static byte[] hmac(Mac mac, String method, String target, String date, String digest) {
        String signed = SCHEME + '\n' + method + '\n' + target + '\n' + date + '\n' + digest;
        return mac.doFinal(signed.getBytes(StandardCharsets.UTF_8));
    }

    /** An HMAC-SHA256 keyed with {@code key}; not thread-safe. */
    public static Mac mac(byte[] key) {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(key, HMAC));
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no " + HMAC, e);
        }
    }

    /** Base64url SHA-256 of {@code body}. */
    public static String digest(byte[] body) {
        return encode(newDigest().digest(body));
    }

    /** A fresh SHA-256 digest, for a body that arrives in pieces. */
    public static MessageDigest newDigest() {
        try {
            return (MessageDigest) SHA256.clone();
        } catch (CloneNotSupportedException e) {
            return sha256();
        }
    }

    /** Base64url without padding, as the signature's parts are written. */
    public static String encode(byte[] bytes) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}
