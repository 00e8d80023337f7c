package io.kvstore.server.security;

import io.kvstore.client.internal.RequestSigning;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;

/**
 * Proof that a request comes from a node holding the cluster secret: an HMAC-SHA256, keyed with the
 * secret, over the method, the request target (path and query as sent), a timestamp and the SHA-256 of
 * the body, in the manner of AWS Signature Version 4 (docs/OPERATIONS.md#security). The secret never
 * travels, a captured request cannot be altered (another key, timestamp or body breaks the signature),
 * and it is only good for {@link #WINDOW_MILLIS} either side of its timestamp.
 *
 * <p>Headers: {@value #DATE_HEADER} (milliseconds since the epoch), {@value #CONTENT_HEADER} (base64url
 * SHA-256 of the body, of no bytes when there is none) and {@code Authorization: KV-HMAC-SHA256
 * <base64url HMAC>}. The string signed is {@code KV-HMAC-SHA256 \n METHOD \n target \n date \n digest}, computed
 * by the client's {@link RequestSigning}, which kvctl and the Java client sign with too; this class holds
 * the node's secrets and checks what it receives.
 */
public final class RequestSignature {
    public static final String SCHEME = RequestSigning.SCHEME;
    public static final String DATE_HEADER = RequestSigning.DATE_HEADER;
    public static final String CONTENT_HEADER = RequestSigning.CONTENT_HEADER;
    /**
     * How far a signature's timestamp may be from this node's clock: the nodes' clocks must agree this
     * closely (NTP keeps them within milliseconds), and a captured request is good for no longer.
     */
    public static final long WINDOW_MILLIS = 30_000;
    /** Longer Authorization values are refused unread: a signature is 60 characters. */
    static final int MAX_CREDENTIAL_CHARS = 512;
    public static final String EMPTY_BODY_DIGEST = RequestSigning.EMPTY_BODY_DIGEST;

    private final Secrets secrets;
    private final ThreadLocal<Mac[]> macs;

    public RequestSignature(Secrets secrets) {
        this.secrets = secrets;
        this.macs = ThreadLocal.withInitial(() -> {
            List<byte[]> accepted = secrets.accepted();
            Mac[] each = new Mac[accepted.size()];
            for (int i = 0; i < each.length; i++) {
                each[i] = RequestSigning.mac(accepted.get(i));
            }
            return each;
        });
    }

    /** The value of the Authorization header for this request, signed with the primary secret. */
    public String sign(String method, String target, String date, String contentDigest) {
        return SCHEME + " " + encode(RequestSigning.hmac(macs.get()[0], method, target, date, contentDigest));
    }

    /** Whether {@code signature} (the base64url part) was made with any accepted secret, in constant time. */
    boolean verify(String method, String target, String date, String contentDigest, String signature) {
        byte[] presented;
        try {
            presented = Base64.getUrlDecoder().decode(signature);
        } catch (IllegalArgumentException e) {
            return false;
        }
        boolean valid = false;
        for (Mac mac : macs.get()) {
            valid |= MessageDigest.isEqual(RequestSigning.hmac(mac, method, target, date, contentDigest), presented);
        }
        return valid;
    }

    Secrets secrets() {
        return secrets;
    }

    /** Base64url SHA-256 of {@code body}. */
    public static String digest(byte[] body) {
        return RequestSigning.digest(body);
    }

    /** A fresh SHA-256 digest, for a body that arrives in pieces. */
    public static MessageDigest newDigest() {
        return RequestSigning.newDigest();
    }

    static String encode(byte[] bytes) {
        return RequestSigning.encode(bytes);
    }
}
